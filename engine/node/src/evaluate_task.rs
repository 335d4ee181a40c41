//! `evaluate(...)`: filtered ranking metrics of a saved model on a dataset split, off the JS
//! thread.

use crate::convert::{metrics, to_napi_error, DatasetArrays, DatasetSource, MetricsJs};
use napi::bindgen_prelude::{AsyncTask, Either};
use napi::{Env, Task};
use napi_derive::napi;
use neptune_core::{Model, Split};

pub struct EvaluateTask {
    model_dir: String,
    source: DatasetSource,
    split: Split,
    threads: usize,
}

impl Task for EvaluateTask {
    type Output = MetricsJs;
    type JsValue = MetricsJs;

    fn compute(&mut self) -> napi::Result<MetricsJs> {
        let model = Model::load(&self.model_dir).map_err(to_napi_error)?;
        let dataset = self.source.load().map_err(to_napi_error)?;
        let result = neptune_core::evaluate(&model, &dataset, self.split, self.threads)
            .map_err(to_napi_error)?;
        Ok(metrics(&result, &dataset.relations))
    }

    fn resolve(&mut self, _env: Env, output: MetricsJs) -> napi::Result<MetricsJs> {
        Ok(output)
    }
}

/// Evaluates the model saved in `modelDir` on `split` ("valid" or "test") of `dataset`,
/// filtered against train+valid+test, with reversed queries. `threads` 0 = all cores.
#[napi(ts_return_type = "Promise<MetricsJs>")]
pub fn evaluate(
    model_dir: String,
    dataset: Either<String, DatasetArrays>,
    split: String,
    threads: u32,
) -> napi::Result<AsyncTask<EvaluateTask>> {
    let split = match split.as_str() {
        "valid" => Split::Valid,
        "test" => Split::Test,
        other => {
            return Err(napi::Error::from_reason(format!(
                "[ENGINE_ARGUMENT] split must be \"valid\" or \"test\", got \"{other}\""
            )))
        }
    };
    let source = match dataset {
        Either::A(dir) => DatasetSource::Dir(dir),
        Either::B(arrays) => DatasetSource::from_arrays(arrays),
    };
    Ok(AsyncTask::new(EvaluateTask {
        model_dir,
        source,
        split,
        threads: threads as usize,
    }))
}
