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

/** How many trials train in each rung: the best third go on, and the preset when not among them. */
function aliveByRung(plan: HalvingPlan): number[] {
  const alive = [plan.trials];
  for (let k = 1; k < plan.rungEpochs.length; k++) {
    const before = alive[k - 1] as number;
    alive.push(Math.min(before, Math.max(1, Math.floor(before / plan.eta)) + 1));
  }
  return alive;
}

/** Epochs all trials train in total under `plan` at most (the unit its cost is measured in). */
export function totalEpochs(plan: HalvingPlan): number {
  const alive = aliveByRung(plan);
  return plan.rungEpochs.reduce(
    (total, epochs, k) => total + (alive[k] as number) * (epochs - (plan.rungEpochs[k - 1] ?? 0)),
    0,
  );
}

/** Validations under `plan`: one per trial at the end of each rung it trains. */
export function totalValidations(plan: HalvingPlan): number {
  return aliveByRung(plan).reduce((a, b) => a + b, 0);
}

/** What a search costs: an epoch takes `epochSeconds`, a validation `validationSeconds`. */
export interface TrialCosts {
  epochSeconds: number;
  validationSeconds: number;
}

/**
 * The schedule that fits `seconds`: as many trials as leave at least two epochs in the first
 * rung (three with a first rung of one epoch, when even that is tight). Trials validate once per
 * rung, not per epoch. The last rung is at most `fullEpochs` (the preset's own epoch count):
 * longer rungs only overtrain at the search's constant lr, so on a small graph a large budget
 * buys more trials, not longer ones.
 */
export function planHalving(
  seconds: number,
  costs: TrialCosts,
  fullEpochs = Infinity,
): HalvingPlan {
  const rungs = (first: number) => Array.from({ length: RUNGS }, (_, k) => first * ETA ** k);
  const unit = (trials: number) => ({ trials, eta: ETA, rungEpochs: rungs(1) });
  /** The longest first rung `trials` trials can afford. */
  const firstRung = (trials: number) =>
    Math.floor(
      (seconds - totalValidations(unit(trials)) * costs.validationSeconds) /
        (totalEpochs(unit(trials)) * Math.max(costs.epochSeconds, 1e-6)),
    );
  const fullFirst = Math.max(1, Math.ceil(fullEpochs / ETA ** (RUNGS - 1)));
  for (const trials of TRIAL_COUNTS) {
    const first = firstRung(trials);
    if (first > fullFirst) {
      const wide = WIDE_TRIAL_COUNTS.find((n) => firstRung(n) >= fullFirst) ?? trials;
      return { trials: wide, eta: ETA, rungEpochs: rungs(fullFirst) };
    }
    if (first >= 2 || (trials === TRIAL_COUNTS.at(-1) && first >= 1)) {
      return { trials, eta: ETA, rungEpochs: rungs(first) };
    }
  }
  return { trials: 3, eta: ETA, rungEpochs: [1] };
}
