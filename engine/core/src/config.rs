//! Every training setting, with the reference presets.

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

/// User overrides of a preset: snake_case [`Config`] field names to JSON values.
pub type Overrides = serde_json::Map<String, serde_json::Value>;

/// The most epochs the `default` preset trains (early stopping usually ends it sooner).
pub const DEFAULT_MAX_EPOCHS: usize = 500;

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
    /// Label smoothing: target `y' = (1 - eps) * y + 1 / N`.
    pub label_smoothing: f64,
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
}

impl Default for Config {
    fn default() -> Self {
        Config::preset("default").expect("default preset exists")
    }
}

/// Names accepted by [`Config::preset`].
pub const PRESETS: [&str; 3] = ["default", "fb15k-237", "wn18rr"];

impl Config {
    /// Reference settings by name:
    ///
    /// * `"fb15k-237"`: the NePTuNe reference FB15k-237 run (200/150, PReLU, shared reverse ids,
    ///   kaiming-uniform, lr 0.0005, dropout 0.3/0.2/0.4, 1500 epochs).
    /// * `"wn18rr"`: the reference WN18RR run (500/30, LeakyReLU, `r_reverse`, xavier-normal,
    ///   lr 0.003, dropout 0.1/0.2/0.7, 2500 epochs).
    /// * `"default"`: for users' graphs; [`Config::resolve`] sizes it to a graph (d_r,
    ///   batch size, validation interval; see [`crate::graph_sizing`]). Unsized, it is the
    ///   middle setting (d_r 30, batch 128). d_e 200; PReLU, better than LeakyReLU on UMLS in
    ///   every same-seed pair (test MRR .942/.940 against .925/.925 at d_r 10; .928/.918/.925
    ///   against .926/.910/.900 at d_r 30); `r_reverse` keeps head and tail prediction apart,
    ///   which matters for asymmetric relations (better on UMLS and Kinship; sizing switches to
    ///   `same_relation` on graphs with few triples per relation, like Nations); dropout
    ///   0.3/0.2/0.4, the FB15k-237 reference values, better than
    ///   0.2/0.2/0.3 in 4 of 5 paired runs on the small graphs (they overfit fast); lr 0.003 with
    ///   decay 0.995 converges within 70-300 epochs there; validation with patience 5 stops once
    ///   MRR plateaus. Evidence: bench/quality/RESULTS.md.
    pub fn preset(name: &str) -> Result<Config> {
        let base = Config {
            d_e: 200,
            d_r: 30,
            dropout_in: 0.3,
            dropout_h1: 0.2,
            dropout_h2: 0.4,
            label_smoothing: 0.1,
            activation: Activation::Prelu,
            inverse_mode: InverseMode::NewRelation,
            init: InitScheme::XavierNormal,
            seed: 20_210_101,
            lr: 0.003,
            decay: 0.995,
            batch_size: 128,
            epochs: DEFAULT_MAX_EPOCHS,
            eval_every: 10,
            patience: 5,
            threads: 0,
        };
        match name {
            "default" => Ok(base),
            "fb15k-237" => Ok(Config {
                d_e: 200,
                d_r: 150,
                dropout_in: 0.3,
                dropout_h1: 0.2,
                dropout_h2: 0.4,
                activation: Activation::Prelu,
                inverse_mode: InverseMode::SameRelation,
                init: InitScheme::KaimingUniform,
                lr: 0.0005,
                decay: 1.0,
                epochs: 1500,
                patience: 0,
                ..base
            }),
            "wn18rr" => Ok(Config {
                d_e: 500,
                d_r: 30,
                dropout_in: 0.1,
                dropout_h1: 0.2,
                dropout_h2: 0.7,
                activation: Activation::LeakyRelu,
                inverse_mode: InverseMode::NewRelation,
                init: InitScheme::XavierNormal,
                lr: 0.003,
                decay: 1.0,
                epochs: 2500,
                patience: 0,
                ..base
            }),
            other => Err(Error::Config(format!(
                "unknown preset `{other}`; expected one of {PRESETS:?}"
            ))),
        }
    }

    /// The preset `name` with the user's `overrides` (snake_case field -> JSON value) applied;
    /// with `size`, `default` is then sized to the graph around them: overridden fields stay as
    /// given, and sized fields that depend on them follow (the lr follows an overridden batch
    /// size, the lr decay an overridden epoch count). Unknown fields and values of the wrong
    /// type are refused, naming the field; ranges are checked by [`Config::validate`].
    pub fn resolve(
        name: &str,
        size: Option<crate::GraphSize>,
        overrides: &Overrides,
    ) -> Result<Config> {
        let mut value = serde_json::to_value(Config::preset(name)?)
            .map_err(|e| Error::Config(e.to_string()))?;
        for (key, given) in overrides {
            let mut one = value.clone();
            match one.get_mut(key) {
                Some(field) => *field = given.clone(),
                None => return Err(Error::Config(format!("unknown setting `{key}`"))),
            }
            // Field by field, so a type error names its field.
            serde_json::from_value::<Config>(one.clone())
                .map_err(|e| Error::Config(format!("setting `{key}` = {given}: {e}")))?;
            value = one;
        }
        let config: Config =
            serde_json::from_value(value).map_err(|e| Error::Config(e.to_string()))?;
        Ok(match size {
            Some(size) if name == "default" => {
                crate::graph_sizing::size_default(config, size, |key| overrides.contains_key(key))
            }
            _ => config,
        })
    }

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
        if self.batch_size < 2 {
            return bad("batch_size must be at least 2 (BatchNorm needs two examples)".into());
        }
        Ok(())
    }
}
