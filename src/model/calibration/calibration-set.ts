import { seededRandom } from '../../seeded-random';
import { hasKey } from '../../sorted-keys';

/** Where an example of a set came from (CalibrationSet.sources). */
export const POSITIVE_SOURCE = 0;
export const REJECTED_SOURCE = 1;
const RANGE_SOURCE = 2;
const UNIFORM_SOURCE = 3;

/** How many examples of each kind a set holds (both directions together). */
export interface NegativeMix {
  positives: number;
  /** People's rejections of the relation (each scored in both directions). */
  rejected: number;
  /** Corruptions drawn from the relation's observed range (tails; heads for the head direction). */
  range: number;
  uniform: number;
  /** Range draws that found no unseen entity and were drawn uniformly instead. */
  rangeExhausted: number;
  /** Rejections left out because the edge is in the snapshot now. */
  rejectedNowKnown: number;
}

/**
 * Examples in the edge's own orientation (head, relation, tail); `direction` 1 means the example
 * is scored as the head direction, (tail, reverse(relation), head).
 */
export interface CalibrationSet {
  heads: Uint32Array;
  relations: Uint32Array;
  tails: Uint32Array;
  directions: Uint8Array;
  labels: Uint8Array;
  /** Negatives of a (relation, direction) weigh P / |negatives| each: a 1:1 balance in weight. */
  weights: Float64Array;
  sources: Uint8Array;
  mix: NegativeMix;
}

export interface CalibrationSetInput {
  entities: number;
  relations: number;
  /** Flat [h, r, t, ...]: every edge of the snapshot (never drawn as a negative). */
  known: Uint32Array;
  /** Flat held-out edges: the positives. */
  positives: Uint32Array;
  /** Flat rejected predictions: negatives as they are. */
  rejected: Uint32Array;
  /** Keys (tripleKey) of negatives another set used: never drawn again. */
  exclude?: Set<number>;
  seed: number;
}

/** One number per (h, r, t); exact below 2^53 (10^6 entities x 10^3 relations x 10^6). */
export function tripleKey(
  h: number,
  r: number,
  t: number,
  relations: number,
  entities: number,
): number {
  return (h * relations + r) * entities + t;
}

/** The entities seen as tails (answers of the tail direction) and heads, per relation. */
function observed(known: Uint32Array, relations: number): { tails: number[][]; heads: number[][] } {
  const tails = Array.from({ length: relations }, () => new Set<number>());
  const heads = Array.from({ length: relations }, () => new Set<number>());
  for (let i = 0; i < known.length; i += 3) {
    heads[known[i + 1] as number]!.add(known[i] as number);
    tails[known[i + 1] as number]!.add(known[i + 2] as number);
  }
  return { tails: tails.map((s) => [...s]), heads: heads.map((s) => [...s]) };
}

/**
 * Positives (held-out edges) and negatives for each direction: every rejection, then one
 * corruption per positive (the answer replaced), alternately from the relation's observed
 * range and uniformly, never a known edge, a rejection or an excluded key. Seeded.
 */
export function buildCalibrationSet(input: CalibrationSetInput): CalibrationSet {
  const { entities: N, relations: R } = input;
  const key = (h: number, r: number, t: number) => tripleKey(h, r, t, R, N);
  // Every snapshot edge: tens of millions at scale, so sorted keys, not a Set.
  const knownKeys = new Float64Array(input.known.length / 3);
  for (let i = 0; i < input.known.length; i += 3)
    knownKeys[i / 3] = key(input.known[i]!, input.known[i + 1]!, input.known[i + 2]!);
  knownKeys.sort();
  const used = new Set<number>();
  for (let i = 0; i < input.rejected.length; i += 3)
    used.add(key(input.rejected[i]!, input.rejected[i + 1]!, input.rejected[i + 2]!));
  const range = observed(input.known, R);
  const random = seededRandom(input.seed);
  const rows: { h: number; r: number; t: number; d: number; label: number; source: number }[] = [];
  const mix: NegativeMix = {
    positives: 0,
    rejected: 0,
    range: 0,
    uniform: 0,
    rangeExhausted: 0,
    rejectedNowKnown: 0,
  };
  for (let i = 0; i < input.rejected.length; i += 3) {
    const [h, r, t] = [input.rejected[i]!, input.rejected[i + 1]!, input.rejected[i + 2]!];
    if (hasKey(knownKeys, key(h, r, t))) {
      mix.rejectedNowKnown++;
      continue;
    }
    for (const d of [0, 1]) rows.push({ h, r, t, d, label: 0, source: REJECTED_SOURCE });
    mix.rejected += 2;
  }
  const free = (k: number) =>
    !hasKey(knownKeys, k) && !used.has(k) && !(input.exclude?.has(k) ?? false);
  let alternate = 0;
  for (let i = 0; i < input.positives.length; i += 3) {
    const [h, r, t] = [input.positives[i]!, input.positives[i + 1]!, input.positives[i + 2]!];
    for (const d of [0, 1]) {
      rows.push({ h, r, t, d, label: 1, source: POSITIVE_SOURCE });
      mix.positives++;
      const pool = d === 0 ? range.tails[r]! : range.heads[r]!;
      const fromRange = alternate++ % 2 === 0;
      const draw = (uniform: boolean): number | null => {
        for (let attempt = 0; attempt < 30; attempt++) {
          const e = uniform ? Math.floor(random() * N) : pool[Math.floor(random() * pool.length)]!;
          const k = d === 0 ? key(h, r, e) : key(e, r, t);
          if (free(k)) {
            used.add(k);
            return e;
          }
        }
        return null;
      };
      let e = fromRange ? draw(false) : null;
      let source = RANGE_SOURCE;
      if (e === null) {
        if (fromRange) mix.rangeExhausted++;
        e = draw(true);
        source = UNIFORM_SOURCE;
      }
      if (e === null) continue;
      if (source === RANGE_SOURCE) mix.range++;
      else mix.uniform++;
      rows.push(
        d === 0 ? { h, r, t: e, d, label: 0, source } : { h: e, r, t, d, label: 0, source },
      );
    }
  }
  return toArrays(rows, mix);
}

function toArrays(
  rows: { h: number; r: number; t: number; d: number; label: number; source: number }[],
  mix: NegativeMix,
): CalibrationSet {
  const n = rows.length;
  const set: CalibrationSet = {
    heads: new Uint32Array(n),
    relations: new Uint32Array(n),
    tails: new Uint32Array(n),
    directions: new Uint8Array(n),
    labels: new Uint8Array(n),
    weights: new Float64Array(n).fill(1),
    sources: new Uint8Array(n),
    mix,
  };
  const positives = new Map<number, number>();
  const negatives = new Map<number, number>();
  rows.forEach((row, i) => {
    set.heads[i] = row.h;
    set.relations[i] = row.r;
    set.tails[i] = row.t;
    set.directions[i] = row.d;
    set.labels[i] = row.label;
    set.sources[i] = row.source;
    const group = row.r * 2 + row.d;
    const counts = row.label ? positives : negatives;
    counts.set(group, (counts.get(group) ?? 0) + 1);
  });
  rows.forEach((row, i) => {
    if (row.label) return;
    const group = row.r * 2 + row.d;
    const p = positives.get(group) ?? 0;
    if (p > 0) set.weights[i] = p / (negatives.get(group) as number);
  });
  return set;
}

/** The keys of a set's negatives, to exclude from a later set. */
export function negativeKeys(
  set: CalibrationSet,
  relations: number,
  entities: number,
): Set<number> {
  const keys = new Set<number>();
  for (let i = 0; i < set.labels.length; i++)
    if (!set.labels[i])
      keys.add(tripleKey(set.heads[i]!, set.relations[i]!, set.tails[i]!, relations, entities));
  return keys;
}
