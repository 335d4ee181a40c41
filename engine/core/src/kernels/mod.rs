//! Fused elementwise and small kernels used by the forward and backward passes.

pub mod batchnorm;
pub mod core_product;
pub mod elementwise;
pub mod loss;

/// A raw pointer that may be shared across rayon tasks that write disjoint elements.
#[derive(Clone, Copy)]
pub(crate) struct SyncPtr<T>(pub *mut T);
unsafe impl<T> Send for SyncPtr<T> {}
unsafe impl<T> Sync for SyncPtr<T> {}
