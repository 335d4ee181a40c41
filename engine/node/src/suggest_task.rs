//! `NeptuneModel.suggestAsync`: the best N missing edges of one relation and direction over the
//! whole graph (`neptune_core::suggest`), on the libuv thread pool; an AbortSignal stops it
//! between chunks of queries (rejects with `ENGINE_ABORTED`).

use crate::errors::{engine_error, guarded, reject, EngineError, EngineErrorCode, EngineResult};
use napi::bindgen_prelude::{Float32Array, Uint32Array};
use napi::{Env, Task};
use napi_derive::napi;
use neptune_core::dataset::Direction;
use neptune_core::{ExcludedEdges, Model, SuggestScope, Suggestion};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Suggestions best first: `queries[i]` is the known end (the head of tail suggestions),
/// `candidates[i]` the suggested end, `logits[i]` the model's score.
#[napi(object)]
pub struct Suggestions {
    pub queries: Uint32Array,
    pub candidates: Uint32Array,
    pub logits: Float32Array,
}

/// A job's excluded edges (known and rejected), grouped by relation inside the engine
/// (`NeptuneModel.suggestExclusions`): passed to every `suggestAsync` of the job, never copied.
#[napi]
pub struct SuggestExclusions {
    pub(crate) inner: Arc<ExcludedEdges>,
}

#[napi]
impl SuggestExclusions {
    /// Distinct excluded edges held (8 bytes each).
    #[napi(getter, catch_unwind)]
    pub fn size(&self) -> u32 {
        self.inner.len() as u32
    }
}

pub struct SuggestTask {
    pub(crate) model: Arc<Model>,
    pub(crate) relation: u32,
    pub(crate) head: bool,
    pub(crate) n: usize,
    pub(crate) queries: Option<Vec<u32>>,
    pub(crate) candidates: Option<Vec<u32>>,
    /// The job's excluded edges; this relation's are used.
    pub(crate) exclude: Arc<ExcludedEdges>,
    pub(crate) cancel: Arc<AtomicBool>,
}

impl Task for SuggestTask {
    type Output = EngineResult<Vec<Suggestion>>;
    type JsValue = Suggestions;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(guarded(|| {
            let scope = SuggestScope {
                relation: self.relation,
                direction: if self.head {
                    Direction::Head
                } else {
                    Direction::Tail
                },
                n: self.n,
                queries: self.queries.as_deref(),
                candidates: self.candidates.as_deref(),
                exclude: self.exclude.of(self.relation),
            };
            match neptune_core::suggest(&self.model, &scope, &self.cancel) {
                Ok(Some(rows)) => Ok(rows),
                Ok(None) => Err(napi::Error::new(
                    EngineErrorCode::EngineAborted,
                    "suggestions were aborted",
                )),
                Err(e) => Err(engine_error(e)),
            }
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<Suggestions> {
        output
            .map(|rows| Suggestions {
                queries: Uint32Array::new(rows.iter().map(|s| s.query).collect()),
                candidates: Uint32Array::new(rows.iter().map(|s| s.candidate).collect()),
                logits: Float32Array::new(rows.iter().map(|s| s.logit).collect()),
            })
            .or_else(|e: EngineError| reject(env, e))
    }
}
