import {
  edgeProbability,
  fitEdgeCalibration,
  logLoss,
  servedEdgeProbability,
  servingCalibration,
  SHRINKAGE_PRIOR,
  sigmoid,
  TAIL_SHARES,
} from '../../../../src/model/calibration';
import type { CalibrationTable } from '../../../../src/model/calibration';
import { seededRandom } from '../../../../src/seeded-random';

/**
 * n edges of one relation, half true; the label is drawn from sigmoid(informative logit), the
 * other question's logit is noise: a relation where only one question knows the answer.
 */
function relationSamples(n: number, informative: 'tail' | 'head', seed: number) {
  const random = seededRandom(seed);
  const gauss = () =>
    Math.sqrt(-2 * Math.log(Math.max(random(), 1e-12))) * Math.cos(2 * Math.PI * random());
  const tailLogits = new Float64Array(n);
  const headLogits = new Float64Array(n);
  const labels = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const signal = 3 * gauss();
    const noise = 3 * gauss();
    labels[i] = random() < sigmoid(signal) ? 1 : 0;
    tailLogits[i] = informative === 'tail' ? signal : noise;
    headLogits[i] = informative === 'head' ? signal : noise;
  }
  return { tailLogits, headLogits, labels, weights: new Float64Array(n).fill(1) };
}

describe('edge calibration (both questions)', () => {
  const groups = [
    { relation: 'parentOf', samples: relationSamples(2000, 'head', 1) },
    { relation: 'bornIn', samples: relationSamples(2000, 'tail', 2) },
    { relation: 'rare', samples: relationSamples(12, 'tail', 3) },
  ];
  const table = fitEdgeCalibration(groups, 7);
  const own = (name: string) => table.relations.find((r) => r.relation === name)!;

  it('leans on whichever question knows the answer, per relation', () => {
    expect(own('parentOf').tailShare).toBe(0);
    expect(own('bornIn').tailShare).toBe(1);
    expect(TAIL_SHARES).toContain(table.global.tailShare);
  });

  it('beats the tail question alone in held-out log-loss where the head question knows', () => {
    const test = relationSamples(4000, 'head', 11);
    const edge = Array.from(test.tailLogits, (z, i) =>
      edgeProbability(table, 'parentOf', z, test.headLogits[i]!),
    );
    const tailOnly = Array.from(test.tailLogits, (z) => sigmoid(z));
    expect(logLoss(edge, test.labels)).toBeLessThan(logLoss(tailOnly, test.labels) - 0.2);
    // And it is calibrated: the mean probability is close to the share of true edges.
    const mean = edge.reduce((a, b) => a + b, 0) / edge.length;
    const observed = test.labels.reduce((a, b) => a + b, 0) / test.labels.length;
    expect(Math.abs(mean - observed)).toBeLessThan(0.03);
  });

  it('is non-decreasing in both logits', () => {
    for (const relation of ['parentOf', 'bornIn', 'rare', 'unknown']) {
      for (let a = -6; a <= 6; a += 1.5) {
        for (let b = -6; b <= 6; b += 1.5) {
          const p = edgeProbability(table, relation, a, b);
          expect(edgeProbability(table, relation, a + 0.5, b)).toBeGreaterThanOrEqual(p - 1e-12);
          expect(edgeProbability(table, relation, a, b + 0.5)).toBeGreaterThanOrEqual(p - 1e-12);
        }
      }
    }
  });

  it('shrinks a relation toward the global calibrator by its held-out positives', () => {
    const rare = own('rare');
    expect(rare.weight).toBeCloseTo(rare.positives / (rare.positives + SHRINKAGE_PRIOR), 12);
    expect(own('parentOf').weight).toBeGreaterThan(0.95);
  });

  it('serves by the model relation ids; an older calibration answers with the tail calibrator', () => {
    const directions: CalibrationTable = {
      global: { kind: 'platt', a: 0.5, b: 0 },
      shrinkagePrior: SHRINKAGE_PRIOR,
      relations: [],
    };
    const names = ['bornIn', 'parentOf'];
    const serving = servingCalibration(directions, names, table);
    expect(servedEdgeProbability(serving, 1, -2, 3)).toBeCloseTo(
      edgeProbability(table, 'parentOf', -2, 3),
      12,
    );
    const older = servingCalibration(directions, names);
    expect(servedEdgeProbability(older, 1, -2, 3)).toBeCloseTo(sigmoid(0.5 * -2), 12);
  });
});
