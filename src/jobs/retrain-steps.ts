import { ErrorCode, KgcError } from '../errors';
import { EventLoopTurns } from '../event-loop-turns';
import { getActiveVersion, registerVersion } from '../graph/registry';
import type { ActiveVersion } from '../graph/registry';
import { exportDenseGraph, fingerprint, sortedKeys, stableSplit, tripleKeysPaced } from '../export';
import {
  chooseTunedSettings,
  describePlan,
  evaluate,
  graphSize,
  KEPT_DESCRIPTION,
  mineVersionRules,
  planTimeBudget,
  budgetTrainOptions,
  resolveTrainingConfig,
  saveTunedSettings,
  Scorer,
  train,
  tune,
} from '../model';
import type {
  EngineConfig,
  GraphSize,
  TrainingArrays,
  TrainingOverrides,
  TrainingProgress,
  TrainSummary,
  TuningInfo,
  VersionInfo,
} from '../model';
import { withActiveFiles } from './active-files';
import { calibrateVersion } from './calibrate-version';
import { gateAndPromote } from './gate-and-promote';
import { RunProgressWriter } from './run-progress';
import { trainingArrays } from './training-arrays';
import { planTrainingStart, startTrainOptions, trainingStartInfo } from './training-start';
import type { TrainingStart } from './training-start';
import { writeVersion } from './write-version';
import { writeVersionTypes } from './version-types';
import { combineVersion } from './combine-version';
import { changeSinceActive, retrainDecision } from './retrain-trigger';
import type { StepContext, StepResult } from './step-context';

export type { StepContext, StepResult } from './step-context';

function checkAborted(signal: AbortSignal): void {
  if (signal.aborted)
    throw new KgcError(ErrorCode.TRAINING_ABORTED, 'The training job was stopped.');
}

/** The job's phases, in order (see runRetrainJob for the guarantees around them). */
export async function retrainSteps(ctx: StepContext): Promise<StepResult> {
  const { db, store, timer, options, signal } = ctx;
  // Read once, at the start: the gate compares against this version and the promotion happens
  // only if it is still active, so an operator's rollback or promote during the job stands.
  const active = await withActiveFiles(store, await getActiveVersion(db, ctx.scope));
  const graph = await timer.time('export', () => exportDenseGraph(db, options.filter));
  checkAborted(signal);

  // Long synchronous loops on big graphs: turns of the event loop between them (and inside
  // the hashing) keep the lease's renewal timer running.
  timer.start('split');
  const turns = new EventLoopTurns();
  const keys = await tripleKeysPaced(graph, turns);
  await turns.turn();
  const snapshot = sortedKeys(keys.keys);
  await turns.turn();
  const split = stableSplit(graph, keys, ctx.split);
  await turns.turn();
  timer.end();
  let changedEdges: number | null = null;
  const thresholds = {
    minChangedEdges: options.minChangedEdges ?? 0,
    minNewEntities: options.minNewEntities ?? 0,
  };
  if (active && (thresholds.minChangedEdges > 0 || thresholds.minNewEntities > 0)) {
    const change = changeSinceActive(active, snapshot, graph.entities);
    changedEdges = change.changedEdges;
    const decision = retrainDecision(change, thresholds, active.version);
    ctx.log(decision.reason);
    if (!decision.train) {
      return {
        status: 'skipped',
        version: null,
        dir: null,
        promoted: false,
        candidateMrr: null,
        activeMrr: null,
        previousActive: active.version,
        gate: null,
        metrics: null,
        changedEdges,
        reason: null,
      };
    }
  }
  const data: TrainingArrays = trainingArrays(graph, split);
  await turns.turn();

  timer.start('train');
  const version = store.newVersionId();
  const tempDir = store.createTemp(version);
  ctx.tempDirs.push(tempDir);
  const trained = await trainCandidate(ctx, data, tempDir, version, { active, snapshot });
  const { config, summary, progress, overrides, preset } = trained;
  checkAborted(signal);

  timer.start('evaluate');
  const threads = options.overrides?.threads ?? 0;
  const metrics = split.test.length > 0 ? await evaluate(tempDir, data, 'test', threads) : null;
  checkAborted(signal);
  ctx.log(await writeVersionTypes(db, graph, tempDir));

  timer.start('rules');
  ctx.log(await mineVersionRules(graph, tempDir, turns));
  checkAborted(signal);
  timer.start('combine');
  // One loaded copy of the version's model for both steps.
  const scorer = await Scorer.loadAsync(tempDir);
  ctx.log(await combineVersion(tempDir, data, turns, scorer));
  checkAborted(signal);
  // Calibrated on the served logits: the model's plus the rules' evidence the combiner adds.
  timer.start('calibrate');
  const calibration = await calibrateVersion(ctx, tempDir, data, version, scorer);

  timer.start('write');
  const info: VersionInfo = {
    version,
    createdAt: new Date().toISOString(),
    trigger: ctx.trigger,
    preset,
    overrides,
    config,
    snapshot: {
      triples: graph.heads.length,
      entities: graph.entities.length,
      relations: graph.relationNames.length,
      fingerprint: fingerprint(snapshot),
      train: split.train.length,
      valid: split.valid.length,
      test: split.test.length,
      seed: ctx.split.seed,
      heldOutRate: split.heldOutRate,
      movedToTrain: split.movedToTrain,
      relationFilter: options.filter?.relations ?? null,
    },
    training: {
      epochsRun: summary.epochsRun,
      modelEpoch: summary.modelEpoch,
      stop: summary.stop,
      seconds: summary.seconds,
      epochSeconds: summary.epochSeconds,
      ...trainingStartInfo(trained.start, summary),
    },
    metrics: { test: metrics, valid: summary.valid ?? null },
    curve: progress.curve,
    ...(trained.tuned ? { tuned: trained.tuned } : {}),
    ...(calibration ? { calibration } : {}),
    timings: { ...timer.seconds },
  };
  const dir = await writeVersion(store, tempDir, info, { snapshot, all: keys.keys, split });
  ctx.tempDirs.splice(0, ctx.tempDirs.length, dir);
  checkAborted(signal);

  timer.start('register');
  await registerVersion(
    db,
    {
      version,
      dir,
      trigger: ctx.trigger,
      metrics: { test: metrics, valid: summary.valid ?? null },
      testMrr: metrics?.overall.mrr ?? null,
      triples: info.snapshot.triples,
      entities: info.snapshot.entities,
      relations: info.snapshot.relations,
      fingerprint: info.snapshot.fingerprint,
      runId: ctx.runId,
    },
    ctx.scope,
  );
  // Registered: from here on the version is kept (a failure marks it rejected, never deletes it).
  ctx.tempDirs.length = 0;
  if (trained.tuned?.searched) {
    saveTunedSettings(store.root, ctx.scope, {
      settings: trained.tuned.settings,
      preset,
      tunedAt: info.createdAt,
      version,
      validMrr: trained.tuned.validMrr,
      graph: trained.size,
    });
    ctx.log(
      `saved the tuned settings for later retraining: ${JSON.stringify(trained.tuned.settings)}`,
    );
  }

  timer.start('gate');
  return gateAndPromote(
    ctx,
    { version, dir, active, testMrr: metrics?.overall.mrr ?? null },
    {
      graph,
      keys: keys.keys,
      test: split.test,
      metrics,
      changedEdges,
    },
  );
}

interface TrainedCandidate {
  preset: string;
  /** The overrides the candidate was trained with (stored tuned settings included). */
  overrides: TrainingOverrides;
  config: EngineConfig;
  summary: TrainSummary;
  progress: RunProgressWriter;
  size: GraphSize;
  tuned?: TuningInfo;
  start: TrainingStart;
}

/**
 * Trains the candidate into `outDir`: with --tune, a budgeted search and the winner; otherwise
 * the preset with the scope's stored tuned settings (when they fit this graph) under the
 * caller's overrides, within the time budget when one is set.
 */
async function trainCandidate(
  ctx: StepContext,
  data: TrainingArrays,
  outDir: string,
  version: string,
  basis: { active: ActiveVersion | null; snapshot: Float64Array },
): Promise<TrainedCandidate> {
  const { options, signal } = ctx;
  const preset = options.preset ?? 'default';
  const size = await graphSize(data);
  const onProgress = (progress: RunProgressWriter) => (event: TrainingProgress) => {
    progress.onEvent(event);
    options.onProgress?.(event);
  };
  const progressFor = (config: EngineConfig) =>
    new RunProgressWriter(
      ctx.db,
      ctx.runId,
      Number(config.epochs),
      options.progressIntervalMs ?? 3000,
      ctx.log,
    );
  if (options.tuneSeconds !== undefined) {
    const overrides = options.overrides ?? {};
    const base = resolveTrainingConfig(preset, overrides, size);
    options.onTrainingConfig?.(base);
    const progress = progressFor(base);
    const tuned = await tune(data, preset, overrides, size, options.tuneSeconds, {
      outDir,
      signal,
      onTrial: ctx.log,
      onProgress: onProgress(progress),
      device: options.device,
    });
    await progress.flush();
    ctx.log(
      `tuned ${tuned.trials.length} trials; kept the ${KEPT_DESCRIPTION[tuned.kept]} ` +
        `(validation MRR ${tuned.validMrr.toFixed(4)}) of ${version}`,
    );
    return {
      preset,
      overrides: tuned.settings,
      config: tuned.config,
      summary: tuned.summary,
      progress,
      size,
      tuned: { searched: true, settings: tuned.settings, validMrr: tuned.validMrr },
      start: { config: tuned.config, fromScratch: 'tuning searches from a fresh init' },
    };
  }
  const stored =
    options.useTunedSettings === false
      ? undefined
      : chooseTunedSettings(ctx.store.root, ctx.scope, preset, size);
  if (stored && !stored.use && stored.tuned)
    ctx.log(`not using the stored tuned settings: ${stored.reason}`);
  const tuned = stored?.use ? stored.tuned : undefined;
  // The caller's explicit overrides win over stored tuned settings.
  const overrides = { ...tuned?.settings, ...options.overrides };
  if (tuned) {
    ctx.log(
      `using the settings tuned at ${tuned.tunedAt} (version ${tuned.version}): ${JSON.stringify(tuned.settings)}`,
    );
  }
  const plan =
    options.timeBudgetSeconds !== undefined
      ? await planTimeBudget(
          data,
          preset,
          overrides,
          size,
          options.timeBudgetSeconds,
          options.device,
        )
      : undefined;
  if (plan) ctx.log(describePlan(plan, options.timeBudgetSeconds as number));
  const start = planTrainingStart({
    ...basis,
    forceFromScratch: options.fromScratch === true,
    data,
    config: plan?.config ?? resolveTrainingConfig(preset, overrides, size),
    log: ctx.log,
  });
  const config = start.config;
  options.onTrainingConfig?.(config);
  const progress = progressFor(config);
  const summary = await train(data, config, {
    outDir,
    signal,
    ...startTrainOptions(start, budgetTrainOptions(plan)),
    onProgress: onProgress(progress),
    device: options.device,
  });
  await progress.flush();
  return {
    preset,
    overrides,
    config,
    summary,
    progress,
    size,
    tuned: tuned && {
      searched: false,
      settings: tuned.settings,
      validMrr: tuned.validMrr,
      from: tuned.version,
    },
    start,
  };
}
