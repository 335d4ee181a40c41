//! Binary cross-entropy with logits against label-smoothed multi-hot targets, fused with its
//! gradient. Target `y' = (1 - eps) * y + 1 / N`; the loss is the mean over `B x N` of
//! `softplus(l) - y' * l` (= BCE(sigmoid(l), y') without overflow for any finite l).
//! Targets stay sparse: the dense `1/N` part is folded into the pass over the logits and the
//! `(1 - eps)` part is applied at each example's tails.

use crate::real::{sigmoid, softplus, Real};
use rayon::prelude::*;

/// Replaces `logits` (B x N, row-major) by `d loss / d logits` and returns the mean loss.
/// `tails(b)` are the (deduplicated) positive entities of example `b`.
pub fn bce_fused<'a, T: Real, F>(logits: &mut [T], b: usize, n: usize, eps: f64, tails: F, row_loss: &mut [f64]) -> f64
where
    F: Fn(usize) -> &'a [u32] + Sync,
{
    let base = T::from_f64(1.0 / n as f64);
    let pos = T::from_f64(1.0 - eps);
    let scale = T::from_f64(1.0 / (b as f64 * n as f64));
    logits[..b * n].par_chunks_mut(n).zip(row_loss[..b].par_iter_mut()).enumerate().for_each(|(i, (row, rl))| {
        let ts = tails(i);
        // Positive part of the loss, -(1 - eps) * l[t], read before the row is overwritten.
        let mut acc = -(1.0 - eps) * ts.iter().map(|&t| row[t as usize].to_f64()).sum::<f64>();
        for l in row.iter_mut() {
            let x = *l;
            acc += (softplus(x) - base * x).to_f64();
            *l = (sigmoid(x) - base) * scale;
        }
        for &t in ts {
            row[t as usize] -= pos * scale;
        }
        *rl = acc;
    });
    row_loss[..b].iter().sum::<f64>() / (b as f64 * n as f64)
}
