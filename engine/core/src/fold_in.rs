//! Fold-in: embedding rows for entities the model has never seen, fitted with the model frozen,
//! so a version answers for entities that arrived after it was trained.
//!
//! A new entity `u`'s edges to known entities become its 1-N queries in both directions: an
//! edge `(u, r, t)` the query `(u, r) -> t`, an edge `(h, r, u)` the query
//! `(u, reverse(r)) -> h` ([`Model::reverse_relation`]); each distinct query's targets are
//! multi-hot over the model's entities. `e_u` is the only free parameter: a few dozen Adam steps
//! on the model's own training loss (BCE with its label smoothing, or softmax) in evaluation mode
//! (no dropout, BatchNorm running statistics; W, R, E and the slope fixed).
//!
//! In eval mode one query is `x2 = act(a1 ⊙ (x1 · A_r) + c1)` with `x1 = a0 ⊙ e_u + c0` (each
//! BatchNorm an affine map), logits `x2 · E^T`; so the exact gradient is
//! `de_u = Σ_q a0 ⊙ A_r · (a1 ⊙ act'(z) ⊙ (dlogits · E))`.
//!
//! A burst is cut into chunks of entities whose queries share each step's two products
//! (`x2 · E^T` and `dlogits · E`), chunks in parallel. Each entity's loss and Adam state are its
//! own, so its row does not depend on the burst it came in.

use crate::config::Loss;
use crate::error::{Error, Result};
use crate::kernels::{elementwise, loss};
use crate::linalg::{matmul, Op};
use crate::model::Model;
use crate::params::BN_EPS;
use crate::rng::{CounterRng, Stream};
use crate::scoring::{hidden_of_x0, ScoreBuffers};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// One edge of a new entity `u` to an entity the model knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FoldInEdge {
    /// Base relation id.
    pub relation: u32,
    /// The other end: a model entity id.
    pub other: u32,
    /// true: the edge is `(u, relation, other)`; false: `(other, relation, u)`.
    pub outgoing: bool,
}

/// How a row is fitted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FoldInSettings {
    /// Adam steps.
    pub steps: usize,
    /// Adam learning rate.
    pub lr: f64,
    /// Seeds the initial row's noise.
    pub seed: u64,
}

impl Default for FoldInSettings {
    fn default() -> Self {
        FoldInSettings {
            steps: 40,
            lr: 0.05,
            seed: 0,
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
/// The initial row is the mean known row plus noise of this share of the rows' spread.
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
    check_settings(settings)?;
    model.validate()?;
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
    let init = initial_row(model, settings.seed);
    let rows: Vec<Option<Vec<f32>>> = chunks
        .par_iter()
        .map(|batch| fit(model, batch, &init, settings, cancel))
        .collect();
    let mut out = Vec::with_capacity(entities.len() * model.params.d_e);
    for r in rows {
        match r {
            Some(r) => out.extend_from_slice(&r),
            None => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// The fold-in loss of one entity with `edges` at embedding `row` (the model's training loss
/// over its queries) and its gradient with respect to `row`: what [`fold_in`] descends.
pub fn fold_in_objective(
    model: &Model,
    edges: &[FoldInEdge],
    row: &[f32],
) -> Result<(f64, Vec<f32>)> {
    model.validate()?;
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
    let losses = loss_and_grad(model, &batch, row, &mut grad, &mut Work::default());
    Ok((losses[0], grad))
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

/// Entities' queries, flattened: entity `e` owns queries `q_off[e]..q_off[e + 1]`; query `q`
/// asks `(e, relations[q])` and is answered by `targets[t_off[q]..t_off[q + 1]]`.
struct Batch {
    q_off: Vec<usize>,
    relations: Vec<u32>,
    t_off: Vec<usize>,
    targets: Vec<u32>,
}

impl Batch {
    fn new() -> Batch {
        Batch {
            q_off: vec![0],
            relations: Vec::new(),
            t_off: vec![0],
            targets: Vec::new(),
        }
    }

    /// Adds entity `index` (named in errors) with its `edges`.
    fn push(&mut self, model: &Model, index: usize, edges: &[FoldInEdge]) -> Result<()> {
        if edges.is_empty() {
            return Err(Error::arg(
                "entities",
                format!("entity {index} has no edges (fold-in needs at least one edge to an entity the model knows)"),
            ));
        }
        let (n, nb) = (model.n_entities(), model.relations.len());
        let mut pairs = Vec::with_capacity(edges.len());
        for (j, e) in edges.iter().enumerate() {
            if e.other as usize >= n {
                return Err(Error::arg(
                    "entities",
                    format!(
                        "entity {index}, edge {j}: other end {} is out of range (model has {n} entities)",
                        e.other
                    ),
                ));
            }
            if e.relation as usize >= nb {
                return Err(Error::arg(
                    "entities",
                    format!(
                        "entity {index}, edge {j}: relation {} is not a base relation (model has {nb})",
                        e.relation
                    ),
                ));
            }
            let r = if e.outgoing {
                e.relation
            } else {
                model.reverse_relation(e.relation)?
            };
            pairs.push((r, e.other));
        }
        pairs.sort_unstable();
        pairs.dedup();
        for run in pairs.chunk_by(|a, b| a.0 == b.0) {
            self.relations.push(run[0].0);
            self.targets.extend(run.iter().map(|p| p.1));
            self.t_off.push(self.targets.len());
        }
        self.q_off.push(self.relations.len());
        Ok(())
    }

    fn append(&mut self, other: &Batch) {
        let (q0, t0) = (self.relations.len(), self.targets.len());
        self.q_off.extend(other.q_off[1..].iter().map(|o| o + q0));
        self.t_off.extend(other.t_off[1..].iter().map(|o| o + t0));
        self.relations.extend_from_slice(&other.relations);
        self.targets.extend_from_slice(&other.targets);
    }

    fn entities(&self) -> usize {
        self.q_off.len() - 1
    }
    fn queries(&self) -> usize {
        self.relations.len()
    }
    fn targets(&self, q: usize) -> &[u32] {
        &self.targets[self.t_off[q]..self.t_off[q + 1]]
    }
}

/// The mean known row plus seeded noise (`INIT_NOISE` of the rows' spread).
fn initial_row(model: &Model, seed: u64) -> Vec<f32> {
    let (n, d, e) = (model.params.n_ent, model.params.d_e, &model.params.e);
    let mut mean = vec![0.0f64; d];
    for row in e.chunks_exact(d) {
        mean.iter_mut().zip(row).for_each(|(m, &v)| *m += v as f64);
    }
    mean.iter_mut().for_each(|m| *m /= n.max(1) as f64);
    let var = e
        .chunks_exact(d)
        .flat_map(|row| row.iter().zip(&mean).map(|(&v, m)| (v as f64 - m).powi(2)))
        .sum::<f64>()
        / (n * d).max(1) as f64;
    let mut rng = CounterRng::new(seed, u64::MAX, Stream::Init);
    mean.iter()
        .map(|m| (m + INIT_NOISE * var.sqrt() * rng.normal()) as f32)
        .collect()
}

/// Fits the rows of one chunk; `None` when cancelled.
fn fit(
    model: &Model,
    batch: &Batch,
    init: &[f32],
    settings: &FoldInSettings,
    cancel: &AtomicBool,
) -> Option<Vec<f32>> {
    let d = model.params.d_e;
    let mut rows: Vec<f32> = init
        .iter()
        .copied()
        .cycle()
        .take(batch.entities() * d)
        .collect();
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
    for t in 1..=settings.steps {
        if cancel.load(Ordering::Relaxed) {
            return None;
        }
        loss_and_grad(model, batch, &rows, &mut grad, &mut work);
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
    Some(rows)
}

/// Scratch of [`loss_and_grad`], reused across steps.
#[derive(Default)]
struct Work {
    buf: ScoreBuffers,
    logits: Vec<f32>,
    dx: Vec<f32>,
    row_loss: Vec<f64>,
}

/// Each entity's loss (the mean over its queries, as training means over a batch) at `rows`
/// (entities x d_e), and its gradient into `grad` (same shape).
fn loss_and_grad(
    model: &Model,
    batch: &Batch,
    rows: &[f32],
    grad: &mut [f32],
    w: &mut Work,
) -> Vec<f64> {
    let p = &model.params;
    let (n, d, nq) = (p.n_ent, p.d_e, batch.queries());
    model.cores.prepare(p, &batch.relations);
    let x0 = w.buf.heads_mut(nq * d);
    for e in 0..batch.entities() {
        for q in batch.q_off[e]..batch.q_off[e + 1] {
            x0[q * d..][..d].copy_from_slice(&rows[e * d..][..d]);
        }
    }
    let x2 = hidden_of_x0(p, &model.cores, &|q| batch.relations[q], nq, &mut w.buf);
    // logits = x2 · E^T                                                 (Q x N)
    w.logits.resize(nq * n, 0.0);
    matmul(
        &mut w.logits,
        Op::n(x2, nq, d),
        Op::t(&p.e, n, d),
        false,
        true,
    );
    // The loss replaces each entity's logits by their gradient.
    w.row_loss.resize(nq, 0.0);
    let eps = model.config.label_smoothing;
    let losses: Vec<f64> = (0..batch.entities())
        .map(|e| {
            let (a, b) = (batch.q_off[e], batch.q_off[e + 1]);
            let (logits, row_loss) = (&mut w.logits[a * n..b * n], &mut w.row_loss[a..b]);
            let tails = |i: usize| batch.targets(a + i);
            match model.config.loss {
                Loss::Bce => loss::bce_fused(logits, b - a, n, eps, tails, row_loss),
                Loss::Softmax => loss::softmax_fused(logits, b - a, n, eps, tails, row_loss),
            }
        })
        .collect();
    // dx2 = dlogits · E                                                 (Q x D)
    w.dx.resize(nq * d, 0.0);
    matmul(
        &mut w.dx,
        Op::n(&w.logits, nq, n),
        Op::n(&p.e, n, d),
        false,
        true,
    );
    // dz = act'(z) ⊙ dx2, dy = a1 ⊙ dz, dx1 = A_r · dy, de = Σ_q a0 ⊙ dx1.
    elementwise::act_backward(w.buf.pre_activation(), p.slope[0], &mut w.dx);
    let a1 = bn_scale(&p.bn1.gamma, &p.bn1.running_var);
    let a0 = bn_scale(&p.bn0.gamma, &p.bn0.running_var);
    grad.iter_mut().for_each(|g| *g = 0.0);
    grad.par_chunks_mut(d).enumerate().for_each(|(e, ge)| {
        let mut dy = vec![0.0f32; d];
        for q in batch.q_off[e]..batch.q_off[e + 1] {
            let core = model
                .cores
                .core(batch.relations[q])
                .expect("relation core prepared above");
            dy.iter_mut()
                .zip(&w.dx[q * d..][..d])
                .zip(&a1)
                .for_each(|((y, &g), &s)| *y = g * s);
            for (i, gi) in ge.iter_mut().enumerate() {
                let dot: f32 = core[i * d..][..d].iter().zip(&dy).map(|(a, b)| a * b).sum();
                *gi += a0[i] * dot;
            }
        }
    });
    losses
}

/// A BatchNorm's eval-mode slope `gamma / sqrt(running_var + eps)`, as `forward_eval` computes it.
fn bn_scale(gamma: &[f32], running_var: &[f32]) -> Vec<f32> {
    gamma
        .iter()
        .zip(running_var)
        .map(|(&g, &v)| g * (1.0 / (v + BN_EPS as f32).sqrt()))
        .collect()
}
