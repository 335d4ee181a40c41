import { EventLoopTurns, TURN_CHECK_EVERY } from '../../event-loop-turns';
import type { GraphIndex } from '../rules/graph-index';

/**
 * Known queries standing in, as fold-in's negatives, for every query of the graph a version was
 * trained on: `(heads[k], relations[k])` (model ids) stands for `standsFor[k]` of them.
 */
export interface NegativePool {
  heads: Uint32Array;
  relations: Uint32Array;
  standsFor: Float64Array;
}

/**
 * Queries in a pool: a fold-in step scores each against every entity it fits. A pool of a few
 * thousand lets a row fit low on the sample and stay high on the rest (bench/freshness).
 */
export const NEGATIVE_POOL_SIZE = 16_384;

/**
 * A stratified sample of the known queries of `graph` (the version's graph.bin): one stratum
 * per direction of each relation, so that a relation's queries (where a new entity of that
 * relation would climb into other entities' answers) are always sampled; a stratum of `T_s`
 * queries gets about `size * sqrt(T_s) / sum sqrt(T)` samples (at least one, at most `T_s`),
 * spread evenly over its queries, each standing for `T_s / K_s`. `reverse(r)`: the model
 * relation of the head query of base relation r. Gives the event loop turns on big graphs.
 */
export async function negativePool(
  graph: GraphIndex,
  reverse: (relation: number) => number,
  options: { size?: number; strata?: 'relation' | 'one' } = {},
): Promise<NegativePool | undefined> {
  const size = options.size ?? NEGATIVE_POOL_SIZE;
  const turns = new EventLoopTurns();
  // 'one' (a comparison in bench/freshness): all known queries one stratum, sampled evenly.
  const steps = options.strata === 'one' ? 1 : graph.steps;
  const stratum = options.strata === 'one' ? () => 0 : (step: number) => step;
  // A known query is a run of one step in a node's sorted entries (graph-index.ts).
  const counts = new Float64Array(steps);
  await forEachQuery(graph, turns, (_node, step) => {
    const s = stratum(step);
    counts[s] = (counts[s] as number) + 1;
  });
  const weight = Array.from(counts, Math.sqrt);
  const total = weight.reduce((a, b) => a + b, 0);
  if (total === 0) return undefined;
  const taken = Array.from(counts, (t, s) =>
    t === 0 ? 0 : Math.min(t, Math.max(1, Math.round((size * (weight[s] as number)) / total))),
  );
  // Stratum s keeps its queries number floor((j + 0.5) * T_s / K_s), j < K_s: evenly spread.
  const next = new Float64Array(steps);
  const seen = new Float64Array(steps);
  const heads: number[] = [];
  const relations: number[] = [];
  const standsFor: number[] = [];
  await forEachQuery(graph, turns, (node, step) => {
    const s = stratum(step);
    const [t, k, j] = [counts[s] as number, taken[s] as number, next[s] as number];
    const index = seen[s] as number;
    seen[s] = index + 1;
    if (j >= k || index !== Math.floor(((j + 0.5) * t) / k)) return;
    next[s] = j + 1;
    const base = step >> 1;
    heads.push(node);
    relations.push(step % 2 === 0 ? base : reverse(base));
    standsFor.push(t / k);
  });
  return {
    heads: Uint32Array.from(heads),
    relations: Uint32Array.from(relations),
    standsFor: Float64Array.from(standsFor),
  };
}

/** Calls `visit(node, step)` once per known query (node, step) of the graph. */
async function forEachQuery(
  graph: GraphIndex,
  turns: EventLoopTurns,
  visit: (node: number, step: number) => void,
): Promise<void> {
  for (let node = 0; node < graph.nodes; node++) {
    const end = graph.offsets[node + 1] as number;
    let previous = -1;
    for (let i = graph.offsets[node] as number; i < end; i++) {
      const step = graph.step[i] as number;
      if (step !== previous) visit(node, step);
      previous = step;
    }
    if (node % TURN_CHECK_EVERY === 0) await turns.maybeTurn();
  }
}
