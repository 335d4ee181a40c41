//! Dropout with regenerated masks, and the activation, forward and backward.

use crate::real::Real;
use crate::rng::Mask;
use rayon::prelude::*;

/// Row chunk for parallel elementwise passes: large enough to amortise task overhead.
const PAR_MIN_ELEMS: usize = 1 << 14;

/// `dst[i, j] = src[i, j] * keep(i, j) / (1 - p)` over a `rows x cols` matrix, where the mask
/// row index is `i` (the caller's row numbering must match between forward and backward).
/// `dst` may be the same data as `src` via [`dropout_inplace`].
pub fn dropout_copy<T: Real>(src: &[T], dst: &mut [T], cols: usize, mask: &Mask, scale: T) {
    let rows_per_task = (PAR_MIN_ELEMS / cols.max(1)).max(1);
    dst.par_chunks_mut(rows_per_task * cols).zip(src.par_chunks(rows_per_task * cols)).enumerate().for_each(
        |(c, (d, s))| {
            for (r, (dr, sr)) in d.chunks_exact_mut(cols).zip(s.chunks_exact(cols)).enumerate() {
                row_apply(mask, (c * rows_per_task + r) as u64, scale, sr, dr);
            }
        },
    );
}

/// In-place variant of [`dropout_copy`].
pub fn dropout_inplace<T: Real>(x: &mut [T], cols: usize, mask: &Mask, scale: T) {
    let rows_per_task = (PAR_MIN_ELEMS / cols.max(1)).max(1);
    x.par_chunks_mut(rows_per_task * cols).enumerate().for_each(|(c, d)| {
        for (r, dr) in d.chunks_exact_mut(cols).enumerate() {
            let row = (c * rows_per_task + r) as u64;
            if mask.identity {
                dr.iter_mut().for_each(|v| *v *= scale);
            } else {
                let rk = mask.row_key(row);
                for (j, v) in dr.iter_mut().enumerate() {
                    *v = if mask.keep(rk, j as u32) { *v * scale } else { T::ZERO };
                }
            }
        }
    });
}

#[inline]
fn row_apply<T: Real>(mask: &Mask, row: u64, scale: T, src: &[T], dst: &mut [T]) {
    if mask.identity {
        for (d, &s) in dst.iter_mut().zip(src) {
            *d = s * scale;
        }
        return;
    }
    let rk = mask.row_key(row);
    for (j, (d, &s)) in dst.iter_mut().zip(src).enumerate() {
        *d = if mask.keep(rk, j as u32) { s * scale } else { T::ZERO };
    }
}

/// `out = z > 0 ? z : slope * z` (PReLU, LeakyReLU, ReLU differ only in `slope`).
pub fn act_forward<T: Real>(z: &[T], slope: T, out: &mut [T]) {
    for (o, &v) in out.iter_mut().zip(z) {
        *o = if v > T::ZERO { v } else { slope * v };
    }
}

/// In place `g = g * (z > 0 ? 1 : slope)`; returns `d loss / d slope = sum g * z * [z <= 0]`
/// (computed before the in-place update).
pub fn act_backward<T: Real>(z: &[T], slope: T, g: &mut [T]) -> T {
    let mut ds = T::ZERO;
    for (gv, &v) in g.iter_mut().zip(z) {
        if v <= T::ZERO {
            ds += *gv * v;
            *gv *= slope;
        }
    }
    ds
}
