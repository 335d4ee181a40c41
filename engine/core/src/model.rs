//! A trained model as served: parameters, vocabularies, and 1-N scoring with top-k.

use crate::config::Config;
use crate::dataset::{Dataset, InverseMode};
use crate::error::{Error, Result};
use crate::eval::Metrics;
use crate::exact_top_k::exact_top_k;
use crate::int8_rows::Int8Rows;
use crate::int8_scan::{exact_score, QUERIES_PER_PASS};
use crate::linalg::{matmul, Op};
use crate::memo::Memo;
use crate::params::Params;
use crate::real::sigmoid;
use crate::rows::EntityRows;
use crate::scoring::{hidden_of_x0, queries_per_chunk, CoreCache, ScoreBuffers};
use rayon::prelude::*;
use std::sync::{Arc, OnceLock};

/// From this many entities top-k scans 8-bit rows then re-ranks exactly ([`TopKScan::Int8`]):
/// below it the f32 rows are small enough that the pass is not bound by memory.
pub const INT8_SCAN_MIN_ENTITIES: usize = 100_000;

/// Up to this `k` the 8-bit scan is used (its survivors grow with k).
pub const INT8_SCAN_MAX_K: usize = 1024;

/// How [`Model::top_k_batch_with`] finds the top k; every way returns the exact top k.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopKScan {
    /// [`TopKScan::Int8`] from [`INT8_SCAN_MIN_ENTITIES`] entities and `k ≤` [`INT8_SCAN_MAX_K`],
    /// [`TopKScan::F32`] otherwise.
    Auto,
    /// Score every entity from the f32 rows.
    F32,
    /// Scan 8-bit rows, re-rank the survivors from the f32 rows ([`crate::exact_top_k`]).
    Int8,
}

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
///
/// Scoring keeps each relation's core `R[r] · W` once computed (see [`crate::scoring`]); call
/// [`Model::clear_cache`] after changing `params` in place.
#[derive(Clone, Debug)]
pub struct Model {
    pub config: Config,
    pub params: Params<f32>,
    /// Trained entity names (shared by the models grown from this one).
    pub entities: Arc<Vec<String>>,
    /// Base relation names.
    pub relations: Vec<String>,
    /// Epochs trained.
    pub epoch: usize,
    /// Validation metrics of these weights, when known.
    pub valid_metrics: Option<Metrics>,
    pub(crate) cores: CoreCache,
    /// What every fold-in of this model shares (the known rows' spread, its sampled negatives).
    pub(crate) fold_in_memo: Memo,
    /// E quantised for [`TopKScan::Int8`], made on first use (or by [`Model::warm_up`]).
    int8_rows: OnceLock<Arc<Int8Rows>>,
    /// Entities appended after training ([`Model::with_entities`]), ids `params.n_ent..`: kept
    /// beside E, which stays as trained (mapped from its file when served), and shared.
    appended: Arc<AppendedEntities>,
    /// Trained entities by name, made on first lookup.
    name_index: OnceLock<Arc<NameIndex>>,
}

/// Trained entity ids by their names' hash, sorted: 12 bytes an entity, no copy of the names.
#[derive(Debug)]
struct NameIndex(Vec<(u64, u32)>);

impl NameIndex {
    fn hash(name: &str) -> u64 {
        use std::hash::{BuildHasher, BuildHasherDefault};
        BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(name)
    }

    fn new(names: &[String]) -> NameIndex {
        let mut ids: Vec<(u64, u32)> = names
            .par_iter()
            .enumerate()
            .map(|(i, name)| (Self::hash(name), i as u32))
            .collect();
        ids.par_sort_unstable();
        NameIndex(ids)
    }

    fn find(&self, names: &[String], name: &str) -> Option<u32> {
        let h = Self::hash(name);
        let first = self.0.partition_point(|&(k, _)| k < h);
        self.0[first..]
            .iter()
            .take_while(|&&(k, _)| k == h)
            .map(|&(_, i)| i)
            .find(|&i| names[i as usize] == name)
    }
}

/// Rows appended to a trained model (fold-in): names and `names.len() x d_e` values.
#[derive(Clone, Debug, Default)]
struct AppendedEntities {
    names: Vec<String>,
    rows: Vec<f32>,
}

impl Model {
    pub fn new(
        config: Config,
        params: Params<f32>,
        entities: Vec<String>,
        relations: Vec<String>,
        epoch: usize,
        valid_metrics: Option<Metrics>,
    ) -> Model {
        let cores = CoreCache::new(params.n_rel);
        Model {
            config,
            params,
            entities: Arc::new(entities),
            relations,
            epoch,
            valid_metrics,
            cores,
            fold_in_memo: Default::default(),
            int8_rows: OnceLock::new(),
            appended: Default::default(),
            name_index: OnceLock::new(),
        }
    }

    /// Computes every relation's core ahead of the first queries when they fit in
    /// `budget_bytes` (n_rel x d_e² floats: 38 MB for FB15k-237); returns whether it did. A
    /// server calls this at load so no query pays for its relation's core. From
    /// [`INT8_SCAN_MIN_ENTITIES`] entities it also quantises E for top-k (a quarter of E's
    /// bytes; under half a second at a million entities on 2 cores).
    pub fn warm_up(&self, budget_bytes: usize) -> bool {
        let (n_rel, d) = (self.params.n_rel, self.params.d_e);
        if self.validate().is_err() {
            return false;
        }
        if self.params.n_ent >= INT8_SCAN_MIN_ENTITIES {
            self.int8_rows();
            // `with_entities` looks names up in it, on the caller's thread.
            self.name_index();
        }
        if n_rel.saturating_mul(d * d * 4) > budget_bytes {
            return false;
        }
        self.cores
            .prepare(&self.params, &(0..n_rel as u32).collect::<Vec<_>>());
        true
    }

    /// A new model with entities `names` appended (ids `n..n + k`, n = [`Model::n_entities`])
    /// with embedding `rows` (`k x d_e`, row-major, e.g. from [`crate::fold_in`]). The trained
    /// tensors, their 8-bit copy and the relation cores are shared, not copied; rows appended
    /// earlier are copied (fold-in bounds them). Scoring and ranking count every entity; training,
    /// fold-in, suggestions and saving take a trained model only ([`Model::check_trained`]).
    pub fn with_entities(&self, names: Vec<String>, rows: &[f32]) -> Result<Model> {
        self.validate()?;
        let d = self.params.d_e;
        if rows.len() != names.len() * d {
            return Err(Error::arg(
                "embeddings",
                format!(
                    "has {} values, expected {} names x d_e = {d}",
                    rows.len(),
                    names.len()
                ),
            ));
        }
        if let Some(i) = rows.iter().position(|v| !v.is_finite()) {
            return Err(Error::arg(
                "embeddings",
                format!("value {i} (entity {}) is not finite", i / d.max(1)),
            ));
        }
        let mut given = std::collections::HashSet::with_capacity(names.len());
        for (i, name) in names.iter().enumerate() {
            let what = if self.entity_id(name).is_some() {
                "is already in the model"
            } else if !given.insert(name.as_str()) {
                "is given twice"
            } else {
                continue;
            };
            return Err(Error::arg("names", format!("{i}: {name:?} {what}")));
        }
        let mut appended = (*self.appended).clone();
        appended.names.extend(names);
        appended.rows.extend_from_slice(rows);
        let mut model = self.clone();
        model.appended = Arc::new(appended);
        Ok(model)
    }

    fn name_index(&self) -> &NameIndex {
        self.name_index
            .get_or_init(|| Arc::new(NameIndex::new(&self.entities)))
    }

    /// Every entity's row: E's, then the appended ones.
    pub fn entity_rows(&self) -> EntityRows<'_> {
        EntityRows::new(&self.params.e, &self.appended.rows, self.params.d_e)
    }

    /// Entities appended after training ([`Model::with_entities`]).
    pub fn n_appended(&self) -> usize {
        self.appended.names.len()
    }

    /// Errs when entities were appended after training: `what` (training, fold-in, suggestions,
    /// saving) works on the trained tensors alone and would not see them.
    pub fn check_trained(&self, what: &str) -> Result<()> {
        if self.n_appended() > 0 {
            return Err(Error::arg(
                "model",
                format!(
                    "{what} takes a trained model; this one has {} entities appended after training",
                    self.n_appended()
                ),
            ));
        }
        Ok(())
    }

    /// Entity `i`'s name, appended entities included.
    pub fn entity_name(&self, i: u32) -> Option<&str> {
        let (i, n) = (i as usize, self.entities.len());
        if i < n {
            Some(&self.entities[i])
        } else {
            self.appended.names.get(i - n).map(String::as_str)
        }
    }

    /// Forgets the cached relation cores (needed only after changing `params` in place).
    pub fn clear_cache(&mut self) {
        self.cores = CoreCache::new(self.params.n_rel);
        self.fold_in_memo = Default::default();
        self.int8_rows = OnceLock::new();
    }

    /// E quantised to 8 bits (made on first call; a quarter of E's bytes, kept beside it).
    pub fn int8_rows(&self) -> &Int8Rows {
        self.int8_rows
            .get_or_init(|| Arc::new(Int8Rows::new(&self.params.e, self.params.d_e)))
    }

    /// Every entity a query may name or be answered with: trained, then appended.
    pub fn n_entities(&self) -> usize {
        self.params.n_ent + self.n_appended()
    }
    /// Relations the model embeds (including reverses in `NewRelation` mode).
    pub fn n_model_relations(&self) -> usize {
        self.params.n_rel
    }
    /// The relation id that asks for heads of base relation `r`: score `(t, reverse(r))` to
    /// predict the missing `h` of `(?, r, t)`.
    pub fn reverse_relation(&self, r: u32) -> Result<u32> {
        if r as usize >= self.relations.len() {
            return Err(Error::arg(
                "relation",
                format!("{r} is not a base relation (< {})", self.relations.len()),
            ));
        }
        Ok(self.config.inverse_mode.reverse(r, self.relations.len()))
    }
    /// Names of the model relations (base names, then `"{name}_reverse"` in `NewRelation` mode).
    pub fn relation_name(&self, r: u32) -> Option<String> {
        let nb = self.relations.len();
        match self.config.inverse_mode {
            _ if (r as usize) < nb => Some(self.relations[r as usize].clone()),
            InverseMode::NewRelation if (r as usize) < 2 * nb => {
                Some(format!("{}_reverse", self.relations[r as usize - nb]))
            }
            _ => None,
        }
    }
    /// The id of entity `name`, appended entities included (a hash index over the trained
    /// names, made on first call and shared with the models grown from this one).
    pub fn entity_id(&self, name: &str) -> Option<u32> {
        self.name_index().find(&self.entities, name).or_else(|| {
            let at = self.appended.names.iter().position(|e| e == name)?;
            Some((self.entities.len() + at) as u32)
        })
    }
    pub fn relation_id(&self, name: &str) -> Option<u32> {
        self.relations
            .iter()
            .position(|e| e == name)
            .map(|i| i as u32)
    }

    /// Checks that tensors, dimensions and vocabularies agree (always true for loaded or trained
    /// models; guards hand-built ones, since the fields are public).
    pub fn validate(&self) -> Result<()> {
        let p = &self.params;
        let bad = |m: String| Err(Error::arg("model", m));
        if p.n_ent != self.entities.len()
            || p.n_rel
                != self
                    .config
                    .inverse_mode
                    .model_relations(self.relations.len())
        {
            return bad("entity or relation count disagrees with the vocabularies".into());
        }
        if p.d_e != self.config.d_e || p.d_r != self.config.d_r {
            return bad("tensor widths disagree with the config".into());
        }
        let lens = p.trainable_lens();
        for (i, t) in p.trainable().iter().enumerate() {
            if t.len() != lens[i] {
                return bad(format!(
                    "{} has {} values, expected {}",
                    crate::params::TRAINABLE_NAMES[i],
                    t.len(),
                    lens[i]
                ));
            }
        }
        if [
            &p.bn0.running_mean,
            &p.bn0.running_var,
            &p.bn1.running_mean,
            &p.bn1.running_var,
        ]
        .iter()
        .any(|v| v.len() != p.d_e)
        {
            return bad("BatchNorm running statistics have the wrong length".into());
        }
        Ok(())
    }

    /// Checks the model is valid and `dataset` has its vocabulary (same entities and relations,
    /// in the same order), as evaluating or resuming on it requires.
    pub fn check_vocabulary(&self, dataset: &Dataset) -> Result<()> {
        self.validate()?;
        self.check_trained("evaluating or resuming on a dataset")?;
        if *self.entities != dataset.entities || self.relations != dataset.relations {
            return Err(Error::Dataset(
                "the dataset's vocabulary differs from the model's (entities or relations)".into(),
            ));
        }
        Ok(())
    }

    fn check_query(&self, h: u32, r: u32) -> Result<()> {
        if h as usize >= self.n_entities() {
            return Err(Error::arg(
                "entity",
                format!(
                    "{h} is out of range (model has {} entities)",
                    self.n_entities()
                ),
            ));
        }
        if r as usize >= self.params.n_rel {
            return Err(Error::arg(
                "relation",
                format!(
                    "{r} is out of range (model has {} relations)",
                    self.params.n_rel
                ),
            ));
        }
        Ok(())
    }

    /// Logits of `(h, r, e)` for every entity `e` of each query, row-major `queries.len() x N`.
    pub fn scores(&self, queries: &[(u32, u32)]) -> Result<Vec<f32>> {
        let n = self.n_entities();
        let mut out = vec![0.0f32; queries.len() * n];
        self.score_chunks(queries, |start, logits| {
            out[start * n..][..logits.len()].copy_from_slice(logits)
        })?;
        Ok(out)
    }

    /// Each query's eval-mode hidden vector `x` (row-major `queries.len() x d_e`): its logit for
    /// entity `e` is `x · E[e]`, so a nearest-neighbour index over E can serve top-k.
    pub fn hidden_vectors(&self, queries: &[(u32, u32)]) -> Result<Vec<f32>> {
        let mut out = Vec::with_capacity(queries.len() * self.params.d_e);
        self.hidden_chunks(queries, |_, x| out.extend_from_slice(x))?;
        Ok(out)
    }

    /// The logit of each query against each of `rows` (entity rows not in the model, `rows.len()
    /// / d_e` of them, row-major): `queries.len() x rows`, row-major. What the entities' logits
    /// would be were they appended (`with_entities`), without copying the model: a fold-in's
    /// canary counts how many of them outrank a known answer.
    pub fn logits_against(&self, queries: &[(u32, u32)], rows: &[f32]) -> Result<Vec<f32>> {
        let d = self.params.d_e;
        if !rows.len().is_multiple_of(d) {
            return Err(Error::arg(
                "rows",
                format!("has {} values, not a multiple of d_e = {d}", rows.len()),
            ));
        }
        let (q, b) = (queries.len(), rows.len() / d);
        // The canary asks the same questions after every fold-in: their hidden vectors are kept.
        let key = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            queries.hash(&mut h);
            h.finish()
        };
        let x = self
            .fold_in_memo
            .get_or_make(("logits-against hidden vectors", key), || {
                self.hidden_vectors(queries)
            })?;
        let mut out = vec![0.0f32; q * b];
        if q > 0 && b > 0 {
            // out = x · rowsᵀ                                              (Q x B)
            crate::linalg::matmul(
                &mut out,
                crate::linalg::Op::n(x.as_slice(), q, d),
                crate::linalg::Op::t(rows, b, d),
                false,
                true,
            );
        }
        Ok(out)
    }

    /// Checks the model and every query, and computes the cores of their relations not cached
    /// yet (`prepare` skips cached relations and deduplicates the rest).
    fn prepare_queries(&self, queries: &[(u32, u32)]) -> Result<()> {
        self.validate()?;
        for &(h, r) in queries {
            self.check_query(h, r)?;
        }
        let rels: Vec<u32> = queries.iter().map(|q| q.1).collect();
        self.cores.prepare(&self.params, &rels);
        Ok(())
    }

    /// Scores `queries` in chunks of at most [`queries_per_chunk`] queries, calling
    /// `each(first query index, chunk logits)`.
    pub(crate) fn score_chunks(
        &self,
        queries: &[(u32, u32)],
        mut each: impl FnMut(usize, &[f32]),
    ) -> Result<()> {
        self.prepare_queries(queries)?;
        let (n, d, rows) = (self.n_entities(), self.params.d_e, self.entity_rows());
        let (trained, appended) = (rows.trained_len(), self.n_appended());
        let (mut buf, mut logits, mut split) = (ScoreBuffers::default(), Vec::new(), Vec::new());
        let chunk = queries_per_chunk(n);
        for (c, qs) in queries.chunks(chunk).enumerate() {
            let b = qs.len();
            let x = self.hidden_of(qs, &mut buf);
            logits.resize(b * n, 0.0);
            if appended == 0 {
                // logits = x · Eᵀ                                              (B x N)
                matmul(
                    &mut logits,
                    Op::n(x, b, d),
                    Op::t(rows.trained(), n, d),
                    false,
                    true,
                );
            } else {
                // The trained rows' logits, then the appended rows', per query  (B x N)
                split.resize(b * n, 0.0);
                let (left, right) = split.split_at_mut(b * trained);
                matmul(
                    left,
                    Op::n(x, b, d),
                    Op::t(rows.trained(), trained, d),
                    false,
                    true,
                );
                let extra = &self.appended.rows;
                matmul(
                    right,
                    Op::n(x, b, d),
                    Op::t(extra, appended, d),
                    false,
                    true,
                );
                for (i, row) in logits.chunks_mut(n).enumerate() {
                    row[..trained].copy_from_slice(&left[i * trained..][..trained]);
                    row[trained..].copy_from_slice(&right[i * appended..][..appended]);
                }
            }
            each(c * chunk, &logits);
        }
        Ok(())
    }

    /// The eval-mode hidden vectors of `queries` (B x d_e), their head rows read wherever they
    /// live (trained or appended). Ids checked and cores prepared by the caller.
    fn hidden_of<'b>(&self, queries: &[(u32, u32)], buf: &'b mut ScoreBuffers) -> &'b [f32] {
        let (d, rows) = (self.params.d_e, self.entity_rows());
        let heads = buf.heads_mut(queries.len() * d);
        for (row, &(h, _)) in heads.chunks_exact_mut(d.max(1)).zip(queries) {
            row.copy_from_slice(rows.row(h));
        }
        hidden_of_x0(
            &self.params,
            &self.cores,
            &|i| queries[i].1,
            queries.len(),
            buf,
        )
    }

    /// Entity embedding rows `E[i]` for each index, concatenated (`indices.len() x d_e`): the
    /// space in which serving finds entities like a query's head (cosine of these rows).
    pub fn entity_vectors(&self, indices: &[u32]) -> Result<Vec<f32>> {
        let (n, d, rows) = (self.n_entities(), self.params.d_e, self.entity_rows());
        if self.params.e.len() != self.params.n_ent * d {
            return Err(Error::arg(
                "model",
                "entity embeddings do not match n_ent x d_e",
            ));
        }
        let mut out = Vec::with_capacity(indices.len() * d);
        for &i in indices {
            if i as usize >= n {
                return Err(Error::arg(
                    "entity",
                    format!("{i} is out of range (model has {n} entities)"),
                ));
            }
            out.extend_from_slice(rows.row(i));
        }
        Ok(out)
    }

    /// The logit of each triple `(h, r, t)`: the score serving ranks by (its 1-N row read at `t`;
    /// from [`INT8_SCAN_MIN_ENTITIES`] entities, computed from `t`'s row alone as the 8-bit scans
    /// re-score it).
    pub fn score_triples(&self, triples: &[(u32, u32, u32)]) -> Result<Vec<f32>> {
        let n = self.n_entities();
        if let Some(&(_, _, t)) = triples.iter().find(|q| q.2 as usize >= n) {
            return Err(Error::arg(
                "entity",
                format!("{t} is out of range (model has {n} entities)"),
            ));
        }
        let queries: Vec<(u32, u32)> = triples.iter().map(|&(h, r, _)| (h, r)).collect();
        let mut out = vec![0.0f32; triples.len()];
        if self.scans_int8(TopKScan::Auto, 0) {
            // The exact score the 8-bit scans rank by, from the tail's row alone.
            let (d, rows) = (self.params.d_e, self.entity_rows());
            self.hidden_chunks(&queries, |start, x| {
                for (i, xq) in x.chunks(d).enumerate() {
                    out[start + i] = exact_score(rows.row(triples[start + i].2), xq);
                }
            })?;
            return Ok(out);
        }
        self.score_chunks(&queries, |start, logits| {
            for (i, row) in logits.chunks(n.max(1)).enumerate() {
                out[start + i] = row[triples[start + i].2 as usize];
            }
        })?;
        Ok(out)
    }

    /// The logit of `(h, r, c)` for each `c` of `candidates`, as [`Model::score_triples`] scores
    /// each, the query's hidden vector computed once: a served ranking scores the candidates its
    /// rules reach (thousands for a hub) without one hidden vector per candidate.
    pub fn logits_of(&self, h: u32, r: u32, candidates: &[u32]) -> Result<Vec<f32>> {
        let n = self.n_entities();
        if let Some(&c) = candidates.iter().find(|&&c| c as usize >= n) {
            return Err(Error::arg(
                "candidates",
                format!("{c} is out of range (model has {n} entities)"),
            ));
        }
        let mut out = vec![0.0f32; candidates.len()];
        // A few candidates: their rows alone (as the 8-bit models score every edge); many, on a
        // model that scores every entity at once: the full product, as score_triples has it.
        if self.scans_int8(TopKScan::Auto, 0) || candidates.len() * 8 < n {
            let rows = self.entity_rows();
            self.hidden_chunks(&[(h, r)], |_, x| {
                for (o, &c) in out.iter_mut().zip(candidates) {
                    *o = exact_score(rows.row(c), x);
                }
            })?;
            return Ok(out);
        }
        self.score_chunks(&[(h, r)], |_, logits| {
            for (o, &c) in out.iter_mut().zip(candidates) {
                *o = logits[c as usize];
            }
        })?;
        Ok(out)
    }

    /// The `k` highest-scoring entities for `(h, r, ?)`, best first, skipping `exclude`
    /// (typically the known tails). Ties keep the lower entity id first.
    pub fn top_k(&self, h: u32, r: u32, k: usize, exclude: &[u32]) -> Result<Vec<Prediction>> {
        Ok(self
            .top_k_batch(&[(h, r)], k, &[exclude])?
            .pop()
            .unwrap_or_default())
    }

    /// [`Model::top_k`] for several queries at once; `excludes[i]` belongs to `queries[i]`
    /// (`excludes` may be empty: nothing excluded).
    pub fn top_k_batch(
        &self,
        queries: &[(u32, u32)],
        k: usize,
        excludes: &[&[u32]],
    ) -> Result<Vec<Vec<Prediction>>> {
        self.top_k_batch_with(queries, k, excludes, TopKScan::Auto)
    }

    /// [`Model::top_k_batch`] found the way `scan` says (the same predictions whichever way,
    /// logits up to f32 rounding).
    pub fn top_k_batch_with(
        &self,
        queries: &[(u32, u32)],
        k: usize,
        excludes: &[&[u32]],
        scan: TopKScan,
    ) -> Result<Vec<Vec<Prediction>>> {
        if !excludes.is_empty() && excludes.len() != queries.len() {
            return Err(Error::arg(
                "excludes",
                format!("{} lists for {} queries", excludes.len(), queries.len()),
            ));
        }
        let n = self.n_entities();
        if self.scans_int8(scan, k) {
            return self.top_k_int8(queries, k, excludes);
        }
        let mut out = vec![Vec::new(); queries.len()];
        self.score_chunks(queries, |start, logits| {
            let rows = logits
                .par_chunks(n.max(1))
                .zip(out[start..].par_iter_mut())
                .enumerate();
            rows.for_each(|(i, (row, top))| {
                *top = top_k_row(row, k, excludes.get(start + i).copied().unwrap_or(&[]))
            });
        })?;
        Ok(out)
    }
}

impl Model {
    /// Whether `scan` (for top `k`; 0 for ranks and single scores) means the 8-bit scans: from
    /// [`INT8_SCAN_MIN_ENTITIES`] entities and `k ≤` [`INT8_SCAN_MAX_K`] when `Auto`.
    pub(crate) fn scans_int8(&self, scan: TopKScan, k: usize) -> bool {
        match scan {
            TopKScan::Auto => self.params.n_ent >= INT8_SCAN_MIN_ENTITIES && k <= INT8_SCAN_MAX_K,
            TopKScan::F32 => false,
            TopKScan::Int8 => true,
        }
    }

    /// The queries' eval-mode hidden vectors in chunks of [`QUERIES_PER_PASS`], calling
    /// `each(first query index, the chunk's vectors (chunk x d_e))`, after checking the model
    /// and every query.
    pub(crate) fn hidden_chunks(
        &self,
        queries: &[(u32, u32)],
        mut each: impl FnMut(usize, &[f32]),
    ) -> Result<()> {
        self.prepare_queries(queries)?;
        let mut buf = ScoreBuffers::default();
        for (c, qs) in queries.chunks(QUERIES_PER_PASS).enumerate() {
            each(c * QUERIES_PER_PASS, self.hidden_of(qs, &mut buf));
        }
        Ok(())
    }

    /// [`TopKScan::Int8`]: one scan of the 8-bit rows per [`QUERIES_PER_PASS`] queries.
    fn top_k_int8(
        &self,
        queries: &[(u32, u32)],
        k: usize,
        excludes: &[&[u32]],
    ) -> Result<Vec<Vec<Prediction>>> {
        if k == 0 {
            self.hidden_chunks(queries, |_, _| {})?;
            return Ok(vec![Vec::new(); queries.len()]);
        }
        let (rows, d) = (self.int8_rows(), self.params.d_e);
        let mut out = Vec::with_capacity(queries.len());
        self.hidden_chunks(queries, |first, x2| {
            let chunk = x2.len() / d.max(1);
            let ex = excludes
                .get(first..(first + chunk).min(excludes.len()))
                .unwrap_or(&[]);
            let tops = exact_top_k(rows, self.entity_rows(), x2, k, ex).top;
            out.extend(tops.into_iter().map(|top| {
                top.into_iter()
                    .map(|(entity, logit)| Prediction {
                        entity,
                        logit,
                        probability: sigmoid(logit),
                    })
                    .collect::<Vec<_>>()
            }));
        })?;
        Ok(out)
    }
}

/// Top `k` of one score row, skipping the entities in `exclude`; NaN scores are never returned.
/// Ties keep the lower entity id first.
fn top_k_row(row: &[f32], k: usize, exclude: &[u32]) -> Vec<Prediction> {
    let k = k.min(row.len());
    if k == 0 {
        return Vec::new();
    }
    let mut excluded = exclude.to_vec();
    excluded.sort_unstable();
    let banned = |e: u32| !excluded.is_empty() && excluded.binary_search(&e).is_ok();
    if k > 64 {
        return top_k_by_selection(row, k, &excluded);
    }
    // `best` stays sorted, best first; a candidate enters only if it beats the current k-th
    // (strictly: on a tie the earlier, lower id stays), so most entities cost one comparison.
    let mut best: Vec<(f32, u32)> = Vec::with_capacity(k + 1);
    for (e, &v) in row.iter().enumerate() {
        if v.is_nan() || (best.len() == k && v <= best[k - 1].0) || banned(e as u32) {
            continue;
        }
        let at = best.partition_point(|&(s, _)| s >= v);
        best.insert(at, (v, e as u32));
        best.truncate(k);
    }
    best.into_iter()
        .map(|(logit, entity)| Prediction {
            entity,
            logit,
            probability: sigmoid(logit),
        })
        .collect()
}

/// [`top_k_row`] for large `k`: select over all candidates (`excluded` sorted).
fn top_k_by_selection(row: &[f32], k: usize, excluded: &[u32]) -> Vec<Prediction> {
    let mut idx: Vec<u32> = (0..row.len() as u32)
        .filter(|e| !row[*e as usize].is_nan() && excluded.binary_search(e).is_err())
        .collect();
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
    idx.into_iter()
        .map(|e| Prediction {
            entity: e,
            logit: row[e as usize],
            probability: sigmoid(row[e as usize]),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_k_orders_and_excludes() {
        let row = [0.1f32, 3.0, -2.0, 3.0, f32::NAN, 1.0];
        let got = top_k_row(&row, 3, &[5]);
        let ids: Vec<u32> = got.iter().map(|p| p.entity).collect();
        assert_eq!(ids, vec![1, 3, 0]);
        assert!((got[0].probability - 1.0 / (1.0 + (-3.0f32).exp())).abs() < 1e-6);
        assert_eq!(top_k_row(&row, 100, &[5]).len(), 4);
        // the selection path used for large k agrees
        let long: Vec<f32> = (0..300).map(|i| ((i * 37) % 101) as f32).collect();
        let small: Vec<u32> = top_k_row(&long, 64, &[3])
            .iter()
            .map(|p| p.entity)
            .collect();
        let large: Vec<u32> = top_k_row(&long, 200, &[3])
            .iter()
            .map(|p| p.entity)
            .collect();
        assert_eq!(small[..], large[..64]);
        assert_eq!(
            top_k_row(&row, 2, &[1])
                .iter()
                .map(|p| p.entity)
                .collect::<Vec<_>>(),
            vec![3, 5]
        );
    }

    #[test]
    fn entity_vectors_are_the_embedding_rows() {
        let cfg = Config {
            d_e: 4,
            d_r: 2,
            ..Config::default()
        };
        let params = Params::<f32>::init(&cfg, 5, 2);
        let model = Model::new(
            cfg,
            params.clone(),
            (0..5).map(|i| format!("e{i}")).collect(),
            vec!["r0".into(), "r1".into()],
            0,
            None,
        );
        let rows = model.entity_vectors(&[3, 0, 3]).unwrap();
        assert_eq!(rows.len(), 12);
        assert_eq!(rows[..4], params.e[12..16]);
        assert_eq!(rows[4..8], params.e[0..4]);
        assert_eq!(rows[8..12], params.e[12..16]);
        assert!(model.entity_vectors(&[]).unwrap().is_empty());
        assert!(model.entity_vectors(&[5]).is_err());
    }
}
