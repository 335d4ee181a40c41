import type { EventLoopTurns } from '../../event-loop-turns';
import { seededRandom } from '../../seeded-random';
import type { Native } from '../native-engine';
import type { CombinerFile } from './combiner-file';
import { combinerQueries } from './combiner-queries';
import type { IdEdge } from './combiner-queries';
import { GraphIndex } from './graph-index';
import { mineRules } from './mine-rules';
import { chooseCombiner, meanReciprocalRank, MODEL_ALONE, settingFor } from './rule-combiner';
import type { CombinerQuery, RuleCombiner } from './rule-combiner';
import type { RuleSet } from './rule-types';
import { RuleWalker } from './rule-walker';

/** The splits in the model's ids, flat [h, r, t, ...] (base relations). */
export interface ModelSplits {
  train: Uint32Array;
  valid: Uint32Array;
  test: Uint32Array;
}

export interface CombinerFitOptions {
  /** Validation edges the fit samples at least (both directions of each are queries). */
  minEdges: number;
  /**
   * Entity scores the fit may spend beyond that: on a graph of `n` entities it samples up to
   * `scoreBudget / (2n)` edges (each edge asks two questions, each scored against every entity).
   */
  scoreBudget: number;
  /** Edges the fit samples at most (its queries' kept competitors: rule-combiner's plainKept). */
  maxEdges: number;
  /** Index entries one question's rule walks may take together. */
  walkBudget: number;
  seed: number;
}

export const DEFAULT_COMBINER_FIT: CombinerFitOptions = {
  minEdges: 5_000,
  // 1.5e9 scores: every validation edge of FB15k-237 (17,535 x 2 x 14,541 is 0.5e9), 5,190 of
  // DebianPkg's 144,486 entities; the per-relation weights need edges where a graph has them.
  scoreBudget: 1.5e9,
  maxEdges: 20_000,
  walkBudget: 20_000,
  seed: 11,
};

function edgesOf(flat: Uint32Array, picks?: number[]): IdEdge[] {
  const at = (i: number) => ({
    head: flat[3 * i] as number,
    relation: flat[3 * i + 1] as number,
    tail: flat[3 * i + 2] as number,
  });
  return picks ? picks.map(at) : Array.from({ length: flat.length / 3 }, (_, i) => at(i));
}

/** How many validation edges the fit samples on a graph of `entities` entities. */
export function fitEdgeCount(options: CombinerFitOptions, entities: number): number {
  const affordable = Math.floor(options.scoreBudget / (2 * Math.max(1, entities)));
  return Math.min(options.maxEdges, Math.max(options.minEdges, affordable));
}

/** Up to `n` indices of `0..count-1`, a seeded choice, ascending. */
function sampleIndices(count: number, n: number, seed: number): number[] {
  const all = Array.from({ length: count }, (_, i) => i);
  if (count <= n) return all;
  const random = seededRandom(seed);
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(random() * (count - i));
    [all[i], all[j]] = [all[j] as number, all[i] as number];
  }
  return all.slice(0, n).sort((a, b) => a - b);
}

/**
 * Chooses how a version combines its model with path rules, as a model is validated: rules
 * mined from the train split only, walked in the train graph, the combiner chosen on a sample
 * of validation edges sized to the graph (`fitEdgeCount`; rule-combiner.ts). Chosen on each
 * half of the sample and scored on the other, the hybrid must beat the model alone on the two
 * halves together; otherwise the version keeps the model alone everywhere (its fit says why).
 * `trainRules`: the rules the default mining finds in the train split, where the caller has
 * them (mined here otherwise).
 */
export async function fitCombiner(
  model: Native.NeptuneModel,
  splits: ModelSplits,
  options: CombinerFitOptions,
  turns: EventLoopTurns,
  trainRules?: RuleSet,
): Promise<CombinerFile> {
  const started = performance.now();
  const train = edgesOf(splits.train);
  const n = model.entities.length;
  const columns = {
    heads: Int32Array.from(train, (e) => e.head),
    relations: Int32Array.from(train, (e) => e.relation),
    tails: Int32Array.from(train, (e) => e.tail),
  };
  const mined =
    trainRules ??
    (await mineRules(
      { entities: model.entities, relationNames: model.relations, ...columns },
      {},
      turns,
    ));
  const index = await GraphIndex.build(
    n,
    model.relations.length,
    columns.heads,
    columns.relations,
    columns.tails,
    turns,
  );
  const walker = new RuleWalker(mined, index, model.relations, options.walkBudget);
  const valid = edgesOf(
    splits.valid,
    sampleIndices(splits.valid.length / 3, fitEdgeCount(options, n), options.seed),
  );
  // Known answers, only of the queries asked (the whole graph's would not fit at scale).
  const answers = new Map<number, Set<number>>();
  const key = (x: number, r: number) => r * n + x;
  for (const e of valid) {
    answers.set(key(e.head, e.relation), new Set());
    answers.set(key(e.tail, model.reverseRelation(e.relation)), new Set());
  }
  for (const flat of [splits.train, splits.valid, splits.test]) {
    for (let i = 0; i < flat.length; i += 3) {
      const [h, r, t] = [flat[i] as number, flat[i + 1] as number, flat[i + 2] as number];
      answers.get(key(h, r))?.add(t);
      answers.get(key(t, model.reverseRelation(r)))?.add(h);
    }
    await turns.maybeTurn();
  }
  const queries = await combinerQueries(
    model,
    walker,
    valid,
    { answers: (x, r) => answers.get(key(x, r)) },
    turns,
  );
  // Both directions of edge i are queries 2i and 2i + 1: halves by the edge's parity.
  const half = (h: number) => queries.filter((_, i) => (i >> 1) % 2 === h);
  const halves = [0, 1].map((h): [number, number] => {
    const chosen = chooseCombiner(half(h));
    const judged = half(1 - h);
    return [
      meanReciprocalRank(judged, () => MODEL_ALONE),
      meanReciprocalRank(judged, (q) => settingFor(chosen, q.group)),
    ];
  });
  const gain = halves.reduce((sum, [alone, hybrid]) => sum + hybrid - alone, 0);
  const chosen: RuleCombiner =
    gain > 0 ? chooseCombiner(queries) : { global: MODEL_ALONE, groups: {} };
  const mrr = (pick: (q: CombinerQuery) => typeof MODEL_ALONE) => meanReciprocalRank(queries, pick);
  return {
    format: 1,
    walkBudget: options.walkBudget,
    ...chosen,
    fit: {
      edges: valid.length,
      modelMrr: mrr(() => MODEL_ALONE),
      hybridMrr: mrr((q) => settingFor(chosen, q.group)),
      halves,
      seconds: (performance.now() - started) / 1000,
    },
  };
}

/** One line for a log: what the fit chose and measured. */
export function describeCombiner(c: CombinerFile): string {
  const uses = Object.values(c.groups).filter((s) => s.w > 0).length;
  const halves = c.fit.halves.map(([a, h]) => `${a.toFixed(4)} -> ${h.toFixed(4)}`).join(', ');
  const what =
    c.global.w === 0 && uses === 0
      ? 'the model alone (the rules did not raise validation MRR on held-out halves)'
      : `model + rules (${c.global.w === 0 ? 'model alone' : `${c.global.aggregate} x ${c.global.w}`} by default, ${uses} relation direction(s) with their own weight)`;
  return `rules as a second opinion: ${what}; validation MRR on held-out halves ${halves} (${c.fit.edges} edges, ${c.fit.seconds.toFixed(1)} s)`;
}
