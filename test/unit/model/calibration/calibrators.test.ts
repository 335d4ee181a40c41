import {
  applyCalibrator,
  applyShrunk,
  calibratedProbability,
  chooseCalibrator,
  fitCalibrationTable,
  SHRINKAGE_PRIOR,
  fitIsotonic,
  fitPlatt,
  ISOTONIC_CLIP,
  poolAdjacentViolators,
  samplesOf,
  sigmoid,
} from '../../../../src/model/calibration';
import { seededRandom } from '../../../../src/seeded-random';

/** n examples with logits ~ N(0, 2) and labels drawn from sigmoid(a * logit + b). */
function synthetic(n: number, a: number, b: number, seed = 1) {
  const random = seededRandom(seed);
  const logits: number[] = [];
  const labels: number[] = [];
  for (let i = 0; i < n; i++) {
    const u = Math.max(random(), 1e-12);
    const z = 2 * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
    logits.push(z);
    labels.push(random() < sigmoid(a * z + b) ? 1 : 0);
  }
  return samplesOf(logits, labels);
}

describe('Platt scaling', () => {
  it('recovers the slope and intercept that generated the labels', () => {
    const fit = fitPlatt(synthetic(20000, 0.6, -1.2));
    expect(fit.a).toBeCloseTo(0.6, 1);
    expect(fit.b).toBeCloseTo(-1.2, 1);
  });

  it("uses Platt's smoothed targets: a separable set gets a finite slope", () => {
    const fit = fitPlatt(samplesOf([-2, -1, 1, 2], [0, 0, 1, 1]));
    expect(Number.isFinite(fit.a)).toBe(true);
    expect(fit.a).toBeGreaterThan(0);
    // Targets 1/4 and 3/4 with N+ = N- = 2: symmetric, so b = 0, and p(2) stays below 3/4 + slack.
    expect(fit.b).toBeCloseTo(0, 6);
    expect(sigmoid(fit.a * 2 + fit.b)).toBeLessThan(0.8);
  });

  it('honours weights as repeated examples', () => {
    const repeated = fitPlatt(samplesOf([-1, -1, 0, 1, 1, 1], [0, 1, 0, 1, 1, 0]));
    const weighted = fitPlatt(samplesOf([-1, -1, 0, 1, 1], [0, 1, 0, 1, 0], [1, 1, 1, 2, 1]));
    expect(weighted.a).toBeCloseTo(repeated.a, 6);
    expect(weighted.b).toBeCloseTo(repeated.b, 6);
  });
});

describe('isotonic regression', () => {
  it('pools adjacent violators to the known answer', () => {
    // 1, 3, 2, 4, 3, 3 -> 1, 2.5, 2.5, 3.33.., 3.33.., 3.33..
    const blocks = poolAdjacentViolators([1, 3, 2, 4, 3, 3]);
    expect(blocks.map((b) => [b.start, b.end])).toEqual([
      [0, 1],
      [1, 3],
      [3, 6],
    ]);
    expect(blocks.map((b) => b.value)).toEqual([1, 2.5, 10 / 3]);
  });

  it('weights pool by weight', () => {
    expect(poolAdjacentViolators([3, 1], [3, 1])[0]?.value).toBeCloseTo(2.5, 12);
  });

  it('interpolates between block ends, is flat outside and clipped away from 0 and 1', () => {
    const fit = fitIsotonic(samplesOf([0, 1, 2, 3, 4, 5], [0, 0, 1, 0, 1, 1]));
    const c = { kind: 'isotonic' as const, ...fit };
    expect(applyCalibrator(c, -10)).toBe(ISOTONIC_CLIP);
    expect(applyCalibrator(c, 10)).toBe(1 - ISOTONIC_CLIP);
    // Blocks: {0,1}=0, {2,3}=0.5, {4,5}=1; between 1 and 2 the line goes from clip to 0.5.
    expect(applyCalibrator(c, 2.5)).toBeCloseTo(0.5, 12);
    expect(applyCalibrator(c, 1.5)).toBeCloseTo((ISOTONIC_CLIP + 0.5) / 2, 12);
    for (let z = -1; z < 6; z += 0.25)
      expect(applyCalibrator(c, z + 0.25)).toBeGreaterThanOrEqual(applyCalibrator(c, z));
  });

  it('pools equal logits into one point', () => {
    const fit = fitIsotonic(samplesOf([1, 1, 1, 1], [1, 0, 1, 1]));
    expect(fit.x).toEqual([1]);
    expect(fit.y[0]).toBeCloseTo(0.75, 12);
  });
});

describe('choosing and shrinking', () => {
  it('picks Platt for logistic data and isotonic for a step the sigmoid cannot follow', () => {
    expect(chooseCalibrator(synthetic(4000, 1.5, 0.5), 7).calibrator.kind).toBe('platt');
    const random = seededRandom(3);
    const logits = Array.from({ length: 4000 }, () => random() * 8 - 4);
    // True probability 0.1 below 0, 0.9 above: a step.
    const labels = logits.map((z) => (random() < (z < 0 ? 0.1 : 0.9) ? 1 : 0));
    const choice = chooseCalibrator(samplesOf(logits, labels), 7);
    expect(choice.calibrator.kind).toBe('isotonic');
    expect(choice.heldOutLogLoss.isotonic as number).toBeLessThan(
      choice.heldOutLogLoss.platt as number,
    );
  });

  it('falls back to Platt when there are fewer positives than folds', () => {
    const choice = chooseCalibrator(samplesOf([0, 1, 2, 3, 4, 5, 6], [0, 0, 0, 0, 1, 1, 1]), 1);
    expect(choice.calibrator.kind).toBe('platt');
    expect(choice.heldOutLogLoss).toEqual({ platt: null, isotonic: null });
  });

  it('mixes the own and global calibrators by the weight', () => {
    const own = { kind: 'platt' as const, a: 1, b: 1 };
    const global = { kind: 'sigmoid' as const };
    expect(applyShrunk({ own, weight: 0.25 }, global, 0)).toBeCloseTo(
      0.25 * sigmoid(1) + 0.75 * 0.5,
      12,
    );
  });
});

describe('the calibration table', () => {
  it('refuses a relation whose Platt slope is not positive (the global one serves) and shrinks by n/(n+25)', () => {
    const random = seededRandom(5);
    const logits = Array.from({ length: 400 }, () => random() * 6 - 3);
    const good = samplesOf(
      logits,
      logits.map((z) => (random() < sigmoid(z) ? 1 : 0)),
    );
    // Four examples, higher logit = false: Platt (too few for cross-validation) with a < 0.
    const reversed = samplesOf([-2, -1, 1, 2], [1, 1, 0, 0]);
    const table = fitCalibrationTable(
      [
        { relation: 'good', direction: 'tail', samples: good },
        { relation: 'reversed', direction: 'tail', samples: reversed },
      ],
      1,
    );
    const [own, bad] = table.relations;
    expect(bad!.weight).toBe(0);
    expect(bad!.fallback).toMatch(/slope/);
    expect(calibratedProbability(table, 'reversed', 'tail', 2)).toBeGreaterThan(
      calibratedProbability(table, 'reversed', 'tail', -2),
    );
    let positives = 0;
    good.labels.forEach((l) => (positives += l));
    expect(own!.weight).toBeCloseTo(positives / (positives + SHRINKAGE_PRIOR), 12);
    expect(SHRINKAGE_PRIOR).toBe(25);
  });
});
