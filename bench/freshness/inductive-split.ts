import fs from 'node:fs';
import path from 'node:path';
import { seededRandom } from '../../src/seeded-random';

/** A triple of names. */
export type Named = [string, string, string];

/** The inductive split of one graph (all of train, valid and test pooled). */
export interface InductiveSplit {
  /** Entities kept (the model trains on these). */
  known: string[];
  /** Held-out entities (10%), each folded in from its ingested edges. */
  heldOut: string[];
  /** Triples among known entities: the reduced graph's train and valid splits. */
  train: Named[];
  valid: Named[];
  /** Triples among known entities from test.txt: what the fold-in must not harm. */
  knownTest: Named[];
  /** Held-out entities' edges that reach the model: all but the test edges. */
  ingested: Named[];
  /** Held-out entities' edges to known entities kept back for scoring. */
  test: Named[];
  /** Every triple of the graph (for filtering). */
  all: Named[];
}

function shuffled<T>(items: T[], next: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function readTriples(file: string): Named[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => line.split('\t') as Named);
}

/**
 * Holds out `share` of the entities (seeded) with all their edges. Known-known triples keep
 * their split (train, valid, and test as `knownTest`). Each held-out entity's edges to known
 * entities are shuffled and `testShare` of them (at least one where it has two or more) become
 * test edges; all its other edges, including those to other held-out entities, are ingested.
 */
export function inductiveSplit(
  dir: string,
  seed: number,
  share = 0.1,
  testShare = 0.2,
): InductiveSplit {
  const parts = ['train', 'valid', 'test'].map((s) => readTriples(path.join(dir, `${s}.txt`)));
  const all = parts.flat();
  const names = [...new Set(all.flatMap(([h, , t]) => [h, t]))].sort();
  const next = seededRandom(seed);
  const heldOut = new Set(shuffled(names, next).slice(0, Math.round(share * names.length)));
  const known = names.filter((e) => !heldOut.has(e));
  const isKnown = (e: string) => !heldOut.has(e);
  const among = (p: Named[] | undefined) =>
    (p ?? []).filter(([h, , t]) => isKnown(h) && isKnown(t));
  const edgesOf = new Map<string, Named[]>();
  for (const t of all) {
    const [h, , tail] = t;
    if (isKnown(h) && isKnown(tail)) continue;
    const owner = heldOut.has(h) ? h : tail;
    if (!edgesOf.has(owner)) edgesOf.set(owner, []);
    edgesOf.get(owner)!.push(t);
  }
  const ingested: Named[] = [];
  const test: Named[] = [];
  for (const entity of [...heldOut].sort()) {
    const edges = edgesOf.get(entity) ?? [];
    const toKnown = shuffled(
      edges.filter(([h, , t]) => isKnown(h) || isKnown(t)),
      next,
    );
    const k = toKnown.length >= 2 ? Math.max(1, Math.round(testShare * toKnown.length)) : 0;
    const held = new Set(toKnown.slice(0, k));
    test.push(...held);
    // An edge between two held-out entities is listed under its head only.
    ingested.push(...edges.filter((e) => !held.has(e)));
  }
  return {
    known,
    heldOut: [...heldOut].sort(),
    train: among(parts[0]),
    valid: among(parts[1]),
    knownTest: among(parts[2]),
    ingested,
    test,
    all,
  };
}

/**
 * The held-out entities in two seeded halves: `validation` chooses fold-in settings, `test`
 * reports the chosen one (so no reported number chose its own setting).
 */
export function heldOutHalves(split: InductiveSplit, seed: number) {
  const order = shuffled(split.heldOut, seededRandom(seed + 1_000_003));
  const half = Math.ceil(order.length / 2);
  return { validation: new Set(order.slice(0, half)), test: new Set(order.slice(half)) };
}
