import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode, KgcError } from '../../errors';
import { seededRandom } from '../../seeded-random';

/**
 * A version's canary for fold-in (fold-in-canary.ts): a fixed sample of its held-out edges
 * between entities it knows, in its ids. `{ "format": 1, "edges": [[h, r, t], ...] }`.
 */
export const CANARY_FILE = 'canary.json';
export const CANARY_FORMAT = 1;
/**
 * Held-out edges a version keeps for its canary: two halves of 1,000 (fold-in-canary.ts), each
 * 2,000 questions, enough to see a change of a few thousandths in MRR.
 */
export const CANARY_EDGES = 2000;
/** Far above 2,000 edges' JSON: a larger file is not a canary. */
const MAX_BYTES = 1 << 20;

/** Writes a seeded sample of `edges` (flat [h, r, t, ...], model ids) as the version's canary. */
export function writeCanaryFile(dir: string, edges: ArrayLike<number>, seed: number): void {
  const count = Math.floor(edges.length / 3);
  if (count === 0) return;
  const order = Array.from({ length: count }, (_, i) => i);
  const next = seededRandom(seed);
  for (let i = count - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  const picked = order
    .slice(0, CANARY_EDGES)
    .map((i) => [edges[3 * i], edges[3 * i + 1], edges[3 * i + 2]] as number[]);
  fs.writeFileSync(
    path.join(dir, CANARY_FILE),
    JSON.stringify({ format: CANARY_FORMAT, edges: picked }),
  );
}

/**
 * The version's canary edges (flat [h, r, t, ...]), checked against its vocabulary sizes;
 * undefined when the directory has none (older versions). A file that is too large, not of
 * this format, or names an id out of range is MODEL_INVALID.
 */
export function readCanaryFile(
  dir: string,
  entities: number,
  relations: number,
): Uint32Array | undefined {
  const file = path.join(dir, CANARY_FILE);
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch {
    return undefined;
  }
  const invalid = (why: string) =>
    new KgcError(
      ErrorCode.MODEL_INVALID,
      `${CANARY_FILE} of model ${path.basename(dir)} ${why}: delete it (fold-in then checks against a sample of the version's graph).`,
    );
  if (size > MAX_BYTES) throw invalid(`is ${size} bytes (at most ${MAX_BYTES})`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    throw invalid('is not JSON');
  }
  const body = parsed as { format?: unknown; edges?: unknown };
  if (body?.format !== CANARY_FORMAT || !Array.isArray(body.edges)) {
    throw invalid(`is not format ${CANARY_FORMAT} with an edges list`);
  }
  const out = new Uint32Array(body.edges.length * 3);
  body.edges.forEach((edge: unknown, i: number) => {
    const ok =
      Array.isArray(edge) &&
      edge.length === 3 &&
      edge.every((x) => Number.isInteger(x) && x >= 0) &&
      (edge[0] as number) < entities &&
      (edge[1] as number) < relations &&
      (edge[2] as number) < entities;
    if (!ok) throw invalid(`edge ${i} is not [head, relation, tail] in the model's ids`);
    out.set(edge as number[], 3 * i);
  });
  return out;
}
