//! `neptune_core`: the numeric engine of the knowledge-completion server. Pure Rust, no Node or
//! Neo4j types; the napi-rs binding in `engine/node` wraps this API.
//!
//! The model is NePTuNe exactly as the reference code computes it (see docs in `net`):
//! `logits = act(dropout_h2(BN1(dropout_in(BN0(E[h])) · dropout_h1(R[r] · W)))) · dropout_in(E)^T`,
//! trained with label-smoothed 1-N binary cross-entropy and Adam.
//!
//! # Public API
//!
//! ```no_run
//! use neptune_core::{Config, Dataset, Model, Trainer, Split};
//! use std::sync::atomic::AtomicBool;
//!
//! # fn main() -> neptune_core::Result<()> {
//! let data = Dataset::from_dir("datasets/Nations")?;               // or Dataset::from_arrays(..)
//! let config = Config { epochs: 100, ..Config::preset("default")? };
//! let trainer = Trainer::new(config)?.with_checkpoint_dir("runs/nations");
//! let cancel = AtomicBool::new(false);
//! let outcome = trainer.train(&data, |p| eprintln!("{p:?}"), &cancel)?;
//! let test = trainer.evaluate(&outcome.model, &data, Split::Test)?;
//! println!("test MRR {:.3}", test.overall.mrr);
//! outcome.model.save("models/v1")?;
//! let model = Model::load("models/v1")?;
//! let top = model.top_k(0, 1, 10, &[])?;                             // (h, r, k, exclude)
//! # Ok(()) }
//! ```
//!
//! Errors are values ([`Error`]); no public function panics on bad input.

// Numeric kernels index several equal-length slices in one loop and take many buffers; the
// closure in `core_product::backward` rebinds a raw-pointer wrapper on purpose (a disjoint
// capture would capture the non-Send pointer field itself).
#![allow(
    clippy::too_many_arguments,
    clippy::needless_range_loop,
    clippy::excessive_precision,
    clippy::redundant_locals
)]

pub mod adam;
pub mod checkpoint;
pub mod config;
pub mod dataset;
pub mod error;
pub mod eval;
pub mod graph_sizing;
pub mod kernels;
pub mod linalg;
pub mod model;
pub mod net;
pub mod params;
pub mod real;
pub mod rng;
pub mod scoring;
pub mod train;

pub use checkpoint::{Checkpoint, TrainState};
pub use config::{Activation, Config, InitScheme, Overrides, PRESETS};
pub use dataset::{Dataset, InverseMode, Triple};
pub use error::{Error, Result};
pub use eval::{Direction, Metrics, RankStats, RelationMetrics};
pub use graph_sizing::GraphSize;
pub use model::{Model, Prediction};
pub use train::{Progress, Split, StopReason, TrainOutcome, Trainer};

/// Version recorded in checkpoints.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Filtered evaluation of `model` on a split of `dataset`, on `threads` threads (0 = all cores).
pub fn evaluate(model: &Model, dataset: &Dataset, split: Split, threads: usize) -> Result<Metrics> {
    let cfg = Config {
        threads,
        ..model.config.clone()
    };
    Trainer::new(cfg)?.evaluate(model, dataset, split)
}
