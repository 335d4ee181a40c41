//! Row-major matrix products on top of the pure-Rust `gemm` kernels (`gemm-f32`, `gemm-f64`).

use crate::kernels::SyncPtr;
use crate::real::Real;
use gemm_common::Parallelism;
use rayon::prelude::*;
use std::any::TypeId;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

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
    /// The same matrix used the other way round.
    fn transposed(self) -> Self {
        Op { t: !self.t, ..self }
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

/// Shapes `(element size, m, n, k, a transposed, b transposed)` whose products
/// [`matmul_oriented`] runs as the transpose, decided once per shape.
type OrientationKey = (usize, usize, usize, usize, bool, bool);
static ORIENTATIONS: Mutex<Option<HashMap<OrientationKey, bool>>> = Mutex::new(None);

/// `c (m x n) = a · b` (parallel), computed either directly or as `cᵀ = bᵀ · aᵀ` into `scratch`
/// and transposed into `c`, whichever is faster on this machine for this shape. The gemm
/// kernels' speed depends on which side of the output is short, and differently on each
/// machine (AVX2 or AVX-512 kernels): on WN18RR's logits (128 x 40,943 over 500) the transpose
/// and its copy took 15 ms against 19 (bench/train-speed/LEVERS.md, session 14).
///
/// The first product of a shape runs both ways, times them, and keeps the transpose only where
/// it is faster and gives the same bits, so the choice, made by the clock, never changes a
/// result. Choosing costs six products of the shape: meant for products repeated many times
/// with one shape (a training step's scoring products).
pub fn matmul_oriented<T: Real>(c: &mut [T], a: Op<'_, T>, b: Op<'_, T>, scratch: &mut Vec<T>) {
    let (m, n) = (a.shape().0, b.shape().1);
    let key = (std::mem::size_of::<T>(), m, n, a.shape().1, a.t, b.t);
    let known = ORIENTATIONS
        .lock()
        .map(|map| map.as_ref().and_then(|m| m.get(&key).copied()))
        .unwrap_or(Some(false));
    match known {
        Some(false) => matmul(c, a, b, false, true),
        Some(true) => transposed_product(c, a, b, scratch),
        None => {
            let timed = |f: &mut dyn FnMut()| {
                f(); // the first run pays for page faults and cold caches
                (0..2)
                    .map(|_| {
                        let t = Instant::now();
                        f();
                        t.elapsed()
                    })
                    .min()
                    .unwrap_or_default()
            };
            let direct = timed(&mut || matmul(c, a, b, false, true));
            let mut other = vec![T::ZERO; m * n];
            let flipped = timed(&mut || transposed_product(&mut other, a, b, scratch));
            let same_bits = c[..m * n]
                .iter()
                .zip(&other)
                .all(|(x, y)| x.to_f64().to_bits() == y.to_f64().to_bits());
            if let Ok(mut map) = ORIENTATIONS.lock() {
                map.get_or_insert_with(HashMap::new)
                    .insert(key, same_bits && flipped < direct);
            }
        }
    }
}

/// `c = a · b` as `cᵀ = bᵀ · aᵀ` into `scratch` (n x m), then transposed into `c` (m x n).
/// Sums in the transposed product's order, so its bits may differ from [`matmul`]'s.
pub fn transposed_product<T: Real>(c: &mut [T], a: Op<'_, T>, b: Op<'_, T>, scratch: &mut Vec<T>) {
    let (m, n) = (a.shape().0, b.shape().1);
    if scratch.len() < m * n {
        scratch.resize(m * n, T::ZERO);
    }
    matmul(
        &mut scratch[..m * n],
        b.transposed(),
        a.transposed(),
        false,
        true,
    );
    transpose_into(&scratch[..m * n], n, m, &mut c[..m * n]);
}

/// Tiles of the blocked transpose (a tile of source and destination stays in L1).
const TRANSPOSE_TILE: usize = 32;

/// `dst (cols x rows) = srcᵀ` for a row-major `src` (rows x cols), in parallel over tiles of
/// destination rows.
fn transpose_into<T: Real>(src: &[T], rows: usize, cols: usize, dst: &mut [T]) {
    dst[..rows * cols]
        .par_chunks_mut(TRANSPOSE_TILE * rows)
        .enumerate()
        .for_each(|(block, out)| {
            let j0 = block * TRANSPOSE_TILE;
            let width = out.len() / rows;
            for i0 in (0..rows).step_by(TRANSPOSE_TILE) {
                for j in 0..width {
                    let out_row = &mut out[j * rows..][..rows];
                    for i in i0..(i0 + TRANSPOSE_TILE).min(rows) {
                        out_row[i] = src[i * cols + j0 + j];
                    }
                }
            }
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

    /// `len` values in [-0.5, 0.5), a different sequence for each `stride`.
    fn filled(len: usize, stride: usize) -> Vec<f32> {
        (0..len)
            .map(|i| ((i * stride) % 97) as f32 / 97.0 - 0.5)
            .collect()
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
        // Output blocks along m, along n, and the split inner dimension.
        for &(m, n, k) in &[(300usize, 70usize, 33usize), (20, 333, 17), (6, 9, 5000)] {
            let (a, b) = (filled(m * k, 31), filled(k * n, 17));
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

    /// Both orientations of a product give the same values, and the tuned one the same bits
    /// as the direct product on every call (the choice is made on the first).
    #[test]
    fn oriented_products_match_the_direct_product() {
        for &(m, n, k) in &[(37usize, 301usize, 19usize), (130, 70, 41), (1, 65, 3)] {
            let (a, bt) = (filled(m * k, 13), filled(n * k, 7));
            let mut direct = vec![0.0f32; m * n];
            matmul(&mut direct, Op::n(&a, m, k), Op::t(&bt, n, k), false, true);
            let mut flipped = vec![0.0f32; m * n];
            let mut scratch = Vec::new();
            transposed_product(
                &mut flipped,
                Op::n(&a, m, k),
                Op::t(&bt, n, k),
                &mut scratch,
            );
            for (x, y) in direct.iter().zip(&flipped) {
                assert!((x - y).abs() < 1e-5, "{m}x{n}x{k}: {x} vs {y}");
            }
            for _ in 0..3 {
                let mut tuned = vec![f32::NAN; m * n];
                matmul_oriented(&mut tuned, Op::n(&a, m, k), Op::t(&bt, n, k), &mut scratch);
                assert!(
                    tuned
                        .iter()
                        .zip(&direct)
                        .all(|(x, y)| x.to_bits() == y.to_bits()),
                    "{m}x{n}x{k}: the tuned product differs from the direct one"
                );
            }
        }
    }

    #[test]
    fn transpose_moves_every_element() {
        for &(rows, cols) in &[(1usize, 1usize), (3, 70), (70, 3), (33, 65)] {
            let src: Vec<f64> = (0..rows * cols).map(|i| i as f64).collect();
            let mut dst = vec![-1.0f64; rows * cols];
            transpose_into(&src, rows, cols, &mut dst);
            for i in 0..rows {
                for j in 0..cols {
                    assert_eq!(
                        dst[j * rows + i],
                        src[i * cols + j],
                        "{rows}x{cols} at {i},{j}"
                    );
                }
            }
        }
    }
}
