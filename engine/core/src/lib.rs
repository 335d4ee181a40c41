//! Placeholder; replaced below.
pub mod adam;
pub mod config;
pub mod dataset;
pub mod error;
pub mod kernels;
pub mod linalg;
pub mod net;
pub mod params;
pub mod real;
pub mod rng;
