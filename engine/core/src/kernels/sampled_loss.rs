//! The training losses of [`super::loss`] estimated from a sample of the entities (a sampled
//! step scores the batch's positives and a uniform sample of the others; see
//! `crate::sampled`), fused with their gradients like the exact ones.
//!
//! Columns of a row: first the `positives` entities (every tail of the batch, each standing for
//! itself), then `total - positives` entities drawn uniformly without replacement from the other
//! `N - positives`, each standing for `weight = (N - positives) / (total - positives)` of them.
//! Sums over all N entities become sums over the columns weighted so:
//!
//! * BCE: `sum_j softplus(l_j) - y'_j l_j` is estimated without bias (Horvitz-Thompson), so are
//!   its gradient and its mean over `B x N` (the same scale as the exact loss).
//! * Softmax: the partition `sum_j exp(l_j)` is estimated without bias by
//!   `sum_c weight_c exp(l_c)`, i.e. a softmax over the corrected logits `l_c + ln weight_c`
//!   (sampled softmax's logQ correction, Bengio and Senécal 2008; Jean et al. 2015); the
//!   smoothing term `eps / N sum_j l_j` is weighted like BCE's.
//!
//! When the sample holds every other entity (`weight` 1), both equal [`super::loss::bce_fused`]
//! and [`super::loss::softmax_fused`] over those columns (tests/sampled.rs checks both).

use super::loss::{affine, dense_row, exp_shifted, max_and_sum};
use crate::real::Real;
use rayon::prelude::*;

/// How a sampled step's columns stand for all `entities`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampledColumns {
    /// Columns scored per row: the positives, then the sample.
    pub total: usize,
    /// Leading columns that are the batch's positives (weight 1).
    pub positives: usize,
    /// Entities each sampled column stands for (1 when the sample is every other entity).
    pub weight: f64,
    /// Entities of the model (N of the exact loss).
    pub entities: usize,
}

/// [`super::loss::bce_fused`] over sampled columns: replaces `logits` (B x total) by the
/// gradient of the estimated loss and returns the estimated mean over `B x N`. `tails(b)` are
/// column positions below `cols.positives`.
pub fn sampled_bce_fused<'a, T: Real, F>(
    logits: &mut [T],
    b: usize,
    cols: SampledColumns,
    eps: f64,
    tails: F,
    row_loss: &mut [f64],
) -> f64
where
    F: Fn(usize) -> &'a [u32] + Sync,
{
    let (m, n) = (cols.total, cols.entities);
    if b == 0 || m == 0 {
        return 0.0;
    }
    let base = T::from_f64(1.0 / n as f64);
    let scale = 1.0 / (b as f64 * n as f64);
    let (w, t_scale) = (cols.weight, T::from_f64(scale));
    let sample_scale = T::from_f64(scale * w);
    logits[..b * m]
        .par_chunks_mut(m)
        .zip(row_loss[..b].par_iter_mut())
        .enumerate()
        .for_each(|(i, (row, rl))| {
            let ts = tails(i);
            let pos_sum = ts.iter().map(|&t| row[t as usize].to_f64()).sum::<f64>();
            let (positives, sample) = row.split_at_mut(cols.positives);
            *rl = dense_row(positives, base, t_scale) + w * dense_row(sample, base, sample_scale)
                - (1.0 - eps) * pos_sum;
            let pos = T::from_f64((1.0 - eps) * scale);
            for &t in ts {
                row[t as usize] -= pos;
            }
        });
    row_loss[..b].iter().sum::<f64>() / (b as f64 * n as f64)
}

/// [`super::loss::softmax_fused`] over sampled columns (the partition estimated through the
/// corrected logits): replaces `logits` (B x total) by the gradient of the estimated loss and
/// returns its mean over the batch. `tails(b)` are column positions below `cols.positives`.
pub fn sampled_softmax_fused<'a, T: Real, F>(
    logits: &mut [T],
    b: usize,
    cols: SampledColumns,
    eps: f64,
    tails: F,
    row_loss: &mut [f64],
) -> f64
where
    F: Fn(usize) -> &'a [u32] + Sync,
{
    let (m, n) = (cols.total, cols.entities);
    if b == 0 || m == 0 {
        return 0.0;
    }
    let scale = 1.0 / b as f64;
    let smooth = eps / n as f64;
    let w = cols.weight;
    let ln_w = T::from_f64(w.ln());
    logits[..b * m]
        .par_chunks_mut(m)
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
            let (positives, sample) = row.split_at_mut(cols.positives);
            let segment = |s: &[T]| (!s.is_empty()).then(|| max_and_sum(s));
            let (p_stats, s_stats) = (segment(positives), segment(sample));
            // The largest corrected logit: the sample's are shifted by ln(weight).
            let max = match (p_stats, s_stats) {
                (Some((a, _)), Some((c, _))) => a.max(c + ln_w),
                (Some((a, _)), None) => a,
                (None, Some((c, _))) => c + ln_w,
                (None, None) => unreachable!("a row has at least one column"),
            };
            let sum_p = p_stats.map_or(0.0, |(_, s)| s);
            let sum_s = s_stats.map_or(0.0, |(_, s)| s);
            // Segments become exp(corrected - max); z >= 1 (the maximum's own term), up to the
            // rounding of `max - ln_w`.
            let z = exp_shifted(positives, max) + exp_shifted(sample, max - ln_w);
            let lse = max.to_f64() + z.ln();
            *rl = mass * lse - pos_w * pos_sum - smooth * (sum_p + w * sum_s);
            let a = T::from_f64(mass / z * scale);
            affine(positives, a, T::from_f64(smooth * scale));
            affine(sample, a, T::from_f64(w * smooth * scale));
            let pos = T::from_f64(pos_w * scale);
            for &t in ts {
                row[t as usize] -= pos;
            }
        });
    row_loss[..b].iter().sum::<f64>() / b as f64
}
