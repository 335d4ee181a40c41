//! A trained model as served: parameters, vocabularies, and 1-N scoring with top-k.

use crate::config::Config;
use crate::dataset::InverseMode;
use crate::error::{Error, Result};
use crate::eval::Metrics;
use crate::net::{forward, Batch, Dropouts, Mode, Workspace};
use crate::params::Params;
use crate::real::sigmoid;

/// One scored candidate entity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prediction {
    pub entity: u32,
    pub logit: f32,
    /// `sigmoid(logit)`.
    pub probability: f32,
}

/// A NePTuNe model with its vocabularies. Relation ids in queries are model relation ids:
/// base relations `0..n_relations`, and in `NewRelation` mode their reverses
/// `n_relations..2 * n_relations` (see [`Model::reverse_relation`]).
#[derive(Clone, Debug)]
pub struct Model {
    pub config: Config,
    pub params: Params<f32>,
    pub entities: Vec<String>,
    /// Base relation names.
    pub relations: Vec<String>,
    /// Epochs trained.
    pub epoch: usize,
    /// Validation metrics of these weights, when known.
    pub valid_metrics: Option<Metrics>,
}

impl Model {
    pub fn n_entities(&self) -> usize {
        self.params.n_ent
    }
    /// Relations the model embeds (including reverses in `NewRelation` mode).
    pub fn n_model_relations(&self) -> usize {
        self.params.n_rel
    }
    /// The relation id that asks for heads of base relation `r`: score `(t, reverse(r))` to
    /// predict the missing `h` of `(?, r, t)`.
    pub fn reverse_relation(&self, r: u32) -> Result<u32> {
        if r as usize >= self.relations.len() {
            return Err(Error::arg("relation", format!("{r} is not a base relation (< {})", self.relations.len())));
        }
        Ok(self.config.inverse_mode.reverse(r, self.relations.len()))
    }
    /// Names of the model relations (base names, then `"{name}_reverse"` in `NewRelation` mode).
    pub fn relation_name(&self, r: u32) -> Option<String> {
        let nb = self.relations.len();
        match self.config.inverse_mode {
            _ if (r as usize) < nb => Some(self.relations[r as usize].clone()),
            InverseMode::NewRelation if (r as usize) < 2 * nb => Some(format!("{}_reverse", self.relations[r as usize - nb])),
            _ => None,
        }
    }
    pub fn entity_id(&self, name: &str) -> Option<u32> {
        self.entities.iter().position(|e| e == name).map(|i| i as u32)
    }
    pub fn relation_id(&self, name: &str) -> Option<u32> {
        self.relations.iter().position(|e| e == name).map(|i| i as u32)
    }

    /// Checks that tensors, dimensions and vocabularies agree (always true for loaded or trained
    /// models; guards hand-built ones, since the fields are public).
    pub fn validate(&self) -> Result<()> {
        let p = &self.params;
        let bad = |m: String| Err(Error::arg("model", m));
        if p.n_ent != self.entities.len() || p.n_rel != self.config.inverse_mode.model_relations(self.relations.len()) {
            return bad("entity or relation count disagrees with the vocabularies".into());
        }
        if p.d_e != self.config.d_e || p.d_r != self.config.d_r {
            return bad("tensor widths disagree with the config".into());
        }
        let lens = p.trainable_lens();
        for (i, t) in p.trainable().iter().enumerate() {
            if t.len() != lens[i] {
                return bad(format!("{} has {} values, expected {}", crate::params::TRAINABLE_NAMES[i], t.len(), lens[i]));
            }
        }
        if [&p.bn0.running_mean, &p.bn0.running_var, &p.bn1.running_mean, &p.bn1.running_var].iter().any(|v| v.len() != p.d_e) {
            return bad("BatchNorm running statistics have the wrong length".into());
        }
        Ok(())
    }

    fn check_query(&self, h: u32, r: u32) -> Result<()> {
        if h as usize >= self.params.n_ent {
            return Err(Error::arg("entity", format!("{h} is out of range (model has {} entities)", self.params.n_ent)));
        }
        if r as usize >= self.params.n_rel {
            return Err(Error::arg("relation", format!("{r} is out of range (model has {} relations)", self.params.n_rel)));
        }
        Ok(())
    }

    /// Logits of `(h, r, e)` for every entity `e` of each query, row-major `queries.len() x N`.
    pub fn scores(&self, queries: &[(u32, u32)]) -> Result<Vec<f32>> {
        self.validate()?;
        let mut batch = Batch::default();
        for &(h, r) in queries {
            self.check_query(h, r)?;
            batch.push(h, r, &[]);
        }
        let n = self.params.n_ent;
        let mut out = Vec::with_capacity(queries.len() * n);
        let mut ws = Workspace::<f32>::new();
        for chunk in queries.chunks(crate::train::eval_batch(n)) {
            batch.clear();
            chunk.iter().for_each(|&(h, r)| batch.push(h, r, &[]));
            forward(&self.params, &Dropouts::default(), &batch, &mut ws, Mode::Eval);
            out.extend_from_slice(&ws.logits[..chunk.len() * n]);
        }
        Ok(out)
    }

    /// The `k` highest-scoring entities for `(h, r, ?)`, best first, skipping `exclude`
    /// (typically the known tails). Ties keep the lower entity id first.
    pub fn top_k(&self, h: u32, r: u32, k: usize, exclude: &[u32]) -> Result<Vec<Prediction>> {
        Ok(self.top_k_batch(&[(h, r)], k, &[exclude])?.pop().unwrap_or_default())
    }

    /// [`Model::top_k`] for several queries at once; `excludes[i]` belongs to `queries[i]`
    /// (`excludes` may be empty: nothing excluded).
    pub fn top_k_batch(&self, queries: &[(u32, u32)], k: usize, excludes: &[&[u32]]) -> Result<Vec<Vec<Prediction>>> {
        if !excludes.is_empty() && excludes.len() != queries.len() {
            return Err(Error::arg("excludes", format!("{} lists for {} queries", excludes.len(), queries.len())));
        }
        let n = self.params.n_ent;
        let logits = self.scores(queries)?;
        let mut banned = vec![false; n];
        let mut out = Vec::with_capacity(queries.len());
        for (i, row) in logits.chunks(n.max(1)).enumerate().take(queries.len()) {
            let ex = excludes.get(i).copied().unwrap_or(&[]);
            for &e in ex {
                if let Some(b) = banned.get_mut(e as usize) {
                    *b = true;
                }
            }
            out.push(top_k_row(row, k, &banned));
            for &e in ex {
                if let Some(b) = banned.get_mut(e as usize) {
                    *b = false;
                }
            }
        }
        Ok(out)
    }
}

/// Top `k` of one score row, skipping `banned`; NaN scores are never returned.
fn top_k_row(row: &[f32], k: usize, banned: &[bool]) -> Vec<Prediction> {
    let mut idx: Vec<u32> = (0..row.len() as u32).filter(|&e| !banned[e as usize] && !row[e as usize].is_nan()).collect();
    let k = k.min(idx.len());
    if k == 0 {
        return Vec::new();
    }
    let cmp = |a: &u32, b: &u32| row[*b as usize].total_cmp(&row[*a as usize]).then(a.cmp(b));
    if k < idx.len() {
        idx.select_nth_unstable_by(k - 1, cmp);
        idx.truncate(k);
    }
    idx.sort_unstable_by(cmp);
    idx.into_iter().map(|e| Prediction { entity: e, logit: row[e as usize], probability: sigmoid(row[e as usize]) }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_k_orders_and_excludes() {
        let row = [0.1f32, 3.0, -2.0, 3.0, f32::NAN, 1.0];
        let banned = [false, false, false, false, false, true];
        let got = top_k_row(&row, 3, &banned);
        let ids: Vec<u32> = got.iter().map(|p| p.entity).collect();
        assert_eq!(ids, vec![1, 3, 0]);
        assert!((got[0].probability - 1.0 / (1.0 + (-3.0f32).exp())).abs() < 1e-6);
        assert_eq!(top_k_row(&row, 100, &banned).len(), 4);
    }
}
