//! Approximate top-k for serving large graphs: an HNSW graph over the entity rows finds each
//! query's candidates in far fewer dot products than a pass over every entity; the candidates
//! are then re-scored exactly, known edges are never returned, and a query the index cannot
//! answer in full falls back to the exact scan.
//!
//! A NePTuNe logit is an inner product `x · E[e]` (no bias), so the graph is built and searched
//! by the inner product itself ([`inner_product_gap`]).

pub mod approx_index;
pub mod approx_top_k;
pub mod inner_product_gap;

pub use approx_index::{ApproxIndex, BuildOptions, BuildStopped};
pub use approx_top_k::{approx_top_k_batch, recall, ApproxTopK};
