import { sigmoid } from './calibrator';
import type { Samples } from './samples';
import { classWeights } from './samples';

export interface PlattFit {
  a: number;
  b: number;
}

/** -log of a probability, bounded so that a saturated sigmoid costs a finite amount. */
function nll(p: number, target: number): number {
  const q = Math.min(Math.max(p, 1e-15), 1 - 1e-15);
  return -(target * Math.log(q) + (1 - target) * Math.log(1 - q));
}

/**
 * Platt scaling: p = sigmoid(a * logit + b) by Newton's method with a backtracking line search
 * on the weighted log-loss, against Platt's smoothed targets (N+ + 1) / (N+ + 2) for positives
 * and 1 / (N- + 2) for negatives (N: class weights), which keep a separable set from driving a
 * to infinity. Starts from the identity (a = 1, b = 0): the model's sigmoid.
 */
export function fitPlatt(samples: Samples, maxIterations = 100): PlattFit {
  const { positive, negative } = classWeights(samples);
  const hiTarget = (positive + 1) / (positive + 2);
  const loTarget = 1 / (negative + 2);
  const n = samples.logits.length;
  const targets = new Float64Array(n);
  for (let i = 0; i < n; i++) targets[i] = samples.labels[i] ? hiTarget : loTarget;
  const loss = (a: number, b: number): number => {
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const p = sigmoid(a * (samples.logits[i] as number) + b);
      sum += (samples.weights[i] as number) * nll(p, targets[i] as number);
    }
    return sum;
  };
  let a = 1;
  let b = 0;
  let current = loss(a, b);
  for (let iteration = 0; iteration < maxIterations; iteration++) {
    let ga = 0;
    let gb = 0;
    let haa = 1e-12;
    let hab = 0;
    let hbb = 1e-12;
    for (let i = 0; i < n; i++) {
      const z = samples.logits[i] as number;
      const w = samples.weights[i] as number;
      const p = sigmoid(a * z + b);
      const d = w * (p - (targets[i] as number));
      const h = w * p * (1 - p);
      ga += d * z;
      gb += d;
      haa += h * z * z;
      hab += h * z;
      hbb += h;
    }
    const det = haa * hbb - hab * hab;
    if (!(Math.abs(det) > 0)) break;
    const da = -(hbb * ga - hab * gb) / det;
    const db = -(haa * gb - hab * ga) / det;
    let step = 1;
    let next = loss(a + step * da, b + step * db);
    while (next > current + 1e-12 && step > 1e-10) {
      step /= 2;
      next = loss(a + step * da, b + step * db);
    }
    if (next > current + 1e-12) break;
    a += step * da;
    b += step * db;
    const improvement = current - next;
    current = next;
    if (Math.abs(step * da) < 1e-9 && Math.abs(step * db) < 1e-9) break;
    if (improvement < 1e-12 * Math.max(1, current)) break;
  }
  return { a, b };
}
