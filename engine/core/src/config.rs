//! Every training setting (the presets that fill them in are in `crate::presets`).

use crate::dataset::InverseMode;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// The nonlinearity after hidden dropout 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Activation {
    /// One learnable slope for negative inputs, initialised to 0.25 (FB15k-237 setting).
    Prelu,
    /// Fixed slope 0.01 (WN18RR setting).
    LeakyRelu,
    /// The paper's text.
    Relu,
}

/// Parameter initialisation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InitScheme {
    /// E, R kaiming-uniform `U(±sqrt(6 / fan_in))` with fan_in = embedding width; W `U(±0.01)`.
    KaimingUniform,
    /// E, R xavier-normal `N(0, 2 / (rows + cols))`; W `U(±0.5)`.
    XavierNormal,
}

impl InitScheme {
    /// Half-width of the uniform init of the core tensor W.
    pub fn w_bound(self) -> f64 {
        match self {
            InitScheme::KaimingUniform => 0.01,
            InitScheme::XavierNormal => 0.5,
        }
    }
}

/// The training loss over all entities (both from the logits, fused with their gradients in
/// `crate::kernels::loss`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Loss {
    /// The paper's binary cross-entropy per entity, target `(1 - eps) * y + 1 / N`, mean over
    /// `B x N`. Settings saved before the loss was a setting read as this.
    #[default]
    Bce,
    /// Softmax cross-entropy over all entities, target `(1 - eps) * y / |T| + eps / N`, mean
    /// over the batch's examples.
    Softmax,
}

/// Model shape, regularisation and optimisation settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// Entity embedding width.
    pub d_e: usize,
    /// Relation embedding width.
    pub d_r: usize,
    /// Dropout on BN0(E[h]) and on the whole entity matrix used for scoring.
    pub dropout_in: f64,
    /// Dropout on each example's core matrix `R[r] · W` (d_e x d_e).
    pub dropout_h1: f64,
    /// Dropout after BN1.
    pub dropout_h2: f64,
    /// Label smoothing eps: BCE's target `y' = (1 - eps) * y + 1 / N`; softmax's
    /// `(1 - eps) * y / |T| + eps / N`.
    pub label_smoothing: f64,
    /// The training loss (absent in settings saved before it existed: BCE).
    #[serde(default)]
    pub loss: Loss,
    pub activation: Activation,
    pub inverse_mode: InverseMode,
    pub init: InitScheme,
    pub seed: u64,
    /// Adam learning rate.
    pub lr: f64,
    /// Exponential learning-rate decay applied after every epoch (1.0 = none).
    pub decay: f64,
    pub batch_size: usize,
    pub epochs: usize,
    /// Validate every this many epochs (0 = never; then the last epoch's model is kept).
    pub eval_every: usize,
    /// Stop after this many validations without a better validation MRR (0 = never stop early).
    pub patience: usize,
    /// Worker threads (0 = all available cores).
    pub threads: usize,
    /// Weight averaging: after every epoch the averaged weights move this share of the way to
    /// the trained ones, and validation judges (and the kept model is) the average. 0 = off:
    /// the trained weights themselves.
    #[serde(default)]
    pub weight_average: f64,
    /// Entities each training batch is scored against besides its own tails, drawn uniformly
    /// and shared by the batch, the loss estimated from them (`crate::sampled_steps`). 0 = every
    /// entity (exact 1-N scoring, the paper's; absent in settings saved before it existed).
    #[serde(default)]
    pub sampled_candidates: usize,
}

impl Config {
    /// Rejects settings the engine cannot train with.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::Config(m));
        if self.d_e == 0 || self.d_r == 0 {
            return bad("d_e and d_r must be positive".into());
        }
        if self.d_e > 4096 || self.d_r > 4096 {
            return bad("d_e and d_r must be at most 4096".into());
        }
        if self.d_r.saturating_mul(self.d_e).saturating_mul(self.d_e) > 1 << 30 {
            return bad(format!(
                "d_r * d_e² = {} * {}² exceeds 2^30 core-tensor entries",
                self.d_r, self.d_e
            ));
        }
        for (n, p) in [
            ("dropout_in", self.dropout_in),
            ("dropout_h1", self.dropout_h1),
            ("dropout_h2", self.dropout_h2),
        ] {
            if !(0.0..1.0).contains(&p) {
                return bad(format!("{n} = {p} must be in [0, 1)"));
            }
        }
        if !(0.0..=1.0).contains(&self.label_smoothing) {
            return bad(format!(
                "label_smoothing = {} must be in [0, 1]",
                self.label_smoothing
            ));
        }
        if !(self.lr > 0.0 && self.lr.is_finite()) {
            return bad(format!("lr = {} must be positive", self.lr));
        }
        if !(self.decay > 0.0 && self.decay <= 1.0) {
            return bad(format!("decay = {} must be in (0, 1]", self.decay));
        }
        if !(0.0..=1.0).contains(&self.weight_average) {
            return bad(format!(
                "weight_average = {} must be in [0, 1]",
                self.weight_average
            ));
        }
        if self.batch_size < 2 {
            return bad("batch_size must be at least 2 (BatchNorm needs two examples)".into());
        }
        Ok(())
    }
}
