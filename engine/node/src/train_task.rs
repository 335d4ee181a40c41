//! `train(...)`: runs `Trainer::train` off the JS thread as an AsyncTask; progress goes back
//! through a threadsafe callback, an AbortSignal sets the core's cancel flag.

use crate::convert::{aborted, metrics, to_napi_error, DatasetArrays, DatasetSource, MetricsJs};
use napi::bindgen_prelude::{AbortSignal, AsyncTask, Either};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, Status, Task};
use napi_derive::napi;
use neptune_core::{Config, Progress, StopReason, Trainer};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[napi(object)]
pub struct ProgressEvent {
    /// "batch", "epoch" or "validation".
    pub kind: String,
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
    /// "completed" or "early_stopped".
    pub stop: String,
    /// Epochs the kept (best by validation MRR) weights had trained.
    pub model_epoch: u32,
    /// Validation metrics of the kept weights, when validation ran.
    pub valid: Option<MetricsJs>,
    /// Where the kept model was saved (manifest.json + model.safetensors).
    pub model_dir: String,
}

type ProgressFn = ThreadsafeFunction<ProgressEvent, (), ProgressEvent, Status, false>;

/// Batch events are throttled to this interval; epoch and validation events always go through.
const BATCH_EVENT_INTERVAL: Duration = Duration::from_millis(200);

pub struct TrainTask {
    source: DatasetSource,
    config: Config,
    out_dir: PathBuf,
    resume_from: Option<PathBuf>,
    progress: Option<Arc<ProgressFn>>,
    cancel: Arc<AtomicBool>,
}

impl Task for TrainTask {
    type Output = TrainResult;
    type JsValue = TrainResult;

    fn compute(&mut self) -> napi::Result<TrainResult> {
        let dataset = self.source.load().map_err(to_napi_error)?;
        let mut trainer = Trainer::new(self.config.clone())
            .map_err(to_napi_error)?
            .with_checkpoint_dir(self.out_dir.join("checkpoints"));
        if let Some(dir) = &self.resume_from {
            trainer = trainer.with_resume_from(dir);
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
            .map_err(to_napi_error)?;
        if outcome.stop == StopReason::Cancelled {
            return Err(aborted());
        }
        outcome.model.save(&self.out_dir).map_err(to_napi_error)?;
        Ok(TrainResult {
            epochs_run: outcome.epochs_run as u32,
            stop: match outcome.stop {
                StopReason::EarlyStopped => "early_stopped".into(),
                _ => "completed".into(),
            },
            model_epoch: outcome.model.epoch as u32,
            valid: outcome
                .model
                .valid_metrics
                .as_ref()
                .map(|m| metrics(m, &names)),
            model_dir: self.out_dir.to_string_lossy().into_owned(),
        })
    }

    fn resolve(&mut self, _env: Env, output: TrainResult) -> napi::Result<TrainResult> {
        Ok(output)
    }
}

fn to_event(progress: &Progress, relation_names: &[String]) -> ProgressEvent {
    let empty = |kind: &str, epoch: usize| ProgressEvent {
        kind: kind.into(),
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
        } => ProgressEvent {
            batch: Some(*batch as u32),
            batches: Some(*batches as u32),
            loss: Some(*loss),
            examples_per_second: Some(*examples_per_sec),
            ..empty("batch", *epoch)
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
            ..empty("epoch", *epoch)
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
            ..empty("validation", *epoch)
        },
    }
}

/// Trains a model and saves the kept weights to `outDir` (checkpoints for resuming go to
/// `outDir/checkpoints`). `dataset` is a folder of train/valid/test.txt or id arrays;
/// `configJson` is a complete core `Config` (see `presetConfig`). Rejects with a message
/// starting `[ENGINE_ABORTED]` when `signal` aborts.
#[napi(ts_return_type = "Promise<TrainResult>")]
pub fn train(
    dataset: Either<String, DatasetArrays>,
    config_json: String,
    out_dir: String,
    resume_from: Option<String>,
    on_progress: Option<ThreadsafeFunction<ProgressEvent, (), ProgressEvent, Status, false>>,
    signal: Option<AbortSignal>,
) -> napi::Result<AsyncTask<TrainTask>> {
    let config: Config = serde_json::from_str(&config_json)
        .map_err(|e| napi::Error::from_reason(format!("[ENGINE_CONFIG] invalid config: {e}")))?;
    let cancel = Arc::new(AtomicBool::new(false));
    if let Some(signal) = &signal {
        let flag = cancel.clone();
        signal.on_abort(move || flag.store(true, Ordering::SeqCst));
    }
    let source = match dataset {
        Either::A(dir) => DatasetSource::Dir(dir),
        Either::B(arrays) => DatasetSource::from_arrays(arrays),
    };
    let task = TrainTask {
        source,
        config,
        out_dir: PathBuf::from(out_dir),
        resume_from: resume_from.map(PathBuf::from),
        progress: on_progress.map(Arc::new),
        cancel,
    };
    Ok(AsyncTask::with_optional_signal(task, signal))
}
