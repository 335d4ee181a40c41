//! General matrix product on the device (all six of the model's products).

use crate::buffer::Tensor;
use crate::kernel::{Arg, Recorder};

const SRC: &str = include_str!("../shaders/gemm.wgsl");

/// One operand: a row-major matrix and whether it is used transposed.
#[derive(Clone, Copy)]
pub struct Operand<'a> {
    pub t: &'a Tensor,
    pub transposed: bool,
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
    let args = [
        Arg::U(m as u32),
        Arg::U(n as u32),
        Arg::U(k as u32),
        Arg::U(a.transposed as u32),
        Arg::U(b.transposed as u32),
        Arg::U(accumulate as u32),
    ];
    let groups = [n.div_ceil(64) as u32, m.div_ceil(64) as u32, 1];
    rec.dispatch(SRC, "gemm", &args, &[a.t, b.t, c], groups);
}
