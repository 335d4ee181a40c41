//! `ApproxIndex`: an HNSW index over a loaded model's entity rows (`neptune_ann`), built on the
//! libuv pool with progress and an abort signal, and top-k through it. Opt-in serving for large
//! graphs (docs/scaling.md); the exact scans stay the default.

use crate::errors::{argument_error, engine_error, guarded, reject, EngineError, EngineResult};
use crate::model::{flatten, query_pairs, NeptuneModel, TopK};
use napi::bindgen_prelude::{AbortSignal, AsyncTask, Uint32Array};
use napi::{Env, Task};
use napi_derive::napi;
use neptune_ann::{approx_top_k_batch, BuildOptions, BuildStopped};
use neptune_core::{Model, Prediction};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// A built index; pass it to `NeptuneModel.topKApproxAsync` of the model it was built from (or
/// of that model with entities appended by `withEntities`).
#[napi]
pub struct ApproxIndex {
    inner: Arc<neptune_ann::ApproxIndex>,
}

#[napi]
impl ApproxIndex {
    /// Entity rows indexed.
    #[napi(getter, catch_unwind)]
    pub fn entities(&self) -> u32 {
        self.inner.entities() as u32
    }

    /// Rows no search reaches through the graph: every search scores them exactly beside it.
    #[napi(getter, catch_unwind)]
    pub fn side_scanned(&self) -> u32 {
        self.inner.unreachable().len() as u32
    }
}

/// Rows inserted so far by the build it is passed to (read from JS while the build runs).
#[napi]
pub struct IndexBuildProgress {
    done: Arc<AtomicUsize>,
    total: Arc<AtomicUsize>,
}

#[napi]
impl IndexBuildProgress {
    #[napi(constructor, catch_unwind)]
    pub fn new() -> IndexBuildProgress {
        IndexBuildProgress {
            done: Arc::new(AtomicUsize::new(0)),
            total: Arc::new(AtomicUsize::new(0)),
        }
    }

    #[napi(getter, catch_unwind)]
    pub fn done(&self) -> f64 {
        self.done.load(Ordering::Relaxed) as f64
    }

    #[napi(getter, catch_unwind)]
    pub fn total(&self) -> f64 {
        self.total.load(Ordering::Relaxed) as f64
    }
}

impl Default for IndexBuildProgress {
    fn default() -> Self {
        Self::new()
    }
}

#[napi]
impl NeptuneModel {
    /// Builds an HNSW index over this model's entity rows on the libuv thread pool:
    /// `connections` neighbours per row (default 24, at most 255) found `efConstruction` wide
    /// (default 200). `progress` counts the rows inserted; `signal` stops the build between
    /// chunks of rows (`ENGINE_ABORTED`).
    #[napi(catch_unwind, ts_return_type = "Promise<ApproxIndex>")]
    pub fn build_approx_index_async(
        &self,
        connections: Option<u32>,
        ef_construction: Option<u32>,
        progress: Option<&IndexBuildProgress>,
        signal: Option<AbortSignal>,
    ) -> Result<AsyncTask<BuildIndexTask>, EngineError> {
        let defaults = BuildOptions::default();
        let options = BuildOptions {
            connections: connections.map_or(defaults.connections, |c| c as usize),
            ef_construction: ef_construction.map_or(defaults.ef_construction, |c| c as usize),
        };
        let cancel = Arc::new(AtomicBool::new(false));
        if let Some(signal) = &signal {
            let flag = cancel.clone();
            signal.on_abort(move || flag.store(true, Ordering::SeqCst));
        }
        let counters = progress.map_or_else(
            || (Arc::default(), Arc::default()),
            |p| (Arc::clone(&p.done), Arc::clone(&p.total)),
        );
        Ok(AsyncTask::new(BuildIndexTask {
            model: Arc::clone(&self.inner),
            options,
            done: counters.0,
            total: counters.1,
            cancel,
        }))
    }

    /// Top `k` for each `(heads[i], relations[i])` through `index`, searched `ef` wide, on the
    /// libuv thread pool: candidates re-scored exactly, `excludes[i]` never returned; a query
    /// with more exclusions than `ef`, or that the index cannot fill, is scanned exactly.
    #[napi(catch_unwind, ts_return_type = "Promise<TopK>")]
    pub fn top_k_approx_async(
        &self,
        index: &ApproxIndex,
        heads: Uint32Array,
        relations: Uint32Array,
        k: u32,
        ef: u32,
        excludes: Option<Vec<Uint32Array>>,
    ) -> Result<AsyncTask<ApproxScoreTask>, EngineError> {
        if ef == 0 {
            return Err(argument_error("ef must be at least 1"));
        }
        Ok(AsyncTask::new(ApproxScoreTask {
            model: Arc::clone(&self.inner),
            index: Arc::clone(&index.inner),
            queries: query_pairs(&heads, &relations)?,
            k: k as usize,
            ef: ef as usize,
            excludes: excludes
                .unwrap_or_default()
                .iter()
                .map(|e| e.to_vec())
                .collect(),
        }))
    }
}

pub struct BuildIndexTask {
    model: Arc<Model>,
    options: BuildOptions,
    done: Arc<AtomicUsize>,
    total: Arc<AtomicUsize>,
    cancel: Arc<AtomicBool>,
}

impl Task for BuildIndexTask {
    type Output = EngineResult<neptune_ann::ApproxIndex>;
    type JsValue = ApproxIndex;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(guarded(|| {
            let p = &self.model.params;
            self.total.store(p.n_ent, Ordering::Relaxed);
            let built = neptune_ann::ApproxIndex::build(
                &p.e,
                p.d_e,
                self.options,
                &self.cancel,
                &mut |done, _| self.done.store(done, Ordering::Relaxed),
            )
            .map_err(engine_error)?;
            built.map_err(|BuildStopped| {
                napi::Error::new(
                    crate::errors::EngineErrorCode::EngineAborted,
                    "the index build was aborted",
                )
            })
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<ApproxIndex> {
        output
            .map(|index| ApproxIndex {
                inner: Arc::new(index),
            })
            .or_else(|e| reject(env, e))
    }
}

pub struct ApproxScoreTask {
    model: Arc<Model>,
    index: Arc<neptune_ann::ApproxIndex>,
    queries: Vec<(u32, u32)>,
    k: usize,
    ef: usize,
    /// Empty, or one list per query.
    excludes: Vec<Vec<u32>>,
}

impl Task for ApproxScoreTask {
    type Output = EngineResult<Vec<Vec<Prediction>>>;
    type JsValue = TopK;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(guarded(|| {
            let lists: Vec<&[u32]> = self.excludes.iter().map(Vec::as_slice).collect();
            approx_top_k_batch(
                &self.model,
                &self.index,
                &self.queries,
                self.k,
                &lists,
                self.ef,
            )
            .map(|found| found.top)
            .map_err(engine_error)
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<TopK> {
        output.map(flatten).or_else(|e| reject(env, e))
    }
}
