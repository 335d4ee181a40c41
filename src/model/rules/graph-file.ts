import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode, KgcError } from '../../errors';
import { TURN_CHECK_EVERY } from '../../event-loop-turns';
import type { EventLoopTurns } from '../../event-loop-turns';

/**
 * A version's graph (the edges it was trained and mined from) in the model's ids, for reasons
 * served from memory. Layout, little-endian:
 *   0  "KGCGRAPH"      8 bytes
 *   8  format          u32 (GRAPH_FORMAT)
 *   12 entities        u32 (the model's entity count)
 *   16 relations       u32 (the model's relation count)
 *   20 edges           u32
 *   24 vocabulary      8 bytes: the first bytes of vocabularyChecksum (ids of this model only)
 *   32 heads           i32 x edges, then relations i32 x edges, then tails i32 x edges
 */
export const GRAPH_FILE = 'graph.bin';
export const GRAPH_FORMAT = 1;
const MAGIC = 'KGCGRAPH';
const HEADER_BYTES = 32;
const CHECKSUM_BYTES = 8;

/** A model's vocabularies, in its id order. */
export interface Vocabulary {
  entities: readonly string[];
  relations: readonly string[];
}

/** Edges as id columns. */
export interface EdgeColumns {
  heads: Int32Array;
  relations: Int32Array;
  tails: Int32Array;
}

/** sha256 of the vocabularies (length-prefixed names, so no two vocabularies share a text). */
export async function vocabularyChecksum(
  vocabulary: Vocabulary,
  turns?: EventLoopTurns,
): Promise<Buffer> {
  const hash = crypto.createHash('sha256');
  for (const names of [vocabulary.entities, ['\n'], vocabulary.relations]) {
    for (let i = 0; i < names.length; i += TURN_CHECK_EVERY) {
      const chunk = names.slice(i, i + TURN_CHECK_EVERY);
      hash.update(chunk.map((name) => `${name.length}:${name}`).join(''));
      await turns?.maybeTurn();
    }
  }
  return hash.digest().subarray(0, CHECKSUM_BYTES);
}

export async function writeGraphFile(
  dir: string,
  vocabulary: Vocabulary,
  edges: EdgeColumns,
): Promise<void> {
  const count = edges.heads.length;
  const header = Buffer.alloc(HEADER_BYTES);
  header.write(MAGIC, 0, 'latin1');
  header.writeUInt32LE(GRAPH_FORMAT, 8);
  header.writeUInt32LE(vocabulary.entities.length, 12);
  header.writeUInt32LE(vocabulary.relations.length, 16);
  header.writeUInt32LE(count, 20);
  (await vocabularyChecksum(vocabulary)).copy(header, 24);
  const column = (a: Int32Array) => Buffer.from(a.buffer, a.byteOffset, count * 4);
  fs.writeFileSync(
    path.join(dir, GRAPH_FILE),
    Buffer.concat([header, column(edges.heads), column(edges.relations), column(edges.tails)]),
  );
}

function invalid(dir: string, why: string): KgcError {
  return new KgcError(
    ErrorCode.MODEL_INVALID,
    `${GRAPH_FILE} of model ${path.basename(dir)} ${why}: retrain, or delete the file to read reasons from the graph directly.`,
  );
}

/**
 * The version's edges, or undefined when the directory has no graph file (older versions, and
 * models not made by the retrain job): their reasons are read from Neo4j directly. A file that
 * is not this model's graph is refused with MODEL_INVALID.
 */
export async function readGraphFile(
  dir: string,
  vocabulary: Vocabulary,
  turns?: EventLoopTurns,
): Promise<EdgeColumns | undefined> {
  const file = path.join(dir, GRAPH_FILE);
  if (!fs.existsSync(file)) return undefined;
  const read = await fs.promises.readFile(file);
  if (read.length < HEADER_BYTES || read.toString('latin1', 0, 8) !== MAGIC) {
    throw invalid(dir, 'is not a kgc graph file');
  }
  const format = read.readUInt32LE(8);
  if (format !== GRAPH_FORMAT) throw invalid(dir, `has format ${format}, not ${GRAPH_FORMAT}`);
  const [entities, relations, count] = [12, 16, 20].map((at) => read.readUInt32LE(at)) as [
    number,
    number,
    number,
  ];
  if (read.length !== HEADER_BYTES + 12 * count) throw invalid(dir, 'is truncated');
  const checksum = await vocabularyChecksum(vocabulary, turns);
  if (
    entities !== vocabulary.entities.length ||
    relations !== vocabulary.relations.length ||
    !checksum.equals(read.subarray(24, HEADER_BYTES))
  ) {
    throw invalid(dir, "was written for another vocabulary than the model's");
  }
  // A fresh, aligned copy: the columns are Int32Array views of it.
  const bytes = new Uint8Array(read.length - HEADER_BYTES);
  bytes.set(read.subarray(HEADER_BYTES));
  const column = (i: number) => new Int32Array(bytes.buffer, i * count * 4, count);
  const edges = { heads: column(0), relations: column(1), tails: column(2) };
  const inRange = (id: number | undefined, size: number) =>
    id !== undefined && id >= 0 && id < size;
  for (let i = 0; i < count; i++) {
    if (
      !inRange(edges.heads[i], entities) ||
      !inRange(edges.tails[i], entities) ||
      !inRange(edges.relations[i], relations)
    ) {
      throw invalid(dir, `holds an id out of range at edge ${i}`);
    }
    if (i % (64 * TURN_CHECK_EVERY) === 0) await turns?.maybeTurn();
  }
  return edges;
}
