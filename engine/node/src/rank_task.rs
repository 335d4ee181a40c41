//! `NeptuneModel.filteredRanksAsync`: filtered ranks of given tails on the libuv thread pool
//! (one 1-N scoring per triple), so the JS thread keeps serving meanwhile; each tail at its
//! own logit or at a served score that raises it.

use crate::errors::{engine_error, guarded, reject, EngineResult};
use crate::model::{ranked_arrays, FilteredRanks};
use napi::bindgen_prelude::Uint32Array;
use napi::{Env, Task};
use neptune_core::{Model, RankedTail, TopKScan};
use std::collections::HashMap;
use std::sync::Arc;

pub struct RankTask {
    model: Arc<Model>,
    triples: Vec<(u32, u32, u32)>,
    /// The distinct exclusion lists (copied once each: the triples asking one question share
    /// its list), and each triple's (`which` empty: nothing excluded).
    distinct: Vec<Vec<u32>>,
    which: Vec<usize>,
    /// The score each tail ranks at where above its own logit (`filtered_ranks_at`).
    ranked: Option<Vec<f32>>,
}

impl RankTask {
    pub(crate) fn new(
        model: Arc<Model>,
        triples: Vec<(u32, u32, u32)>,
        excludes: &[Uint32Array],
        ranked: Option<Vec<f32>>,
    ) -> RankTask {
        let mut seen: HashMap<(*const u32, usize), usize> = HashMap::new();
        let (mut distinct, mut which) = (Vec::new(), Vec::with_capacity(excludes.len()));
        for list in excludes {
            let at = *seen.entry((list.as_ptr(), list.len())).or_insert_with(|| {
                distinct.push(list.to_vec());
                distinct.len() - 1
            });
            which.push(at);
        }
        RankTask {
            model,
            triples,
            distinct,
            which,
            ranked,
        }
    }
}

impl Task for RankTask {
    type Output = EngineResult<Vec<RankedTail>>;
    type JsValue = FilteredRanks;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(guarded(|| {
            let lists: Vec<&[u32]> = self
                .which
                .iter()
                .map(|&at| self.distinct[at].as_slice())
                .collect();
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
