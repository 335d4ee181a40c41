/** One validation of a run: the epochs trained and the validation MRR. */
export interface ValidationPoint {
  epoch: number;
  mrr: number;
}

/** A change in validation MRR per epoch below this is noise on the graphs measured. */
const FLAT_SLOPE_PER_EPOCH = 0.0005;

/**
 * What a longer budget would likely give, from the end of the validation curve: the MRR gained
 * per epoch over the last validations, carried over as many more epochs and halved (curves
 * flatten). A rough guide for the user's next run, not a promise.
 */
export function longerBudgetAdvice(validations: ValidationPoint[]): string {
  const points = validations.slice(-3);
  if (points.length < 2) return 'too few validations to say whether a longer budget would help';
  const first = points[0] as ValidationPoint;
  const last = points[points.length - 1] as ValidationPoint;
  const slope = (last.mrr - first.mrr) / Math.max(last.epoch - first.epoch, 1);
  if (slope <= FLAT_SLOPE_PER_EPOCH) {
    return 'validation MRR had levelled off: a longer budget would likely not help';
  }
  const gain = (slope * last.epoch) / 2;
  return (
    `validation MRR was still rising (+${slope.toFixed(4)} per epoch at the end): ` +
    `twice the budget would likely add about +${gain.toFixed(3)}`
  );
}
