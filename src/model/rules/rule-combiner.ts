import quickselect from 'quickselect';
import type { Float32Slabs } from './float-slabs';

/** Which aggregate of the rules' confidences a setting adds. */
export type EvidenceAggregate = 'max' | 'noisyOr';

/** Served logit = model logit + w · evidence (0 where no rule reaches the candidate). */
export interface CombinerSetting {
  aggregate: EvidenceAggregate;
  w: number;
}

/** The model alone. */
export const MODEL_ALONE: CombinerSetting = { aggregate: 'max', w: 0 };

const WEIGHTS = [0.5, 1, 2, 3, 5, 8, 12, 20, 50, 200];

/** Every setting the fit tries: the model alone and each weight of each aggregate. */
export const COMBINER_GRID: readonly CombinerSetting[] = [
  MODEL_ALONE,
  ...(['max', 'noisyOr'] as const).flatMap((aggregate) => WEIGHTS.map((w) => ({ aggregate, w }))),
];

/** A (relation, direction) needs this many validation queries to get a setting of its own. */
export const MIN_GROUP_QUERIES = 30;

/**
 * One validation query, reduced to what ranks its answer under any setting: the answer's logit
 * and evidence, and the competitors that could outrank it (filtered, never the answer).
 */
export interface CombinerQuery {
  /** `${relation}\t${direction}`. */
  group: string;
  logit: number;
  max: number;
  noisyOr: number;
  /**
   * Logits at or above the answer's of the candidates no rule reaches, ascending: the largest
   * `PLAIN_KEPT` of them when there are more (`plainRest` counts the others).
   */
  plain: Float32Array;
  /** Plain logits at or above the answer's not kept in `plain` (all at or below `plain[0]`). */
  plainRest: number;
  /** The candidates some rule reaches: [logit, max, noisy-or] each. */
  reached: Float32Array;
}

/**
 * Plain competitors a query keeps: past them the answer ranks below PLAIN_KEPT whatever the
 * setting, where a rank's reciprocal moves the MRR by less than 1/PLAIN_KEPT (a weak model ranks
 * answers tens of thousands deep: keeping every logit above them would hold gigabytes).
 */
export const PLAIN_KEPT = 4096;

/** The plain competitors a fit's queries keep together (floats): 10,000 queries at PLAIN_KEPT. */
export const PLAIN_FLOATS = 10_000 * PLAIN_KEPT;

/**
 * The plain competitors each query of a fit of `queries` keeps: PLAIN_KEPT, fewer in a larger
 * fit so that all of them stay within PLAIN_FLOATS (never under 1,024: a rank past it moves
 * the MRR by under .001).
 */
export function plainKept(queries: number): number {
  return Math.max(1024, Math.min(PLAIN_KEPT, Math.floor(PLAIN_FLOATS / Math.max(1, queries))));
}

/**
 * A query's plain competitors as CombinerQuery keeps them, the largest `kept` of `logits`
 * (reordered: the kept ones are selected, then only they are sorted, into a copy: in `slabs`
 * where given).
 */
export function plainCompetitors(
  logits: Float32Array,
  kept = PLAIN_KEPT,
  slabs?: Float32Slabs,
): Pick<CombinerQuery, 'plain' | 'plainRest'> {
  const plainRest = Math.max(0, logits.length - kept);
  if (plainRest > 0) quickselect(logits, plainRest);
  const top = logits.subarray(plainRest);
  return { plain: (slabs ? slabs.copy(top) : top.slice()).sort(), plainRest };
}

/** The first index of ascending `values` whose value is above `x` (or equal, with `orEqual`). */
function firstAbove(values: Float32Array, x: number, orEqual: boolean): number {
  let [lo, hi] = [0, values.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const v = values[mid] as number;
    if (v > x || (orEqual && v === x)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The answer's filtered rank under `s` (ties count half), as the evaluation ranks: exact when
 * the plain competitors were all kept, or when the answer's served logit passes the lowest kept
 * one; otherwise the ones not kept all count as above it.
 */
export function rankUnder(q: CombinerQuery, s: CombinerSetting): number {
  const h = q.logit + s.w * q[s.aggregate];
  const atOrAbove = firstAbove(q.plain, h, true);
  const strictlyAbove = firstAbove(q.plain, h, false);
  let above = q.plain.length - strictlyAbove;
  let equal = strictlyAbove - atOrAbove;
  const first = q.plain[0];
  if (q.plainRest > 0 && first !== undefined && h <= first) above += q.plainRest;
  const column = s.aggregate === 'max' ? 1 : 2;
  for (let i = 0; i < q.reached.length; i += 3) {
    const v = (q.reached[i] as number) + s.w * (q.reached[i + column] as number);
    above += Number(v > h);
    equal += Number(v === h);
  }
  return 1 + above + equal / 2;
}

export function meanReciprocalRank(
  qs: readonly CombinerQuery[],
  pick: (q: CombinerQuery) => CombinerSetting,
): number {
  let sum = 0;
  for (const q of qs) sum += 1 / rankUnder(q, pick(q));
  return qs.length === 0 ? 0 : sum / qs.length;
}

/** The settings a version serves with: one global, and per (relation, direction) where chosen. */
export interface RuleCombiner {
  global: CombinerSetting;
  groups: Record<string, CombinerSetting>;
}

function bestOf(qs: readonly CombinerQuery[]): { setting: CombinerSetting; mrr: number } {
  let best = { setting: MODEL_ALONE, mrr: meanReciprocalRank(qs, () => MODEL_ALONE) };
  for (const setting of COMBINER_GRID) {
    const mrr = meanReciprocalRank(qs, () => setting);
    if (mrr > best.mrr) best = { setting, mrr };
  }
  return best;
}

/**
 * Chooses the combiner on validation queries: the global setting of best MRR, then for each
 * (relation, direction) with at least MIN_GROUP_QUERIES queries the setting of best MRR on
 * them (the model alone among them: rules stay out where they do not help). Groups with fewer
 * queries use the global setting.
 */
export function chooseCombiner(qs: readonly CombinerQuery[]): RuleCombiner {
  const global = bestOf(qs).setting;
  const byGroup = new Map<string, CombinerQuery[]>();
  for (const q of qs) {
    const list = byGroup.get(q.group);
    if (list) list.push(q);
    else byGroup.set(q.group, [q]);
  }
  const groups: Record<string, CombinerSetting> = {};
  for (const [group, list] of [...byGroup].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (list.length >= MIN_GROUP_QUERIES) groups[group] = bestOf(list).setting;
  }
  return { global, groups };
}

/** The setting `combiner` gives a query of `group`. */
export function settingFor(combiner: RuleCombiner, group: string): CombinerSetting {
  return combiner.groups[group] ?? combiner.global;
}
