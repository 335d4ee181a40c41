//! Adam on the device: one fused pass per tensor, as `neptune_core::adam::Adam::step` (PyTorch
//! semantics: betas 0.9 / 0.999, eps 1e-8 added after the bias-corrected square root, no weight
//! decay).

use crate::buffer::Tensor;
use crate::kernel::{grid, Arg, Recorder};
use neptune_core::adam::{BETA1, BETA2, EPS};

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
    // As Adam::step: the CPU takes `step as i32` for powi.
    let t = t as i32;
    let bc1 = 1.0 - BETA1.powi(t);
    let bc2 = 1.0 - BETA2.powi(t);
    let step_size = (lr / bc1) as f32;
    let inv_sqrt_bc2 = (1.0 / bc2.sqrt()) as f32;
    let (b1, b2, eps) = (BETA1 as f32, BETA2 as f32, EPS as f32);
    let (c1, c2) = (1.0 - b1, 1.0 - b2);
    let args = [
        Arg::U(u32::try_from(n).expect("element count fits in u32")),
        Arg::F(b1),
        Arg::F(b2),
        Arg::F(c1),
        Arg::F(c2),
        Arg::F(step_size),
        Arg::F(inv_sqrt_bc2),
        Arg::F(eps),
    ];
    rec.dispatch(SRC, "adam_step", &args, &[p, m, v, g], grid(n, WG));
}
