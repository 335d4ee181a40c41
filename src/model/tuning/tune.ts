import fs from 'node:fs';
import path from 'node:path';
import type { GraphSize } from '../graph-size';
import { budgetTrainOptions, estimateEpoch, planTimeBudget } from '../time-budget';
import { train, TrainOptions, TrainSummary } from '../train';
import type { TrainingData } from '../training-data';
import { resolveTrainingConfig } from '../training-settings';
import type { EngineConfig, TrainingOverrides } from '../training-settings';
import { sampleTrials, widthCost } from './search-space';
import { HalvingPlan, planHalving } from './successive-halving';

/** Share of the budget spent searching; the rest trains the winner. */
const SEARCH_SHARE = 0.6;
/** Trials differ in speed (width, batch); plan the search for trials this much slower. */
const TRIAL_SLOWDOWN = 1.5;
/** Trials whose mean width cost times the search (the usual first rung). */
const MEAN_COST_TRIALS = 27;
/** A first-rung trial gets at least this long even when the search is out of time. */
const MIN_TRIAL_SECONDS = 1;
/** Below this much time left, the winner is not trained further. */
const MIN_FINAL_SECONDS = 3;

export interface TrialRecord {
  id: number;
  settings: TrainingOverrides;
  /** Validation MRR at the end of each rung the trial reached. */
  rungs: { epochs: number; validMrr: number; seconds: number }[];
}

export interface TuneResult {
  /** The kept model's settings (the user's overrides included; only those for the preset). */
  settings: TrainingOverrides;
  plan: HalvingPlan;
  trials: TrialRecord[];
  /** The winner trained within what was left of the budget (none when too little was left). */
  final?: TrainSummary;
  /** The kept model's training: the final run's, or the winning trial's last rung's. */
  summary: TrainSummary;
  /** The engine config the kept model was trained with. */
  config: EngineConfig;
  /**
   * The model saved in `outDir`, the best validated of: the winner continued (`final`), the
   * winning trial as it was, and the sized preset trained in what was left (`preset`).
   */
  kept: KeptCandidate['kind'];
  /** Validation MRR of the kept model. */
  validMrr: number;
  /** Where every trial's settings and scores were written. */
  reportFile: string;
  /** Where the kept model is (manifest.json + model.safetensors). */
  modelDir: string;
}

export interface TuneOptions {
  outDir: string;
  seed?: number;
  signal?: AbortSignal;
  /** A line per finished trial rung, for a person to read. */
  onTrial?: (line: string) => void;
  onProgress?: TrainOptions['onProgress'];
  /** Where every trial and the final run train. */
  device?: TrainOptions['device'];
}

/** What a person reads for each kind of kept model. */
export const KEPT_DESCRIPTION: Record<KeptCandidate['kind'], string> = {
  final: 'the winner continued',
  trial: "the winning trial's model",
  preset: "the sized preset's own run",
};

/** The file beside a tuned model with every trial's settings and scores. */
export const TUNING_FILE = 'tuning.json';

/**
 * Searches the sensitive settings within `budgetSeconds` by successive halving (many short
 * trials: the sized preset, its one-setting neighbours, random points; the best third and the
 * preset continued, twice), chosen by validation MRR only, then trains the
 * winner within what is left (`planTimeBudget`). The user's `overrides` are kept in every
 * trial. The same seed and number of trials give the same trials and the same choices.
 */
export async function tune(
  data: TrainingData,
  preset: string,
  overrides: TrainingOverrides,
  graph: GraphSize,
  budgetSeconds: number,
  options: TuneOptions,
): Promise<TuneResult> {
  const started = Date.now();
  const elapsed = () => (Date.now() - started) / 1000;
  const base = resolveTrainingConfig(preset, overrides, graph);
  const estimate = await estimateEpoch(data, base, options.device);
  const seed = options.seed ?? base.seed;
  // Wider trials (d_e up to 512) cost more per epoch than the measured preset: the plan is
  // timed at the mean cost of a full first rung's trials.
  const first = sampleTrials(MEAN_COST_TRIALS, seed, base, graph);
  const wider = first.reduce((sum, t) => sum + widthCost(t, base.entityDim), 0) / first.length;
  const plan = planHalving(
    budgetSeconds * SEARCH_SHARE - elapsed(),
    {
      epochSeconds: estimate.epochSeconds * TRIAL_SLOWDOWN * wider,
      validationSeconds: estimate.validationSeconds * TRIAL_SLOWDOWN,
    },
    base.epochs,
  );
  const trials: TrialRecord[] = sampleTrials(plan.trials, seed, base, graph).map(
    (settings, id) => ({
      id,
      // The user's choices are not searched.
      settings: { ...settings, ...overrides },
      rungs: [],
    }),
  );
  fs.mkdirSync(options.outDir, { recursive: true });
  // The search stops on time whatever its plan: trials may run slower than the estimate (a
  // wider trial, a busy machine).
  const searchLeft = () => budgetSeconds * SEARCH_SHARE - elapsed();
  /** Each trial's last rung, as `train` reported it. */
  const lastRun = new Map<number, { summary: TrainSummary; config: EngineConfig }>();
  let alive = trials;
  rungs: for (const [rung, epochs] of plan.rungEpochs.entries()) {
    for (const trial of alive) {
      // Out of search time: stop; the winner is the best trial of the furthest rung reached.
      if (searchLeft() <= 0 && (rung > 0 || trial !== alive[0])) break rungs;
      const dir = path.join(options.outDir, 'trials', String(trial.id));
      const t = Date.now();
      // Constant lr while searching: a trial continued to the next rung keeps its schedule.
      const config = resolveTrainingConfig(
        preset,
        { decay: 1, ...trial.settings, epochs, evalEvery: epochs, patience: 0 },
        graph,
      );
      const summary = await train(data, config, {
        outDir: dir,
        resumeFrom: rung > 0 ? path.join(dir, 'checkpoints') : undefined,
        timeLimitSeconds: Math.max(searchLeft(), MIN_TRIAL_SECONDS),
        signal: options.signal,
        device: options.device,
      });
      const validMrr = summary.valid?.overall.mrr ?? 0;
      lastRun.set(trial.id, { summary, config });
      trial.rungs.push({ epochs: summary.epochsRun, validMrr, seconds: (Date.now() - t) / 1000 });
      options.onTrial?.(
        `trial ${trial.id} rung ${rung + 1}/${plan.rungEpochs.length} (${summary.epochsRun} epochs): ` +
          `valid MRR ${validMrr.toFixed(4)} ${JSON.stringify(trial.settings)}`,
      );
    }
    // Best first; ties keep the earlier trial (the sized preset is trial 0).
    const ranked = [...alive].sort((a, b) => lastMrr(b) - lastMrr(a) || a.id - b.id);
    alive = ranked.slice(0, Math.max(1, Math.floor(ranked.length / plan.eta)));
    // The sized preset always goes on: short rungs favour fast learners that plateau lower, so
    // the challengers are judged against it at the longest horizon the search reaches. It runs
    // first in the rung, so a search that runs out of time mid-rung has run it there too.
    const incumbent = ranked.find((t) => t.id === 0);
    if (incumbent) alive = [incumbent, ...alive.filter((t) => t !== incumbent)];
  }
  // The best of the trials that reached the furthest rung.
  const furthest = Math.max(...trials.map((t) => t.rungs.length));
  const winner = trials
    .filter((t) => t.rungs.length === furthest)
    .sort((a, b) => lastMrr(b) - lastMrr(a) || a.id - b.id)[0] as TrialRecord;
  const winnerDir = path.join(options.outDir, 'trials', String(winner.id));
  const winnerRun = lastRun.get(winner.id) as { summary: TrainSummary; config: EngineConfig };
  const remaining = budgetSeconds - elapsed();
  // Too little left to train on: the winning trial's model is the result.
  const finalPlan =
    remaining >= MIN_FINAL_SECONDS
      ? await planTimeBudget(data, preset, winner.settings, graph, remaining, options.device)
      : undefined;
  const finalConfig = finalPlan && continuation(finalPlan.config, winnerRun);
  // The winner goes on from its last rung's weights and optimizer, not from scratch.
  const final = finalConfig
    ? await train(data, finalConfig, {
        outDir: options.outDir,
        resumeFrom: path.join(winnerDir, 'checkpoints'),
        ...budgetTrainOptions(finalPlan),
        signal: options.signal,
        device: options.device,
        onProgress: options.onProgress,
      })
    : undefined;
  // The sized preset from scratch in what is left, when the winner is another trial and ended
  // early: short rungs favour fast learners that plateau lower, so the search alone can choose
  // worse than not searching.
  const presetLeft = budgetSeconds - elapsed();
  const presetPlan =
    winner.id !== 0 && presetLeft >= MIN_FINAL_SECONDS
      ? await planTimeBudget(data, preset, overrides, graph, presetLeft, options.device)
      : undefined;
  const presetDir = path.join(options.outDir, 'preset');
  const presetRun = presetPlan
    ? await train(data, presetPlan.config, {
        outDir: presetDir,
        ...budgetTrainOptions(presetPlan),
        signal: options.signal,
        device: options.device,
        onProgress: options.onProgress,
      })
    : undefined;
  // Chosen by validation MRR, like everything here; ties keep the earlier candidate.
  const trialSummary: TrainSummary = {
    ...winnerRun.summary,
    modelDir: options.outDir,
    epochsRun: winner.rungs.at(-1)?.epochs ?? winnerRun.summary.epochsRun,
    modelEpoch: winner.rungs.at(-1)?.epochs ?? winnerRun.summary.modelEpoch,
  };
  const candidates: KeptCandidate[] = [
    ...(final && finalConfig
      ? [{ kind: 'final' as const, summary: final, config: finalConfig, settings: winner.settings }]
      : []),
    {
      kind: 'trial',
      summary: trialSummary,
      config: winnerRun.config,
      settings: winner.settings,
      dir: winnerDir,
      validMrr: lastMrr(winner),
    },
    ...(presetRun && presetPlan
      ? [
          {
            kind: 'preset' as const,
            summary: presetRun,
            config: presetPlan.config,
            settings: overrides,
            dir: presetDir,
          },
        ]
      : []),
  ];
  const mrrOf = (c: KeptCandidate) => c.validMrr ?? c.summary.valid?.overall.mrr ?? -1;
  const best = candidates.reduce((a, b) => (mrrOf(b) > mrrOf(a) ? b : a));
  if (best.dir) {
    for (const file of ['model.safetensors', 'manifest.json']) {
      fs.copyFileSync(path.join(best.dir, file), path.join(options.outDir, file));
    }
  }
  fs.rmSync(path.join(options.outDir, 'trials'), { recursive: true, force: true });
  fs.rmSync(presetDir, { recursive: true, force: true });
  const reportFile = path.join(options.outDir, TUNING_FILE);
  const report = {
    seed,
    budgetSeconds,
    plan,
    trials,
    winner: winner.id,
    settings: winner.settings,
    final: finalPlan
      ? {
          epochs: final?.epochsRun,
          config: finalConfig,
          validMrr: final?.valid?.overall.mrr ?? null,
        }
      : null,
    preset: presetPlan
      ? {
          epochs: presetRun?.epochsRun,
          config: presetPlan.config,
          validMrr: presetRun?.valid?.overall.mrr ?? null,
        }
      : null,
    kept: best.kind,
  };
  fs.writeFileSync(reportFile, `${JSON.stringify(report, null, 2)}\n`);
  const modelDir = options.outDir;
  return {
    settings: best.settings,
    plan,
    trials,
    final,
    summary: { ...best.summary, modelDir, seconds: elapsed() },
    config: best.config,
    kept: best.kind,
    validMrr: mrrOf(best),
    reportFile,
    modelDir,
  };
}

/** A model the tuner may keep: the winner continued, the winning trial, the preset's own run. */
interface KeptCandidate {
  kind: 'final' | 'trial' | 'preset';
  summary: TrainSummary;
  config: EngineConfig;
  settings: TrainingOverrides;
  /** Where its model files are, when not already in the output folder. */
  dir?: string;
  /** Its validation MRR when the summary does not carry it. */
  validMrr?: number;
}

/**
 * `planned` (a run of its own epochs, lr annealed over them) as a continuation of the winner's
 * last rung: the epoch count goes on from where the rung stopped, and the lr is rescaled so that
 * the anneal starts at the planned lr there (the engine's lr is lr x decay^epoch). The shapes are
 * the trial's (and its loss), which resuming requires. No early stopping: the winner starts on the plateau its
 * constant lr reached, which only a lower lr passes, so the anneal runs to its end within the
 * time left and the best validated model is kept.
 */
function continuation(
  planned: EngineConfig,
  winner: { summary: TrainSummary; config: EngineConfig },
): EngineConfig {
  const done = winner.summary.epochsRun;
  const { entityDim, relationDim, inverseMode, activation, loss } = winner.config;
  return {
    ...planned,
    loss,
    entityDim,
    relationDim,
    inverseMode,
    activation,
    epochs: done + planned.epochs,
    lr: planned.lr / planned.decay ** done,
    patience: 0,
  };
}

function lastMrr(trial: TrialRecord): number {
  return trial.rungs.at(-1)?.validMrr ?? -1;
}
