//! BatchNorm1d in training mode over a `B x D` row-major batch (PyTorch semantics: biased
//! batch variance to normalise, unbiased for the running estimate, eps
//! [`BN_EPS`], momentum [`BN_MOMENTUM`]), as `neptune_core::kernels::batchnorm`. One thread per
//! column looping over the rows in order: the column sums have the CPU's order.

use crate::buffer::Tensor;
use crate::kernel::{Arg, Recorder};
use neptune_core::params::{BN_EPS, BN_MOMENTUM};

const SRC: &str = include_str!("../shaders/batchnorm.wgsl");

/// Threads per workgroup (one per column).
const WG: usize = 64;

/// One thread per column: `d` is a few hundred, far below 65535 workgroups.
fn columns(d: usize) -> [u32; 3] {
    [d.div_ceil(WG) as u32, 1, 1]
}

fn u(n: usize) -> Arg {
    Arg::U(u32::try_from(n).expect("size fits in u32"))
}

/// Training forward of `x (b x d)` with `gamma`, `beta` (d): writes `xhat = (x - mean) * inv`
/// (b x d), `inv = 1 / sqrt(var + eps)` (d), `out = gamma * xhat + beta` (b x d), and the batch
/// `mean` and biased `var` (d) for [`update_running`]. Meant for `b >= 2`.
#[allow(clippy::too_many_arguments)]
pub fn forward_train(
    rec: &mut Recorder,
    gamma: &Tensor,
    beta: &Tensor,
    x: &Tensor,
    b: usize,
    d: usize,
    xhat: &Tensor,
    inv: &Tensor,
    out: &Tensor,
    mean: &Tensor,
    var: &Tensor,
) {
    assert!(gamma.len >= d && beta.len >= d && inv.len >= d && mean.len >= d && var.len >= d);
    assert!(x.len >= b * d && xhat.len >= b * d && out.len >= b * d);
    assert!(b > 0, "batchnorm of an empty batch");
    if d == 0 {
        return;
    }
    let args = [u(b), u(d), Arg::F(BN_EPS as f32)];
    let bufs = [gamma, beta, x, xhat, inv, out, mean, var];
    rec.dispatch(SRC, "bn_forward_train", &args, &bufs, columns(d));
}

/// PyTorch's running-statistics update after a training forward on `b` examples:
/// `running = (1 - 0.1) * running + 0.1 * batch`, the variance made unbiased by `b / (b - 1)`
/// (1 when `b == 1`). All tensors have `d` elements.
pub fn update_running(
    rec: &mut Recorder,
    running_mean: &Tensor,
    running_var: &Tensor,
    mean: &Tensor,
    var: &Tensor,
    b: usize,
    d: usize,
) {
    assert!(running_mean.len >= d && running_var.len >= d && mean.len >= d && var.len >= d);
    if d == 0 {
        return;
    }
    // In f64 then rounded, as the CPU's `T::from_f64`.
    let unbias = if b > 1 {
        b as f64 / (b as f64 - 1.0)
    } else {
        1.0
    };
    let args = [u(d), Arg::F(BN_MOMENTUM as f32), Arg::F(unbias as f32)];
    let bufs = [running_mean, running_var, mean, var];
    rec.dispatch(SRC, "bn_update_running", &args, &bufs, columns(d));
}

/// Training backward: `dout (b x d)` in with the forward's `xhat (b x d)` and `inv (d)`;
/// writes `dgamma = sum_b dout * xhat`, `dbeta = sum_b dout` (d, column sums in row order) and
/// `dx = gamma * inv * (dout - dbeta / b - xhat * dgamma / b)` (b x d).
#[allow(clippy::too_many_arguments)]
pub fn backward(
    rec: &mut Recorder,
    gamma: &Tensor,
    xhat: &Tensor,
    inv: &Tensor,
    dout: &Tensor,
    b: usize,
    d: usize,
    dx: &Tensor,
    dgamma: &Tensor,
    dbeta: &Tensor,
) {
    assert!(gamma.len >= d && inv.len >= d && dgamma.len >= d && dbeta.len >= d);
    assert!(xhat.len >= b * d && dout.len >= b * d && dx.len >= b * d);
    assert!(b > 0, "batchnorm of an empty batch");
    if d == 0 {
        return;
    }
    // 1 / b in f32, as the CPU's `T::ONE / T::from_f64(b)`.
    let inv_b = 1.0f32 / b as f32;
    let args = [u(b), u(d), Arg::F(inv_b)];
    let bufs = [gamma, xhat, inv, dout, dx, dgamma, dbeta];
    rec.dispatch(SRC, "bn_backward", &args, &bufs, columns(d));
}
