//! The fold-in objective of a chunk of entities and its exact gradient (head side: each
//! entity's own 1-N queries through the frozen network).

use super::candidates::{self, EntityCandidates};
use super::queries::Batch;
use crate::config::Loss;
use crate::kernels::{dot, elementwise, loss};
use crate::linalg::{matmul, Op};
use crate::model::Model;
use crate::params::BN_EPS;
use crate::scoring::{hidden_of_x0, ScoreBuffers};
use rayon::prelude::*;

/// Scratch of [`loss_and_grad`], reused across steps.
#[derive(Default)]
pub(super) struct Work {
    buf: ScoreBuffers,
    logits: Vec<f32>,
    dx: Vec<f32>,
    row_loss: Vec<f64>,
}

impl Work {
    /// The last full pass's logit gradients (queries x N).
    pub(super) fn logit_gradients(&self) -> &[f32] {
        &self.logits
    }
}

/// Each entity's loss (the mean over its queries, as training means over a batch) at `rows`
/// (entities x d_e), and its gradient into `grad` (same shape): over all entities, or over
/// each entity's `cands` (an estimate, see `candidates`).
pub(super) fn loss_and_grad(
    model: &Model,
    batch: &Batch,
    rows: &[f32],
    grad: &mut [f32],
    cands: Option<&[EntityCandidates]>,
    w: &mut Work,
) -> Vec<f64> {
    let p = &model.params;
    let (d, nq) = (p.d_e, batch.queries());
    model.cores.prepare(p, &batch.relations);
    let x0 = w.buf.heads_mut(nq * d);
    for e in 0..batch.entities() {
        for q in batch.q_off[e]..batch.q_off[e + 1] {
            x0[q * d..][..d].copy_from_slice(&rows[e * d..][..d]);
        }
    }
    let x2 = hidden_of_x0(p, &model.cores, &|q| batch.relations[q], nq, &mut w.buf);
    w.dx.resize(nq * d, 0.0);
    let losses = match cands {
        Some(cands) => candidates::loss_and_dx(model, batch, cands, x2, &mut w.dx),
        None => full_loss_and_dx(
            model,
            batch,
            x2,
            (&mut w.logits, &mut w.row_loss),
            &mut w.dx,
        ),
    };
    // dz = act'(z) ⊙ dx2, dy = a1 ⊙ dz (in place), dx1 = A_r · dy, de = Σ_q a0 ⊙ dx1.
    elementwise::act_backward(w.buf.pre_activation(), p.slope[0], &mut w.dx);
    let a1 = bn_scale(&p.bn1.gamma, &p.bn1.running_var);
    let a0 = bn_scale(&p.bn0.gamma, &p.bn0.running_var);
    for dy in w.dx[..nq * d].chunks_exact_mut(d) {
        dy.iter_mut().zip(&a1).for_each(|(y, &s)| *y *= s);
    }
    // Fewer entities than threads (one alone: the latency case): each entity's gradient is cut
    // into blocks of rows, each reading its rows of every core; every value is summed in the
    // same order either way.
    let threads = rayon::current_num_threads();
    let block = match batch.entities() < threads {
        true => d.div_ceil(threads),
        false => d,
    };
    grad.iter_mut().for_each(|g| *g = 0.0);
    let dy = &w.dx;
    grad.par_chunks_mut(d).enumerate().for_each(|(e, ge)| {
        ge.par_chunks_mut(block).enumerate().for_each(|(k, part)| {
            let rows = k * block..k * block + part.len();
            for q in batch.q_off[e]..batch.q_off[e + 1] {
                let core = model
                    .cores
                    .core(batch.relations[q])
                    .expect("relation core prepared above");
                let (core_rows, scale) = (&core[rows.start * d..rows.end * d], &a0[rows.clone()]);
                dot::add_scaled_row_dots(core_rows, &dy[q * d..][..d], scale, part);
            }
        });
    });
    losses
}

/// The exact head side: each entity's loss over all N entities and `w.dx` (queries x d_e), the
/// gradient with respect to the hidden vectors `x2`; `logits` keeps the logit gradients.
fn full_loss_and_dx(
    model: &Model,
    batch: &Batch,
    x2: &[f32],
    (logits, row_loss): (&mut Vec<f32>, &mut Vec<f64>),
    dx: &mut [f32],
) -> Vec<f64> {
    let p = &model.params;
    let (n, d, nq) = (p.n_ent, p.d_e, batch.queries());
    // logits = x2 · E^T                                                 (Q x N)
    logits.resize(nq * n, 0.0);
    matmul(logits, Op::n(x2, nq, d), Op::t(&p.e, n, d), false, true);
    // The loss replaces each entity's logits by their gradient.
    row_loss.resize(nq, 0.0);
    let eps = model.config.label_smoothing;
    let losses: Vec<f64> = (0..batch.entities())
        .map(|e| {
            let (a, b) = (batch.q_off[e], batch.q_off[e + 1]);
            let (rows, losses) = (&mut logits[a * n..b * n], &mut row_loss[a..b]);
            let tails = |i: usize| batch.targets(a + i);
            match model.config.loss {
                Loss::Bce => loss::bce_fused(rows, b - a, n, eps, tails, losses),
                Loss::Softmax => loss::softmax_fused(rows, b - a, n, eps, tails, losses),
            }
        })
        .collect();
    // dx2 = dlogits · E                                                 (Q x D)
    matmul(dx, Op::n(logits, nq, n), Op::n(&p.e, n, d), false, true);
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
