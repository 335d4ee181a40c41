/**
 * Weighted logistic regression with a ridge penalty, fitted by Newton's method (IRLS):
 * p(y = 1 | x) = sigmoid(w · x). `rows` is n x d row-major; the first column is usually 1 (the
 * intercept, which the ridge leaves alone). The ridge keeps separable or collinear data finite.
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
  const gradient = new Float64Array(d);
  const hessian = new Float64Array(d * d);
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
    hessian[0] = (hessian[0] as number) + 1e-9;
    for (let j = 0; j < d; j++)
      for (let k = j + 1; k < d; k++) hessian[j * d + k] = hessian[k * d + j] as number;
    const step = solve(hessian, gradient, d);
    let largest = 0;
    for (let j = 0; j < d; j++) {
      w[j] = (w[j] as number) - (step[j] as number);
      largest = Math.max(largest, Math.abs(step[j] as number));
    }
    if (largest < 1e-10) break;
  }
  return w;
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
