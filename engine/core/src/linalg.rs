//! Row-major matrix products on top of the pure-Rust `gemm` kernels (`gemm-f32`, `gemm-f64`).

use crate::kernels::SyncPtr;
use crate::real::Real;
use gemm_common::Parallelism;
use rayon::prelude::*;
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
        Op {
            data,
            rows,
            cols,
            t: false,
        }
    }
    pub fn t(data: &'a [T], rows: usize, cols: usize) -> Self {
        Op {
            data,
            rows,
            cols,
            t: true,
        }
    }
    /// Logical shape after the transpose.
    fn shape(&self) -> (usize, usize) {
        if self.t {
            (self.cols, self.rows)
        } else {
            (self.rows, self.cols)
        }
    }
    /// (row stride, column stride) of the logical matrix.
    fn strides(&self) -> (isize, isize) {
        if self.t {
            (1, self.cols as isize)
        } else {
            (self.cols as isize, 1)
        }
    }
}

/// Inner dimensions at least this long, and [`K_SPLIT_RATIO`] times the output's longer side,
/// are split into [`K_PARTS`] partial products (see [`matmul`]).
const K_SPLIT_MIN: usize = 4096;
const K_SPLIT_RATIO: usize = 8;
/// Fixed, so the summation order (and the result) does not depend on the thread count.
const K_PARTS: usize = 4;
/// Output blocks are multiples of this many rows or columns (the kernels' tile sizes divide it).
const BLOCK_ALIGN: usize = 64;

/// `c (m x n, row-major, contiguous) = [c +] a · b`. Parallel over the ambient rayon pool when
/// `parallel`. Panics on shape mismatch (internal invariant, not user input).
///
/// Parallel products are split by hand, each piece run single-threaded: the kernels' own
/// threading scales poorly on this model's skinny shapes (measured on 2 cores: `U x D²` outputs
/// 66 GFLOP/s, `74 x 150` outputs over K = 40,000 no faster than one thread).
/// - A long inner dimension with a small output (`dR = dA · Wᵀ`: 74 x 150 over K = 40,000) is
///   cut into [`K_PARTS`] partial products summed in a fixed order, whatever the thread count.
/// - Otherwise the output is cut along its longer side into one block per thread; every element
///   is computed exactly as by one unsplit product.
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
    let threads = if parallel {
        rayon::current_num_threads()
    } else {
        1
    };
    if k >= K_SPLIT_MIN && k >= K_SPLIT_RATIO * m.max(n) {
        return matmul_split_k(c, a, b, accumulate, threads > 1);
    }
    let along_m = m >= n;
    let len = if along_m { m } else { n };
    let block = len.div_ceil(threads).next_multiple_of(BLOCK_ALIGN);
    if threads == 1 || block >= len {
        // SAFETY: the whole product, shapes checked above.
        return unsafe { gemm_block(c.as_mut_ptr(), n, a, b, (0, m), (0, n), (0, k), accumulate) };
    }
    let cp = SyncPtr(c.as_mut_ptr());
    (0..len.div_ceil(block)).into_par_iter().for_each(|i| {
        // Rebinding moves the Send wrapper into the closure; a disjoint capture would capture
        // its raw-pointer field, which is not Send.
        #[allow(clippy::redundant_locals)]
        let cp = cp;
        let range = (i * block, ((i + 1) * block).min(len));
        let (rows, cols) = if along_m {
            (range, (0, n))
        } else {
            ((0, m), range)
        };
        // SAFETY: blocks write disjoint rows (or columns) of `c`.
        unsafe { gemm_block(cp.0, n, a, b, rows, cols, (0, k), accumulate) };
    });
}

/// [`matmul`] with the inner dimension cut into [`K_PARTS`] slices: partial products into
/// scratch buffers (in parallel when `parallel`), then summed in order into `c`.
fn matmul_split_k<T: Real>(
    c: &mut [T],
    a: Op<'_, T>,
    b: Op<'_, T>,
    accumulate: bool,
    parallel: bool,
) {
    let (m, k) = a.shape();
    let n = b.shape().1;
    let part = k.div_ceil(K_PARTS);
    let mut partial = vec![T::ZERO; K_PARTS * m * n];
    let run = |(i, out): (usize, &mut [T])| {
        let ks = (i * part, ((i + 1) * part).min(k));
        // SAFETY: `out` is this part's own m x n buffer; shapes checked by the caller.
        unsafe { gemm_block(out.as_mut_ptr(), n, a, b, (0, m), (0, n), ks, false) };
    };
    if parallel {
        partial.par_chunks_mut(m * n).enumerate().for_each(run);
    } else {
        partial.chunks_mut(m * n).enumerate().for_each(run);
    }
    let (first, rest) = partial.split_at(m * n);
    for (j, cv) in c[..m * n].iter_mut().enumerate() {
        let mut s = first[j];
        for p in rest.chunks_exact(m * n) {
            s += p[j];
        }
        *cv = if accumulate { *cv + s } else { s };
    }
}

/// Single-threaded `c[rows, cols] = [c +] a[rows, ks] · b[ks, cols]`, where `c` points at a
/// row-major matrix with row stride `ldc`.
///
/// # Safety
/// The ranges lie within the operands' logical shapes and `c` is valid for them; no other
/// thread writes the same elements.
#[allow(clippy::too_many_arguments)]
unsafe fn gemm_block<T: Real>(
    c: *mut T,
    ldc: usize,
    a: Op<'_, T>,
    b: Op<'_, T>,
    (r0, r1): (usize, usize),
    (c0, c1): (usize, usize),
    (k0, k1): (usize, usize),
    accumulate: bool,
) {
    let (ars, acs) = a.strides();
    let (brs, bcs) = b.strides();
    let (m, n, k) = (r1 - r0, c1 - c0, k1 - k0);
    let dst = c.add(r0 * ldc + c0);
    let ap = a
        .data
        .as_ptr()
        .offset(r0 as isize * ars + k0 as isize * acs);
    let bp = b
        .data
        .as_ptr()
        .offset(k0 as isize * brs + c0 as isize * bcs);
    // The kernels prefer a column-major destination; computing C^T = B^T A^T turns our
    // row-major C into one: swap m/n and the operands, and swap each operand's strides.
    macro_rules! call {
        ($f:expr, $t:ty) => {
            $f(
                n,
                m,
                k,
                dst as *mut $t,
                ldc as isize,
                1,
                accumulate,
                bp as *const $t,
                brs,
                bcs,
                ap as *const $t,
                ars,
                acs,
                1.0,
                1.0,
                false,
                false,
                false,
                Parallelism::None,
            )
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

    fn naive(a: &[f32], b: &[f32], m: usize, n: usize, k: usize) -> Vec<f64> {
        let mut c = vec![0.0f64; m * n];
        for i in 0..m {
            for j in 0..n {
                c[i * n + j] = (0..k)
                    .map(|l| a[i * k + l] as f64 * b[l * n + j] as f64)
                    .sum();
            }
        }
        c
    }

    /// The hand-split parallel products give bit-identical results on 1, 2 and 3 threads (the
    /// trainer's determinism across thread counts rests on it) and the right values.
    #[test]
    fn split_products_are_exact_and_thread_independent() {
        let v = |len: usize, s: usize| {
            (0..len)
                .map(|i| ((i * s) % 97) as f32 / 97.0 - 0.5)
                .collect::<Vec<f32>>()
        };
        // Output blocks along m, along n, and the split inner dimension.
        for &(m, n, k) in &[(300usize, 70usize, 33usize), (20, 333, 17), (6, 9, 5000)] {
            let (a, b) = (v(m * k, 31), v(k * n, 17));
            let run = |threads: usize| {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                let mut c = vec![0.0f32; m * n];
                pool.install(|| matmul(&mut c, Op::n(&a, m, k), Op::n(&b, k, n), false, true));
                c
            };
            let one = run(1);
            assert!(
                one == run(2) && one == run(3),
                "{m}x{n}x{k}: results depend on the thread count"
            );
            for (x, y) in one.iter().zip(naive(&a, &b, m, n, k)) {
                assert!((*x as f64 - y).abs() < 1e-3, "{m}x{n}x{k}: {x} vs {y}");
            }
            let mut acc = vec![1.0f32; m * n];
            matmul(&mut acc, Op::n(&a, m, k), Op::n(&b, k, n), true, true);
            assert!(
                acc.iter()
                    .zip(&one)
                    .all(|(p, q)| (p - 1.0 - q).abs() < 1e-4),
                "{m}x{n}x{k}: accumulate"
            );
        }
    }
}
