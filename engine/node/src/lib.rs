//! napi-rs binding of `neptune_core`. Thin by design: argument conversion, async tasks with
//! abort signals, and error mapping; every number is computed in the core crate.

mod convert;
mod evaluate_task;
mod model;
mod train_task;

pub use evaluate_task::evaluate;
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
    neptune_core::PRESETS.iter().map(|p| p.to_string()).collect()
}

/// The full settings of a preset, as JSON (snake_case keys, the core's `Config`).
#[napi]
pub fn preset_config(name: String) -> napi::Result<String> {
    let config = neptune_core::Config::preset(&name).map_err(convert::to_napi_error)?;
    serde_json::to_string(&config).map_err(|e| napi::Error::from_reason(e.to_string()))
}
