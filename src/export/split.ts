import { seededRandom } from '../seeded-random';
import type { DenseGraph } from './dense-graph';

export interface SplitOptions {
  seed: number;
  /** Fractions of all triples, each in [0, 1), summing below 1. */
  validFraction: number;
  testFraction: number;
}

/** Triple indexes into a DenseGraph's columns, each part ascending. */
export interface SplitIndexes {
  train: Int32Array;
  valid: Int32Array;
  test: Int32Array;
}

/**
 * A deterministic train/valid/test split: the same graph and seed give the same parts (the
 * graph's triples are already in canonical order). Shuffle, then walk the shuffled triples and
 * keep in train every triple that brings an entity or relation not yet in train: that covers
 * every entity and relation, so valid and test never name one that train lacks. The remaining
 * triples fill test, then valid, up to their fractions; the rest go to train. When the cover
 * leaves too few triples, valid and test come out smaller than asked ("where possible").
 */
export function splitTriples(graph: DenseGraph, options: SplitOptions): SplitIndexes {
  const n = graph.heads.length;
  const next = seededRandom(options.seed);
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    const tmp = order[i] as number;
    order[i] = order[j] as number;
    order[j] = tmp;
  }
  const entityCovered = new Uint8Array(graph.entities.length);
  const relationCovered = new Uint8Array(graph.relationNames.length);
  const part = new Uint8Array(n); // 0 train, 1 valid, 2 test, 3 undecided
  const pool: number[] = [];
  for (const i of order) {
    const h = graph.heads[i] as number;
    const r = graph.relations[i] as number;
    const t = graph.tails[i] as number;
    if (!entityCovered[h] || !entityCovered[t] || !relationCovered[r]) {
      entityCovered[h] = entityCovered[t] = relationCovered[r] = 1;
    } else {
      part[i] = 3;
      pool.push(i);
    }
  }
  let wantTest = Math.round(options.testFraction * n);
  let wantValid = Math.round(options.validFraction * n);
  for (const i of pool) {
    if (wantTest > 0) {
      part[i] = 2;
      wantTest -= 1;
    } else if (wantValid > 0) {
      part[i] = 1;
      wantValid -= 1;
    } else part[i] = 0;
  }
  const collect = (p: number) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) if (part[i] === p) out.push(i);
    return Int32Array.from(out);
  };
  return { train: collect(0), valid: collect(1), test: collect(2) };
}
