/** Equal-width bins of [0, 1] for ECE and the reliability diagram (Guo et al. 2017 use 15). */
export const ECE_BINS = 15;

export interface CalibrationMetrics {
  /** Expected calibration error: weighted mean |accuracy - confidence| over ECE_BINS bins. */
  ece: number;
  /** Mean squared error of the probability against the 0/1 label. */
  brier: number;
  /** Mean negative log-likelihood (natural log; probabilities clipped to [1e-15, 1 - 1e-15]). */
  logLoss: number;
  /** Number of examples and their total weight. */
  count: number;
}

export interface ReliabilityBin {
  /** The bin is [lower, upper); the last one includes 1. */
  lower: number;
  upper: number;
  /** Weighted mean predicted probability and observed frequency of positives in the bin. */
  meanPredicted: number;
  observed: number;
  /** Total weight in the bin. */
  weight: number;
}

function weightOf(weights: ArrayLike<number> | undefined, i: number): number {
  return weights ? (weights[i] as number) : 1;
}

/** Equal-width bins; empty bins are left out. */
export function reliabilityBins(
  probabilities: ArrayLike<number>,
  labels: ArrayLike<number>,
  weights?: ArrayLike<number>,
  bins = ECE_BINS,
): ReliabilityBin[] {
  const sumP = new Float64Array(bins);
  const sumY = new Float64Array(bins);
  const sumW = new Float64Array(bins);
  for (let i = 0; i < probabilities.length; i++) {
    const p = probabilities[i] as number;
    const w = weightOf(weights, i);
    const bin = Math.min(bins - 1, Math.max(0, Math.floor(p * bins)));
    sumP[bin] = (sumP[bin] as number) + w * p;
    sumY[bin] = (sumY[bin] as number) + w * (labels[i] as number);
    sumW[bin] = (sumW[bin] as number) + w;
  }
  const result: ReliabilityBin[] = [];
  for (let b = 0; b < bins; b++) {
    const w = sumW[b] as number;
    if (w <= 0) continue;
    result.push({
      lower: b / bins,
      upper: (b + 1) / bins,
      meanPredicted: (sumP[b] as number) / w,
      observed: (sumY[b] as number) / w,
      weight: w,
    });
  }
  return result;
}

export function expectedCalibrationError(
  probabilities: ArrayLike<number>,
  labels: ArrayLike<number>,
  weights?: ArrayLike<number>,
  bins = ECE_BINS,
): number {
  const cells = reliabilityBins(probabilities, labels, weights, bins);
  const total = cells.reduce((sum, c) => sum + c.weight, 0);
  if (total <= 0) return 0;
  return cells.reduce(
    (sum, c) => sum + (c.weight / total) * Math.abs(c.observed - c.meanPredicted),
    0,
  );
}

/** The weighted mean of `loss(probability, label)` over the examples (0 for none). */
function weightedMeanLoss(
  probabilities: ArrayLike<number>,
  labels: ArrayLike<number>,
  weights: ArrayLike<number> | undefined,
  loss: (p: number, y: number) => number,
): number {
  let sum = 0;
  let total = 0;
  for (let i = 0; i < probabilities.length; i++) {
    const w = weightOf(weights, i);
    sum += w * loss(probabilities[i] as number, labels[i] as number);
    total += w;
  }
  return total > 0 ? sum / total : 0;
}

export function brierScore(
  probabilities: ArrayLike<number>,
  labels: ArrayLike<number>,
  weights?: ArrayLike<number>,
): number {
  return weightedMeanLoss(probabilities, labels, weights, (p, y) => (p - y) * (p - y));
}

export function logLoss(
  probabilities: ArrayLike<number>,
  labels: ArrayLike<number>,
  weights?: ArrayLike<number>,
): number {
  return weightedMeanLoss(probabilities, labels, weights, (p, y) => {
    const clipped = Math.min(Math.max(p, 1e-15), 1 - 1e-15);
    return y ? -Math.log(clipped) : -Math.log(1 - clipped);
  });
}

export function calibrationMetrics(
  probabilities: ArrayLike<number>,
  labels: ArrayLike<number>,
  weights?: ArrayLike<number>,
): CalibrationMetrics {
  return {
    ece: expectedCalibrationError(probabilities, labels, weights),
    brier: brierScore(probabilities, labels, weights),
    logLoss: logLoss(probabilities, labels, weights),
    count: probabilities.length,
  };
}
