import { applyCalibrator } from './calibrator';
import type { Calibrator, ShrunkCalibrator } from './calibrator';
import { chooseCalibrator } from './choose-calibrator';
import type { CalibratorChoice } from './choose-calibrator';
import { SHRINKAGE_PRIOR } from './fit-calibration';
import type { Samples } from './samples';

/**
 * Weights of the tail question's logit in an edge's combined score; the rest goes to the head
 * question's. A relation whose heads are the easier question (many tails to one head, a
 * hierarchy read upward) leans on the head logit, and the other way round.
 */
export const TAIL_SHARES = [0, 0.25, 0.5, 0.75, 1] as const;

/**
 * An edge's probability from both of its questions: `own` (or the global calibrator) applied
 * to s = tailShare * z_tail + (1 - tailShare) * z_head, where z_tail is the logit of
 * (h, r, ?) scoring t and z_head that of (t, r⁻¹, ?) scoring h. Non-decreasing in both logits.
 */
export interface EdgeCalibrator extends ShrunkCalibrator {
  tailShare: number;
}

export interface RelationEdgeCalibrator extends EdgeCalibrator {
  relation: string;
  positives: number;
  negatives: number;
  /** Held-out log-loss of the chosen share's best calibrator (null: too few to tell). */
  heldOutLogLoss: number | null;
  fallback?: string;
}

export interface EdgeCalibrationTable {
  global: { tailShare: number; calibrator: Calibrator };
  relations: RelationEdgeCalibrator[];
}

/** Examples of one relation: an edge's two logits, its label and weight. */
export interface EdgeSamples {
  tailLogits: Float64Array;
  headLogits: Float64Array;
  labels: Uint8Array;
  weights: Float64Array;
}

export interface EdgeCalibrationGroup {
  relation: string;
  samples: EdgeSamples;
}

function combined(samples: EdgeSamples, tailShare: number): Samples {
  const n = samples.labels.length;
  const logits = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    logits[i] =
      tailShare * (samples.tailLogits[i] as number) +
      (1 - tailShare) * (samples.headLogits[i] as number);
  }
  return { logits, labels: samples.labels, weights: samples.weights };
}

function bestLoss(choice: CalibratorChoice): number | null {
  const { platt, isotonic } = choice.heldOutLogLoss;
  if (platt === null || isotonic === null) return null;
  return Math.min(platt, isotonic);
}

/**
 * The share (of TAIL_SHARES) whose calibrator has the lowest held-out log-loss, and that
 * calibrator refitted on every example; `fallbackShare` when there are too few examples to
 * tell the shares apart.
 */
function chooseShare(
  samples: EdgeSamples,
  seed: number,
  fallbackShare: number,
): { tailShare: number; choice: CalibratorChoice; loss: number | null } {
  let best: { tailShare: number; choice: CalibratorChoice; loss: number | null } | null = null;
  for (const tailShare of TAIL_SHARES) {
    const choice = chooseCalibrator(combined(samples, tailShare), seed);
    const loss = bestLoss(choice);
    if (loss === null) {
      return {
        tailShare: fallbackShare,
        choice: chooseCalibrator(combined(samples, fallbackShare), seed),
        loss: null,
      };
    }
    if (!best || (best.loss as number) > loss) best = { tailShare, choice, loss };
  }
  return best as { tailShare: number; choice: CalibratorChoice; loss: number };
}

function concat(groups: EdgeCalibrationGroup[]): EdgeSamples {
  const n = groups.reduce((sum, g) => sum + g.samples.labels.length, 0);
  const out: EdgeSamples = {
    tailLogits: new Float64Array(n),
    headLogits: new Float64Array(n),
    labels: new Uint8Array(n),
    weights: new Float64Array(n),
  };
  let offset = 0;
  for (const { samples } of groups) {
    out.tailLogits.set(samples.tailLogits, offset);
    out.headLogits.set(samples.headLogits, offset);
    out.labels.set(samples.labels, offset);
    out.weights.set(samples.weights, offset);
    offset += samples.labels.length;
  }
  return out;
}

/** A Platt slope <= 0 would make a higher score less likely: refused, as for the directions. */
function decreasing(calibrator: Calibrator): boolean {
  return calibrator.kind === 'platt' && !(calibrator.a > 0);
}

/**
 * Fits a global edge calibrator on every relation's examples and one per relation, each
 * choosing its tail share by held-out log-loss, and shrinks the relation's toward the global
 * one by n / (n + SHRINKAGE_PRIOR) (n: its held-out positives), as the direction calibrators.
 */
export function fitEdgeCalibration(
  groups: EdgeCalibrationGroup[],
  seed: number,
): EdgeCalibrationTable {
  const pooled = chooseShare(concat(groups), seed, 0.5);
  const global = {
    tailShare: pooled.tailShare,
    calibrator: decreasing(pooled.choice.calibrator)
      ? ({ kind: 'sigmoid' } as const)
      : pooled.choice.calibrator,
  };
  const relations = groups.map((group, i): RelationEdgeCalibrator => {
    let positives = 0;
    group.samples.labels.forEach((l) => (positives += l));
    const negatives = group.samples.labels.length - positives;
    const fallback = (why: string, loss: number | null = null): RelationEdgeCalibrator => ({
      relation: group.relation,
      positives,
      negatives,
      tailShare: global.tailShare,
      own: global.calibrator,
      weight: 0,
      heldOutLogLoss: loss,
      fallback: why,
    });
    if (positives === 0 || negatives === 0)
      return fallback('no positives or no negatives to fit on');
    const chosen = chooseShare(group.samples, seed + i + 1, global.tailShare);
    if (decreasing(chosen.choice.calibrator)) {
      return fallback('Platt slope not positive', chosen.loss);
    }
    return {
      relation: group.relation,
      positives,
      negatives,
      tailShare: chosen.tailShare,
      own: chosen.choice.calibrator,
      weight: positives / (positives + SHRINKAGE_PRIOR),
      heldOutLogLoss: chosen.loss,
    };
  });
  return { global, relations };
}

/** The probability that an edge is true, from its tail and head logits. */
export function applyEdgeCalibrator(
  global: EdgeCalibrationTable['global'],
  own: EdgeCalibrator | undefined,
  tailLogit: number,
  headLogit: number,
): number {
  const score = (share: number) => share * tailLogit + (1 - share) * headLogit;
  const globalP = applyCalibrator(global.calibrator, score(global.tailShare));
  if (!own || own.weight <= 0) return globalP;
  const ownP = applyCalibrator(own.own, score(own.tailShare));
  return own.weight >= 1 ? ownP : own.weight * ownP + (1 - own.weight) * globalP;
}

/** The edge probability of `relation` (by name; the global calibrator for one not in the table). */
export function edgeProbability(
  table: EdgeCalibrationTable,
  relation: string,
  tailLogit: number,
  headLogit: number,
): number {
  const own = table.relations.find((r) => r.relation === relation);
  return applyEdgeCalibrator(table.global, own, tailLogit, headLogit);
}
