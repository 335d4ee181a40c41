//! `loadModel(dir, warmUpBudget)`: loads a saved model and computes its relation cores off the
//! JS thread, so a server swapping in a new version keeps answering while it loads.

use crate::convert::to_napi_error;
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
    type Output = Model;
    type JsValue = NeptuneModel;

    fn compute(&mut self) -> napi::Result<Model> {
        let model = Model::load(&self.dir).map_err(to_napi_error)?;
        model.warm_up(self.warm_up_budget);
        Ok(model)
    }

    fn resolve(&mut self, _env: Env, model: Model) -> napi::Result<NeptuneModel> {
        Ok(NeptuneModel::from_model(model))
    }
}

/// Loads a saved model off the JS thread and computes every relation's core when they fit in
/// `warmUpBudget` bytes; a corrupt, truncated or mismatched checkpoint is refused.
#[napi(ts_return_type = "Promise<NeptuneModel>")]
pub fn load_model(dir: String, warm_up_budget: f64) -> AsyncTask<LoadTask> {
    AsyncTask::new(LoadTask {
        dir,
        warm_up_budget: warm_up_budget.max(0.0) as usize,
    })
}
