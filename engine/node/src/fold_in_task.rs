//! `NeptuneModel.foldInAsync`: embedding rows for entities the model has never seen, fitted with
//! the model frozen (`neptune_core::fold_in`), on the libuv thread pool; an AbortSignal stops it
//! between optimiser steps (rejects with `ENGINE_ABORTED`).

use crate::errors::{
    argument_error, engine_error, guarded, reject, EngineError, EngineErrorCode, EngineResult,
};
use napi::bindgen_prelude::{Float32Array, Float64Array, Uint32Array};
use napi::{Env, Task};
use napi_derive::napi;
use neptune_core::fold_in::MAX_STEPS;
use neptune_core::{FoldInSettings, Model, NegativePool};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// One edge of a new entity `u` to an entity the model knows: `relation` a base relation id,
/// `other` a model entity id; `outgoing` true for `(u, relation, other)`, false for
/// `(other, relation, u)`; `answers` the known entities answering the query the edge makes `u`
/// an answer of (`other`'s edges of `relation` in the other direction, in the graph the model
/// was trained on; default 0, unknown): under the softmax loss `u` shares that query's target
/// with them, as training does.
#[napi(object, js_name = "FoldInEdge")]
pub struct FoldInEdgeJs {
    pub relation: u32,
    pub other: u32,
    pub outgoing: bool,
    pub answers: Option<u32>,
}

/// How `foldInAsync` fits rows; absent fields keep the engine's defaults.
#[napi(object)]
pub struct FoldInOptions {
    /// Adam steps (an integer, 0 to 10,000).
    pub steps: Option<f64>,
    /// Adam learning rate (positive).
    pub lr: Option<f64>,
    /// Seeds the initial row and the sampled negative queries (a non-negative integer).
    pub seed: Option<f64>,
    /// Also fit the entity as a candidate tail of known queries (default true; false fits its
    /// own queries only, for comparison).
    pub tail_side: Option<bool>,
    /// Candidates per entity between full passes (an integer, 0 to 1,000,000; default 0: every
    /// step scores all entities), under either loss.
    pub candidates: Option<f64>,
    /// The tail side's negatives: known queries of the graph the model was trained on, each
    /// standing for the known queries of its stratum (default: a uniform sample of (entity,
    /// relation) pairs weighted as the entity's own queries).
    pub negatives: Option<FoldInNegatives>,
}

/// Known queries `(heads[k], relations[k])` (model entity and relation ids), query k standing
/// for `standsFor[k]` known queries (at least 1).
#[napi(object)]
pub struct FoldInNegatives {
    pub heads: Uint32Array,
    pub relations: Uint32Array,
    pub stands_for: Float64Array,
}

/// The core's pool from the JS options' negatives, checked.
pub(crate) fn negative_pool(
    options: &mut Option<FoldInOptions>,
) -> EngineResult<Option<NegativePool>> {
    let Some(n) = options.as_mut().and_then(|o| o.negatives.take()) else {
        return Ok(None);
    };
    if n.heads.len() != n.relations.len() {
        return Err(argument_error(format!(
            "options.negatives: {} heads but {} relations",
            n.heads.len(),
            n.relations.len()
        )));
    }
    let queries = n
        .heads
        .iter()
        .zip(n.relations.iter())
        .map(|(&h, &r)| (h, r))
        .collect();
    NegativePool::new(queries, n.stands_for.to_vec())
        .map(Some)
        .map_err(engine_error)
}

/// The core's settings from the JS options, checked.
pub(crate) fn fold_in_settings(options: Option<FoldInOptions>) -> EngineResult<FoldInSettings> {
    let mut s = FoldInSettings::default();
    let Some(o) = options else { return Ok(s) };
    let whole = |name: &str, v: f64, max: f64| -> EngineResult<f64> {
        if v.fract() != 0.0 || !(0.0..=max).contains(&v) {
            return Err(argument_error(format!(
                "options.{name} = {v} must be an integer from 0 to {max}"
            )));
        }
        Ok(v)
    };
    if let Some(steps) = o.steps {
        s.steps = whole("steps", steps, MAX_STEPS as f64)? as usize;
    }
    if let Some(lr) = o.lr {
        if !(lr > 0.0 && lr.is_finite()) {
            return Err(argument_error(format!(
                "options.lr = {lr} must be a positive number"
            )));
        }
        s.lr = lr;
    }
    if let Some(tail_side) = o.tail_side {
        s.tail_side = tail_side;
    }
    if let Some(candidates) = o.candidates {
        s.candidates = whole("candidates", candidates, 1_000_000.0)? as usize;
    }
    if let Some(seed) = o.seed {
        s.seed = whole("seed", seed, 9_007_199_254_740_991.0)? as u64;
    }
    Ok(s)
}

/// The core's edges of each entity.
pub(crate) fn core_edges(entities: Vec<Vec<FoldInEdgeJs>>) -> Vec<Vec<neptune_core::FoldInEdge>> {
    entities
        .into_iter()
        .map(|edges| {
            edges
                .into_iter()
                .map(|e| neptune_core::FoldInEdge {
                    relation: e.relation,
                    other: e.other,
                    outgoing: e.outgoing,
                    answers: e.answers.unwrap_or(0),
                })
                .collect()
        })
        .collect()
}

pub struct FoldInTask {
    pub(crate) model: Arc<Model>,
    pub(crate) entities: Vec<Vec<neptune_core::FoldInEdge>>,
    pub(crate) settings: FoldInSettings,
    pub(crate) pool: Option<NegativePool>,
    pub(crate) cancel: Arc<AtomicBool>,
}

impl Task for FoldInTask {
    type Output = EngineResult<Vec<f32>>;
    type JsValue = Float32Array;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(guarded(|| {
            let pool = self.pool.as_ref();
            let (model, entities) = (&self.model, &self.entities);
            match neptune_core::fold_in_with_pool(
                model,
                entities,
                &self.settings,
                pool,
                &self.cancel,
            ) {
                Ok(Some(rows)) => Ok(rows),
                Ok(None) => Err(napi::Error::new(
                    EngineErrorCode::EngineAborted,
                    "fold-in was aborted",
                )),
                Err(e) => Err(engine_error(e)),
            }
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<Float32Array> {
        output
            .map(Float32Array::new)
            .or_else(|e: EngineError| reject(env, e))
    }
}
