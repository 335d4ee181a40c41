import type { DenseGraph } from './dense-graph';
import type { SplitIndexes } from './split';
import type { TripleKeys } from './triple-keys';

export interface StableSplitOptions {
  seed: number;
  /** Share of the edges held out (valid + test) on graphs below the cap. */
  heldOutFraction: number;
  /** Held-out edges stay at or below about this many on large graphs (see `heldOutRate`). */
  maxHeldOut: number;
}

export const DEFAULT_STABLE_SPLIT: StableSplitOptions = {
  seed: 1,
  heldOutFraction: 0.05,
  maxHeldOut: 20_000,
};

export interface StableSplit extends SplitIndexes {
  /** The threshold used: an edge is held out when its seeded hash falls below it. */
  heldOutRate: number;
  /** Held-out edges kept in train because they alone bring an entity or relation. */
  movedToTrain: number;
}

/** murmur3's 32-bit finaliser: a cheap, well-mixed bijection. */
function fmix32(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * The held-out threshold for a graph of `triples` edges: `heldOutFraction / 2^k` with the
 * smallest k >= 0 that keeps the expected held-out count at or below `maxHeldOut`. Halving (not
 * `maxHeldOut / triples`) keeps the held-out sets nested: when a graph grows past a cap step,
 * the edges still held out are a subset of those held out before, so no edge moves from train to
 * held-out as the graph grows; between steps (the normal case) the rate does not move at all.
 */
export function heldOutRate(triples: number, options: StableSplitOptions): number {
  let rate = options.heldOutFraction;
  while (rate > 0 && triples * rate > options.maxHeldOut) rate /= 2;
  return rate;
}

/**
 * A split that is a pure function of each triple and the seed: an edge's seeded hash `u` in
 * [0, 1) puts it in held-out when `u < heldOutRate`, and another bit of the hash sends a
 * held-out edge to valid (early stopping, checkpoint choice) or test (the promotion gate). So
 * every version holds out the same edges, and a new edge lands in the same part forever.
 *
 * One exception keeps the model's vocabulary useful: a held-out edge whose head, tail or relation
 * has no train edge is kept in train (`movedToTrain`), so every entity the model serves has
 * been trained. Such an edge returns to held-out once another edge covers it; the promotion gate
 * does not rely on the split alone but on the trained-edge keys each version records.
 */
export function stableSplit(
  graph: DenseGraph,
  keys: TripleKeys,
  options: StableSplitOptions = DEFAULT_STABLE_SPLIT,
): StableSplit {
  const n = graph.heads.length;
  const rate = heldOutRate(n, options);
  const seedMix = fmix32(options.seed ^ 0x9e3779b9);
  const part = new Uint8Array(n); // 0 train, 1 valid, 2 test
  const entityCovered = new Uint8Array(graph.entities.length);
  const relationCovered = new Uint8Array(graph.relationNames.length);
  for (let i = 0; i < n; i++) {
    const hashed = fmix32((keys.mix[i] as number) ^ seedMix);
    const u = hashed / 2 ** 32;
    if (u < rate) {
      // The low bit is independent of `u < rate` for any rate above 2^-31.
      part[i] = hashed & 1 ? 2 : 1;
    } else {
      entityCovered[graph.heads[i] as number] = 1;
      entityCovered[graph.tails[i] as number] = 1;
      relationCovered[graph.relations[i] as number] = 1;
    }
  }
  // In canonical triple order, so the outcome depends only on the set of edges.
  let movedToTrain = 0;
  for (let i = 0; i < n; i++) {
    if (part[i] === 0) continue;
    const h = graph.heads[i] as number;
    const r = graph.relations[i] as number;
    const t = graph.tails[i] as number;
    if (!entityCovered[h] || !entityCovered[t] || !relationCovered[r]) {
      part[i] = 0;
      movedToTrain++;
      entityCovered[h] = entityCovered[t] = relationCovered[r] = 1;
    }
  }
  const collect = (p: number) => {
    let count = 0;
    for (let i = 0; i < n; i++) if (part[i] === p) count++;
    const out = new Int32Array(count);
    let k = 0;
    for (let i = 0; i < n; i++) if (part[i] === p) out[k++] = i;
    return out;
  };
  return {
    train: collect(0),
    valid: collect(1),
    test: collect(2),
    heldOutRate: rate,
    movedToTrain,
  };
}
