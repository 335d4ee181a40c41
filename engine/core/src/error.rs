//! The engine's error type. Every fallible public function returns [`Result`]; bad input never
//! panics (the Node binding relies on that).

use std::path::PathBuf;

/// Everything that can go wrong in the engine, with enough context to act on.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An I/O failure on a named file.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A malformed line in a triple file (1-based line number).
    #[error("{path}:{line}: {message}")]
    Parse {
        path: PathBuf,
        line: usize,
        message: String,
    },
    /// Invalid dataset content (ids out of range, empty training split, ...).
    #[error("invalid dataset: {0}")]
    Dataset(String),
    /// A setting out of range or inconsistent with another.
    #[error("invalid config: {0}")]
    Config(String),
    /// A checkpoint that is corrupt, truncated, or does not match its manifest.
    #[error("checkpoint {path}: {message}")]
    Checkpoint { path: PathBuf, message: String },
    /// A bad argument to a query function (entity or relation id out of range, ...).
    #[error("invalid argument `{arg}`: {message}")]
    Argument { arg: &'static str, message: String },
    /// The training device failed (no adapter, device lost, a failed readback).
    #[error("device: {0}")]
    Device(String),
    /// The thread pool could not be built.
    #[error("thread pool: {0}")]
    ThreadPool(String),
}

/// Shorthand used across the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
    pub(crate) fn checkpoint(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Error::Checkpoint {
            path: path.into(),
            message: message.into(),
        }
    }
    pub(crate) fn arg(arg: &'static str, message: impl Into<String>) -> Self {
        Error::Argument {
            arg,
            message: message.into(),
        }
    }
}
