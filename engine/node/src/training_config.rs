//! The core's `Config` as typed JS objects: `TrainingConfig` (every setting) and
//! `TrainingOverrides` (the settings a user changes), with the names users see.

use napi_derive::napi;
use neptune_core::{
    Activation as CoreActivation, Config, InitScheme as CoreInit, InverseMode, Loss as CoreLoss,
};
use serde_json::Value;

#[napi(string_enum = "snake_case")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    Prelu,
    LeakyRelu,
    Relu,
}

#[napi(string_enum = "snake_case")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReverseRelations {
    /// Reversed triples get their own relation ids (`r_reverse`).
    NewRelation,
    /// Reversed triples share the relation's id.
    SameRelation,
}

#[napi(string_enum = "snake_case")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Init {
    KaimingUniform,
    XavierNormal,
}

/// The training loss over all entities.
#[napi(string_enum = "snake_case")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrainingLoss {
    /// The paper's binary cross-entropy per entity (mean over B x N).
    Bce,
    /// Softmax cross-entropy over all entities (mean over the batch's examples).
    Softmax,
}

/// Every training setting (the core's `Config`).
#[napi(object)]
#[derive(Clone, Debug)]
pub struct TrainingConfig {
    /// Entity embedding width (d_e).
    pub entity_dim: u32,
    /// Relation embedding width (d_r).
    pub relation_dim: u32,
    pub dropout_in: f64,
    pub dropout_h1: f64,
    pub dropout_h2: f64,
    pub label_smoothing: f64,
    /// The training loss; absent (settings saved before it existed): bce.
    pub loss: Option<TrainingLoss>,
    pub activation: Activation,
    pub inverse_mode: ReverseRelations,
    pub init: Init,
    pub seed: f64,
    pub lr: f64,
    /// Learning-rate decay per epoch (1 = none).
    pub decay: f64,
    pub batch_size: u32,
    pub epochs: u32,
    /// Validate every this many epochs (0 = never).
    pub eval_every: u32,
    /// Validations without improvement before stopping (0 = never stop early).
    pub patience: u32,
    /// Worker threads (0 = all cores).
    pub threads: u32,
    /// Weight averaging: the share of the way the averaged weights move to the trained ones
    /// after each epoch; validation judges, and the model is, the average (0 = off).
    pub weight_average: f64,
    /// Entities each training batch is scored against besides its own tails, a shared uniform
    /// sample, the loss estimated from them (0 = every entity: exact 1-N scoring).
    pub sampled_candidates: Option<u32>,
}

/// Settings that replace a preset's; every field is optional.
#[napi(object)]
#[derive(Clone, Debug, Default)]
pub struct TrainingOverrides {
    pub entity_dim: Option<u32>,
    pub relation_dim: Option<u32>,
    pub dropout_in: Option<f64>,
    pub dropout_h1: Option<f64>,
    pub dropout_h2: Option<f64>,
    pub label_smoothing: Option<f64>,
    pub loss: Option<TrainingLoss>,
    pub activation: Option<Activation>,
    pub inverse_mode: Option<ReverseRelations>,
    pub init: Option<Init>,
    pub seed: Option<f64>,
    pub lr: Option<f64>,
    pub decay: Option<f64>,
    pub batch_size: Option<u32>,
    pub epochs: Option<u32>,
    pub eval_every: Option<u32>,
    pub patience: Option<u32>,
    pub threads: Option<u32>,
    pub weight_average: Option<f64>,
    pub sampled_candidates: Option<u32>,
}

/// The core's field names and the names JS sees, for messages that name a field.
pub const FIELD_NAMES: [(&str, &str); 20] = [
    ("d_e", "entityDim"),
    ("d_r", "relationDim"),
    ("dropout_in", "dropoutIn"),
    ("dropout_h1", "dropoutH1"),
    ("dropout_h2", "dropoutH2"),
    ("label_smoothing", "labelSmoothing"),
    ("loss", "loss"),
    ("activation", "activation"),
    ("inverse_mode", "inverseMode"),
    ("init", "init"),
    ("seed", "seed"),
    ("lr", "lr"),
    ("decay", "decay"),
    ("batch_size", "batchSize"),
    ("epochs", "epochs"),
    ("eval_every", "evalEvery"),
    ("patience", "patience"),
    ("threads", "threads"),
    ("weight_average", "weightAverage"),
    ("sampled_candidates", "sampledCandidates"),
];

/// `message` with the core's field names replaced by the names JS sees.
pub fn with_js_names(message: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    // Whole words only: `d_e` must not rewrite part of another name.
    for token in message.split_inclusive(|c: char| !(c.is_alphanumeric() || c == '_')) {
        let (word, rest) = token.split_at(
            token
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(token.len()),
        );
        let name = FIELD_NAMES
            .iter()
            .find(|(core, _)| *core == word)
            .map_or(word, |(_, js)| js);
        words.push(format!("{name}{rest}"));
    }
    words.concat()
}

impl From<CoreActivation> for Activation {
    fn from(a: CoreActivation) -> Self {
        match a {
            CoreActivation::Prelu => Activation::Prelu,
            CoreActivation::LeakyRelu => Activation::LeakyRelu,
            CoreActivation::Relu => Activation::Relu,
        }
    }
}
impl From<Activation> for CoreActivation {
    fn from(a: Activation) -> Self {
        match a {
            Activation::Prelu => CoreActivation::Prelu,
            Activation::LeakyRelu => CoreActivation::LeakyRelu,
            Activation::Relu => CoreActivation::Relu,
        }
    }
}
impl From<InverseMode> for ReverseRelations {
    fn from(m: InverseMode) -> Self {
        match m {
            InverseMode::NewRelation => ReverseRelations::NewRelation,
            InverseMode::SameRelation => ReverseRelations::SameRelation,
        }
    }
}
impl From<ReverseRelations> for InverseMode {
    fn from(m: ReverseRelations) -> Self {
        match m {
            ReverseRelations::NewRelation => InverseMode::NewRelation,
            ReverseRelations::SameRelation => InverseMode::SameRelation,
        }
    }
}
impl From<CoreLoss> for TrainingLoss {
    fn from(l: CoreLoss) -> Self {
        match l {
            CoreLoss::Bce => TrainingLoss::Bce,
            CoreLoss::Softmax => TrainingLoss::Softmax,
        }
    }
}
impl From<TrainingLoss> for CoreLoss {
    fn from(l: TrainingLoss) -> Self {
        match l {
            TrainingLoss::Bce => CoreLoss::Bce,
            TrainingLoss::Softmax => CoreLoss::Softmax,
        }
    }
}
impl From<CoreInit> for Init {
    fn from(i: CoreInit) -> Self {
        match i {
            CoreInit::KaimingUniform => Init::KaimingUniform,
            CoreInit::XavierNormal => Init::XavierNormal,
        }
    }
}
impl From<Init> for CoreInit {
    fn from(i: Init) -> Self {
        match i {
            Init::KaimingUniform => CoreInit::KaimingUniform,
            Init::XavierNormal => CoreInit::XavierNormal,
        }
    }
}

impl From<&Config> for TrainingConfig {
    fn from(c: &Config) -> Self {
        TrainingConfig {
            entity_dim: c.d_e as u32,
            relation_dim: c.d_r as u32,
            dropout_in: c.dropout_in,
            dropout_h1: c.dropout_h1,
            dropout_h2: c.dropout_h2,
            label_smoothing: c.label_smoothing,
            loss: Some(c.loss.into()),
            activation: c.activation.into(),
            inverse_mode: c.inverse_mode.into(),
            init: c.init.into(),
            seed: c.seed as f64,
            lr: c.lr,
            decay: c.decay,
            batch_size: c.batch_size as u32,
            epochs: c.epochs as u32,
            eval_every: c.eval_every as u32,
            patience: c.patience as u32,
            threads: c.threads as u32,
            weight_average: c.weight_average,
            sampled_candidates: Some(c.sampled_candidates as u32),
        }
    }
}

fn bad_seed() -> neptune_core::Error {
    neptune_core::Error::Config("seed must be a whole number below 2^53".into())
}

/// A seed from JS must be a whole number a double holds exactly.
pub fn seed_from_js(seed: f64) -> Option<u64> {
    (seed.fract() == 0.0 && (0.0..=9_007_199_254_740_991.0).contains(&seed)).then_some(seed as u64)
}

impl TrainingConfig {
    /// The core config; refused when the seed is not a whole number (the only field a JS
    /// number can hold wrongly after type conversion).
    pub fn to_core(&self) -> neptune_core::Result<Config> {
        Ok(Config {
            d_e: self.entity_dim as usize,
            d_r: self.relation_dim as usize,
            dropout_in: self.dropout_in,
            dropout_h1: self.dropout_h1,
            dropout_h2: self.dropout_h2,
            label_smoothing: self.label_smoothing,
            loss: self.loss.map_or(CoreLoss::Bce, CoreLoss::from),
            activation: self.activation.into(),
            inverse_mode: self.inverse_mode.into(),
            init: self.init.into(),
            seed: seed_from_js(self.seed).ok_or_else(bad_seed)?,
            lr: self.lr,
            decay: self.decay,
            batch_size: self.batch_size as usize,
            epochs: self.epochs as usize,
            eval_every: self.eval_every as usize,
            patience: self.patience as usize,
            threads: self.threads as usize,
            weight_average: self.weight_average,
            sampled_candidates: self.sampled_candidates.unwrap_or(0) as usize,
        })
    }
}

impl TrainingOverrides {
    /// The overrides the core's `Config::resolve` takes (core field names to JSON values).
    pub fn to_core(&self) -> neptune_core::Result<neptune_core::Overrides> {
        let mut o = neptune_core::Overrides::new();
        let mut put = |key: &str, value: Option<Value>| {
            if let Some(v) = value {
                o.insert(key.into(), v);
            }
        };
        put("d_e", self.entity_dim.map(Value::from));
        put("d_r", self.relation_dim.map(Value::from));
        put("dropout_in", self.dropout_in.map(Value::from));
        put("dropout_h1", self.dropout_h1.map(Value::from));
        put("dropout_h2", self.dropout_h2.map(Value::from));
        put("label_smoothing", self.label_smoothing.map(Value::from));
        // The core's enums serialise to the names `Config::resolve` parses.
        put(
            "loss",
            self.loss
                .and_then(|l| serde_json::to_value(CoreLoss::from(l)).ok()),
        );
        put(
            "activation",
            self.activation
                .and_then(|a| serde_json::to_value(CoreActivation::from(a)).ok()),
        );
        put(
            "inverse_mode",
            self.inverse_mode
                .and_then(|m| serde_json::to_value(InverseMode::from(m)).ok()),
        );
        put(
            "init",
            self.init
                .and_then(|i| serde_json::to_value(CoreInit::from(i)).ok()),
        );
        if let Some(seed) = self.seed {
            put(
                "seed",
                Some(Value::from(seed_from_js(seed).ok_or_else(bad_seed)?)),
            );
        }
        put("lr", self.lr.map(Value::from));
        put("decay", self.decay.map(Value::from));
        put("batch_size", self.batch_size.map(Value::from));
        put("epochs", self.epochs.map(Value::from));
        put("eval_every", self.eval_every.map(Value::from));
        put("patience", self.patience.map(Value::from));
        put("threads", self.threads.map(Value::from));
        put("weight_average", self.weight_average.map(Value::from));
        put(
            "sampled_candidates",
            self.sampled_candidates.map(Value::from),
        );
        Ok(o)
    }
}
