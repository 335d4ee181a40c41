import { SHRINKAGE_PRIOR } from './fit-calibration';
import { fitLogistic } from './logistic-regression';

/**
 * What an edge (h, r, t) is judged by, in this order after the intercept: the tail question's
 * logit ((h, r, ?) scoring t), the head question's ((t, r⁻¹, ?) scoring h), how often the graph
 * already has t as a tail of r and h as a head of r (other edges than this one; log1p), and the
 * best confidence of the version's rules that reach t from h and h from t (0: none does).
 * The two questions often know different things (one person has one birthplace; a birthplace
 * has many people); the counts say whether each end plays that role at all, which a corruption
 * with an entity of the wrong kind rarely does; a rule that fires is evidence the embedding may
 * lack (a plausible corruption of the right kind is rarely connected by the graph's own paths),
 * heard here even where the ranking's combiner leaves the rules out.
 */
export const EDGE_FEATURES = [
  'tailLogit',
  'headLogit',
  'tailCount',
  'headCount',
  'tailRule',
  'headRule',
] as const;

/** The features of edge calibrators written before the rules were heard: served as written. */
export const EDGE_FEATURES_WITHOUT_RULES = EDGE_FEATURES.slice(0, 4);

const D = EDGE_FEATURES.length + 1;

export interface EdgeFeatures {
  tailLogit: number;
  headLogit: number;
  /** Edges (·, r, t) in the graph besides this one. */
  tailCount: number;
  /** Edges (h, r, ·) in the graph besides this one. */
  headCount: number;
  /** The best confidence of the rules reaching t in (h, r, ?); 0: none (or no rules). */
  tailRule: number;
  /** The best confidence of the rules reaching h in (?, r, t); 0: none (or no rules). */
  headRule: number;
}

/** The regression's inputs: [1, tailLogit, headLogit, log1p(tailCount), log1p(headCount), tailRule, headRule]. */
function featureRow(f: EdgeFeatures): number[] {
  return [
    1,
    f.tailLogit,
    f.headLogit,
    Math.log1p(f.tailCount),
    Math.log1p(f.headCount),
    f.tailRule,
    f.headRule,
  ];
}

/**
 * p = sigmoid(c · featureRow(f)); coefficients of a calibrator written before the rules were
 * features (`EDGE_FEATURES_WITHOUT_RULES`) stop short of them.
 */
function logistic(coefficients: ArrayLike<number>, f: EdgeFeatures): number {
  const row = featureRow(f);
  let z = 0;
  for (let j = 0; j < coefficients.length; j++)
    z += (coefficients[j] as number) * (row[j] as number);
  return 1 / (1 + Math.exp(-z));
}

/** A relation's own regression, shrunk toward the global one by `weight`. */
export interface EdgeCalibrator {
  coefficients: number[];
  weight: number;
}

export interface RelationEdgeCalibrator extends EdgeCalibrator {
  relation: string;
  positives: number;
  negatives: number;
  /** Why the relation's own regression was dropped (weight 0), if it was. */
  fallback?: string;
}

export interface EdgeCalibrationTable {
  features: readonly string[];
  global: { coefficients: number[] };
  relations: RelationEdgeCalibrator[];
}

/** Examples of one relation, parallel arrays. */
export interface EdgeSamples {
  features: EdgeFeatures[];
  labels: Uint8Array;
  weights: Float64Array;
}

export interface EdgeCalibrationGroup {
  relation: string;
  samples: EdgeSamples;
}

function designRows(groups: EdgeSamples[]): Float64Array {
  const n = groups.reduce((sum, g) => sum + g.labels.length, 0);
  const rows = new Float64Array(n * D);
  let i = 0;
  for (const g of groups) for (const f of g.features) rows.set(featureRow(f), D * i++);
  return rows;
}

function fit(groups: EdgeSamples[]): number[] {
  const labels = Uint8Array.from(groups.flatMap((g) => Array.from(g.labels)));
  const weights = Float64Array.from(groups.flatMap((g) => Array.from(g.weights)));
  return Array.from(fitLogistic(designRows(groups), D, labels, weights));
}

/**
 * A global regression on every relation's examples and one per relation, shrunk toward the
 * global one by n / (n + SHRINKAGE_PRIOR) (n: its held-out positives), as the direction
 * calibrators are.
 */
export function fitEdgeCalibration(groups: EdgeCalibrationGroup[]): EdgeCalibrationTable {
  const global = { coefficients: fit(groups.map((g) => g.samples)) };
  const relations = groups.map((group): RelationEdgeCalibrator => {
    let positives = 0;
    group.samples.labels.forEach((l) => (positives += l));
    const negatives = group.samples.labels.length - positives;
    const base = { relation: group.relation, positives, negatives };
    if (positives === 0 || negatives === 0) {
      return {
        ...base,
        coefficients: global.coefficients,
        weight: 0,
        fallback: 'no positives or no negatives to fit on',
      };
    }
    return {
      ...base,
      coefficients: fit([group.samples]),
      weight: positives / (positives + SHRINKAGE_PRIOR),
    };
  });
  return { features: EDGE_FEATURES, global, relations };
}

/** The probability that an edge is true, from its features. */
export function applyEdgeCalibrator(
  global: EdgeCalibrationTable['global'],
  own: EdgeCalibrator | undefined,
  features: EdgeFeatures,
): number {
  const globalP = logistic(global.coefficients, features);
  if (!own || own.weight <= 0) return globalP;
  const ownP = logistic(own.coefficients, features);
  return own.weight >= 1 ? ownP : own.weight * ownP + (1 - own.weight) * globalP;
}

/** The edge probability of `relation` (by name; the global regression for one not in the table). */
export function edgeProbability(
  table: EdgeCalibrationTable,
  relation: string,
  features: EdgeFeatures,
): number {
  const own = table.relations.find((r) => r.relation === relation);
  return applyEdgeCalibrator(table.global, own, features);
}
