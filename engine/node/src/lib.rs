//! napi-rs binding of `neptune_core`. Thin by design: typed conversion of arguments and
//! results, async tasks with abort signals, and errors with a stable `code`; every number is
//! computed in the core crate. Every export catches panics (`catch_unwind` on synchronous
//! exports, `errors::guarded` in async tasks): a panic becomes a JS error.

mod approx_index;
mod convert;
mod device;
mod errors;
mod estimate_task;
mod evaluate_task;
mod fold_in_task;
mod load_task;
mod logits_task;
mod model;
#[cfg(feature = "test-exports")]
mod panic_check;
mod rank_task;
mod rule_walks;
mod score_task;
mod suggest_task;
mod train_task;
mod training_config;

pub use approx_index::{ApproxIndex, IndexBuildProgress};
pub use device::TrainingDevice;
pub use errors::EngineErrorCode;
pub use estimate_task::estimate_epoch;
pub use evaluate_task::evaluate;
pub use load_task::load_model;
pub use model::NeptuneModel;
pub use rule_walks::RuleWalks;
pub use train_task::train;
pub use training_config::{TrainingConfig, TrainingOverrides};

use errors::{engine_error, EngineError};
use napi_derive::napi;
use neptune_core::graph_sizing::EpochBudget;

/// Whether this build has the GPU training backend (`KGC_GPU=1 npm run setup`).
#[napi(catch_unwind)]
pub fn gpu_backend() -> bool {
    cfg!(feature = "gpu")
}

/// Preset names accepted by `presetConfig`.
#[napi(catch_unwind)]
pub fn presets() -> Vec<String> {
    neptune_core::PRESETS
        .iter()
        .map(|p| p.to_string())
        .collect()
}

/// The size of a graph, which the `default` preset scales with.
#[napi(object)]
pub struct GraphSize {
    pub entities: u32,
    /// Base relations (before reverses).
    pub relations: u32,
    pub train_triples: u32,
    /// Training queries of one epoch: unique (head, relation) pairs of train and reversed train.
    pub queries: u32,
    /// `exp` of the entropy of the queries' relation ids (reversed ones under their own ids).
    pub effective_relations: f64,
}

/// The full settings of a preset with `overrides` applied; with `graph`, `default` is sized to
/// that graph around the overrides (overridden settings stay as given, and sized settings that
/// depend on them follow). With `budgetEpochs` (the epochs that fit in a wall-clock budget, see
/// `estimateEpoch`), `default` schedules its learning rate and dropout for that many epochs and
/// a reference preset trains at most that many. Settings out of range throw `ENGINE_CONFIG`,
/// naming the setting.
#[napi(catch_unwind)]
pub fn preset_config(
    name: String,
    graph: Option<GraphSize>,
    overrides: Option<TrainingOverrides>,
    budget_epochs: Option<u32>,
) -> Result<TrainingConfig, EngineError> {
    let overrides = match overrides {
        Some(o) => o.to_core().map_err(engine_error)?,
        None => neptune_core::Overrides::new(),
    };
    let size = graph.map(|g| neptune_core::GraphSize {
        entities: g.entities as usize,
        relations: g.relations as usize,
        train_triples: g.train_triples as usize,
        queries: g.queries as usize,
        effective_relations: g.effective_relations,
    });
    let budget = match budget_epochs {
        Some(epochs) => EpochBudget::Epochs(epochs as usize),
        None => EpochBudget::Work,
    };
    let config = neptune_core::Config::resolve_within(&name, size, &overrides, budget)
        .and_then(|c| c.validate().map(|()| c))
        .map_err(engine_error)?;
    Ok(TrainingConfig::from(&config))
}
