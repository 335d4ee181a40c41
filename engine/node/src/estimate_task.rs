//! `estimateEpoch(...)`: what one epoch of a config costs on this machine, timed off the JS
//! thread (a time budget turns it into an epoch count).

use crate::convert::{DatasetArrays, DatasetSource};
use crate::device::{on_device, TrainingDevice};
use crate::errors::{engine_error, guarded, reject, EngineError, EngineResult};
use crate::training_config::TrainingConfig;
use napi::bindgen_prelude::{AsyncTask, Either};
use napi::{Env, Task};
use napi_derive::napi;
use neptune_core::{Config, Trainer};

#[napi(object)]
pub struct EpochEstimate {
    /// Training steps of one epoch.
    pub epoch_seconds: f64,
    /// One validation over the whole validation split.
    pub validation_seconds: f64,
    pub batches_per_epoch: u32,
    /// Wall time the estimate itself took.
    pub probe_seconds: f64,
}

pub struct EstimateTask {
    source: DatasetSource,
    config: Config,
    probe_batches: usize,
    device: Option<TrainingDevice>,
}

impl Task for EstimateTask {
    type Output = EngineResult<EpochEstimate>;
    type JsValue = EpochEstimate;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(guarded(|| {
            let dataset = self.source.load().map_err(engine_error)?;
            let trainer = Trainer::new(self.config.clone()).map_err(engine_error)?;
            let (trainer, _) = on_device(trainer, self.device)?;
            let e = trainer
                .estimate_epoch(&dataset, self.probe_batches)
                .map_err(engine_error)?;
            Ok(EpochEstimate {
                epoch_seconds: e.epoch_seconds,
                validation_seconds: e.validation_seconds,
                batches_per_epoch: e.batches_per_epoch as u32,
                probe_seconds: e.probe_seconds,
            })
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<EpochEstimate> {
        output.or_else(|e| reject(env, e))
    }
}

/// Times `probeBatches` training steps of `config` on `dataset` from a fresh start and a
/// validation over part of the validation split, extrapolated to a full epoch and split; the
/// steps run on `device` (default `cpu`), as the training run being planned will.
#[napi(catch_unwind, ts_return_type = "Promise<EpochEstimate>")]
pub fn estimate_epoch(
    dataset: Either<String, DatasetArrays>,
    config: TrainingConfig,
    probe_batches: u32,
    device: Option<TrainingDevice>,
) -> Result<AsyncTask<EstimateTask>, EngineError> {
    let config = config.to_core().map_err(engine_error)?;
    Ok(AsyncTask::new(EstimateTask {
        source: DatasetSource::new(dataset),
        config,
        probe_batches: probe_batches as usize,
        device,
    }))
}
