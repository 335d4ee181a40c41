//! Row-major matrix products on top of the pure-Rust `gemm` kernels (`gemm-f32`, `gemm-f64`).

use crate::real::Real;
use gemm_common::Parallelism;
use std::any::TypeId;

/// A row-major operand, optionally used transposed.
#[derive(Clone, Copy)]
pub struct Op<'a, T> {
    pub data: &'a [T],
    /// Stored shape `rows x cols` (before the optional transpose).
    pub rows: usize,
    pub cols: usize,
    pub t: bool,
}

impl<'a, T> Op<'a, T> {
    pub fn n(data: &'a [T], rows: usize, cols: usize) -> Self {
        Op { data, rows, cols, t: false }
    }
    pub fn t(data: &'a [T], rows: usize, cols: usize) -> Self {
        Op { data, rows, cols, t: true }
    }
    /// Logical shape after the transpose.
    fn shape(&self) -> (usize, usize) {
        if self.t { (self.cols, self.rows) } else { (self.rows, self.cols) }
    }
    /// (row stride, column stride) of the logical matrix.
    fn strides(&self) -> (isize, isize) {
        if self.t { (1, self.cols as isize) } else { (self.cols as isize, 1) }
    }
}

/// `c (m x n, row-major, contiguous) = [c +] a · b`. Parallel over the ambient rayon pool when
/// `parallel`. Panics on shape mismatch (internal invariant, not user input).
pub fn matmul<T: Real>(c: &mut [T], a: Op<'_, T>, b: Op<'_, T>, accumulate: bool, parallel: bool) {
    let (m, k) = a.shape();
    let (k2, n) = b.shape();
    assert_eq!(k, k2, "inner dimensions");
    assert!(a.data.len() >= a.rows * a.cols && b.data.len() >= b.rows * b.cols);
    assert!(c.len() >= m * n);
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        if !accumulate {
            c[..m * n].iter_mut().for_each(|x| *x = T::ZERO);
        }
        return;
    }
    let (ars, acs) = a.strides();
    let (brs, bcs) = b.strides();
    let par = if parallel && rayon::current_num_threads() > 1 { Parallelism::Rayon(0) } else { Parallelism::None };
    // The kernels prefer a column-major destination; computing C^T = B^T A^T turns our
    // row-major C into one: swap m/n and the operands, and swap each operand's strides.
    macro_rules! call {
        ($f:expr, $t:ty) => {
            // SAFETY: shapes and lengths were checked above; `c` does not alias `a` or `b`
            // (borrowck); T is exactly $t (TypeId checked by the caller).
            unsafe {
                $f(
                    n,
                    m,
                    k,
                    c.as_mut_ptr() as *mut $t,
                    n as isize,
                    1,
                    accumulate,
                    b.data.as_ptr() as *const $t,
                    brs,
                    bcs,
                    a.data.as_ptr() as *const $t,
                    ars,
                    acs,
                    1.0,
                    1.0,
                    false,
                    false,
                    false,
                    par,
                )
            }
        };
    }
    if TypeId::of::<T>() == TypeId::of::<f32>() {
        call!(gemm_f32::gemm::f32::get_gemm_fn(), f32)
    } else if TypeId::of::<T>() == TypeId::of::<f64>() {
        call!(gemm_f64::gemm::f64::get_gemm_fn(), f64)
    } else {
        unreachable!("Real is implemented for f32 and f64 only")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matmul_transposes() {
        // a: 2x3, b: 3x2
        let a = [1.0f64, 2., 3., 4., 5., 6.];
        let b = [1.0f64, 0., 0., 1., 1., 1.];
        let mut c = [0.0f64; 4];
        matmul(&mut c, Op::n(&a, 2, 3), Op::n(&b, 3, 2), false, false);
        assert_eq!(c, [4., 5., 10., 11.]);
        // a^T stored as 3x2 (= a transposed), b^T stored as 2x3
        let at = [1.0f64, 4., 2., 5., 3., 6.];
        let bt = [1.0f64, 0., 1., 0., 1., 1.];
        let mut c2 = [1.0f64; 4];
        matmul(&mut c2, Op::t(&at, 3, 2), Op::t(&bt, 2, 3), true, false);
        assert_eq!(c2, [5., 6., 11., 12.]);
    }
}
