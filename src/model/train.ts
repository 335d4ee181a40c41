import { fromNativeMetrics, Metrics } from './metrics';
import { abortedBeforeStart, mapEngineError, nativeEngine, Native } from './native-engine';
import { toNativeData, TrainingData } from './training-data';
import type { EngineConfig } from './training-settings';

export type TrainingProgress = Native.ProgressEvent;
/** Where training steps run: `auto` (a hardware GPU when present, else CPU), `cpu` or `gpu`. */
export type TrainingDevice = Native.TrainingDevice;

export interface TrainOptions {
  /** Where the kept model goes (manifest.json + model.safetensors); checkpoints below it. */
  outDir: string;
  /** Continue from `<dir>/checkpoints` of an earlier run. */
  resumeFrom?: string;
  onProgress?: (event: TrainingProgress) => void;
  /** Aborting stops training between batches; the promise rejects with TRAINING_ABORTED. */
  signal?: AbortSignal;
  /** Stop once this many seconds have passed, keeping the best validated weights. */
  timeLimitSeconds?: number;
  /**
   * With `timeLimitSeconds`: spread the config's planned lr decay over the epochs that fit in
   * that time, projected before each epoch (a time budget's plan, see `budgetTrainOptions`).
   */
  annealToTimeLimit?: boolean;
  /** Where the steps run (default `cpu`); the saved model is the same whichever device. */
  device?: TrainingDevice;
  /**
   * Start from the weights of the model saved in this directory (a model version), mapped onto
   * this data's vocabularies by name; new entities and relations start as a fresh init.
   */
  warmStartFrom?: string;
}

export interface TrainSummary {
  modelDir: string;
  epochsRun: number;
  /** Epochs the kept weights had trained (the best validation MRR). */
  modelEpoch: number;
  stop: Native.StopReason;
  /** Validation metrics of the kept weights, when validation ran. */
  valid?: Metrics;
  /** Wall time of the whole call. */
  seconds: number;
  /** Mean training time per epoch, evaluation excluded. */
  epochSeconds: number;
  /** Where the steps ran, e.g. `cpu (2 threads)` or the GPU adapter. */
  device: string;
  /** What a warm start copied by name and initialised (with `warmStartFrom`). */
  warmStart?: Native.WarmStartResult;
}

/** Trains NePTuNe off the main thread (the engine's async task) and saves the kept model. */
export async function train(
  data: TrainingData,
  config: EngineConfig,
  options: TrainOptions,
): Promise<TrainSummary> {
  const started = process.hrtime.bigint();
  const epochTimes: number[] = [];
  const onProgress = (event: TrainingProgress) => {
    if (event.kind === 'epoch' && event.seconds !== undefined) epochTimes.push(event.seconds);
    options.onProgress?.(event);
  };
  if (options.signal?.aborted) throw abortedBeforeStart();
  let result: Native.TrainResult;
  try {
    result = await nativeEngine().train(
      toNativeData(data),
      config,
      options.outDir,
      options.resumeFrom ?? null,
      {
        timeLimitSeconds: options.timeLimitSeconds,
        anneal: options.annealToTimeLimit ?? false,
        device: options.device,
        warmStartFrom: options.warmStartFrom,
      },
      onProgress,
      options.signal ?? null,
    );
  } catch (error) {
    throw mapEngineError(error);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return {
    modelDir: result.modelDir,
    epochsRun: result.epochsRun,
    modelEpoch: result.modelEpoch,
    stop: result.stop,
    valid: result.valid ? fromNativeMetrics(result.valid) : undefined,
    seconds,
    epochSeconds: epochTimes.length ? epochTimes.reduce((a, b) => a + b, 0) / epochTimes.length : 0,
    device: result.device,
    ...(result.warmStart ? { warmStart: result.warmStart } : {}),
  };
}
