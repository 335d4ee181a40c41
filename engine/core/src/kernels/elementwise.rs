//! Dropout with regenerated masks, and the activation, forward and backward.

use crate::real::Real;
use crate::rng::{Mask, MASK_BLOCK};
use rayon::prelude::*;

/// Elements per parallel task: large enough to amortise task overhead.
const PAR_MIN_ELEMS: usize = 1 << 14;

/// `dst[i, j] = src[i, j] * keep(i, j) / (1 - p)` over a `rows x cols` matrix, where the mask
/// row index is `i` (the caller's row numbering must match between forward and backward).
pub fn dropout_copy<T: Real>(src: &[T], dst: &mut [T], cols: usize, mask: &Mask, scale: T) {
    let rows_per_task = (PAR_MIN_ELEMS / cols.max(1)).max(1);
    dst.par_chunks_mut(rows_per_task * cols)
        .zip(src.par_chunks(rows_per_task * cols))
        .enumerate()
        .for_each(|(c, (d, s))| {
            for (r, (dr, sr)) in d
                .chunks_exact_mut(cols)
                .zip(s.chunks_exact(cols))
                .enumerate()
            {
                mask_row(mask, (c * rows_per_task + r) as u64, scale, sr, dr);
            }
        });
}

/// In-place variant of [`dropout_copy`].
pub fn dropout_inplace<T: Real>(x: &mut [T], cols: usize, mask: &Mask, scale: T) {
    let rows_per_task = (PAR_MIN_ELEMS / cols.max(1)).max(1);
    x.par_chunks_mut(rows_per_task * cols)
        .enumerate()
        .for_each(|(c, d)| {
            for (r, dr) in d.chunks_exact_mut(cols).enumerate() {
                mask_row_inplace(mask, (c * rows_per_task + r) as u64, scale, dr);
            }
        });
}

/// [`dropout_copy`] of the rows `ids` of `src` (each masked as its own row there) into
/// consecutive rows of `dst`: a sampled step's dropped-out entity columns.
pub fn dropout_gather<T: Real>(
    src: &[T],
    ids: &[u32],
    dst: &mut [T],
    cols: usize,
    mask: &Mask,
    scale: T,
) {
    let rows_per_task = (PAR_MIN_ELEMS / cols.max(1)).max(1);
    dst[..ids.len() * cols]
        .par_chunks_mut(rows_per_task * cols)
        .zip(ids.par_chunks(rows_per_task))
        .for_each(|(d, rows)| {
            for (dr, &id) in d.chunks_exact_mut(cols).zip(rows) {
                let row = &src[id as usize * cols..][..cols];
                mask_row(mask, id as u64, scale, row, dr);
            }
        });
}

/// [`dropout_inplace`] of consecutive rows of `x` that stand for the rows `ids` (the backward
/// of [`dropout_gather`]).
pub fn dropout_rows_inplace<T: Real>(x: &mut [T], ids: &[u32], cols: usize, mask: &Mask, scale: T) {
    let rows_per_task = (PAR_MIN_ELEMS / cols.max(1)).max(1);
    x[..ids.len() * cols]
        .par_chunks_mut(rows_per_task * cols)
        .zip(ids.par_chunks(rows_per_task))
        .for_each(|(d, rows)| {
            for (dr, &id) in d.chunks_exact_mut(cols).zip(rows) {
                mask_row_inplace(mask, id as u64, scale, dr);
            }
        });
}

multiversion!(fn mask_row<T>(mask: &Mask, row: u64, scale: T, src: &[T], dst: &mut [T]) => mask_row_body);
multiversion!(fn mask_row_inplace<T>(mask: &Mask, row: u64, scale: T, x: &mut [T]) => mask_row_inplace_body);

#[inline(always)]
fn mask_row_body<T: Real>(mask: &Mask, row: u64, scale: T, src: &[T], dst: &mut [T]) {
    let n = dst.len().min(src.len());
    if mask.identity {
        for j in 0..n {
            dst[j] = src[j] * scale;
        }
        return;
    }
    let rk = mask.row_key(row);
    let mut factor = [T::ZERO; MASK_BLOCK];
    for (block, (db, sb)) in dst[..n]
        .chunks_mut(MASK_BLOCK)
        .zip(src[..n].chunks(MASK_BLOCK))
        .enumerate()
    {
        mask.factor_block(rk, block as u32, scale, &mut factor);
        for ((d, &s), &m) in db.iter_mut().zip(sb).zip(&factor) {
            *d = s * m;
        }
    }
}

#[inline(always)]
fn mask_row_inplace_body<T: Real>(mask: &Mask, row: u64, scale: T, x: &mut [T]) {
    if mask.identity {
        x.iter_mut().for_each(|v| *v *= scale);
        return;
    }
    let rk = mask.row_key(row);
    let mut factor = [T::ZERO; MASK_BLOCK];
    for (block, xb) in x.chunks_mut(MASK_BLOCK).enumerate() {
        mask.factor_block(rk, block as u32, scale, &mut factor);
        for (v, &m) in xb.iter_mut().zip(&factor) {
            *v *= m;
        }
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
