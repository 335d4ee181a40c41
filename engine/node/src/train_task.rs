//! `train(...)`: runs `Trainer::train` off the JS thread as an AsyncTask; progress goes back
//! through a threadsafe callback, an AbortSignal sets the core's cancel flag.

use crate::convert::{metrics, DatasetArrays, DatasetSource, MetricsJs};
use crate::device::{on_device, TrainingDevice};
use crate::errors::{aborted, engine_error, guarded, reject, EngineError, EngineResult};
use crate::training_config::TrainingConfig;
use napi::bindgen_prelude::{AbortSignal, AsyncTask, Either};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, Status, Task};
use napi_derive::napi;
use neptune_core::{Config, Progress, StopReason as CoreStopReason, Trainer};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a progress event reports: a batch, an epoch's end, or a validation.
#[napi(string_enum = "lowercase")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgressKind {
    Batch,
    Epoch,
    Validation,
}

/// Why training ended (an aborted run rejects instead).
#[napi(string_enum = "snake_case")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// Ran every epoch.
    Completed,
    /// Validation MRR stopped improving (`patience`).
    EarlyStopped,
    /// The time limit was reached (the best validated weights are kept).
    TimeLimit,
}

#[napi(object)]
pub struct ProgressEvent {
    pub kind: ProgressKind,
    pub epoch: u32,
    pub epochs: Option<u32>,
    pub batch: Option<u32>,
    pub batches: Option<u32>,
    pub loss: Option<f64>,
    pub examples_per_second: Option<f64>,
    pub seconds: Option<f64>,
    pub lr: Option<f64>,
    pub metrics: Option<MetricsJs>,
    pub best_mrr: Option<f64>,
    pub improved: Option<bool>,
}

#[napi(object)]
pub struct TrainResult {
    /// Epochs completed in total (including any before a resume).
    pub epochs_run: u32,
    pub stop: StopReason,
    /// Epochs the kept (best by validation MRR) weights had trained.
    pub model_epoch: u32,
    /// Validation metrics of the kept weights, when validation ran.
    pub valid: Option<MetricsJs>,
    /// Where the kept model was saved (manifest.json + model.safetensors).
    pub model_dir: String,
    /// Where the steps ran, e.g. `cpu (2 threads)` or the GPU adapter's name and driver.
    pub device: String,
    /// What a warm start (`options.warmStartFrom`) copied and initialised; absent otherwise.
    pub warm_start: Option<WarmStartResult>,
}

/// A warm start's mapping from the trained model's vocabularies to the new run's.
#[napi(object)]
pub struct WarmStartResult {
    /// Entities whose embeddings were copied by name.
    pub copied_entities: u32,
    /// Entities the trained model did not know (folded in, or initialised as a fresh run would).
    pub new_entities: u32,
    /// Of `new_entities`, those started from a fold-in row (fitted against the trained model
    /// from their edges to entities it knows).
    pub folded_in_entities: u32,
    /// Base relations whose rows (and reverse rows) were copied by name.
    pub copied_relations: u32,
    /// Relations the trained model did not know (initialised as a fresh run would).
    pub new_relations: u32,
    /// Entities of the trained model that the new dataset no longer has.
    pub dropped_entities: u32,
}

type ProgressFn = ThreadsafeFunction<ProgressEvent, (), ProgressEvent, Status, false>;

/// Batch events are throttled to this interval; epoch and validation events always go through.
const BATCH_EVENT_INTERVAL: Duration = Duration::from_millis(200);

pub struct TrainTask {
    source: DatasetSource,
    config: Config,
    out_dir: PathBuf,
    resume_from: Option<PathBuf>,
    warm_start_from: Option<PathBuf>,
    time_limit: Option<Duration>,
    anneal_to_time_limit: bool,
    device: Option<TrainingDevice>,
    progress: Option<Arc<ProgressFn>>,
    cancel: Arc<AtomicBool>,
}

impl Task for TrainTask {
    type Output = EngineResult<TrainResult>;
    type JsValue = TrainResult;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(guarded(|| self.run()))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<TrainResult> {
        output.or_else(|e| reject(env, e))
    }
}

impl TrainTask {
    fn run(&mut self) -> EngineResult<TrainResult> {
        let dataset = self.source.load().map_err(engine_error)?;
        let trainer = Trainer::new(self.config.clone())
            .map_err(engine_error)?
            .with_checkpoint_dir(self.out_dir.join("checkpoints"));
        let (mut trainer, device) = on_device(trainer, self.device)?;
        if let Some(dir) = &self.resume_from {
            trainer = trainer.with_resume_from(dir);
        }
        if let Some(dir) = &self.warm_start_from {
            trainer = trainer.with_warm_start_from(dir);
        }
        if let Some(limit) = self.time_limit {
            trainer = trainer.with_time_limit(limit);
        }
        if self.anneal_to_time_limit {
            trainer = trainer.with_time_annealing();
        }
        let names = dataset.relations.clone();
        let mut last_batch_event = Instant::now() - BATCH_EVENT_INTERVAL;
        let progress = self.progress.clone();
        let outcome = trainer
            .train(
                &dataset,
                |event| {
                    let Some(callback) = &progress else { return };
                    if let Progress::Batch { .. } = event {
                        if last_batch_event.elapsed() < BATCH_EVENT_INTERVAL {
                            return;
                        }
                        last_batch_event = Instant::now();
                    }
                    callback.call(
                        to_event(event, &names),
                        ThreadsafeFunctionCallMode::NonBlocking,
                    );
                },
                &self.cancel,
            )
            .map_err(engine_error)?;
        if outcome.stop == CoreStopReason::Cancelled {
            return Err(aborted());
        }
        outcome.model.save(&self.out_dir).map_err(engine_error)?;
        Ok(TrainResult {
            epochs_run: outcome.epochs_run as u32,
            stop: match outcome.stop {
                CoreStopReason::EarlyStopped => StopReason::EarlyStopped,
                CoreStopReason::TimeLimit => StopReason::TimeLimit,
                CoreStopReason::Completed | CoreStopReason::Cancelled => StopReason::Completed,
            },
            model_epoch: outcome.model.epoch as u32,
            valid: outcome
                .model
                .valid_metrics
                .as_ref()
                .map(|m| metrics(m, &names)),
            model_dir: self.out_dir.to_string_lossy().into_owned(),
            device,
            warm_start: outcome.warm_start.map(|w| WarmStartResult {
                copied_entities: w.copied_entities as u32,
                new_entities: w.new_entities as u32,
                folded_in_entities: w.folded_in_entities as u32,
                copied_relations: w.copied_relations as u32,
                new_relations: w.new_relations as u32,
                dropped_entities: w.dropped_entities as u32,
            }),
        })
    }
}

fn to_event(progress: &Progress, relation_names: &[String]) -> ProgressEvent {
    let empty = |kind: ProgressKind, epoch: usize| ProgressEvent {
        kind,
        epoch: epoch as u32,
        epochs: None,
        batch: None,
        batches: None,
        loss: None,
        examples_per_second: None,
        seconds: None,
        lr: None,
        metrics: None,
        best_mrr: None,
        improved: None,
    };
    match progress {
        Progress::Batch {
            epoch,
            batch,
            batches,
            loss,
            examples_per_sec,
            seconds,
        } => ProgressEvent {
            batch: Some(*batch as u32),
            batches: Some(*batches as u32),
            loss: Some(*loss),
            examples_per_second: Some(*examples_per_sec),
            seconds: Some(*seconds),
            ..empty(ProgressKind::Batch, *epoch)
        },
        Progress::Epoch {
            epoch,
            epochs,
            loss,
            seconds,
            examples_per_sec,
            lr,
        } => ProgressEvent {
            epochs: Some(*epochs as u32),
            loss: Some(*loss),
            seconds: Some(*seconds),
            examples_per_second: Some(*examples_per_sec),
            lr: Some(*lr),
            ..empty(ProgressKind::Epoch, *epoch)
        },
        Progress::Validation {
            epoch,
            metrics: m,
            best_mrr,
            improved,
            seconds,
        } => ProgressEvent {
            metrics: Some(metrics(m, relation_names)),
            best_mrr: Some(*best_mrr),
            improved: Some(*improved),
            seconds: Some(*seconds),
            ..empty(ProgressKind::Validation, *epoch)
        },
    }
}

/// How a `train` call runs: its wall-clock limit and device.
#[napi(object)]
pub struct TrainRunOptions {
    /// Stop once this much time has passed (the best validated weights are kept).
    pub time_limit_seconds: Option<f64>,
    /// Spread the config's planned lr decay over the epochs that fit in `timeLimitSeconds`,
    /// projected before each epoch from the epochs so far (a time budget's plan).
    pub anneal: Option<bool>,
    /// Where the steps run (default `cpu`).
    pub device: Option<TrainingDevice>,
    /// Start from the weights of the model saved in this directory (a model version), mapped
    /// onto this dataset's vocabularies by name; new entities and relations are initialised as
    /// the config's fresh init. Rejects with `ENGINE_CONFIG` when the widths, reverse-relation
    /// mode or activation differ. `resumeFrom` takes precedence.
    pub warm_start_from: Option<String>,
}

/// Trains a model and saves the kept weights to `outDir` (checkpoints for resuming go to
/// `outDir/checkpoints`). `dataset` is a folder of train/valid/test.txt or id arrays; `config`
/// is complete (see `presetConfig`). With `options.timeLimitSeconds`, training stops once that
/// much time has passed (stop reason `time_limit`; the weights are validated first and the best
/// validated ones kept). Rejects with code `ENGINE_ABORTED` when `signal` aborts and
/// `ENGINE_DEVICE` when the device asked for is missing or fails.
#[napi(catch_unwind, ts_return_type = "Promise<TrainResult>")]
pub fn train(
    dataset: Either<String, DatasetArrays>,
    config: TrainingConfig,
    out_dir: String,
    resume_from: Option<String>,
    options: Option<TrainRunOptions>,
    on_progress: Option<ThreadsafeFunction<ProgressEvent, (), ProgressEvent, Status, false>>,
    signal: Option<AbortSignal>,
) -> Result<AsyncTask<TrainTask>, EngineError> {
    let config: Config = config.to_core().map_err(engine_error)?;
    let cancel = Arc::new(AtomicBool::new(false));
    if let Some(signal) = &signal {
        let flag = cancel.clone();
        signal.on_abort(move || flag.store(true, Ordering::SeqCst));
    }
    let task = TrainTask {
        source: DatasetSource::new(dataset),
        config,
        out_dir: PathBuf::from(out_dir),
        resume_from: resume_from.map(PathBuf::from),
        warm_start_from: options
            .as_ref()
            .and_then(|o| o.warm_start_from.as_ref())
            .map(PathBuf::from),
        time_limit: options
            .as_ref()
            .and_then(|o| o.time_limit_seconds)
            .filter(|s| s.is_finite())
            .map(|s| Duration::from_secs_f64(s.max(0.0))),
        anneal_to_time_limit: options.as_ref().and_then(|o| o.anneal).unwrap_or(false),
        device: options.and_then(|o| o.device),
        progress: on_progress.map(Arc::new),
        cancel,
    };
    Ok(AsyncTask::with_optional_signal(task, signal))
}
