//! The training losses fused with their gradients on the device: [`bce_fused`] and
//! [`softmax_fused`] (`neptune_core::kernels::loss`'s, same formulas and reductions).
//!
//! Binary cross-entropy with logits against label-smoothed multi-hot targets, fused with its
//! gradient: `neptune_core::kernels::loss::bce_fused` on the device. Target
//! `y' = (1 - eps) * y + 1 / N`; the loss is the mean over `B x N` of `softplus(l) - y' * l`.
//! Targets stay sparse: each row's positives are listed in `tails`.
//!
//! Both also take a sampled step's columns (`neptune_core::kernels::sampled_loss`'s
//! `sampled_bce_fused` and `sampled_softmax_fused` on the device): a row then holds the batch's
//! positives and a uniform sample, each sampled column standing for `weight` entities.

use crate::buffer::Tensor;
use crate::kernel::{grid, Arg, Recorder};
pub use neptune_core::kernels::sampled_loss::SampledColumns;

const SRC: &str = include_str!("../shaders/loss.wgsl");

/// Threads per workgroup (`WG` in the shader); one workgroup per row.
const WG: u32 = 256;

/// The columns of a step that scores every one of `n` entities.
pub fn every_entity(n: usize) -> SampledColumns {
    SampledColumns {
        total: n,
        positives: n,
        weight: 1.0,
        entities: n,
    }
}

/// The shader's sampled-column fields: `split`, `w`, `ln_w`, `sample_scale`.
fn sample_args(cols: SampledColumns, sample_scale: f64) -> [Arg; 4] {
    [
        Arg::U(cols.positives as u32),
        Arg::F(cols.weight as f32),
        Arg::F(cols.weight.ln() as f32),
        Arg::F(sample_scale as f32),
    ]
}

/// Replaces `logits` (B x `cols.total`, row-major) by `d loss / d logits` and writes each row's
/// summed loss to `row_loss` (B f32); the mean loss is [`mean_loss`] of `row_loss` read back.
/// Below, N is `cols.entities`; a sampled column's terms count `cols.weight` times.
/// `tail_off` (B + 1 u32) delimits row `i`'s positives `tails[tail_off[i]..tail_off[i + 1]]`
/// (u32 columns, distinct within a row). Per row: `row_loss = sum_j (softplus(l_j) - l_j / N)
/// - (1 - eps) * sum_t l_t`, `l_j <- (sigmoid(l_j) - 1/N) / (B N)`, then
/// `l_t -= (1 - eps) / (B N)`. Each row is reduced in a fixed order (deterministic).
#[allow(clippy::too_many_arguments)]
pub fn bce_fused(
    rec: &mut Recorder,
    logits: &Tensor,
    b: usize,
    cols: SampledColumns,
    eps: f64,
    tail_off: &Tensor,
    tails: &Tensor,
    row_loss: &Tensor,
) {
    // As the CPU: base and scale computed in f64 then rounded; the tail step is the f32
    // product of the rounded (1 - eps) and scale, as `row[t] -= pos * scale` computes it.
    let n = cols.entities as f64;
    let scale64 = 1.0 / (b as f64 * n);
    let scale = scale64 as f32;
    let pos = (1.0 - eps) as f32;
    let [split, w, ln_w, sample_scale] = sample_args(cols, scale64 * cols.weight);
    let args = [
        Arg::U(b as u32),
        Arg::U(cols.total as u32),
        Arg::F((1.0 / n) as f32),
        Arg::F(scale),
        Arg::F(pos),
        Arg::F(pos * scale),
        split,
        w,
        ln_w,
        sample_scale,
    ];
    let rows = LossRows {
        logits,
        b,
        n: cols.total,
        tail_off,
        tails,
        row_loss,
    };
    dispatch_rows(rec, "bce_fused", &args, &rows);
}

/// The batch's mean loss from the rows' sums read back from [`bce_fused`]'s `row_loss`:
/// their f64 sum over `B x N`, as the CPU's `bce_fused` returns it.
pub fn mean_loss(row_loss_host: &[f32], b: usize, n: usize) -> f64 {
    assert!(row_loss_host.len() >= b);
    row_loss_host[..b].iter().map(|&v| v as f64).sum::<f64>() / (b as f64 * n as f64)
}

/// The softmax cross-entropy over all entities, `neptune_core::kernels::loss::softmax_fused`
/// on the device (N = `cols.entities`; sampled columns enter the partition by their logits
/// corrected by ln `cols.weight`, and the eps / N terms `cols.weight` times): replaces `logits`
/// (B x `cols.total`) by `(softmax(l) * mass - y) / B` with
/// `y = (1 - eps) * [j in T] / |T| + eps / N` (mass 1; eps for a row without tails) and writes
/// each row's loss `mass * logsumexp(l) - sum_j y_j l_j` to `row_loss` (B f32); the batch's
/// loss is [`softmax_mean_loss`] of it read back (the mean over the B examples). Tails as
/// [`bce_fused`]'s, except that a tail listed twice counts twice, as on the CPU.
#[allow(clippy::too_many_arguments)]
pub fn softmax_fused(
    rec: &mut Recorder,
    logits: &Tensor,
    b: usize,
    cols: SampledColumns,
    eps: f64,
    tail_off: &Tensor,
    tails: &Tensor,
    row_loss: &Tensor,
) {
    // The shader's `P` fields, read as: base = eps / N, scale = 1 / B, pos = 1 - eps,
    // pos_scale = eps.
    let smooth = eps / cols.entities as f64;
    let inv_b = 1.0 / b as f64;
    let [split, w, ln_w, sample_scale] = sample_args(cols, cols.weight * smooth * inv_b);
    let args = [
        Arg::U(b as u32),
        Arg::U(cols.total as u32),
        Arg::F(smooth as f32),
        Arg::F(inv_b as f32),
        Arg::F((1.0 - eps) as f32),
        Arg::F(eps as f32),
        split,
        w,
        ln_w,
        sample_scale,
    ];
    let rows = LossRows {
        logits,
        b,
        n: cols.total,
        tail_off,
        tails,
        row_loss,
    };
    dispatch_rows(rec, "softmax_fused", &args, &rows);
}

/// One loss kernel's buffers: B x n logits (n columns), the rows' tails and their summed losses.
struct LossRows<'a> {
    logits: &'a Tensor,
    b: usize,
    n: usize,
    tail_off: &'a Tensor,
    tails: &'a Tensor,
    row_loss: &'a Tensor,
}

/// Checks the buffers' sizes and dispatches `entry` with one workgroup of WG per row (split
/// over x and y past 65535 rows); an empty batch dispatches nothing.
fn dispatch_rows(rec: &mut Recorder, entry: &'static str, args: &[Arg], r: &LossRows) {
    let (b, n) = (r.b, r.n);
    assert!(r.logits.len >= b * n && r.tail_off.len > b && r.row_loss.len >= b);
    // Element indices are u32 on the device.
    assert!(u32::try_from(b * n).is_ok(), "{b} x {n} logits");
    if b == 0 || n == 0 {
        return;
    }
    let groups = grid(b * WG as usize, WG);
    rec.dispatch(
        SRC,
        entry,
        args,
        &[r.logits, r.tail_off, r.tails, r.row_loss],
        groups,
    );
}

/// The batch's mean loss from [`softmax_fused`]'s `row_loss` read back: their f64 sum over B.
pub fn softmax_mean_loss(row_loss_host: &[f32], b: usize) -> f64 {
    assert!(row_loss_host.len() >= b);
    row_loss_host[..b].iter().map(|&v| v as f64).sum::<f64>() / b as f64
}
