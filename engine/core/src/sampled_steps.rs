//! Training steps past the 1-N wall: each batch is scored against its own tails and a shared
//! uniform sample of the other entities ([`crate::column_sampler`]), the loss estimated from
//! them ([`crate::kernels::sampled_loss`]), and E updated by lazy Adam on the rows the step
//! touched, caught up first for the steps they sat out (see [`Adam::catch_up_rows`]: plain
//! lazy Adam learnt FB15k-237 at about half the speed per epoch). A step then costs `B x (tails + sample)` scores and reads and writes those rows of
//! E and its moments, instead of `B x N` scores and all of E three times over: what makes an
//! epoch over a million entities affordable. With a sample of every entity it is the exact
//! step ([`crate::step_engine::CpuSteps`]), up to the order of floating-point sums.

use crate::adam::Adam;
use crate::column_sampler::{ColumnSampler, Columns};
use crate::config::{Config, Loss};
use crate::error::Result;
use crate::kernels::sampled_loss::{sampled_bce_fused, sampled_softmax_fused};
use crate::net::{
    backward_sampled_rows, finish_backward_sampled, gather_sampled, lap, score_sampled_rows,
    update_running_stats, Batch, Dropouts, Mode, Objective, Workspace,
};
use crate::params::{Grads, Params};
use crate::real::Real;
use crate::step_engine::{dropouts, frozen, phase_table, StepEngine};
use rayon::prelude::*;
use rayon::ThreadPool;
use std::time::Instant;

/// The sampled CPU engine: the step on the trainer's rayon pool, parameters updated in place.
pub struct SampledSteps<'p> {
    pool: &'p ThreadPool,
    drop: Dropouts,
    objective: Objective,
    seed: u64,
    /// Entities sampled per batch besides its tails.
    sample: usize,
    /// As the config's, with E frozen: E moves by lazy Adam instead.
    frozen: [bool; crate::params::N_TRAINABLE],
    sampler: ColumnSampler,
    ws: Workspace<f32>,
    /// Gradients of every tensor but E (E's is empty).
    grads: Grads<f32>,
    /// E's gradient at the rows a step touches (rows x d_e).
    row_grads: Vec<f32>,
    /// Per row of E, the optimizer step after which it was last updated.
    updated_at: Vec<u64>,
    /// Steps each touched row sat out since then (parallel to the step's rows).
    skipped: Vec<u64>,
    adam_secs: f64,
    /// The learning rate of the last step (what `sync` catches up with).
    last_lr: f64,
}

impl<'p> SampledSteps<'p> {
    /// An engine for a run whose optimizer has taken `adam_step` steps (every row current).
    pub fn new(pool: &'p ThreadPool, cfg: &Config, params: &Params<f32>, adam_step: u64) -> Self {
        let mut grads = Grads::zeros_like(params);
        grads.t[0] = Vec::new();
        let mut frozen = frozen(cfg);
        frozen[0] = true;
        SampledSteps {
            pool,
            drop: dropouts(cfg),
            objective: Objective::of(cfg),
            seed: cfg.seed,
            sample: cfg.sampled_candidates,
            frozen,
            sampler: ColumnSampler::new(params.n_ent),
            ws: Workspace::new(),
            grads,
            row_grads: Vec::new(),
            updated_at: vec![adam_step; params.n_ent],
            skipped: Vec::new(),
            adam_secs: 0.0,
            last_lr: cfg.lr,
        }
    }
}

/// Logits a sampled step holds at once (16 MiB of f32). A batch whose columns pass it (a hub's
/// tens of thousands of tails: DebianPkg's largest query has 60,587) is scored, its loss taken
/// and its products differentiated in slices of queries, instead of holding B x M logits.
pub const SAMPLED_STEP_LOGITS: usize = 4 << 20;

/// One sampled step's loss and gradients over its drawn columns `cols` (forward, fused sampled
/// loss, backward, and the BatchNorm running statistics): every gradient but E's into `g`, E's
/// at the rows `cols.rows` into `row_grads` (`cols.rows.len() x D`).
#[allow(clippy::too_many_arguments)]
pub fn sampled_loss_and_grads<T: Real>(
    params: &mut Params<T>,
    drop: &Dropouts,
    objective: Objective,
    cols: &Columns,
    ws: &mut Workspace<T>,
    g: &mut Grads<T>,
    row_grads: &mut Vec<T>,
    seed: u64,
    step: u64,
) -> f64 {
    sampled_loss_and_grads_within(
        SAMPLED_STEP_LOGITS,
        params,
        drop,
        objective,
        cols,
        ws,
        g,
        row_grads,
        seed,
        step,
    )
}

/// [`sampled_loss_and_grads`] holding at most `max_logits` logits (at least one query's row)
/// at once: the batch's queries in slices. The fused losses scale by the rows they are given,
/// so each slice's gradient and loss are rescaled to the batch's mean; one slice is the
/// unsliced step bit for bit.
#[allow(clippy::too_many_arguments)]
pub fn sampled_loss_and_grads_within<T: Real>(
    max_logits: usize,
    params: &mut Params<T>,
    drop: &Dropouts,
    objective: Objective,
    cols: &Columns,
    ws: &mut Workspace<T>,
    g: &mut Grads<T>,
    row_grads: &mut Vec<T>,
    seed: u64,
    step: u64,
) -> f64 {
    let local = &cols.batch;
    let (b, d, m) = (local.len(), params.d_e, cols.ids.len());
    let slice = (max_logits / m.max(1)).clamp(1, b.max(1));
    gather_sampled(
        params,
        drop,
        local,
        &cols.ids,
        ws,
        Mode::Train { seed, step },
    );
    update_running_stats(params, ws, b);
    crate::net::ensure(&mut ws.row_loss, b);
    crate::net::ensure(&mut ws.dx2, b * d);
    crate::net::ensure(row_grads, cols.rows.len() * d);
    let fused = match objective.loss {
        Loss::Bce => sampled_bce_fused,
        Loss::Softmax => sampled_softmax_fused,
    };
    let mut loss = 0.0;
    for start in (0..b).step_by(slice) {
        let rows = start..(start + slice).min(b);
        let s = rows.len();
        score_sampled_rows(ws, rows.clone(), m, d);
        let mut t = Instant::now();
        let l = fused(
            &mut ws.logits,
            s,
            cols.shape(),
            objective.eps,
            move |i| local.tails_of(start + i),
            &mut ws.row_loss[rows.clone()],
        );
        if s == b {
            loss = l;
        } else {
            let share = s as f64 / b as f64;
            let k = T::from_f64(share);
            ws.logits[..s * m].par_iter_mut().for_each(|v| *v *= k);
            loss += l * share;
        }
        lap(&mut ws.timings, 6, &mut t);
        backward_sampled_rows(ws, rows, m, d, row_grads, start > 0);
    }
    finish_backward_sampled(
        params,
        drop,
        local,
        &cols.ids,
        &cols.head_rows,
        cols.rows.len(),
        ws,
        g,
        row_grads,
        seed,
        step,
    );
    loss
}

impl StepEngine for SampledSteps<'_> {
    fn step(
        &mut self,
        params: &mut Params<f32>,
        adam: &mut Adam<f32>,
        batch: &Batch,
        lr: f64,
    ) -> Result<f64> {
        let step = adam.step;
        self.last_lr = lr;
        let (seed, drop, objective) = (self.seed, self.drop, self.objective);
        let cols = self.sampler.draw(batch, self.sample, seed, step);
        let (ws, grads, row_grads) = (&mut self.ws, &mut self.grads, &mut self.row_grads);
        let (frozen, updated_at, skipped) = (&self.frozen, &mut self.updated_at, &mut self.skipped);
        skipped.clear();
        skipped.extend(cols.rows.iter().map(|&r| step - updated_at[r as usize]));
        let mut adam_secs = 0.0;
        let l = self.pool.install(|| {
            let t = Instant::now();
            adam.catch_up_rows(0, &mut params.e, params.d_e, &cols.rows, skipped, lr);
            adam_secs += t.elapsed().as_secs_f64();
            let l = sampled_loss_and_grads(
                params, &drop, objective, cols, ws, grads, row_grads, seed, step,
            );
            let t = Instant::now();
            adam.step(params, grads, lr, frozen);
            adam.update_rows(0, &mut params.e, params.d_e, &cols.rows, row_grads, lr);
            adam_secs += t.elapsed().as_secs_f64();
            l
        });
        for &r in &cols.rows {
            updated_at[r as usize] = adam.step;
        }
        self.adam_secs += adam_secs;
        Ok(l)
    }

    /// Catches up every row that sat out steps, so the parameters are those of dense Adam
    /// (up to the closed form); the learning rate of those steps is the last one's.
    fn sync(&mut self, params: &mut Params<f32>, adam: &mut Adam<f32>) -> Result<()> {
        let now = adam.step;
        let rows: Vec<u32> = (0..params.n_ent as u32)
            .filter(|&r| self.updated_at[r as usize] < now)
            .collect();
        let skipped: Vec<u64> = rows
            .iter()
            .map(|&r| now - self.updated_at[r as usize])
            .collect();
        let d = params.d_e;
        self.pool
            .install(|| adam.catch_up_rows(0, &mut params.e, d, &rows, &skipped, self.last_lr));
        for &r in &rows {
            self.updated_at[r as usize] = now;
        }
        Ok(())
    }

    fn phase_seconds(&self) -> Vec<(String, f64)> {
        phase_table(&self.ws.timings, self.adam_secs)
    }
}
