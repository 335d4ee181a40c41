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

// Layers, lowest first; a module uses only its own layer and those below (checked by
// tests/layers.rs):
//   0 numbers:     error, real, rng
//   1 data:        dataset, config, params, rows, rule_walk (triples, settings, tensors, rule
//                  paths in a graph)
//   2 kernels:     kernels, linalg, int8_rows, int8_scan
//   3 model:       candidate_mask, scoring, eval, memo, model, evaluate, suggest, warm_start,
//                  fold_in, exact_top_k, exact_rank
//                  (eval-mode forward, ranking, serving, suggestions across the graph, a new
//                  run's weights from a trained model, new entities' rows, top-k over 8-bit
//                  rows)
//   4 persistence: checkpoint
//   5 training:    adam, net, early_stopping, lr_schedule, step_engine, column_sampler,
//                  sampled_steps, train, weight_average (only with the `training` feature)
//   6 settings:    graph_sizing, presets
pub mod error;
pub mod real;
pub mod rng;

pub mod config;
pub mod dataset;
pub mod params;
pub mod rows;
pub mod rule_walk;

pub mod int8_rows;
pub mod int8_scan;
pub mod kernels;
pub mod linalg;

pub mod candidate_mask;
pub mod eval;
pub mod evaluate;
pub mod exact_rank;
pub mod exact_top_k;
pub mod fold_in;
mod memo;
pub mod model;
pub mod scoring;
pub mod suggest;
pub mod warm_start;

pub mod checkpoint;

#[cfg(feature = "training")]
pub mod adam;
#[cfg(feature = "training")]
pub mod column_sampler;
#[cfg(feature = "training")]
pub mod early_stopping;
#[cfg(feature = "training")]
pub mod lr_schedule;
#[cfg(feature = "training")]
pub mod net;
#[cfg(feature = "training")]
pub mod sampled_steps;
#[cfg(feature = "training")]
pub mod step_engine;
#[cfg(feature = "training")]
pub mod train;
#[cfg(feature = "training")]
pub mod weight_average;

pub mod graph_sizing;
pub mod presets;

pub use candidate_mask::{CandidateMask, OutsideAnswer};
pub use checkpoint::{Checkpoint, OptimizerState, TrainState};
pub use config::{Activation, Config, InitScheme, Loss};
pub use dataset::{Dataset, InverseMode, Triple};
pub use error::{Error, Result};
pub use eval::{Direction, Metrics, RankStats, RelationMetrics};
pub use evaluate::{
    evaluate, evaluate_sample, evaluate_typed, filtered_ranks, filtered_ranks_at,
    filtered_ranks_with, RankedTail, Split, RANK_PRODUCT_MIN_QUERIES,
};
pub use fold_in::{fold_in, fold_in_with_pool, FoldInEdge, FoldInSettings, NegativePool};
pub use graph_sizing::GraphSize;
pub use model::{Model, Prediction, TopKScan};
pub use presets::{Overrides, PRESETS};
pub use suggest::{pair_key, suggest, ExcludedEdges, SuggestScope, Suggestion};
#[cfg(feature = "training")]
pub use train::{Progress, StopReason, TrainOutcome, Trainer};
pub use warm_start::WarmStartStats;

/// Version recorded in checkpoints.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");
