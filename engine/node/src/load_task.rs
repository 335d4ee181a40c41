//! `loadModel(dir, warmUpBudget)`: loads a saved model and computes its relation cores off the
//! JS thread, so a server swapping in a new version keeps answering while it loads.

use crate::errors::{engine_error, guarded, reject, EngineResult};
use crate::model::NeptuneModel;
use napi::bindgen_prelude::AsyncTask;
use napi::{Env, Task};
use napi_derive::napi;
use neptune_core::Model;

pub struct LoadTask {
    dir: String,
    warm_up_budget: usize,
}

impl Task for LoadTask {
    type Output = EngineResult<Model>;
    type JsValue = NeptuneModel;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(guarded(|| {
            let model = Model::load(&self.dir).map_err(engine_error)?;
            model.warm_up(self.warm_up_budget);
            Ok(model)
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<NeptuneModel> {
        output
            .map(NeptuneModel::from_model)
            .or_else(|e| reject(env, e))
    }
}

/// Loads a saved model off the JS thread and computes every relation's core when they fit in
/// `warmUpBudget` bytes; a corrupt, truncated or mismatched checkpoint is refused
/// (`ENGINE_CHECKPOINT`).
#[napi(ts_return_type = "Promise<NeptuneModel>")]
pub fn load_model(dir: String, warm_up_budget: f64) -> AsyncTask<LoadTask> {
    AsyncTask::new(LoadTask {
        dir,
        warm_up_budget: warm_up_budget.max(0.0) as usize,
    })
}
