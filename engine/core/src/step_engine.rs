//! Where training steps run. The training loop ([`crate::train`]) owns the schedule, batches,
//! validation and checkpoints; a [`StepEngine`] runs each step's forward, loss, backward and
//! Adam update: [`CpuSteps`] here, a GPU backend (crate `neptune_gpu`) through
//! [`crate::train::Trainer::with_step_engine`]. An engine may keep the parameters elsewhere
//! between steps; [`StepEngine::sync`] makes the host copies current before they are read.

use crate::adam::Adam;
use crate::config::{Activation, Config};
use crate::error::Result;
use crate::net::{loss_and_grads, Batch, Dropouts, Objective, Workspace, PHASES};
use crate::params::{Grads, Params, N_TRAINABLE};
use rayon::ThreadPool;
use std::sync::Arc;
use std::time::Instant;

/// Runs optimisation steps of one training run.
pub trait StepEngine {
    /// One step on `batch` at learning rate `lr`: loss, gradients and an Adam update (which
    /// increments `adam.step`); returns the batch's mean loss. `params` and `adam` are the
    /// host copies: an engine that keeps its own need not update their values here.
    fn step(
        &mut self,
        params: &mut Params<f32>,
        adam: &mut Adam<f32>,
        batch: &Batch,
        lr: f64,
    ) -> Result<f64>;
    /// Makes `params` (BatchNorm running statistics included) and `adam` current.
    fn sync(&mut self, params: &mut Params<f32>, adam: &mut Adam<f32>) -> Result<()>;
    /// Seconds spent per phase so far (profiling aid).
    fn phase_seconds(&self) -> Vec<(String, f64)>;
}

/// Builds a run's engine from its config and starting parameters and optimizer state.
pub type StepEngineFactory =
    Arc<dyn Fn(&Config, &Params<f32>, &Adam<f32>) -> Result<Box<dyn StepEngine>> + Send + Sync>;

/// A CPU engine's seconds per phase ([`PHASES`], then Adam's), as `phase_seconds` reports them.
pub fn phase_table(timings: &[f64; PHASES.len()], adam_secs: f64) -> Vec<(String, f64)> {
    let mut v: Vec<(String, f64)> = PHASES
        .iter()
        .map(|s| s.to_string())
        .zip(timings.iter().copied())
        .collect();
    v.push(("adam".into(), adam_secs));
    v
}

/// The dropout probabilities of a config.
pub fn dropouts(cfg: &Config) -> Dropouts {
    Dropouts {
        input: cfg.dropout_in,
        h1: cfg.dropout_h1,
        h2: cfg.dropout_h2,
    }
}

/// Which trainable tensors Adam leaves alone: the slope unless the activation is PReLU.
pub fn frozen(cfg: &Config) -> [bool; N_TRAINABLE] {
    let mut frozen = [false; N_TRAINABLE];
    frozen[N_TRAINABLE - 1] = cfg.activation != Activation::Prelu;
    frozen
}

/// The CPU engine: the step on the trainer's rayon pool, parameters updated in place.
pub struct CpuSteps<'p> {
    pool: &'p ThreadPool,
    drop: Dropouts,
    objective: Objective,
    seed: u64,
    frozen: [bool; N_TRAINABLE],
    ws: Workspace<f32>,
    grads: Grads<f32>,
    adam_secs: f64,
}

impl<'p> CpuSteps<'p> {
    pub fn new(pool: &'p ThreadPool, cfg: &Config, params: &Params<f32>) -> Self {
        CpuSteps {
            pool,
            drop: dropouts(cfg),
            objective: Objective::of(cfg),
            seed: cfg.seed,
            frozen: frozen(cfg),
            ws: Workspace::new(),
            grads: Grads::zeros_like(params),
            adam_secs: 0.0,
        }
    }
}

impl StepEngine for CpuSteps<'_> {
    fn step(
        &mut self,
        params: &mut Params<f32>,
        adam: &mut Adam<f32>,
        batch: &Batch,
        lr: f64,
    ) -> Result<f64> {
        let step = adam.step;
        Ok(self.pool.install(|| {
            let l = loss_and_grads(
                params,
                &self.drop,
                self.objective,
                batch,
                &mut self.ws,
                &mut self.grads,
                self.seed,
                step,
            );
            let t = Instant::now();
            adam.step(params, &self.grads, lr, &self.frozen);
            self.adam_secs += t.elapsed().as_secs_f64();
            l
        }))
    }

    fn sync(&mut self, _: &mut Params<f32>, _: &mut Adam<f32>) -> Result<()> {
        Ok(())
    }

    fn phase_seconds(&self) -> Vec<(String, f64)> {
        phase_table(&self.ws.timings, self.adam_secs)
    }
}
