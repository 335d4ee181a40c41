/**
 * Logits sorted once, so that many answers can each count how many of them lie above their own
 * logit (ties count half, as ranks count them) by two binary searches instead of a scan.
 */
export class SortedLogits {
  private constructor(private readonly ascending: Float32Array) {}

  /** The logits sorted, or undefined when one is NaN (a NaN is neither above nor below). */
  static of(logits: ArrayLike<number>): SortedLogits | undefined {
    const ascending = Float32Array.from(logits).sort();
    const last = ascending[ascending.length - 1];
    return last !== undefined && Number.isNaN(last) ? undefined : new SortedLogits(ascending);
  }

  get size(): number {
    return this.ascending.length;
  }

  /** How many logits are above `logit`, plus half of those equal to it. */
  above(logit: number): number {
    const below = this.firstAtLeast(logit, false);
    const notAbove = this.firstAtLeast(logit, true);
    return this.ascending.length - notAbove + (notAbove - below) / 2;
  }

  /** The first index whose logit is >= `logit` (`strictly`: > `logit`). */
  private firstAtLeast(logit: number, strictly: boolean): number {
    let [lo, hi] = [0, this.ascending.length];
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.ascending[mid] as number;
      if (v < logit || (strictly && v === logit)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
