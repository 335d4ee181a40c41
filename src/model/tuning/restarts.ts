import path from 'node:path';
import type { GraphSize } from '../graph-size';
import { budgetTrainOptions, epochsThatFit, planTimeBudget } from '../time-budget';
import { train, TrainOptions, TrainSummary } from '../train';
import type { TrainingData } from '../training-data';
import { resolveTrainingConfig } from '../training-settings';
import type { EngineConfig, TrainingOverrides } from '../training-settings';

/**
 * Other seeds of the kept settings tried at most. Validation judges every restart, and the best
 * of many is partly validation noise; a few keep that small.
 */
export const MAX_RESTARTS = 4;
/** Below this much time left, no restart is planned. */
const MIN_RESTART_SECONDS = 3;

/** One restart: the kept settings from scratch with another seed. */
export interface Restart {
  seed: number;
  summary: TrainSummary;
  config: EngineConfig;
  /** Where its model files are. */
  dir: string;
}

export interface RestartOptions {
  /** Seconds left in the budget, asked before each restart. */
  secondsLeft: () => number;
  /** Restart k trains with seed `firstSeed + k`. */
  firstSeed: number;
  /** Restart k is saved in `<outDir>/<k>`. */
  outDir: string;
  signal?: AbortSignal;
  device?: TrainOptions['device'];
  onProgress?: TrainOptions['onProgress'];
}

/**
 * Trains `settings` from scratch with seeds `firstSeed + 1, + 2, ...` (at most
 * [`MAX_RESTARTS`]) while a whole run of them (the preset's own epoch count, planned as a time
 * budget plans it) fits in the time left; the first that would not fit ends it. A small graph's
 * full run takes seconds to minutes, and its result varies from seed to seed by more than the
 * searched settings move it: what a tuning budget has left is best spent there.
 */
export async function trainRestarts(
  data: TrainingData,
  preset: string,
  settings: TrainingOverrides,
  graph: GraphSize,
  options: RestartOptions,
): Promise<Restart[]> {
  const restarts: Restart[] = [];
  for (let k = 1; k <= MAX_RESTARTS; k += 1) {
    const left = options.secondsLeft();
    if (left < MIN_RESTART_SECONDS) break;
    const seed = options.firstSeed + k;
    const overrides = { ...settings, seed };
    const plan = await planTimeBudget(data, preset, overrides, graph, left, options.device);
    // A run cut short by the clock would be judged against whole runs: not worth its time.
    const whole = resolveTrainingConfig(preset, overrides, graph);
    if (epochsThatFit(plan.trainingSeconds, plan.estimate, whole.evalEvery) < whole.epochs) break;
    const dir = path.join(options.outDir, String(k));
    const summary = await train(data, plan.config, {
      outDir: dir,
      ...budgetTrainOptions(plan),
      signal: options.signal,
      device: options.device,
      onProgress: options.onProgress,
    });
    restarts.push({ seed, summary, config: plan.config, dir });
  }
  return restarts;
}
