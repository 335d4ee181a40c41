//! `NeptuneModel`: a loaded model for serving. Results come back as typed arrays that take
//! ownership of the Rust buffers (no copy).

use crate::convert::to_napi_error;
use napi::bindgen_prelude::{Float32Array, Uint32Array};
use napi_derive::napi;
use neptune_core::{Model, Prediction};

/// Top-k results of one or more queries, flattened query-major: query `i` owns
/// `[offsets[i], offsets[i + 1])` of the three arrays.
#[napi(object)]
pub struct TopK {
    pub entities: Uint32Array,
    pub logits: Float32Array,
    pub probabilities: Float32Array,
    pub offsets: Uint32Array,
}

#[napi]
pub struct NeptuneModel {
    inner: Model,
}

impl NeptuneModel {
    /// Wraps a model loaded elsewhere (the async `loadModel`).
    pub(crate) fn from_model(inner: Model) -> NeptuneModel {
        NeptuneModel { inner }
    }
}

#[napi]
impl NeptuneModel {
    /// Loads a saved model; a corrupt, truncated or mismatched checkpoint is refused.
    #[napi(factory)]
    pub fn load(dir: String) -> napi::Result<NeptuneModel> {
        Ok(NeptuneModel {
            inner: Model::load(&dir).map_err(to_napi_error)?,
        })
    }

    #[napi(getter)]
    pub fn entities(&self) -> Vec<String> {
        self.inner.entities.clone()
    }

    /// Base relation names (reverse relations are addressed with `reverseRelation`).
    #[napi(getter)]
    pub fn relations(&self) -> Vec<String> {
        self.inner.relations.clone()
    }

    #[napi(getter)]
    pub fn epoch(&self) -> u32 {
        self.inner.epoch as u32
    }

    /// The complete training config, as JSON.
    #[napi(getter)]
    pub fn config_json(&self) -> String {
        serde_json::to_string(&self.inner.config).unwrap_or_default()
    }

    /// Validation MRR of these weights, when known.
    #[napi(getter)]
    pub fn valid_mrr(&self) -> Option<f64> {
        self.inner.valid_metrics.as_ref().map(|m| m.overall.mrr)
    }

    /// Computes every relation's core `R[r]·W` now when they fit in `budgetBytes`, so no query
    /// pays for its relation's first use; returns whether it did.
    #[napi]
    pub fn warm_up(&self, budget_bytes: f64) -> bool {
        self.inner.warm_up(budget_bytes.max(0.0) as usize)
    }

    /// The model relation that predicts heads of base relation `relation`.
    #[napi]
    pub fn reverse_relation(&self, relation: u32) -> napi::Result<u32> {
        self.inner.reverse_relation(relation).map_err(to_napi_error)
    }

    /// The logit of each triple `(heads[i], relations[i], tails[i])`.
    #[napi]
    pub fn score_triples(
        &self,
        heads: Uint32Array,
        relations: Uint32Array,
        tails: Uint32Array,
    ) -> napi::Result<Float32Array> {
        if heads.len() != relations.len() || heads.len() != tails.len() {
            return Err(napi::Error::from_reason(format!(
                "[ENGINE_ARGUMENT] heads ({}), relations ({}) and tails ({}) differ in length",
                heads.len(),
                relations.len(),
                tails.len()
            )));
        }
        let triples: Vec<(u32, u32, u32)> = (0..heads.len())
            .map(|i| (heads[i], relations[i], tails[i]))
            .collect();
        Ok(Float32Array::new(
            self.inner.score_triples(&triples).map_err(to_napi_error)?,
        ))
    }

    /// Top `k` tails of `(head, relation, ?)`, best first, skipping `exclude`.
    #[napi]
    pub fn top_k(
        &self,
        head: u32,
        relation: u32,
        k: u32,
        exclude: Option<Uint32Array>,
    ) -> napi::Result<TopK> {
        let exclude: &[u32] = exclude.as_deref().unwrap_or(&[]);
        let rows = vec![self
            .inner
            .top_k(head, relation, k as usize, exclude)
            .map_err(to_napi_error)?];
        Ok(flatten(rows))
    }

    /// Top `k` for each `(heads[i], relations[i])`; `excludes[i]` (optional) belongs to query `i`.
    #[napi]
    pub fn top_k_batch(
        &self,
        heads: Uint32Array,
        relations: Uint32Array,
        k: u32,
        excludes: Option<Vec<Uint32Array>>,
    ) -> napi::Result<TopK> {
        if heads.len() != relations.len() {
            return Err(napi::Error::from_reason(format!(
                "[ENGINE_ARGUMENT] heads ({}) and relations ({}) differ in length",
                heads.len(),
                relations.len()
            )));
        }
        let queries: Vec<(u32, u32)> = heads
            .iter()
            .copied()
            .zip(relations.iter().copied())
            .collect();
        let excludes = excludes.unwrap_or_default();
        let lists: Vec<&[u32]> = excludes.iter().map(|e| &e[..]).collect();
        let rows = self
            .inner
            .top_k_batch(&queries, k as usize, &lists)
            .map_err(to_napi_error)?;
        Ok(flatten(rows))
    }
}

fn flatten(rows: Vec<Vec<Prediction>>) -> TopK {
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
