//! Engine failures as JS errors whose `code` property is a stable [`EngineErrorCode`] (src/model
//! maps them to the product's codes), and panics caught at the boundary: a Rust panic becomes a
//! JS error, never an aborted API process.

use crate::training_config::with_js_names;
use napi::bindgen_prelude::JsError;
use napi::Env;
use napi_derive::napi;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The `code` of every error the engine throws or rejects with.
#[napi(string_enum = "UPPER_SNAKE")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineErrorCode {
    /// A file could not be read or written.
    EngineIo,
    /// A dataset file or array is malformed.
    EngineDataset,
    /// A setting is out of range or of the wrong type.
    EngineConfig,
    /// A saved model is corrupt, truncated or does not match its manifest.
    EngineCheckpoint,
    /// An argument is out of range (an id, a length).
    EngineArgument,
    /// Training was aborted through its signal.
    EngineAborted,
    /// The training device is missing or failed (no GPU adapter, a build without the GPU
    /// backend, a lost device).
    EngineDevice,
    /// A bug in the engine (a panic, a thread pool that failed to start).
    EngineInternal,
}

impl AsRef<str> for EngineErrorCode {
    fn as_ref(&self) -> &str {
        match self {
            EngineErrorCode::EngineIo => "ENGINE_IO",
            EngineErrorCode::EngineDataset => "ENGINE_DATASET",
            EngineErrorCode::EngineConfig => "ENGINE_CONFIG",
            EngineErrorCode::EngineCheckpoint => "ENGINE_CHECKPOINT",
            EngineErrorCode::EngineArgument => "ENGINE_ARGUMENT",
            EngineErrorCode::EngineAborted => "ENGINE_ABORTED",
            EngineErrorCode::EngineDevice => "ENGINE_DEVICE",
            EngineErrorCode::EngineInternal => "ENGINE_INTERNAL",
        }
    }
}

/// A JS error with `code` set to the [`EngineErrorCode`].
pub type EngineError = napi::Error<EngineErrorCode>;
pub type EngineResult<T> = std::result::Result<T, EngineError>;

/// The core's error with its code; settings are named as JS names them.
pub fn engine_error(error: neptune_core::Error) -> EngineError {
    use neptune_core::Error;
    if let Error::Config(message) = &error {
        let message = format!("invalid config: {}", with_js_names(message));
        return napi::Error::new(EngineErrorCode::EngineConfig, message);
    }
    let code = match &error {
        Error::Io { .. } => EngineErrorCode::EngineIo,
        Error::Parse { .. } | Error::Dataset(_) => EngineErrorCode::EngineDataset,
        Error::Config(_) => EngineErrorCode::EngineConfig,
        Error::Checkpoint { .. } => EngineErrorCode::EngineCheckpoint,
        Error::Argument { .. } => EngineErrorCode::EngineArgument,
        Error::ThreadPool(_) => EngineErrorCode::EngineInternal,
        Error::Device(_) => EngineErrorCode::EngineDevice,
    };
    napi::Error::new(code, error.to_string())
}

pub fn argument_error(message: impl ToString) -> EngineError {
    napi::Error::new(EngineErrorCode::EngineArgument, message)
}

pub fn aborted() -> EngineError {
    napi::Error::new(EngineErrorCode::EngineAborted, "training was aborted")
}

/// Runs `f`, turning a panic into an `ENGINE_INTERNAL` error.
pub fn guarded<T>(f: impl FnOnce() -> EngineResult<T>) -> EngineResult<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Err(napi::Error::new(
            EngineErrorCode::EngineInternal,
            format!("engine panic: {what}"),
        ))
    })
}

/// An async task's `resolve` can only fail with napi's own statuses, so a task computes an
/// `EngineResult` and rejects here with a JS error carrying the engine's code.
pub fn reject<T>(env: Env, error: EngineError) -> napi::Result<T> {
    Err(napi::Error::from(JsError::from(error).into_unknown(env)))
}
