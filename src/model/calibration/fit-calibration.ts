import type { Direction } from '../../direction';
import { applyCalibrator, applyShrunk } from './calibrator';
import type { Calibrator, ShrunkCalibrator } from './calibrator';
import { chooseCalibrator } from './choose-calibrator';
import { concatSamples } from './samples';
import type { Samples } from './samples';

/**
 * Shrinkage prior: a (relation, direction) with n held-out positives gets weight n / (n + 25)
 * on its own calibrator and the rest on the global one. 25 positives (and as many negatives)
 * is where a relation's own calibration stops being mostly noise: a bin's observed frequency
 * from 25 examples has a standard error up to 0.1, as large as the miscalibration it corrects;
 * at 25 the two count equally, at 225 the relation's own counts 90%.
 */
export const SHRINKAGE_PRIOR = 25;

export interface RelationCalibrator extends ShrunkCalibrator {
  relation: string;
  direction: Direction;
  /** Held-out positives the calibrator was fitted on (n of the shrinkage weight). */
  positives: number;
  negatives: number;
  heldOutLogLoss: { platt: number | null; isotonic: number | null };
  /** Why the relation's own calibrator was dropped (weight 0), if it was. */
  fallback?: string;
}

/** What a version serves: one global calibrator and the (relation, direction) ones. */
export interface CalibrationTable {
  global: Calibrator;
  shrinkagePrior: number;
  relations: RelationCalibrator[];
}

export interface CalibrationGroup {
  relation: string;
  direction: Direction;
  samples: Samples;
}

function counts(samples: Samples): { positives: number; negatives: number } {
  let positives = 0;
  samples.labels.forEach((l) => (positives += l));
  return { positives, negatives: samples.labels.length - positives };
}

/**
 * A Platt fit with a <= 0 would rank a lower logit above a higher one: refused (the model's
 * ranking stands); the global calibrator serves instead, or the plain sigmoid globally.
 */
function decreasing(calibrator: Calibrator): boolean {
  return calibrator.kind === 'platt' && !(calibrator.a > 0);
}

export function fitCalibrationTable(groups: CalibrationGroup[], seed: number): CalibrationTable {
  const pooled = concatSamples(groups.map((g) => g.samples));
  const globalChoice = chooseCalibrator(pooled, seed);
  const global: Calibrator = decreasing(globalChoice.calibrator)
    ? { kind: 'sigmoid' }
    : globalChoice.calibrator;
  const relations = groups.map((group, i): RelationCalibrator => {
    const { positives, negatives } = counts(group.samples);
    const base = { relation: group.relation, direction: group.direction, positives, negatives };
    if (positives === 0 || negatives === 0) {
      return {
        ...base,
        own: global,
        weight: 0,
        heldOutLogLoss: { platt: null, isotonic: null },
        fallback: 'no positives or no negatives to fit on',
      };
    }
    const choice = chooseCalibrator(group.samples, seed + i + 1);
    if (decreasing(choice.calibrator)) {
      return {
        ...base,
        own: global,
        weight: 0,
        heldOutLogLoss: choice.heldOutLogLoss,
        fallback: 'Platt slope not positive (would reorder suggestions)',
      };
    }
    return {
      ...base,
      own: choice.calibrator,
      weight: positives / (positives + SHRINKAGE_PRIOR),
      heldOutLogLoss: choice.heldOutLogLoss,
    };
  });
  return { global, shrinkagePrior: SHRINKAGE_PRIOR, relations };
}

/** Calibrated probability of a logit of `relation` asked in `direction` (global if unknown). */
export function calibratedProbability(
  table: CalibrationTable,
  relation: string,
  direction: Direction,
  logit: number,
): number {
  const own = table.relations.find((r) => r.relation === relation && r.direction === direction);
  return own ? applyShrunk(own, table.global, logit) : applyCalibrator(table.global, logit);
}
