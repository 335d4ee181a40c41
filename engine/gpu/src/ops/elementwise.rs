//! Elementwise and row kernels: fill, row gather / scatter / scatter-add, dropout with the
//! CPU's regenerated masks, and the (P/Leaky)ReLU activation forward and backward. Matches
//! `neptune_core::kernels::elementwise` and the row moves of `neptune_core::net`.

use crate::buffer::Tensor;
use crate::kernel::{grid, Arg, Recorder};
use crate::mask::DeviceMask;

const SRC: &str = concat!(
    include_str!("../shaders/mask.wgsl"),
    include_str!("../shaders/elementwise.wgsl")
);

/// Threads per workgroup of the 1-D kernels (`WG` in the shader).
const WG: u32 = 64;

/// Element counts are u32 on the device.
fn count(n: usize) -> u32 {
    u32::try_from(n).expect("element count fits in u32")
}

/// `t[0..n] = value`.
pub fn fill(rec: &mut Recorder, t: &Tensor, n: usize, value: f32) {
    assert!(t.len >= n);
    if n == 0 {
        return;
    }
    let args = [Arg::U(count(n)), Arg::F(value)];
    rec.dispatch(SRC, "fill", &args, &[t], grid(n, WG));
}

/// `dst (rows x cols)[i, j] = src[idx[i], j]`; `idx` holds `rows` u32 row numbers of `src`.
pub fn gather_rows(
    rec: &mut Recorder,
    src: &Tensor,
    idx: &Tensor,
    rows: usize,
    cols: usize,
    dst: &Tensor,
) {
    assert!(idx.len >= rows && dst.len >= rows * cols);
    if rows == 0 || cols == 0 {
        return;
    }
    let args = [Arg::U(count(rows)), Arg::U(count(cols))];
    // The shader computes rows * cols in u32.
    let n = count(rows * cols) as usize;
    rec.dispatch(SRC, "gather_rows", &args, &[src, idx, dst], grid(n, WG));
}

/// `dst[idx[i], j] = src (rows x cols)[i, j]`; `idx` holds `rows` distinct u32 row numbers of
/// `dst` (the other rows of `dst` are untouched).
pub fn scatter_rows(
    rec: &mut Recorder,
    src: &Tensor,
    idx: &Tensor,
    rows: usize,
    cols: usize,
    dst: &Tensor,
) {
    assert!(idx.len >= rows && src.len >= rows * cols);
    if rows == 0 || cols == 0 {
        return;
    }
    let args = [Arg::U(count(rows)), Arg::U(count(cols))];
    // The shader computes rows * cols in u32.
    let n = count(rows * cols) as usize;
    rec.dispatch(SRC, "scatter_rows", &args, &[src, idx, dst], grid(n, WG));
}

/// For each `k < h`: `dst[targets[k], j] += src[m, j]` for `m` in
/// `members[off[k]..off[k + 1]]`, in that order (`cols` columns). `targets` (h, u32) are
/// distinct rows of `dst`; `off` (h + 1, u32) delimits each target's members (u32 rows of
/// `src`). One thread per `(k, j)`: deterministic, no atomics. This is E's gradient at the
/// batch's heads, which may repeat.
#[allow(clippy::too_many_arguments)]
pub fn scatter_add_rows(
    rec: &mut Recorder,
    src: &Tensor,
    targets: &Tensor,
    off: &Tensor,
    members: &Tensor,
    h: usize,
    cols: usize,
    dst: &Tensor,
) {
    assert!(targets.len >= h && off.len > h);
    if h == 0 || cols == 0 {
        return;
    }
    let args = [Arg::U(count(h)), Arg::U(count(cols))];
    // The shader computes h * cols in u32.
    let n = count(h * cols) as usize;
    let bufs = [src, targets, off, members, dst];
    rec.dispatch(SRC, "scatter_add_rows", &args, &bufs, grid(n, WG));
}

/// The uniform of the dropout kernels.
fn drop_args(rows: usize, cols: usize, mask: &DeviceMask) -> [Arg; 4] {
    assert!(
        mask.row_keys.len >= rows,
        "mask of {} rows for {rows}",
        mask.row_keys.len
    );
    [
        Arg::U(count(rows)),
        Arg::U(count(cols)),
        Arg::U(mask.threshold),
        Arg::F(mask.scale),
    ]
}

/// `dst (rows x cols)[i, j] = src[i, j] * (keep(i, j) ? scale : 0)` with `mask`'s row `i`:
/// bit-identical to `neptune_core::kernels::elementwise::dropout_copy`.
pub fn dropout_copy(
    rec: &mut Recorder,
    src: &Tensor,
    dst: &Tensor,
    rows: usize,
    cols: usize,
    mask: &DeviceMask,
) {
    assert!(src.len >= rows * cols && dst.len >= rows * cols);
    if rows == 0 || cols == 0 {
        return;
    }
    let args = drop_args(rows, cols, mask);
    let bufs = [src, &mask.row_keys, dst];
    rec.dispatch(SRC, "dropout_copy", &args, &bufs, grid(rows * cols, WG));
}

/// In place `x (rows x cols)[i, j] *= keep(i, j) ? scale : 0`: as
/// `neptune_core::kernels::elementwise::dropout_inplace`.
pub fn dropout_inplace(
    rec: &mut Recorder,
    x: &Tensor,
    rows: usize,
    cols: usize,
    mask: &DeviceMask,
) {
    assert!(x.len >= rows * cols);
    if rows == 0 || cols == 0 {
        return;
    }
    let args = drop_args(rows, cols, mask);
    let bufs = [x, &mask.row_keys];
    rec.dispatch(SRC, "dropout_inplace", &args, &bufs, grid(rows * cols, WG));
}

/// `out[i] = z[i] > 0 ? z[i] : slope[0] * z[i]` for `i < n`; `slope` has one element.
pub fn act_forward(rec: &mut Recorder, z: &Tensor, slope: &Tensor, out: &Tensor, n: usize) {
    assert!(z.len >= n && out.len >= n && slope.len >= 1);
    if n == 0 {
        return;
    }
    let args = [Arg::U(count(n))];
    rec.dispatch(SRC, "act_forward", &args, &[z, slope, out], grid(n, WG));
}

/// Backward of [`act_forward`] over `n` elements: `dslope[0] = sum over z <= 0 of g * z` (with
/// the incoming `g`), then in place `g *= z > 0 ? 1 : slope[0]`. Two dispatches, the reduction
/// first so it reads `g` before the update; the sum has a fixed order (256 strided partial
/// sums, then a fixed tree), so it is deterministic but not the CPU's sequential order.
/// `dslope[0]` is written (0 when `n == 0`), not accumulated.
pub fn act_backward(
    rec: &mut Recorder,
    z: &Tensor,
    slope: &Tensor,
    g: &Tensor,
    n: usize,
    dslope: &Tensor,
) {
    assert!(z.len >= n && g.len >= n && slope.len >= 1 && dslope.len >= 1);
    let args = [Arg::U(count(n))];
    rec.dispatch(SRC, "act_dslope", &args, &[z, g, dslope], [1, 1, 1]);
    if n == 0 {
        return;
    }
    rec.dispatch(SRC, "act_grad", &args, &[z, slope, g], grid(n, WG));
}
