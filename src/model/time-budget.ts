import { ErrorCode, KgcError } from '../errors';
import type { GraphSize } from './graph-size';
import { mapEngineError, nativeEngine, Native } from './native-engine';
import type { TrainingDevice, TrainOptions } from './train';
import { toNativeData, TrainingData } from './training-data';
import { EngineConfig, resolveTrainingConfig, TrainingOverrides } from './training-settings';

/** Training steps run to estimate an epoch (the later half is timed). */
const PROBE_BATCHES = 24;
/** Share of the remaining budget planned for epochs; the rest absorbs estimate errors. */
const PLANNED_SHARE = 0.95;
/**
 * The epoch cap over the planned count: where epochs run faster than estimated, the run goes on
 * (the lr anneal follows the epochs that actually fit, see `budgetTrainOptions`).
 */
const EPOCH_HEADROOM = 2;

/** A run planned to fit a wall-clock budget on this machine. */
export interface BudgetPlan {
  /** Its epoch count is a cap above `epochs`, its lr decay the planned one spread over the cap. */
  config: EngineConfig;
  /** Epochs estimated to fit (the settings were resolved for this many). */
  epochs: number;
  /** Measured on this machine for the config before planning. */
  estimate: Native.EpochEstimate;
  /** What training may use after the estimate: pass it to `train` as its time limit. */
  trainingSeconds: number;
}

/**
 * Plans training to end within `budgetSeconds`: times a few steps and a partial validation
 * of the config the preset resolves to, counts the epochs (with their validations) that fit in
 * what is left, and resolves the preset again for that many epochs (the `default` preset then
 * anneals its learning rate over them and drops dropout when they are few). Train the plan's
 * config with `timeLimitSeconds: plan.trainingSeconds`, which stops it on time whatever the
 * estimate's error. The probe runs on `device`, where the plan's run will.
 */
export async function planTimeBudget(
  data: TrainingData,
  preset: string,
  overrides: TrainingOverrides,
  graph: GraphSize,
  budgetSeconds: number,
  device?: TrainingDevice,
): Promise<BudgetPlan> {
  if (!(budgetSeconds > 0) || !Number.isFinite(budgetSeconds)) {
    throw new KgcError(ErrorCode.BAD_USER_INPUT, 'The time budget must be a positive duration.');
  }
  const first = resolveTrainingConfig(preset, overrides, graph);
  const estimate = await estimateEpoch(data, first, device);
  const trainingSeconds = Math.max(0, budgetSeconds - estimate.probeSeconds);
  const fit = epochsThatFit(trainingSeconds * PLANNED_SHARE, estimate, first.evalEvery);
  const planned = resolveTrainingConfig(preset, overrides, graph, fit);
  return {
    config: fittedToTheBudget(
      planned,
      overrides,
      fit,
      resolveTrainingConfig(preset, overrides).epochs,
    ),
    epochs: planned.epochs,
    estimate,
    trainingSeconds,
  };
}

/**
 * `planned` fitted to running against the clock. Where the time binds (`planned` has as many
 * epochs as fit, `fit`): room for up to twice the epochs, never more than the preset's own
 * count (`presetEpochs`), annealing to the same final lr (the estimate times a few steps, and
 * epochs have run from 0.65x to 1.2x of it on one graph). The user's epoch count stays. Patience
 * is the planned run's (the `default` preset's is a tenth of its planned validations).
 */
function fittedToTheBudget(
  planned: EngineConfig,
  overrides: TrainingOverrides,
  fit: number,
  presetEpochs: number,
): EngineConfig {
  const bound = overrides.epochs === undefined && planned.epochs >= fit;
  const most = Math.max(planned.epochs, presetEpochs);
  const epochs = bound
    ? Math.min(Math.ceil(planned.epochs * EPOCH_HEADROOM), most)
    : planned.epochs;
  return { ...planned, epochs, decay: planned.decay ** (planned.epochs / epochs) };
}

/** What `train` needs to run a plan: its time limit, and the lr anneal fitted to that time. */
export function budgetTrainOptions(
  plan: BudgetPlan | undefined,
): Pick<TrainOptions, 'timeLimitSeconds' | 'annealToTimeLimit'> {
  return plan ? { timeLimitSeconds: plan.trainingSeconds, annealToTimeLimit: true } : {};
}

/** What one epoch (and one validation) of `config` costs on this machine, measured now. */
export async function estimateEpoch(
  data: TrainingData,
  config: EngineConfig,
  device?: TrainingDevice,
): Promise<Native.EpochEstimate> {
  try {
    return await nativeEngine().estimateEpoch(toNativeData(data), config, PROBE_BATCHES, device);
  } catch (error) {
    throw mapEngineError(error);
  }
}

/** One line for a person: what the plan measured and chose. */
export function describePlan(plan: BudgetPlan, budgetSeconds: number): string {
  const c = plan.config;
  return (
    `Time budget ${budgetSeconds} s: an epoch takes about ${plan.estimate.epochSeconds.toFixed(1)} s ` +
    `here and a validation ${plan.estimate.validationSeconds.toFixed(1)} s; planned ` +
    `${plan.epochs} epochs, at most ${c.epochs} (lr ${c.lr} annealed to ` +
    `${(c.lr * c.decay ** c.epochs).toPrecision(2)} over the epochs that fit, ` +
    `dropout ${c.dropoutIn}/${c.dropoutH1}/${c.dropoutH2}).`
  );
}

/** Epochs, each with its share of validations, that fit in `seconds` (at least one). */
export function epochsThatFit(
  seconds: number,
  estimate: Pick<Native.EpochEstimate, 'epochSeconds' | 'validationSeconds'>,
  evalEvery: number,
): number {
  const validationShare = evalEvery > 0 ? estimate.validationSeconds / evalEvery : 0;
  const perEpoch = Math.max(estimate.epochSeconds + validationShare, 1e-6);
  return Math.max(1, Math.floor(seconds / perEpoch));
}
