function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * A step for visiting 0..n-1 as `(i * step) % n`: coprime with n, so every index comes once,
 * and near n times the golden ratio's fraction, so any prefix of the walk is spread over the
 * whole range (a warm-up cut short still covers all of it, not one end).
 */
export function coprimeStride(n: number): number {
  let step = Math.max(1, Math.floor(n * 0.618));
  while (n > 1 && gcd(step, n) !== 1) step += 1;
  return step;
}
