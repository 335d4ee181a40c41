/**
 * Weighted logistic regression with a ridge penalty, fitted by Newton's method (IRLS) with a
 * backtracking line search: p(y = 1 | x) = sigmoid(w · x). `rows` is n x d row-major; the first
 * column is usually 1 (the intercept, which the ridge leaves alone). The ridge keeps separable or
 * collinear data finite; the line search keeps a full Newton step from overshooting where the
 * sigmoids saturate (there the curvature is near 0 and the step near gradient / ridge).
 */
export function fitLogistic(
  rows: Float64Array,
  d: number,
  labels: ArrayLike<number>,
  weights: ArrayLike<number>,
  ridge = 1e-2,
  iterations = 50,
): Float64Array {
  const n = labels.length;
  const w = new Float64Array(d);
  const trial = new Float64Array(d);
  const gradient = new Float64Array(d);
  const hessian = new Float64Array(d * d);
  const objective = penalizedLoss(rows, d, labels, weights, ridge);
  let current = objective(w);
  for (let iteration = 0; iteration < iterations; iteration++) {
    gradient.fill(0);
    hessian.fill(0);
    for (let i = 0; i < n; i++) {
      const x = rows.subarray(i * d, i * d + d);
      let z = 0;
      for (let j = 0; j < d; j++) z += (w[j] as number) * (x[j] as number);
      const p = 1 / (1 + Math.exp(-z));
      const c = weights[i] as number;
      const residual = c * (p - (labels[i] as number));
      const curvature = c * p * (1 - p);
      for (let j = 0; j < d; j++) {
        gradient[j] = (gradient[j] as number) + residual * (x[j] as number);
        for (let k = 0; k <= j; k++)
          hessian[j * d + k] =
            (hessian[j * d + k] as number) + curvature * (x[j] as number) * (x[k] as number);
      }
    }
    for (let j = 1; j < d; j++) {
      gradient[j] = (gradient[j] as number) + ridge * (w[j] as number);
      hessian[j * d + j] = (hessian[j * d + j] as number) + ridge;
    }
    gradient[0] = (gradient[0] as number) + INTERCEPT_RIDGE * (w[0] as number);
    hessian[0] = (hessian[0] as number) + INTERCEPT_RIDGE;
    for (let j = 0; j < d; j++)
      for (let k = j + 1; k < d; k++) hessian[j * d + k] = hessian[k * d + j] as number;
    const step = solve(hessian, gradient, d);
    // Armijo: the step must lower the objective by a share of what its slope promises.
    let slope = 0;
    for (let j = 0; j < d; j++) slope += (gradient[j] as number) * (step[j] as number);
    if (!(slope > 0)) break;
    let t = 1;
    let next = Infinity;
    for (let halvings = 0; halvings < 40; halvings++, t /= 2) {
      for (let j = 0; j < d; j++) trial[j] = (w[j] as number) - t * (step[j] as number);
      next = objective(trial);
      if (next <= current - 1e-4 * t * slope) break;
    }
    if (!(next < current)) break;
    let largest = 0;
    for (let j = 0; j < d; j++) {
      largest = Math.max(largest, Math.abs((trial[j] as number) - (w[j] as number)));
      w[j] = trial[j] as number;
    }
    current = next;
    if (largest < 1e-10) break;
  }
  return w;
}

/** Keeps the Hessian invertible when every example has the same label. */
const INTERCEPT_RIDGE = 1e-9;

/**
 * The objective Newton minimizes: the weighted log-loss, sum c_i (log(1 + e^z_i) - y_i z_i),
 * plus ridge/2 |w_1..|^2 and INTERCEPT_RIDGE/2 w_0^2; computed without overflow.
 */
function penalizedLoss(
  rows: Float64Array,
  d: number,
  labels: ArrayLike<number>,
  weights: ArrayLike<number>,
  ridge: number,
): (w: Float64Array) => number {
  return (w) => {
    let sum = 0;
    for (let i = 0; i < labels.length; i++) {
      let z = 0;
      for (let j = 0; j < d; j++) z += (w[j] as number) * (rows[i * d + j] as number);
      const softplus = z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z));
      sum += (weights[i] as number) * (softplus - (labels[i] as number) * z);
    }
    let penalty = INTERCEPT_RIDGE * (w[0] as number) ** 2;
    for (let j = 1; j < d; j++) penalty += ridge * (w[j] as number) ** 2;
    return sum + penalty / 2;
  };
}

/** Solves A x = b (A d x d, symmetric positive definite) by Gaussian elimination with pivoting. */
function solve(matrix: Float64Array, rhs: Float64Array, d: number): Float64Array {
  const a = Float64Array.from(matrix);
  const b = Float64Array.from(rhs);
  for (let c = 0; c < d; c++) {
    let pivot = c;
    for (let r = c + 1; r < d; r++)
      if (Math.abs(a[r * d + c] as number) > Math.abs(a[pivot * d + c] as number)) pivot = r;
    if (pivot !== c) {
      for (let k = 0; k < d; k++) {
        const t = a[c * d + k] as number;
        a[c * d + k] = a[pivot * d + k] as number;
        a[pivot * d + k] = t;
      }
      const t = b[c] as number;
      b[c] = b[pivot] as number;
      b[pivot] = t;
    }
    const diagonal = a[c * d + c] as number;
    for (let r = c + 1; r < d; r++) {
      const f = (a[r * d + c] as number) / diagonal;
      if (f === 0) continue;
      for (let k = c; k < d; k++)
        a[r * d + k] = (a[r * d + k] as number) - f * (a[c * d + k] as number);
      b[r] = (b[r] as number) - f * (b[c] as number);
    }
  }
  const x = new Float64Array(d);
  for (let r = d - 1; r >= 0; r--) {
    let s = b[r] as number;
    for (let k = r + 1; k < d; k++) s -= (a[r * d + k] as number) * (x[k] as number);
    x[r] = s / (a[r * d + r] as number);
  }
  return x;
}
