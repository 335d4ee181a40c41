//! BatchNorm1d over a `B x D` row-major batch, as PyTorch: biased batch variance to normalise,
//! unbiased variance for the running estimate, eps 1e-5, momentum 0.1.

use crate::params::{BatchNorm, BN_EPS, BN_MOMENTUM};
use crate::real::Real;

/// Training mode. Writes `xhat = (x - mean) * inv` (B x D, kept for backward), `inv` (D),
/// `out = gamma * xhat + beta` (B x D), and the batch `mean` and biased `var` (D) for
/// [`update_running`]. Meant for `b >= 2` (the trainer guarantees it; with `b == 1` every
/// output is `beta`, as the variance is 0).
#[allow(clippy::too_many_arguments)]
pub fn forward_train<T: Real>(
    bn: &BatchNorm<T>,
    x: &[T],
    b: usize,
    d: usize,
    xhat: &mut [T],
    inv: &mut [T],
    out: &mut [T],
    mean: &mut [T],
    var: &mut [T],
) {
    let bf = T::from_f64(b as f64);
    mean[..d].iter_mut().for_each(|m| *m = T::ZERO);
    for row in x[..b * d].chunks_exact(d) {
        for (m, &v) in mean[..d].iter_mut().zip(row) {
            *m += v;
        }
    }
    mean[..d].iter_mut().for_each(|m| *m = *m / bf);
    // inv temporarily holds the biased variance.
    inv[..d].iter_mut().for_each(|v| *v = T::ZERO);
    for row in x[..b * d].chunks_exact(d) {
        for ((v, &xv), &m) in inv[..d].iter_mut().zip(row).zip(&mean[..d]) {
            let c = xv - m;
            *v += c * c;
        }
    }
    let eps = T::from_f64(BN_EPS);
    for j in 0..d {
        var[j] = inv[j] / bf;
        inv[j] = T::ONE / (var[j] + eps).sqrt();
    }
    for ((xr, hr), or) in x[..b * d]
        .chunks_exact(d)
        .zip(xhat.chunks_exact_mut(d))
        .zip(out.chunks_exact_mut(d))
    {
        for j in 0..d {
            let h = (xr[j] - mean[j]) * inv[j];
            hr[j] = h;
            or[j] = bn.gamma[j] * h + bn.beta[j];
        }
    }
}

/// PyTorch's running-statistics update after a training forward on `b` examples: momentum 0.1,
/// unbiased variance.
pub fn update_running<T: Real>(bn: &mut BatchNorm<T>, mean: &[T], var: &[T], b: usize) {
    let mom = T::from_f64(BN_MOMENTUM);
    // b == 1 has no unbiased variance; PyTorch refuses that batch, we keep the biased one.
    let unbias = T::from_f64(if b > 1 {
        b as f64 / (b as f64 - 1.0)
    } else {
        1.0
    });
    for j in 0..bn.gamma.len() {
        bn.running_mean[j] = (T::ONE - mom) * bn.running_mean[j] + mom * mean[j];
        bn.running_var[j] = (T::ONE - mom) * bn.running_var[j] + mom * var[j] * unbias;
    }
}

/// Evaluation mode: running statistics, no update.
pub fn forward_eval<T: Real>(bn: &BatchNorm<T>, x: &[T], b: usize, d: usize, out: &mut [T]) {
    let eps = T::from_f64(BN_EPS);
    for (xr, or) in x[..b * d].chunks_exact(d).zip(out.chunks_exact_mut(d)) {
        for j in 0..d {
            let inv = T::ONE / (bn.running_var[j] + eps).sqrt();
            or[j] = bn.gamma[j] * (xr[j] - bn.running_mean[j]) * inv + bn.beta[j];
        }
    }
}

/// Backward of training mode. `dout` (B x D) in, `dx` (B x D) out; writes `dgamma`, `dbeta` (D).
/// `dx = gamma * inv * (dout - mean_b(dout) - xhat * mean_b(dout * xhat))`.
#[allow(clippy::too_many_arguments)] // inputs, saved statistics and three outputs
pub fn backward<T: Real>(
    gamma: &[T],
    xhat: &[T],
    inv: &[T],
    dout: &[T],
    b: usize,
    d: usize,
    dx: &mut [T],
    dgamma: &mut [T],
    dbeta: &mut [T],
) {
    dgamma[..d].iter_mut().for_each(|v| *v = T::ZERO);
    dbeta[..d].iter_mut().for_each(|v| *v = T::ZERO);
    for (gr, hr) in dout[..b * d].chunks_exact(d).zip(xhat.chunks_exact(d)) {
        for j in 0..d {
            dgamma[j] += gr[j] * hr[j];
            dbeta[j] += gr[j];
        }
    }
    let inv_b = T::ONE / T::from_f64(b as f64);
    for ((gr, hr), dr) in dout[..b * d]
        .chunks_exact(d)
        .zip(xhat.chunks_exact(d))
        .zip(dx.chunks_exact_mut(d))
    {
        for j in 0..d {
            dr[j] = gamma[j] * inv[j] * (gr[j] - dbeta[j] * inv_b - hr[j] * dgamma[j] * inv_b);
        }
    }
}
