import {
  brierScore,
  calibrationMetrics,
  ECE_BINS,
  expectedCalibrationError,
  logLoss,
  reliabilityBins,
} from '../../../../src/model/calibration';

describe('calibration metrics, by hand', () => {
  const p = [0.1, 0.1, 0.9, 0.9, 0.5];
  const y = [0, 1, 1, 1, 0];

  it('Brier: mean squared error', () => {
    expect(brierScore(p, y)).toBeCloseTo((0.01 + 0.81 + 0.01 + 0.01 + 0.25) / 5, 12);
  });

  it('log-loss: mean negative log-likelihood', () => {
    const expected = -(Math.log(0.9) + Math.log(0.1) + 2 * Math.log(0.9) + Math.log(0.5)) / 5;
    expect(logLoss(p, y)).toBeCloseTo(expected, 12);
  });

  it(`ECE over ${ECE_BINS} equal-width bins`, () => {
    // Bins: 0.1 -> [0.0667, 0.1333): observed 0.5, mean 0.1; 0.5 -> observed 0;
    // 0.9 -> observed 1. ECE = 2/5*0.4 + 1/5*0.5 + 2/5*0.1.
    expect(ECE_BINS).toBe(15);
    expect(expectedCalibrationError(p, y)).toBeCloseTo(0.16 + 0.1 + 0.04, 12);
    const bins = reliabilityBins(p, y);
    expect(bins).toHaveLength(3);
    expect(bins[0]).toMatchObject({ meanPredicted: 0.1, observed: 0.5, weight: 2 });
    // p = 1 lands in the last bin, not past it.
    expect(reliabilityBins([1], [1])[0]).toMatchObject({ lower: 14 / 15, upper: 1 });
  });

  it('a perfectly calibrated predictor has ECE 0; weights count as repeats', () => {
    expect(expectedCalibrationError([0.25, 0.25, 0.25, 0.25], [1, 0, 0, 0])).toBeCloseTo(0, 12);
    const weighted = calibrationMetrics([0.2, 0.7], [0, 1], [3, 1]);
    const repeated = calibrationMetrics([0.2, 0.2, 0.2, 0.7], [0, 0, 0, 1]);
    expect(weighted.ece).toBeCloseTo(repeated.ece, 12);
    expect(weighted.brier).toBeCloseTo(repeated.brier, 12);
    expect(weighted.logLoss).toBeCloseTo(repeated.logLoss, 12);
  });
});
