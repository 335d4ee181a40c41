//! The GPU backend's tests, one binary (each test binary links all of wgpu): every kernel
//! against its CPU counterpart, the whole step against PyTorch's golden values and the CPU's
//! gradients (scoring every entity or a sample), and training against the CPU's learning
//! curve. They run on the first GPU adapter, Mesa's software lavapipe in CI, and fail (never
//! skip) without one.

mod common;

mod adam;
mod batchnorm;
mod core_product;
mod elementwise;
mod gemm;
mod learning_curve;
mod loss;
mod sampled_step;
mod step;
