import crypto from 'node:crypto';
import { EventLoopTurns, TURN_CHECK_EVERY } from '../event-loop-turns';
import type { DenseGraph } from './dense-graph';

export { hasKey } from '../sorted-keys';

/**
 * Per-triple hashes of a DenseGraph, from sha1(head \0 relation \0 tail) of the ids as strings:
 * they depend on the triple alone, never on the rest of the graph or its dense ids.
 * `keys[i]` (48 bits, exact in a double) identifies triple i across snapshots: model versions
 * store sorted keys to tell which edges they saw and trained on. `mix[i]` (32 other bits) feeds
 * the seeded split.
 */
export interface TripleKeys {
  keys: Float64Array;
  mix: Uint32Array;
}

export function tripleKey(head: string, relation: string, tail: string): Buffer {
  return crypto.createHash('sha1').update(`${head}\u0000${relation}\u0000${tail}`).digest();
}

export function tripleKeys(graph: DenseGraph): TripleKeys {
  const out = {
    keys: new Float64Array(graph.heads.length),
    mix: new Uint32Array(graph.heads.length),
  };
  fillKeys(graph, out, 0, graph.heads.length);
  return out;
}

/**
 * tripleKeys that gives the event loop a turn every slice: hashing is the job's longest
 * synchronous loop (a minute or more on 20M edges), longer than the lease could wait.
 */
export async function tripleKeysPaced(
  graph: DenseGraph,
  turns = new EventLoopTurns(),
): Promise<TripleKeys> {
  const n = graph.heads.length;
  const out = { keys: new Float64Array(n), mix: new Uint32Array(n) };
  for (let from = 0; from < n; from += TURN_CHECK_EVERY) {
    fillKeys(graph, out, from, Math.min(n, from + TURN_CHECK_EVERY));
    await turns.maybeTurn();
  }
  return out;
}

function fillKeys(graph: DenseGraph, { keys, mix }: TripleKeys, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const digest = tripleKey(
      graph.entities[graph.heads[i] as number] as string,
      graph.relationNames[graph.relations[i] as number] as string,
      graph.entities[graph.tails[i] as number] as string,
    );
    keys[i] = digest.readUIntBE(0, 6);
    mix[i] = digest.readUInt32BE(8);
  }
}

/** Sorted copy of the keys of `indexes` (all triples when omitted). */
export function sortedKeys(keys: Float64Array, indexes?: Int32Array): Float64Array {
  const out = indexes ? Float64Array.from(indexes, (i) => keys[i] as number) : keys.slice();
  return out.sort();
}

/** Size of the symmetric difference of two sorted key sets: edges added plus edges removed. */
export function changedKeys(a: Float64Array, b: Float64Array): number {
  let i = 0;
  let j = 0;
  let changed = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x === y) {
      i++;
      j++;
    } else if (x < y) {
      changed++;
      i++;
    } else {
      changed++;
      j++;
    }
  }
  return changed + (a.length - i) + (b.length - j);
}

/** sha256 over the sorted keys: equal for the same set of edges, whatever the export order. */
export function fingerprint(sorted: Float64Array): string {
  return crypto
    .createHash('sha256')
    .update(Buffer.from(sorted.buffer, sorted.byteOffset, sorted.byteLength))
    .digest('hex');
}
