/**
 * A map from a logit to a probability. Every kind is non-decreasing in the logit, so a
 * calibrated probability never reorders a ranking (ties at most, where isotonic is flat).
 */
export type Calibrator =
  | { kind: 'sigmoid' }
  /** p = sigmoid(a * logit + b), a > 0. */
  | { kind: 'platt'; a: number; b: number }
  /** Piecewise linear through (x[i], y[i]) (x ascending, y non-decreasing), flat outside. */
  | { kind: 'isotonic'; x: number[]; y: number[] };

export function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

function interpolate(x: number[], y: number[], z: number): number {
  const n = x.length;
  if (n === 0) return 0.5;
  if (z <= (x[0] as number)) return y[0] as number;
  if (z >= (x[n - 1] as number)) return y[n - 1] as number;
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if ((x[mid] as number) <= z) lo = mid;
    else hi = mid;
  }
  const x0 = x[lo] as number;
  const x1 = x[hi] as number;
  const y0 = y[lo] as number;
  const y1 = y[hi] as number;
  return x1 === x0 ? y1 : y0 + ((y1 - y0) * (z - x0)) / (x1 - x0);
}

export function applyCalibrator(calibrator: Calibrator, logit: number): number {
  switch (calibrator.kind) {
    case 'sigmoid':
      return sigmoid(logit);
    case 'platt':
      return sigmoid(calibrator.a * logit + calibrator.b);
    case 'isotonic':
      return interpolate(calibrator.x, calibrator.y, logit);
  }
}

/**
 * A (relation, direction) calibrator shrunk toward the global one:
 * p = weight * own(logit) + (1 - weight) * global(logit). Both parts are non-decreasing, so
 * the mixture is too.
 */
export interface ShrunkCalibrator {
  own: Calibrator;
  weight: number;
}

export function applyShrunk(shrunk: ShrunkCalibrator, global: Calibrator, logit: number): number {
  const own = applyCalibrator(shrunk.own, logit);
  if (shrunk.weight >= 1) return own;
  return shrunk.weight * own + (1 - shrunk.weight) * applyCalibrator(global, logit);
}
