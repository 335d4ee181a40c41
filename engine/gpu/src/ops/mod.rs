//! One file per kernel family; each records dispatches onto a [`crate::Recorder`].

pub mod adam;
pub mod batchnorm;
pub mod core_product;
pub mod elementwise;
pub mod gemm;
pub mod loss;
