//! `NeptuneModel.topKBatchAsync`: top-k scoring on the libuv thread pool, so a saturated scorer
//! never holds the JS thread (health checks and cheap requests keep their latency).

use crate::errors::{engine_error, guarded, reject, EngineResult};
use crate::model::{flatten, TopK};
use napi::{Env, Task};
use neptune_core::{Model, Prediction};
use std::sync::Arc;

pub struct ScoreTask {
    model: Arc<Model>,
    queries: Vec<(u32, u32)>,
    k: usize,
    /// Empty, or one list per query.
    excludes: Vec<Vec<u32>>,
}

impl ScoreTask {
    pub(crate) fn new(
        model: Arc<Model>,
        queries: Vec<(u32, u32)>,
        k: usize,
        excludes: Vec<Vec<u32>>,
    ) -> ScoreTask {
        ScoreTask {
            model,
            queries,
            k,
            excludes,
        }
    }
}

impl Task for ScoreTask {
    type Output = EngineResult<Vec<Vec<Prediction>>>;
    type JsValue = TopK;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(guarded(|| {
            let lists: Vec<&[u32]> = self.excludes.iter().map(Vec::as_slice).collect();
            self.model
                .top_k_batch(&self.queries, self.k, &lists)
                .map_err(engine_error)
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<TopK> {
        output.map(flatten).or_else(|e| reject(env, e))
    }
}
