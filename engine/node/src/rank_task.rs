//! `NeptuneModel.filteredRanksAsync`: filtered ranks of given tails on the libuv thread pool
//! (one 1-N scoring per triple), so the JS thread keeps serving meanwhile; each tail at its
//! own logit or at a served score that raises it.

use crate::errors::{engine_error, guarded, reject, EngineResult};
use crate::model::{ranked_arrays, FilteredRanks};
use napi::{Env, Task};
use neptune_core::{Model, RankedTail, TopKScan};
use std::sync::Arc;

pub struct RankTask {
    model: Arc<Model>,
    triples: Vec<(u32, u32, u32)>,
    /// Empty, or one list per triple.
    excludes: Vec<Vec<u32>>,
    /// The score each tail ranks at where above its own logit (`filtered_ranks_at`).
    ranked: Option<Vec<f32>>,
}

impl RankTask {
    pub(crate) fn new(
        model: Arc<Model>,
        triples: Vec<(u32, u32, u32)>,
        excludes: Vec<Vec<u32>>,
        ranked: Option<Vec<f32>>,
    ) -> RankTask {
        RankTask {
            model,
            triples,
            excludes,
            ranked,
        }
    }
}

impl Task for RankTask {
    type Output = EngineResult<Vec<RankedTail>>;
    type JsValue = FilteredRanks;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(guarded(|| {
            let lists: Vec<&[u32]> = self.excludes.iter().map(Vec::as_slice).collect();
            match &self.ranked {
                Some(ranked) => neptune_core::filtered_ranks_at(
                    &self.model,
                    &self.triples,
                    &lists,
                    ranked,
                    TopKScan::Auto,
                ),
                None => neptune_core::filtered_ranks(&self.model, &self.triples, &lists),
            }
            .map_err(engine_error)
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<FilteredRanks> {
        output.map(ranked_arrays).or_else(|e| reject(env, e))
    }
}
