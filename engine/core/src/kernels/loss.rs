//! The training losses over all entities, each fused with its gradient: [`bce_fused`] (the
//! paper's) and [`softmax_fused`] (a softmax cross-entropy; see its doc).
//!
//! Binary cross-entropy with logits against label-smoothed multi-hot targets, fused with its
//! gradient. Target `y' = (1 - eps) * y + 1 / N`; the loss is the mean over `B x N` of
//! `softplus(l) - y' * l` (= BCE(sigmoid(l), y') without overflow for any finite l).
//! Targets stay sparse: the dense `1/N` part is folded into the pass over the logits and the
//! `(1 - eps)` part is applied at each example's tails.

use crate::real::Real;
use rayon::prelude::*;

/// Replaces `logits` (B x N, row-major) by `d loss / d logits` and returns the mean loss.
/// `tails(b)` are the (deduplicated) positive entities of example `b`.
pub fn bce_fused<'a, T: Real, F>(
    logits: &mut [T],
    b: usize,
    n: usize,
    eps: f64,
    tails: F,
    row_loss: &mut [f64],
) -> f64
where
    F: Fn(usize) -> &'a [u32] + Sync,
{
    let base = T::from_f64(1.0 / n as f64);
    let scale = T::from_f64(1.0 / (b as f64 * n as f64));
    logits[..b * n]
        .par_chunks_mut(n)
        .zip(row_loss[..b].par_iter_mut())
        .enumerate()
        .for_each(|(i, (row, rl))| {
            let ts = tails(i);
            // Positive part of the loss, -(1 - eps) * l[t], read before the row is overwritten.
            let pos_sum = ts.iter().map(|&t| row[t as usize].to_f64()).sum::<f64>();
            *rl = dense_row(row, base, scale) - (1.0 - eps) * pos_sum;
            let pos = T::from_f64(1.0 - eps);
            for &t in ts {
                row[t as usize] -= pos * scale;
            }
        });
    row_loss[..b].iter().sum::<f64>() / (b as f64 * n as f64)
}

multiversion!(pub(super) fn dense_row<T>(row: &mut [T], base: T, scale: T) -> f64 => dense_row_body);
multiversion!(pub fn bce_gradient_row<T>(row: &mut [T], base: T, scale: T) => bce_gradient_row_body);

/// Overwrites each logit `l` by `(sigmoid(l) - base) * scale`: [`dense_row`]'s gradient
/// without the loss (fold-in's sampled candidates need only the gradient).
#[inline(always)]
fn bce_gradient_row_body<T: Real>(row: &mut [T], base: T, scale: T) {
    for l in row.iter_mut() {
        *l = (l.softplus_sigmoid().1 - base) * scale;
    }
}

/// Returns `sum softplus(l) - base * l` and overwrites `l` by `(sigmoid(l) - base) * scale`.
#[inline(always)]
fn dense_row_body<T: Real>(row: &mut [T], base: T, scale: T) -> f64 {
    // Sixteen partial sums in T keep the loop vectorisable (an f64 running sum would not be),
    // one AVX-512 register or two AVX2 registers wide.
    let mut part = [T::ZERO; 16];
    let mut chunks = row.chunks_exact_mut(16);
    for c in &mut chunks {
        for k in 0..16 {
            let x = c[k];
            let (sp, sg) = x.softplus_sigmoid();
            part[k] += sp - base * x;
            c[k] = (sg - base) * scale;
        }
    }
    for (k, l) in chunks.into_remainder().iter_mut().enumerate() {
        let x = *l;
        let (sp, sg) = x.softplus_sigmoid();
        part[k] += sp - base * x;
        *l = (sg - base) * scale;
    }
    part.iter().map(|v| v.to_f64()).sum::<f64>()
}

/// Softmax cross-entropy over all `N` entities against label-smoothed 1-N targets, fused with
/// its gradient (LibKGE's "1vsAll"/"KvsAll" training with its KL/cross-entropy loss, Ruffinelli
/// et al., ICLR 2020; PyKEEN's `CrossEntropyLoss` with label smoothing). Per example with
/// logits `l` (N) and positives `T`:
///
/// * target `y = (1 - eps) * [j in T] / |T| + eps / N` (sums to 1; eps = 0: no smoothing);
/// * loss `logsumexp(l) - sum_j y_j l_j` (= `-sum_j y_j log softmax(l)_j`);
/// * gradient `softmax(l) - y`.
///
/// Reduction: the **mean over the batch's B examples** (BCE's is over `B x N`), so `logits`
/// becomes `(softmax(l) - y) / B`. An example without tails keeps only the smoothing mass
/// (`y = eps / N`, summing to eps): loss `eps * logsumexp(l) - eps / N * sum l`. Tails are
/// taken as listed, as [`bce_fused`] takes them: a tail listed twice counts twice (weight
/// `2 (1 - eps) / |T|`, `|T|` counting both). Stable for any finite logits: the row maximum is
/// subtracted before the exponentials. The target stays sparse (no dense `y`).
pub fn softmax_fused<'a, T: Real, F>(
    logits: &mut [T],
    b: usize,
    n: usize,
    eps: f64,
    tails: F,
    row_loss: &mut [f64],
) -> f64
where
    F: Fn(usize) -> &'a [u32] + Sync,
{
    if b == 0 || n == 0 {
        return 0.0;
    }
    let scale = 1.0 / b as f64;
    let smooth = eps / n as f64;
    logits[..b * n]
        .par_chunks_mut(n)
        .zip(row_loss[..b].par_iter_mut())
        .enumerate()
        .for_each(|(i, (row, rl))| {
            let ts = tails(i);
            let (pos_w, mass) = if ts.is_empty() {
                (0.0, eps)
            } else {
                ((1.0 - eps) / ts.len() as f64, 1.0)
            };
            let pos_sum = ts.iter().map(|&t| row[t as usize].to_f64()).sum::<f64>();
            let (max, sum_l) = max_and_sum(row);
            // row <- exp(l - max); s >= 1 (the maximum's own term).
            let s = exp_shifted(row, max);
            let lse = max.to_f64() + s.ln();
            *rl = mass * lse - pos_w * pos_sum - smooth * sum_l;
            affine(
                row,
                T::from_f64(mass / s * scale),
                T::from_f64(smooth * scale),
            );
            let pos = T::from_f64(pos_w * scale);
            for &t in ts {
                row[t as usize] -= pos;
            }
        });
    row_loss[..b].iter().sum::<f64>() / b as f64
}

/// Elements per block whose sixteen `T` partial sums are added to an f64 total: blocks keep the
/// f32 rounding of a long row's sums to that of 64 terms per lane.
const SUM_BLOCK: usize = 1024;

multiversion!(pub(super) fn max_and_sum<T>(row: &[T]) -> (T, f64) => max_and_sum_body);
multiversion!(pub(super) fn exp_shifted<T>(row: &mut [T], max: T) -> f64 => exp_shifted_body);
multiversion!(pub(super) fn affine<T>(row: &mut [T], a: T, c: T) => affine_body);

/// The row's maximum and the (blocked) sum of its elements.
#[inline(always)]
fn max_and_sum_body<T: Real>(row: &[T]) -> (T, f64) {
    let mut hi = [row[0]; 16];
    let mut total = 0.0;
    for block in row.chunks(SUM_BLOCK) {
        let mut part = [T::ZERO; 16];
        let mut chunks = block.chunks_exact(16);
        for c in &mut chunks {
            for k in 0..16 {
                hi[k] = hi[k].max(c[k]);
                part[k] += c[k];
            }
        }
        for (k, &x) in chunks.remainder().iter().enumerate() {
            hi[k] = hi[k].max(x);
            part[k] += x;
        }
        total += part.iter().map(|v| v.to_f64()).sum::<f64>();
    }
    (hi.iter().fold(hi[0], |m, &v| m.max(v)), total)
}

/// Overwrites `l` by `exp(l - max)` and returns the (blocked) sum of those.
#[inline(always)]
fn exp_shifted_body<T: Real>(row: &mut [T], max: T) -> f64 {
    let mut total = 0.0;
    for block in row.chunks_mut(SUM_BLOCK) {
        let mut part = [T::ZERO; 16];
        let mut chunks = block.chunks_exact_mut(16);
        for c in &mut chunks {
            for k in 0..16 {
                let e = (c[k] - max).exp_nonpositive();
                part[k] += e;
                c[k] = e;
            }
        }
        for (k, l) in chunks.into_remainder().iter_mut().enumerate() {
            let e = (*l - max).exp_nonpositive();
            part[k] += e;
            *l = e;
        }
        total += part.iter().map(|v| v.to_f64()).sum::<f64>();
    }
    total
}

/// `l <- l * a - c`.
#[inline(always)]
fn affine_body<T: Real>(row: &mut [T], a: T, c: T) {
    for l in row.iter_mut() {
        *l = *l * a - c;
    }
}
