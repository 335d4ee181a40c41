//! `NeptuneModel`: a loaded model for serving. Results come back as typed arrays that take
//! ownership of the Rust buffers (no copy).

use crate::errors::{argument_error, engine_error, EngineError};
use crate::fold_in_task::{
    core_edges, fold_in_settings, negative_pool, FoldInEdgeJs, FoldInOptions, FoldInTask,
};
use crate::logits_task::{CandidateLogitsTask, LogitsTask};
use crate::rank_task::RankTask;
use crate::score_task::ScoreTask;
use crate::suggest_task::{SuggestExclusions, SuggestTask};
use napi::bindgen_prelude::{AbortSignal, AsyncTask, Float32Array, Float64Array, Uint32Array};
use napi_derive::napi;
use neptune_core::{ExcludedEdges, Model, Prediction};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Top-k results of one or more queries, flattened query-major: query `i` owns
/// `[offsets[i], offsets[i + 1])` of the three arrays.
#[napi(object)]
pub struct TopK {
    pub entities: Uint32Array,
    pub logits: Float32Array,
    pub probabilities: Float32Array,
    pub offsets: Uint32Array,
}

/// Filtered ranks of given tails and the logits they were ranked by; `ranks[i]` and `logits[i]`
/// belong to triple `i`.
#[napi(object)]
pub struct FilteredRanks {
    pub ranks: Float64Array,
    pub logits: Float32Array,
}

/// Splits the core's ranked tails into the two arrays.
pub(crate) fn ranked_arrays(rows: Vec<neptune_core::RankedTail>) -> FilteredRanks {
    FilteredRanks {
        ranks: Float64Array::new(rows.iter().map(|r| r.rank).collect()),
        logits: Float32Array::new(rows.iter().map(|r| r.logit).collect()),
    }
}

#[napi]
pub struct NeptuneModel {
    /// Shared with the scoring tasks in flight on the libuv pool.
    pub(crate) inner: Arc<Model>,
}

impl NeptuneModel {
    /// Wraps a model loaded elsewhere (the async `loadModel`).
    /// The binding's model: its entity rows shared by the models `withEntities` grows from it.
    pub(crate) fn from_model(mut inner: Model) -> NeptuneModel {
        inner.params.e.share();
        NeptuneModel {
            inner: Arc::new(inner),
        }
    }
}

#[napi]
impl NeptuneModel {
    /// Loads a saved model; a corrupt, truncated or mismatched checkpoint is refused.
    #[napi(factory, catch_unwind)]
    pub fn load(dir: String) -> Result<NeptuneModel, EngineError> {
        Ok(NeptuneModel::from_model(
            Model::load(&dir).map_err(engine_error)?,
        ))
    }

    /// Every entity's name: the trained ones, then those appended by `withEntities`.
    #[napi(getter, catch_unwind)]
    pub fn entities(&self) -> Vec<String> {
        let n = self.inner.n_entities() as u32;
        (0..n)
            .filter_map(|i| self.inner.entity_name(i).map(str::to_owned))
            .collect()
    }

    /// Base relation names (reverse relations are addressed with `reverseRelation`).
    #[napi(getter, catch_unwind)]
    pub fn relations(&self) -> Vec<String> {
        self.inner.relations.clone()
    }

    #[napi(getter, catch_unwind)]
    pub fn epoch(&self) -> u32 {
        self.inner.epoch as u32
    }

    /// Validation MRR of these weights, when known.
    #[napi(getter, catch_unwind)]
    pub fn valid_mrr(&self) -> Option<f64> {
        self.inner.valid_metrics.as_ref().map(|m| m.overall.mrr)
    }

    /// Computes every relation's core `R[r]·W` now when they fit in `budgetBytes`, so no query
    /// pays for its relation's first use; returns whether it did.
    #[napi(catch_unwind)]
    pub fn warm_up(&self, budget_bytes: f64) -> bool {
        self.inner.warm_up(budget_bytes.max(0.0) as usize)
    }

    /// The model relation that predicts heads of base relation `relation`.
    #[napi(catch_unwind)]
    pub fn reverse_relation(&self, relation: u32) -> Result<u32, EngineError> {
        self.inner.reverse_relation(relation).map_err(engine_error)
    }

    /// Entity embedding rows for `indices`, concatenated (`indices.length x d_e` floats): serving
    /// ranks entities like a query's head by cosine in this space.
    #[napi(catch_unwind)]
    pub fn entity_vectors(&self, indices: Uint32Array) -> Result<Float32Array, EngineError> {
        Ok(Float32Array::new(
            self.inner.entity_vectors(&indices).map_err(engine_error)?,
        ))
    }

    /// The logit of each triple `(heads[i], relations[i], tails[i])`.
    #[napi(catch_unwind)]
    pub fn score_triples(
        &self,
        heads: Uint32Array,
        relations: Uint32Array,
        tails: Uint32Array,
    ) -> Result<Float32Array, EngineError> {
        if heads.len() != relations.len() || heads.len() != tails.len() {
            return Err(argument_error(format!(
                "heads ({}), relations ({}) and tails ({}) differ in length",
                heads.len(),
                relations.len(),
                tails.len()
            )));
        }
        let triples: Vec<(u32, u32, u32)> = (0..heads.len())
            .map(|i| (heads[i], relations[i], tails[i]))
            .collect();
        Ok(Float32Array::new(
            self.inner.score_triples(&triples).map_err(engine_error)?,
        ))
    }

    /// Top `k` for each `(heads[i], relations[i])`; `excludes[i]` (optional) belongs to query `i`.
    #[napi(catch_unwind)]
    pub fn top_k_batch(
        &self,
        heads: Uint32Array,
        relations: Uint32Array,
        k: u32,
        excludes: Option<Vec<Uint32Array>>,
    ) -> Result<TopK, EngineError> {
        let queries = query_pairs(&heads, &relations)?;
        let excludes = excludes.unwrap_or_default();
        let lists: Vec<&[u32]> = excludes.iter().map(|e| &e[..]).collect();
        let rows = self
            .inner
            .top_k_batch(&queries, k as usize, &lists)
            .map_err(engine_error)?;
        Ok(flatten(rows))
    }

    /// `topKBatch` on the libuv thread pool: the JS thread keeps serving while the engine
    /// scores. The arguments are copied, so the caller may reuse its arrays at once.
    #[napi(catch_unwind, ts_return_type = "Promise<TopK>")]
    pub fn top_k_batch_async(
        &self,
        heads: Uint32Array,
        relations: Uint32Array,
        k: u32,
        excludes: Option<Vec<Uint32Array>>,
    ) -> Result<AsyncTask<ScoreTask>, EngineError> {
        let queries = query_pairs(&heads, &relations)?;
        let excludes = excludes
            .unwrap_or_default()
            .iter()
            .map(|e| e.to_vec())
            .collect();
        Ok(AsyncTask::new(ScoreTask::new(
            Arc::clone(&self.inner),
            queries,
            k as usize,
            excludes,
        )))
    }
}

#[napi]
impl NeptuneModel {
    /// The filtered rank of each `tails[i]` among all entities for `(heads[i], relations[i], ?)`
    /// (model relations), as the evaluation ranks (the mean of the optimistic and pessimistic
    /// rank), with the entities of `excludes[i]` (optional) removed; the tail itself never is.
    /// With each rank, the tail's logit (as `scoreTriples` gives it).
    #[napi(catch_unwind)]
    pub fn filtered_ranks(
        &self,
        heads: Uint32Array,
        relations: Uint32Array,
        tails: Uint32Array,
        excludes: Option<Vec<Uint32Array>>,
    ) -> Result<FilteredRanks, EngineError> {
        let triples = rank_triples(&heads, &relations, &tails, excludes.as_deref())?;
        let excludes = excludes.unwrap_or_default();
        let lists: Vec<&[u32]> = excludes.iter().map(|e| &e[..]).collect();
        neptune_core::filtered_ranks(&self.inner, &triples, &lists)
            .map(ranked_arrays)
            .map_err(engine_error)
    }

    /// `filteredRanks` on the libuv thread pool. The arguments are copied, so the caller may
    /// reuse its arrays at once. With `ranked`, each tail ranks as if it scored `ranked[i]`
    /// where that is above its own logit (a served score raised by the rules' evidence; the
    /// logits returned stay the model's).
    #[napi(catch_unwind, ts_return_type = "Promise<FilteredRanks>")]
    pub fn filtered_ranks_async(
        &self,
        heads: Uint32Array,
        relations: Uint32Array,
        tails: Uint32Array,
        excludes: Option<Vec<Uint32Array>>,
        ranked: Option<Float32Array>,
    ) -> Result<AsyncTask<RankTask>, EngineError> {
        let triples = rank_triples(&heads, &relations, &tails, excludes.as_deref())?;
        if let Some(ranked) = &ranked {
            if ranked.len() != triples.len() {
                return Err(argument_error(format!(
                    "ranked ({}) and tails ({}) differ in length",
                    ranked.len(),
                    triples.len()
                )));
            }
        }
        Ok(AsyncTask::new(RankTask::new(
            Arc::clone(&self.inner),
            triples,
            &excludes.unwrap_or_default(),
            ranked.map(|r| r.to_vec()),
        )))
    }
}

#[napi]
impl NeptuneModel {
    /// The edges never suggested in a job (known and rejected: `heads[i]`-`relations[i]`->`tails[i]`,
    /// base relations, any order), grouped by relation once for every `suggestAsync` of the job.
    #[napi(catch_unwind)]
    pub fn suggest_exclusions(
        &self,
        heads: Uint32Array,
        relations: Uint32Array,
        tails: Uint32Array,
    ) -> Result<SuggestExclusions, EngineError> {
        let m = &self.inner;
        let edges = ExcludedEdges::new(
            m.relations.len(),
            m.entities.len(),
            &heads,
            &relations,
            &tails,
        )
        .map_err(engine_error)?;
        Ok(SuggestExclusions {
            inner: Arc::new(edges),
        })
    }

    /// The best `n` missing edges of base relation `relation` across the graph, on the libuv
    /// thread pool: `head` false scores every query entity as a head against the candidates as
    /// tails, true the reverse. `queries` and `candidates` (ascending; absent: every entity) are
    /// the type-consistent ends; `exclusions` (`suggestExclusions`) holds the edges never
    /// suggested. Best first; ties keep the lower query, then the lower candidate. `signal`
    /// aborts between tiles (`ENGINE_ABORTED`).
    #[napi(catch_unwind, ts_return_type = "Promise<Suggestions>")]
    #[allow(clippy::too_many_arguments)]
    pub fn suggest_async(
        &self,
        relation: u32,
        head: bool,
        n: u32,
        queries: Option<Uint32Array>,
        candidates: Option<Uint32Array>,
        exclusions: &SuggestExclusions,
        signal: Option<AbortSignal>,
    ) -> Result<AsyncTask<SuggestTask>, EngineError> {
        let cancel = Arc::new(AtomicBool::new(false));
        if let Some(signal) = &signal {
            let flag = cancel.clone();
            signal.on_abort(move || flag.store(true, Ordering::SeqCst));
        }
        let task = SuggestTask {
            model: Arc::clone(&self.inner),
            relation,
            head,
            n: n as usize,
            queries: queries.map(|q| q.to_vec()),
            candidates: candidates.map(|c| c.to_vec()),
            exclude: Arc::clone(&exclusions.inner),
            cancel,
        };
        Ok(AsyncTask::with_optional_signal(task, signal))
    }
}

#[napi]
impl NeptuneModel {
    /// Embedding rows for entities the model has never seen, fitted with the model frozen, on
    /// the libuv thread pool: `entities[i]` are entity i's edges to entities the model knows
    /// (base relation ids, model entity ids). Resolves to `entities.length x d_e` floats,
    /// row-major, for `withEntities`. An entity without edges, or an id out of range, rejects
    /// with `ENGINE_ARGUMENT` naming the entity's index; `signal` aborts between optimiser steps
    /// (`ENGINE_ABORTED`).
    #[napi(catch_unwind, ts_return_type = "Promise<Float32Array>")]
    pub fn fold_in_async(
        &self,
        entities: Vec<Vec<FoldInEdgeJs>>,
        mut options: Option<FoldInOptions>,
        signal: Option<AbortSignal>,
    ) -> Result<AsyncTask<FoldInTask>, EngineError> {
        let pool = negative_pool(&mut options)?;
        let settings = fold_in_settings(options)?;
        let cancel = Arc::new(AtomicBool::new(false));
        if let Some(signal) = &signal {
            let flag = cancel.clone();
            signal.on_abort(move || flag.store(true, Ordering::SeqCst));
        }
        let task = FoldInTask {
            model: Arc::clone(&self.inner),
            entities: core_edges(entities),
            settings,
            pool,
            cancel,
        };
        Ok(AsyncTask::with_optional_signal(task, signal))
    }

    /// The logit of each `(heads[i], relations[i])` (model relations) against each of `rows`
    /// (entity rows outside the model, `rows.length / d_e` of them, as `foldInAsync` gives
    /// them): `heads.length x rows`, row-major, on the libuv thread pool. The arguments are
    /// copied.
    #[napi(catch_unwind, ts_return_type = "Promise<Float32Array>")]
    pub fn logits_against_async(
        &self,
        heads: Uint32Array,
        relations: Uint32Array,
        rows: Float32Array,
    ) -> Result<AsyncTask<LogitsTask>, EngineError> {
        Ok(AsyncTask::new(LogitsTask {
            model: Arc::clone(&self.inner),
            queries: query_pairs(&heads, &relations)?,
            rows: Some(rows.to_vec()),
        }))
    }

    /// The logit of each `(heads[i], relations[i])` (model relations) against every entity of
    /// the model: `heads.length x entities`, row-major, on the libuv thread pool (the entity
    /// matrix is read in place: `logitsAgainstAsync` with every row would copy it twice).
    #[napi(catch_unwind, ts_return_type = "Promise<Float32Array>")]
    pub fn logits_async(
        &self,
        heads: Uint32Array,
        relations: Uint32Array,
    ) -> Result<AsyncTask<LogitsTask>, EngineError> {
        Ok(AsyncTask::new(LogitsTask {
            model: Arc::clone(&self.inner),
            queries: query_pairs(&heads, &relations)?,
            rows: None,
        }))
    }

    /// The logit of `(head, relation, c)` (model relation) for each `c` of `candidates`, as
    /// `scoreTriples` gives each, the query scored once, on the libuv thread pool. The
    /// candidates are copied.
    #[napi(catch_unwind, ts_return_type = "Promise<Float32Array>")]
    pub fn logits_of_async(
        &self,
        head: u32,
        relation: u32,
        candidates: Uint32Array,
    ) -> Result<AsyncTask<CandidateLogitsTask>, EngineError> {
        Ok(AsyncTask::new(CandidateLogitsTask {
            model: Arc::clone(&self.inner),
            query: (head, relation),
            candidates: candidates.to_vec(),
        }))
    }

    /// A new model with entities `names` appended (ids from `entities.length` on) with rows
    /// `embeddings` (`names.length x d_e`, as `foldInAsync` gives them); this model is
    /// unchanged. Names already present or given twice, a wrong length or a non-finite value
    /// throw `ENGINE_ARGUMENT`. Shares this model's trained tensors (the entity matrix, its
    /// 8-bit copy, the relation cores) and copies only rows appended before.
    #[napi(catch_unwind)]
    pub fn with_entities(
        &self,
        names: Vec<String>,
        embeddings: Float32Array,
    ) -> Result<NeptuneModel, EngineError> {
        Ok(NeptuneModel::from_model(
            self.inner
                .with_entities(names, &embeddings)
                .map_err(engine_error)?,
        ))
    }
}

/// The triples of `filteredRanks`, after checking that the arrays agree in length.
fn rank_triples(
    heads: &[u32],
    relations: &[u32],
    tails: &[u32],
    excludes: Option<&[Uint32Array]>,
) -> Result<Vec<(u32, u32, u32)>, EngineError> {
    if heads.len() != relations.len() || heads.len() != tails.len() {
        return Err(argument_error(format!(
            "heads ({}), relations ({}) and tails ({}) differ in length",
            heads.len(),
            relations.len(),
            tails.len()
        )));
    }
    if let Some(lists) = excludes {
        if lists.len() != heads.len() {
            return Err(argument_error(format!(
                "excludes holds {} lists for {} triples",
                lists.len(),
                heads.len()
            )));
        }
    }
    Ok((0..heads.len())
        .map(|i| (heads[i], relations[i], tails[i]))
        .collect())
}

pub(crate) fn query_pairs(
    heads: &[u32],
    relations: &[u32],
) -> Result<Vec<(u32, u32)>, EngineError> {
    if heads.len() != relations.len() {
        return Err(argument_error(format!(
            "heads ({}) and relations ({}) differ in length",
            heads.len(),
            relations.len()
        )));
    }
    Ok(heads
        .iter()
        .copied()
        .zip(relations.iter().copied())
        .collect())
}

pub(crate) fn flatten(rows: Vec<Vec<Prediction>>) -> TopK {
    let total: usize = rows.iter().map(Vec::len).sum();
    let (mut entities, mut logits, mut probabilities) = (
        Vec::with_capacity(total),
        Vec::with_capacity(total),
        Vec::with_capacity(total),
    );
    let mut offsets = Vec::with_capacity(rows.len() + 1);
    offsets.push(0u32);
    for row in rows {
        for p in row {
            entities.push(p.entity);
            logits.push(p.logit);
            probabilities.push(p.probability);
        }
        offsets.push(entities.len() as u32);
    }
    TopK {
        entities: Uint32Array::new(entities),
        logits: Float32Array::new(logits),
        probabilities: Float32Array::new(probabilities),
        offsets: Uint32Array::new(offsets),
    }
}
