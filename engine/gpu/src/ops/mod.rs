//! One file per kernel family; each records dispatches onto a [`crate::Recorder`].

pub mod gemm;
pub mod elementwise;
pub mod batchnorm;
pub mod core_product;
pub mod loss;
pub mod adam;
