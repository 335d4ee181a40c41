//! The named presets (the NePTuNe reference settings and `default`), and resolving a preset with
//! the user's overrides, sized to their graph ([`crate::graph_sizing`]).

use crate::config::{Activation, Config, InitScheme, Loss};
use crate::dataset::InverseMode;
use crate::error::{Error, Result};
use crate::graph_sizing::{size_default, EpochBudget, GraphSize, DEFAULT_MAX_EPOCHS};

/// User overrides of a preset: snake_case [`Config`] field names to JSON values.
pub type Overrides = serde_json::Map<String, serde_json::Value>;

/// Names accepted by [`Config::preset`].
pub const PRESETS: [&str; 3] = ["default", "fb15k-237", "wn18rr"];

impl Default for Config {
    fn default() -> Self {
        Config::preset("default").expect("default preset exists")
    }
}

impl Config {
    /// Reference settings by name:
    ///
    /// * `"fb15k-237"`: the NePTuNe reference FB15k-237 run (200/150, PReLU, shared reverse ids,
    ///   kaiming-uniform, lr 0.0005, dropout 0.3/0.2/0.4, 1500 epochs).
    /// * `"wn18rr"`: the reference WN18RR run (500/30, LeakyReLU, `r_reverse`, xavier-normal,
    ///   lr 0.003, dropout 0.1/0.2/0.7, 2500 epochs). Both train with the paper's BCE.
    /// * `"default"`: for users' graphs; [`Config::resolve`] sizes it to a graph (d_r,
    ///   batch size, validation interval; see [`crate::graph_sizing`]). Unsized, it is the
    ///   middle setting (d_r 30, batch 128): d_e 200, PReLU, `r_reverse` (head and tail
    ///   prediction kept apart, which matters for asymmetric relations), dropout 0.3/0.2/0.4
    ///   (the FB15k-237 reference values), lr 0.003 with decay 0.995, validation every 10
    ///   epochs with patience 5, the paper's BCE loss. Evidence: bench/quality/RESULTS.md, "Evidence for the default
    ///   preset's rules".
    pub fn preset(name: &str) -> Result<Config> {
        let base = Config {
            d_e: 200,
            d_r: 30,
            dropout_in: 0.3,
            dropout_h1: 0.2,
            dropout_h2: 0.4,
            label_smoothing: 0.1,
            loss: Loss::Bce,
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
            weight_average: 0.0,
            sampled_candidates: 0,
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
                // The paper's loss, whatever `default` takes.
                loss: Loss::Bce,
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
                loss: Loss::Bce,
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
    pub fn resolve(name: &str, size: Option<GraphSize>, overrides: &Overrides) -> Result<Config> {
        Config::resolve_within(name, size, overrides, EpochBudget::Work)
    }

    /// [`Config::resolve`] for a given epoch budget: with `EpochBudget::Epochs(n)` (the epochs
    /// that fit in a wall-clock budget), `default` schedules its learning rate and dropout for
    /// `n` epochs, and a reference preset trains at most `n` epochs; an overridden epoch count
    /// stays.
    pub fn resolve_within(
        name: &str,
        size: Option<GraphSize>,
        overrides: &Overrides,
        epoch_budget: EpochBudget,
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
        let pinned = |key: &str| overrides.contains_key(key);
        Ok(match (size, epoch_budget) {
            (Some(size), _) if name == "default" => {
                size_default(config, size, pinned, epoch_budget)
            }
            (_, EpochBudget::Epochs(epochs)) if !pinned("epochs") => Config {
                epochs: config.epochs.min(epochs.max(1)),
                ..config
            },
            _ => config,
        })
    }
}
