//! Fold-in: embedding rows for entities the model has never seen, fitted with the model frozen,
//! so a version answers for entities that arrived after it was trained.
//!
//! A new entity `u`'s edges to known entities become its 1-N queries in both directions: an
//! edge `(u, r, t)` the query `(u, r) -> t`, an edge `(h, r, u)` the query
//! `(u, reverse(r)) -> h` ([`Model::reverse_relation`]); each distinct query's targets are
//! multi-hot over the model's entities. `e_u` is the only free parameter: a few Adam steps from
//! a starting row ([`starting_rows`]), on the model's own training loss (BCE with its label
//! smoothing, or softmax) in evaluation mode (no dropout, BatchNorm running statistics; W, R, E
//! and the slope fixed).
//!
//! In eval mode one query is `x2 = act(a1 ⊙ (x1 · A_r) + c1)` with `x1 = a0 ⊙ e_u + c0` (each
//! BatchNorm an affine map), logits `x2 · E^T`; so the exact gradient is
//! `de_u = Σ_q a0 ⊙ A_r · (a1 ⊙ act'(z) ⊙ (dlogits · E))`.
//!
//! A burst is cut into chunks of entities whose queries share each step's two products
//! (`x2 · E^T` and `dlogits · E`), chunks in parallel. Each entity's loss and Adam state are its
//! own, so its row does not depend on the burst it came in.

mod candidates;
mod objective;
mod queries;
mod tail_side;

pub use tail_side::{negative_queries, NegativePool, NEGATIVES};

use crate::config::Loss;
use crate::error::{Error, Result};
use crate::model::Model;
use crate::rng::{CounterRng, Stream};
use candidates::EntityCandidates;
use objective::{loss_and_grad, Work};
use queries::Batch;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tail_side::{columns, Columns, NegativeSlice};

/// One edge of a new entity `u` to an entity the model knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FoldInEdge {
    /// Base relation id.
    pub relation: u32,
    /// The other end: a model entity id.
    pub other: u32,
    /// true: the edge is `(u, relation, other)`; false: `(other, relation, u)`.
    pub outgoing: bool,
    /// The known entities answering the query this edge makes `u` an answer of (`(other,
    /// relation)` for an incoming edge, `(other, reverse(relation))` for an outgoing one) in
    /// the graph the model was trained on; 0 where unknown. Under the softmax loss `u` shares
    /// that query's target with them, as training shares a query's target among its answers.
    pub answers: u32,
}

/// How a row is fitted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FoldInSettings {
    /// Adam steps.
    pub steps: usize,
    /// Adam learning rate.
    pub lr: f64,
    /// Seeds the initial row's noise and the tail side's negative queries.
    pub seed: u64,
    /// Also fit the entity as a candidate tail of known queries (see `tail_side`).
    pub tail_side: bool,
    /// Candidates per entity between full passes (see `candidates`); 0: every step over all
    /// entities (exact). Ignored where it is not below half the entities.
    pub candidates: usize,
}

/// 15 steps at 0.03: the fewest steps within .005 of the best validation MRR of a sweep of
/// steps 10-40 x lr 0.02-0.2 on FB15k-237's validation entities (bench/freshness/RESULTS.md);
/// more steps or a higher rate fit the few edges of a new entity too closely.
impl Default for FoldInSettings {
    fn default() -> Self {
        FoldInSettings {
            steps: 15,
            lr: 0.03,
            seed: 0,
            tail_side: true,
            candidates: 0,
        }
    }
}

/// Most steps a call may ask for (a typo's million steps would hold a worker for hours).
pub const MAX_STEPS: usize = 10_000;
const ADAM_BETA1: f64 = 0.9;
const ADAM_BETA2: f64 = 0.999;
const ADAM_EPS: f64 = 1e-8;
/// Logits per chunk of queries (16 MiB): a chunk's scratch stays small while its products are
/// still large enough to run at GEMM speed.
const CHUNK_LOGITS: usize = 1 << 22;
/// An entity's starting row gets seeded noise of this share of the known rows' spread.
const INIT_NOISE: f64 = 0.1;

/// Fits one embedding row per entry of `entities` (each the entity's edges), returned
/// concatenated (`entities.len() x d_e`, row-major, in the given order). `None`: `cancel` was
/// set (checked before every step). Errors name the entity index for an entity without edges,
/// a relation that is not a base relation, or an other end out of range.
pub fn fold_in(
    model: &Model,
    entities: &[Vec<FoldInEdge>],
    settings: &FoldInSettings,
    cancel: &AtomicBool,
) -> Result<Option<Vec<f32>>> {
    fold_in_with_pool(model, entities, settings, None, cancel)
}

/// [`fold_in`] with the tail side's negatives from `pool` (the known queries of the graph the
/// model was trained on, weighted as training weighs them) instead of a uniform sample of
/// (entity, relation) pairs weighted as the entity's own queries.
pub fn fold_in_with_pool(
    model: &Model,
    entities: &[Vec<FoldInEdge>],
    settings: &FoldInSettings,
    pool: Option<&NegativePool>,
    cancel: &AtomicBool,
) -> Result<Option<Vec<f32>>> {
    check_settings(settings)?;
    model.validate()?;
    model.check_trained("fold-in")?;
    let n = model.n_entities();
    let per_chunk = (CHUNK_LOGITS / n.max(1)).max(1);
    let mut chunks = vec![Batch::new()];
    for (i, edges) in entities.iter().enumerate() {
        let mut one = Batch::new();
        one.push(model, i, edges)?;
        let last = chunks.last_mut().expect("at least one chunk");
        if last.entities() > 0 && last.queries() + one.queries() > per_chunk {
            chunks.push(one);
        } else {
            last.append(&one);
        }
    }
    let noise = initial_noise(model, settings.seed)?;
    let negatives = negatives(model, settings, pool)?;
    let rows: Vec<Result<Option<Vec<f32>>>> = chunks
        .par_iter()
        .map(|batch| fit(model, batch, &noise, &negatives, settings, cancel))
        .collect();
    let mut out = Vec::with_capacity(entities.len() * model.params.d_e);
    for r in rows {
        match r? {
            Some(r) => out.extend_from_slice(&r),
            None => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// The fold-in loss of one entity with `edges` at embedding `row` (the model's training loss
/// over its queries, plus its tail side when `settings.tail_side`) and its gradient with
/// respect to `row`: what [`fold_in`] descends.
pub fn fold_in_objective(
    model: &Model,
    edges: &[FoldInEdge],
    row: &[f32],
    settings: &FoldInSettings,
    pool: Option<&NegativePool>,
) -> Result<(f64, Vec<f32>)> {
    model.validate()?;
    model.check_trained("fold-in")?;
    let d = model.params.d_e;
    if row.len() != d {
        return Err(Error::arg(
            "row",
            format!("has {} values, expected d_e = {d}", row.len()),
        ));
    }
    let mut batch = Batch::new();
    batch.push(model, 0, edges)?;
    let mut grad = vec![0.0f32; d];
    let negatives = negatives(model, settings, pool)?;
    let positives = positives(model, &batch, settings)?;
    let sides = (&positives, &*negatives, settings.tail_side);
    let losses = objective(
        model,
        &batch,
        sides,
        NegativeSlice::all(&negatives),
        row,
        &mut grad,
        None,
        &mut Work::default(),
    );
    Ok((losses[0], grad))
}

/// The tail side's negative columns (none without the tail side): the pool's, or a uniform
/// sample kept for the seed.
fn negatives(
    model: &Model,
    s: &FoldInSettings,
    pool: Option<&NegativePool>,
) -> Result<Arc<Columns>> {
    if !s.tail_side {
        return Ok(Arc::new(Columns::default()));
    }
    if let Some(pool) = pool {
        return tail_side::pool_columns(model, pool);
    }
    // Kept per model and seed (a single-entity fold-in would otherwise spend milliseconds).
    model
        .fold_in_memo
        .get_or_make(("fold-in negatives", s.seed), || {
            columns(model, &negative_queries(model, s.seed))
        })
}

/// The tail side's positive columns of a chunk (none without the tail side).
fn positives(model: &Model, batch: &Batch, s: &FoldInSettings) -> Result<Columns> {
    match s.tail_side {
        true => columns(model, &batch.tail_queries),
        false => Ok(Columns::default()),
    }
}

/// Each entity's loss and its gradient into `grad`: the head side, then the tail side (its
/// negatives: `slice` of them).
#[allow(clippy::too_many_arguments)]
fn objective(
    model: &Model,
    batch: &Batch,
    (pos, neg, tail_side): (&Columns, &Columns, bool),
    slice: NegativeSlice,
    rows: &[f32],
    grad: &mut [f32],
    cands: Option<&[EntityCandidates]>,
    work: &mut Work,
) -> Vec<f64> {
    let mut losses = loss_and_grad(model, batch, rows, grad, cands, work);
    if tail_side {
        tail_side::add_loss_and_grad(model, batch, pos, neg, slice, rows, grad, &mut losses);
    }
    losses
}

fn check_settings(s: &FoldInSettings) -> Result<()> {
    if !(s.lr > 0.0 && s.lr.is_finite()) {
        return Err(Error::arg("lr", format!("{} must be positive", s.lr)));
    }
    if s.steps > MAX_STEPS {
        return Err(Error::arg(
            "steps",
            format!("{} exceeds the maximum of {MAX_STEPS}", s.steps),
        ));
    }
    Ok(())
}

/// The seeded noise every starting row gets (d_e): `INIT_NOISE` of the known rows' spread.
fn initial_noise(model: &Model, seed: u64) -> Result<Vec<f64>> {
    let spread = *row_spread(model)?;
    let mut rng = CounterRng::new(seed, u64::MAX, Stream::Init);
    Ok((0..model.params.d_e)
        .map(|_| INIT_NOISE * spread * rng.normal())
        .collect())
}

/// Each entity's first row, plus `noise`. Under BCE the mean row of the entities its edges
/// reach: an entity starts among its neighbours. Under softmax the mean of all known rows: a
/// neighbour's row carries its popularity as an answer (a hub such as libc6 ranks high in every
/// query of its relations), and softmax pushes a row down a known query only by its probability
/// there, so a row started among hubs stayed in the known queries' top 10s (on DebianPkg the
/// folded rows, 2.6% of the entities, took 22% of those places from the neighbours' mean and 3%
/// from the mean of all rows: bench/freshness/RESULTS.md).
fn starting_rows(model: &Model, batch: &Batch, noise: &[f64]) -> Result<Vec<f32>> {
    let d = model.params.d_e;
    let mut rows = Vec::with_capacity(batch.entities() * d);
    if model.config.loss == Loss::Softmax {
        let centre = mean_row(model)?;
        let start: Vec<f32> = centre
            .iter()
            .zip(noise)
            .map(|(m, z)| (m + z) as f32)
            .collect();
        (0..batch.entities()).for_each(|_| rows.extend_from_slice(&start));
        return Ok(rows);
    }
    for e in 0..batch.entities() {
        // Every edge is a target of one of the entity's queries: never empty.
        let others = batch.entity_targets(e);
        let mut mean = noise.to_vec();
        let k = others.len() as f64;
        for &o in &others {
            let row = &model.params.e[o as usize * d..][..d];
            mean.iter_mut()
                .zip(row)
                .for_each(|(m, &v)| *m += v as f64 / k);
        }
        rows.extend(mean.iter().map(|&m| m as f32));
    }
    Ok(rows)
}

/// The mean of the known rows (d_e), kept in the memo.
fn mean_row(model: &Model) -> Result<Arc<Vec<f64>>> {
    model.fold_in_memo.get_or_make(("fold-in mean row", 0), || {
        let (n, d, e) = (model.params.n_ent, model.params.d_e, &model.params.e);
        let mut mean = vec![0.0f64; d];
        for row in e.chunks_exact(d) {
            mean.iter_mut().zip(row).for_each(|(m, &v)| *m += v as f64);
        }
        mean.iter_mut().for_each(|m| *m /= n.max(1) as f64);
        Ok::<_, Error>(mean)
    })
}

/// The known rows' standard deviation over all their values, kept in the memo.
fn row_spread(model: &Model) -> Result<Arc<f64>> {
    model
        .fold_in_memo
        .get_or_make(("fold-in row spread", 0), || {
            let (n, d, e) = (model.params.n_ent, model.params.d_e, &model.params.e);
            let mean = mean_row(model)?;
            let var = e
                .chunks_exact(d)
                .flat_map(|row| {
                    row.iter()
                        .zip(mean.iter())
                        .map(|(&v, m)| (v as f64 - m).powi(2))
                })
                .sum::<f64>()
                / (n * d).max(1) as f64;
            Ok::<_, Error>(var.sqrt())
        })
}

/// Fits the rows of one chunk; `None` when cancelled.
fn fit(
    model: &Model,
    batch: &Batch,
    noise: &[f64],
    negatives: &Columns,
    settings: &FoldInSettings,
    cancel: &AtomicBool,
) -> Result<Option<Vec<f32>>> {
    let positives = positives(model, batch, settings)?;
    let sides = (&positives, negatives, settings.tail_side);
    let mut rows = starting_rows(model, batch, noise)?;
    let (mut grad, mut m, mut v) = (
        vec![0.0f32; rows.len()],
        vec![0.0f32; rows.len()],
        vec![0.0f32; rows.len()],
    );
    // BCE's gradient is a mean over N entities per query; Adam is scale-free except for its eps,
    // which a 1/N-scaled gradient would reach, so it sees the sum over entities.
    let scale = match model.config.loss {
        Loss::Bce => model.n_entities() as f64,
        Loss::Softmax => 1.0,
    };
    let mut work = Work::default();
    let sampled = candidates::samples(settings.candidates, model.n_entities());
    let mut cands: Option<Vec<EntityCandidates>> = None;
    for t in 1..=settings.steps {
        if cancel.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let refresh = (t - 1) % candidates::REFRESH_STEPS == 0;
        if refresh {
            cands = None;
        }
        objective(
            model,
            batch,
            sides,
            NegativeSlice::of_step(negatives, t - 1),
            &rows,
            &mut grad,
            cands.as_deref(),
            &mut work,
        );
        if sampled && refresh {
            let pass = ((t - 1) / candidates::REFRESH_STEPS) as u64;
            let grads = work.logit_gradients();
            let picked = candidates::select(
                model,
                batch,
                grads,
                settings.candidates,
                settings.seed,
                pass,
            );
            cands = Some(picked);
        }
        let (c1, c2) = (
            1.0 - ADAM_BETA1.powi(t as i32),
            1.0 - ADAM_BETA2.powi(t as i32),
        );
        for i in 0..rows.len() {
            let g = grad[i] as f64 * scale;
            let mi = ADAM_BETA1 * m[i] as f64 + (1.0 - ADAM_BETA1) * g;
            let vi = ADAM_BETA2 * v[i] as f64 + (1.0 - ADAM_BETA2) * g * g;
            (m[i], v[i]) = (mi as f32, vi as f32);
            rows[i] -= (settings.lr * (mi / c1) / ((vi / c2).sqrt() + ADAM_EPS)) as f32;
        }
    }
    Ok(Some(rows))
}
