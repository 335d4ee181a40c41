//! Adam on the device: one fused pass per tensor, as `neptune_core::adam::Adam::step` (PyTorch
//! semantics: betas 0.9 / 0.999, eps 1e-8 added after the bias-corrected square root, no weight
//! decay), and a sampled step's row-wise updates of E ([`step_rows`], [`catch_up_rows`]).

use crate::buffer::Tensor;
use crate::kernel::{grid, Arg, Recorder};
use neptune_core::adam::{catch_up_factors, BETA1, BETA2, EPS};

const SRC: &str = include_str!("../shaders/adam.wgsl");

/// Threads per workgroup (`WG` in the shader).
const WG: u32 = 64;

/// One Adam update of the `n`-element tensor `p` with gradient `g` and moments `m`, `v` (all
/// `n`), learning rate `lr`, at step `t` (the step count after incrementing: 1 for the first
/// update). The bias corrections and constants are computed here in f64 and rounded to f32
/// exactly as the CPU does.
#[allow(clippy::too_many_arguments)]
pub fn step(
    rec: &mut Recorder,
    p: &Tensor,
    m: &Tensor,
    v: &Tensor,
    g: &Tensor,
    n: usize,
    lr: f64,
    t: u64,
) {
    assert!(p.len >= n && m.len >= n && v.len >= n && g.len >= n);
    assert!(t >= 1, "Adam step numbers start at 1");
    if n == 0 {
        return;
    }
    // The shader's `cols` is unused here.
    let mut args = vec![Arg::U(count(n)), Arg::U(0)];
    args.extend(constants(lr, t));
    rec.dispatch(SRC, "adam_step", &args, &[p, m, v, g], grid(n, WG));
}

/// `[b1, b2, 1 - b1, 1 - b2, lr / bc1, 1 / sqrt(bc2), eps]` at step `t`, computed in f64 and
/// rounded exactly as the CPU's Adam does (it takes `step as i32` for powi).
fn constants(lr: f64, t: u64) -> [Arg; 7] {
    let t = t as i32;
    let bc1 = 1.0 - BETA1.powi(t);
    let bc2 = 1.0 - BETA2.powi(t);
    let (b1, b2) = (BETA1 as f32, BETA2 as f32);
    [
        Arg::F(b1),
        Arg::F(b2),
        Arg::F(1.0 - b1),
        Arg::F(1.0 - b2),
        Arg::F((lr / bc1) as f32),
        Arg::F((1.0 / bc2.sqrt()) as f32),
        Arg::F(EPS as f32),
    ]
}

/// Element counts are u32 on the device.
fn count(n: usize) -> u32 {
    u32::try_from(n).expect("element count fits in u32")
}

/// Lazy Adam on `rows` rows of the `cols`-wide tensor `p` (and its moments): row `ids[k]` moves
/// by gradient row `k` of `g` (`rows x cols`), at step `t`; the ids are distinct. As
/// `neptune_core::adam::Adam::update_rows`.
#[allow(clippy::too_many_arguments)]
pub fn step_rows(
    rec: &mut Recorder,
    [p, m, v]: [&Tensor; 3],
    g: &Tensor,
    ids: &Tensor,
    rows: usize,
    cols: usize,
    lr: f64,
    t: u64,
) {
    assert!(g.len >= rows * cols && ids.len >= rows);
    assert!(t >= 1, "Adam step numbers start at 1");
    if rows == 0 || cols == 0 {
        return;
    }
    let mut args = vec![Arg::U(count(rows)), Arg::U(count(cols))];
    args.extend(constants(lr, t));
    let n = count(rows * cols) as usize;
    rec.dispatch(SRC, "adam_rows", &args, &[p, m, v, g, ids], grid(n, WG));
}

/// Each row's catch-up constants `[moved, beta1^s, beta2^s]` for rows that sat out `skipped`
/// steps, at optimizer step `step` (before the current update) and learning rate `lr`: as
/// `neptune_core::adam::Adam::catch_up_rows` rounds them (`moved` is the f32 product of
/// `lr / bc1` and the closed-form sum of the momentum's remaining steps).
pub fn catch_up_constants(skipped: &[u64], lr: f64, step: u64) -> Vec<f32> {
    let step_size = (lr / (1.0 - BETA1.powi(step as i32))) as f32;
    skipped
        .iter()
        .flat_map(|&s| {
            let [sum, b1s, b2s] = catch_up_factors(s);
            [step_size * sum as f32, b1s as f32, b2s as f32]
        })
        .collect()
}

/// Brings rows `ids` (distinct, `rows` of them) of the `cols`-wide tensor `p` up to date for
/// the steps they sat out, with [`catch_up_constants`]' `k` (`3 x rows`), at optimizer step
/// `step` (at least 1).
#[allow(clippy::too_many_arguments)]
pub fn catch_up_rows(
    rec: &mut Recorder,
    [p, m, v]: [&Tensor; 3],
    k: &Tensor,
    ids: &Tensor,
    rows: usize,
    cols: usize,
    step: u64,
) {
    assert!(k.len >= 3 * rows && ids.len >= rows);
    if rows == 0 || cols == 0 {
        return;
    }
    let mut args = vec![Arg::U(count(rows)), Arg::U(count(cols))];
    args.extend(constants(0.0, step));
    let n = count(rows * cols) as usize;
    rec.dispatch(SRC, "catch_up_rows", &args, &[p, m, v, k, ids], grid(n, WG));
}
