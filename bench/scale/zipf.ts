/**
 * Draws ranks 0..n-1 with P(k) proportional to (k + 1)^-exponent: a few ranks drawn very often,
 * most rarely, as the popularity of entities in real graphs. Counting how often each rank is
 * drawn gives a power-law degree tail of exponent about 1 + 1/exponent.
 */
export class ZipfSampler {
  private readonly cumulative: Float64Array;

  constructor(
    readonly n: number,
    exponent: number,
  ) {
    if (!(n >= 1)) throw new RangeError(`a Zipf sampler needs at least one rank (got ${n})`);
    this.cumulative = new Float64Array(n);
    let total = 0;
    for (let k = 0; k < n; k++) {
      total += (k + 1) ** -exponent;
      this.cumulative[k] = total;
    }
    for (let k = 0; k < n; k++) this.cumulative[k] = (this.cumulative[k] as number) / total;
  }

  /** The rank for a uniform draw `u` in [0, 1): binary search of the cumulative weights. */
  rank(u: number): number {
    let lo = 0;
    let hi = this.n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.cumulative[mid] as number) > u) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}
