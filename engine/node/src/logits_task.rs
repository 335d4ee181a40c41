//! `NeptuneModel.logitsAgainstAsync`: queries' logits against entity rows outside the model (a
//! fold-in's canary) or, `logitsAsync`, against every entity of it (a combiner's fit), and
//! `logitsOfAsync`: one query's logits of given entities (a served
//! ranking's rule-reached candidates), on the libuv thread pool.

use crate::errors::{engine_error, guarded, reject, EngineResult};
use napi::bindgen_prelude::Float32Array;
use napi::{Env, Task};
use neptune_core::Model;
use std::sync::Arc;

pub struct LogitsTask {
    pub(crate) model: Arc<Model>,
    pub(crate) queries: Vec<(u32, u32)>,
    /// Entity rows outside the model; `None`: the model's own entities.
    pub(crate) rows: Option<Vec<f32>>,
}

impl Task for LogitsTask {
    type Output = EngineResult<Vec<f32>>;
    type JsValue = Float32Array;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(guarded(|| {
            match &self.rows {
                Some(rows) => self.model.logits_against(&self.queries, rows),
                None => self.model.scores(&self.queries),
            }
            .map_err(engine_error)
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<Float32Array> {
        output.map(Float32Array::new).or_else(|e| reject(env, e))
    }
}

pub struct CandidateLogitsTask {
    pub(crate) model: Arc<Model>,
    pub(crate) query: (u32, u32),
    pub(crate) candidates: Vec<u32>,
}

impl Task for CandidateLogitsTask {
    type Output = EngineResult<Vec<f32>>;
    type JsValue = Float32Array;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(guarded(|| {
            let (h, r) = self.query;
            self.model
                .logits_of(h, r, &self.candidates)
                .map_err(engine_error)
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<Float32Array> {
        output.map(Float32Array::new).or_else(|e| reject(env, e))
    }
}
