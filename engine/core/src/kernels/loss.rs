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

multiversion!(fn dense_row<T>(row: &mut [T], base: T, scale: T) -> f64 => dense_row_body);

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
