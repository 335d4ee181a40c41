import { seededRandom } from '../../seeded-random';
import { applyCalibrator } from './calibrator';
import type { Calibrator } from './calibrator';
import { logLoss } from './calibration-metrics';
import { fitIsotonic } from './isotonic';
import { fitPlatt } from './platt';
import { subset } from './samples';
import type { Samples } from './samples';

/** Folds of the cross-validation that picks Platt or isotonic. */
export const CV_FOLDS = 5;

export interface CalibratorChoice {
  calibrator: Calibrator;
  /** Mean held-out log-loss of each candidate across the folds (null: too few examples to tell). */
  heldOutLogLoss: { platt: number | null; isotonic: number | null };
}

export function fitKind(kind: 'platt' | 'isotonic', samples: Samples): Calibrator {
  return kind === 'platt'
    ? { kind: 'platt', ...fitPlatt(samples) }
    : { kind: 'isotonic', ...fitIsotonic(samples) };
}

/** Fold of each example: positives and negatives dealt out separately (stratified), shuffled. */
function folds(samples: Samples, k: number, seed: number): Int32Array {
  const random = seededRandom(seed);
  const fold = new Int32Array(samples.labels.length);
  for (const label of [0, 1]) {
    const members: number[] = [];
    samples.labels.forEach((l, i) => {
      if (l === label) members.push(i);
    });
    for (let i = members.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [members[i], members[j]] = [members[j] as number, members[i] as number];
    }
    members.forEach((m, i) => (fold[m] = i % k));
  }
  return fold;
}

/**
 * Platt or isotonic, whichever has the lower mean held-out log-loss in k-fold cross-validation
 * inside `samples`, refitted on all of them. Fewer than k positives or negatives: Platt (two
 * parameters; isotonic needs data to find its steps).
 */
export function chooseCalibrator(samples: Samples, seed: number, k = CV_FOLDS): CalibratorChoice {
  let positives = 0;
  samples.labels.forEach((l) => (positives += l));
  const negatives = samples.labels.length - positives;
  if (positives < k || negatives < k) {
    return {
      calibrator: fitKind('platt', samples),
      heldOutLogLoss: { platt: null, isotonic: null },
    };
  }
  const fold = folds(samples, k, seed);
  const loss = { platt: 0, isotonic: 0 };
  for (let f = 0; f < k; f++) {
    const train: number[] = [];
    const held: number[] = [];
    fold.forEach((g, i) => (g === f ? held : train).push(i));
    const fitOn = subset(samples, train);
    const test = subset(samples, held);
    for (const kind of ['platt', 'isotonic'] as const) {
      const calibrator = fitKind(kind, fitOn);
      const p = Array.from(test.logits, (z) => applyCalibrator(calibrator, z));
      loss[kind] += logLoss(p, test.labels, test.weights) / k;
    }
  }
  const kind = loss.isotonic < loss.platt ? 'isotonic' : 'platt';
  return { calibrator: fitKind(kind, samples), heldOutLogLoss: loss };
}
