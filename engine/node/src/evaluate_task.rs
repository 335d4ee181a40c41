//! `evaluate(...)`: filtered ranking metrics of a saved model on a dataset split, off the JS
//! thread.

use crate::convert::{metrics, DatasetArrays, DatasetSource, MetricsJs};
use crate::errors::{engine_error, guarded, reject, EngineResult};
use napi::bindgen_prelude::{AsyncTask, Either};
use napi::{Env, Task};
use napi_derive::napi;
use neptune_core::Model;

/// A dataset split.
#[napi(string_enum = "lowercase")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    Valid,
    Test,
}

pub struct EvaluateTask {
    model_dir: String,
    source: DatasetSource,
    split: Split,
    threads: usize,
}

impl Task for EvaluateTask {
    type Output = EngineResult<MetricsJs>;
    type JsValue = MetricsJs;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(guarded(|| {
            let model = Model::load(&self.model_dir).map_err(engine_error)?;
            let dataset = self.source.load().map_err(engine_error)?;
            let split = match self.split {
                Split::Valid => neptune_core::Split::Valid,
                Split::Test => neptune_core::Split::Test,
            };
            let result = neptune_core::evaluate(&model, &dataset, split, self.threads)
                .map_err(engine_error)?;
            Ok(metrics(&result, &dataset.relations))
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<MetricsJs> {
        output.or_else(|e| reject(env, e))
    }
}

/// Evaluates the model saved in `modelDir` on `split` of `dataset`, filtered against
/// train+valid+test, with reversed queries. `threads` 0 = all cores.
#[napi(ts_return_type = "Promise<MetricsJs>")]
pub fn evaluate(
    model_dir: String,
    dataset: Either<String, DatasetArrays>,
    split: Split,
    threads: u32,
) -> AsyncTask<EvaluateTask> {
    AsyncTask::new(EvaluateTask {
        model_dir,
        source: DatasetSource::new(dataset),
        split,
        threads: threads as usize,
    })
}
