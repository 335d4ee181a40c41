//! General matrix product on the device (all six of the model's products).

use crate::buffer::Tensor;
use crate::kernel::{grid, Arg, Recorder};

const SRC: &str = include_str!("../shaders/gemm.wgsl");

/// One operand: a row-major matrix and whether it is used transposed.
#[derive(Clone, Copy)]
pub struct Operand<'a> {
    pub t: &'a Tensor,
    pub transposed: bool,
}

/// Workgroups a product should keep busy: a large GPU runs a few hundred at once.
const TARGET_WORKGROUPS: usize = 256;
/// The shortest stretch of k one split workgroup sums.
const MIN_K_CHUNK: usize = 256;

/// How many slices to split k into: enough workgroups for the device, each summing at least
/// [`MIN_K_CHUNK`] of k (products with few output tiles and a long k: `dL · E`, `dA · W^T`).
fn k_splits(tiles: usize, k: usize) -> usize {
    (TARGET_WORKGROUPS / tiles.max(1))
        .min(k / MIN_K_CHUNK)
        .clamp(1, 65535)
}

/// `c (m x n) = op(a) · op(b)`, plus `c`'s old value when `accumulate`; `k` is the inner size.
#[allow(clippy::too_many_arguments)]
pub fn gemm(
    rec: &mut Recorder,
    c: &Tensor,
    a: Operand,
    b: Operand,
    m: usize,
    n: usize,
    k: usize,
    accumulate: bool,
) {
    assert!(a.t.len >= m * k && b.t.len >= k * n && c.len >= m * n);
    if m == 0 || n == 0 {
        return;
    }
    let tiles = n.div_ceil(64) * m.div_ceil(64);
    let split = k_splits(tiles, k);
    // Whole tiles of 16 per slice, so slices never share a step of the k loop.
    let k_chunk = k.div_ceil(split).next_multiple_of(16);
    let split = k.div_ceil(k_chunk).max(1);
    let args = [
        Arg::U(m as u32),
        Arg::U(n as u32),
        Arg::U(k as u32),
        Arg::U(a.transposed as u32),
        Arg::U(b.transposed as u32),
        Arg::U(accumulate as u32),
        Arg::U(k_chunk as u32),
        Arg::U(split as u32),
    ];
    let groups = [n.div_ceil(64) as u32, m.div_ceil(64) as u32, split as u32];
    if split == 1 {
        rec.dispatch(SRC, "gemm", &args, &[a.t, b.t, c], groups);
        return;
    }
    let parts = rec.scratch(split * m * n);
    rec.dispatch(SRC, "gemm", &args, &[a.t, b.t, &parts], groups);
    let reduce = [
        Arg::U((m * n) as u32),
        Arg::U(split as u32),
        Arg::U(accumulate as u32),
    ];
    rec.dispatch(SRC, "reduce", &reduce, &[&parts, c], grid(m * n, 64));
}
