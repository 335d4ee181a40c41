/**
 * A successive-halving schedule: every trial trains `rungEpochs[0]` epochs, the best
 * `1 / eta` go on to `rungEpochs[1]` (resumed, not restarted), and so on; the sized preset
 * (trial 0) goes on whatever its rank.
 */
export interface HalvingPlan {
  trials: number;
  eta: number;
  /** Total epochs a trial has trained at the end of each rung. */
  rungEpochs: number[];
}

/** Trials kept after each rung: a third. */
const ETA = 3;
const RUNGS = 3;
/** Trial counts tried, most first: more trials when the budget allows a useful first rung. */
const TRIAL_COUNTS = [27, 9, 3];
/**
 * Trial counts for a budget that affords the full run (`fullEpochs` in the last rung) to 27
 * trials: the time a longer last rung would take goes to more trials instead.
 */
const WIDE_TRIAL_COUNTS = [243, 81];

/**
 * Epochs all trials train in total under `plan` at most (the unit its cost is measured in):
 * after each rung the best third go on, and the preset with them when it is not among them.
 */
export function totalEpochs(plan: HalvingPlan): number {
  let total = 0;
  let alive = plan.trials;
  let before = 0;
  for (const epochs of plan.rungEpochs) {
    total += alive * (epochs - before);
    before = epochs;
    const best = Math.max(1, Math.floor(alive / plan.eta));
    alive = Math.min(alive, best + 1);
  }
  return total;
}

/**
 * The schedule that fits `seconds` when one epoch, with its validation, takes `epochSeconds`:
 * as many trials as leave at least two epochs in the first rung (three with a first rung of
 * one epoch, when even that is tight). The last rung is at most `fullEpochs` (the preset's own
 * epoch count): longer rungs only overtrain at the search's constant lr, so on a small graph
 * a large budget buys more trials, not longer ones.
 */
export function planHalving(
  seconds: number,
  epochSeconds: number,
  fullEpochs = Infinity,
): HalvingPlan {
  const affordable = seconds / Math.max(epochSeconds, 1e-6);
  const rungs = (first: number) => Array.from({ length: RUNGS }, (_, k) => first * ETA ** k);
  const unit = (trials: number) => totalEpochs({ trials, eta: ETA, rungEpochs: rungs(1) });
  const fullFirst = Math.max(1, Math.ceil(fullEpochs / ETA ** (RUNGS - 1)));
  for (const trials of TRIAL_COUNTS) {
    const first = Math.floor(affordable / unit(trials));
    if (first > fullFirst) {
      const wide = WIDE_TRIAL_COUNTS.find((n) => fullFirst * unit(n) <= affordable) ?? trials;
      return { trials: wide, eta: ETA, rungEpochs: rungs(fullFirst) };
    }
    if (first >= 2 || (trials === TRIAL_COUNTS.at(-1) && first >= 1)) {
      return { trials, eta: ETA, rungEpochs: rungs(first) };
    }
  }
  return { trials: 3, eta: ETA, rungEpochs: [1] };
}
