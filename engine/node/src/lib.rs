//! napi-rs binding of `neptune_core`. Thin by design: argument conversion, async tasks with
//! abort signals, and error mapping; every number is computed in the core crate.

mod convert;
mod evaluate_task;
mod load_task;
mod model;
mod train_task;

pub use evaluate_task::evaluate;
pub use load_task::load_model;
pub use model::NeptuneModel;
pub use train_task::train;

use napi_derive::napi;

/// The engine's version, as recorded in checkpoints.
#[napi]
pub fn engine_version() -> String {
    neptune_core::ENGINE_VERSION.to_string()
}

/// Preset names accepted in `configJson.preset`.
#[napi]
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
}

/// The full settings of a preset, as JSON (snake_case keys, the core's `Config`), with
/// `overridesJson` (a JSON object of snake_case fields) applied; with `graph`, `default` is sized
/// to that graph around the overrides.
#[napi]
pub fn preset_config(
    name: String,
    graph: Option<GraphSize>,
    overrides_json: Option<String>,
) -> napi::Result<String> {
    let overrides: neptune_core::Overrides = match overrides_json {
        Some(json) => serde_json::from_str(&json).map_err(|e| {
            convert::to_napi_error(neptune_core::Error::Config(format!("overrides: {e}")))
        })?,
        None => neptune_core::Overrides::new(),
    };
    let size = graph.map(|g| neptune_core::GraphSize {
        entities: g.entities as usize,
        relations: g.relations as usize,
        train_triples: g.train_triples as usize,
    });
    let config =
        neptune_core::Config::resolve(&name, size, &overrides).map_err(convert::to_napi_error)?;
    serde_json::to_string(&config).map_err(|e| napi::Error::from_reason(e.to_string()))
}
