/** One validation of a run: the epochs trained and the validation MRR. */
export interface ValidationPoint {
  epoch: number;
  mrr: number;
}

/** A gain from twice the budget below this is noise on the graphs measured. */
const NOISE_GAIN = 0.002;

/**
 * `b` of the run's final validation MRR as a function of its epochs, `a - b / epoch`, fitted by
 * least squares to the validations of its last three quarters (at least its last three). An
 * annealed run's last few validations flatten with its learning rate, not with what more epochs
 * would give, so the fit reads the curve's whole second part.
 */
function fittedB(points: ValidationPoint[]): number {
  const last = (points[points.length - 1] as ValidationPoint).epoch;
  const late = points.filter((p) => p.epoch >= last / 4);
  const used = late.length >= 3 ? late : points.slice(-3);
  const xs = used.map((p) => 1 / Math.max(p.epoch, 1));
  const ys = used.map((p) => p.mrr);
  const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
  const [mx, my] = [mean(xs), mean(ys)];
  let [sxx, sxy] = [0, 0];
  xs.forEach((x, i) => {
    sxx += (x - mx) ** 2;
    sxy += (x - mx) * ((ys[i] as number) - my);
  });
  return sxx > 0 ? -sxy / sxx : 0;
}

/**
 * What a longer budget would likely give, from the validation curve: nothing where it peaked
 * before the last quarter of the run; otherwise twice the epochs under the fit above (b / 2E).
 * Within 2x of what a longer run gained on about half the family's pairs, within 4x on all
 * (bench/quality/RESULTS.md, 2026-12-01): a rough guide for the user's next run, not a promise.
 */
export function longerBudgetAdvice(validations: ValidationPoint[]): string {
  if (validations.length < 3)
    return 'too few validations to say whether a longer budget would help';
  const last = validations[validations.length - 1] as ValidationPoint;
  const best = validations.reduce((b, p) => (p.mrr > b.mrr ? p : b));
  if (best.epoch < 0.75 * last.epoch) {
    return (
      `validation MRR peaked at epoch ${best.epoch} of ${last.epoch} (${best.mrr.toFixed(4)}): ` +
      'a longer budget would likely not help'
    );
  }
  const gain = fittedB(validations) / (2 * last.epoch);
  if (gain < NOISE_GAIN)
    return 'validation MRR had levelled off: a longer budget would likely not help';
  return (
    `validation MRR was still rising (${best.mrr.toFixed(4)} at epoch ${best.epoch}): twice the ` +
    `budget would likely add about +${gain.toFixed(3)} (a fit of the curve; a rough guide)`
  );
}
