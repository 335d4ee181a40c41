//! The per-example core product `y_b = x_b · dropout_h1(A_{group[b]})` and its gradients, as
//! `neptune_core::kernels::core_product` computes them. `A` (U x D x D) holds one matrix per
//! distinct relation of the batch; the h1 dropout mask is per example (mask row id
//! `b * D + i`, column `j`), regenerated from the row keys, never stored.
//!
//! Index tensors (`group`, `members`, `member_off`) hold u32, as `net::group_relations` builds
//! them: `group[b]` is example `b`'s relation slot `u`; `members[member_off[u]..member_off[u +
//! 1]]` are the examples of slot `u`, in batch order.

use crate::buffer::Tensor;
use crate::kernel::{grid, Arg, Recorder};
use crate::mask::DeviceMask;

const SRC: &str = concat!(
    include_str!("../shaders/mask.wgsl"),
    include_str!("../shaders/core_product.wgsl")
);

/// Threads per workgroup of the 1-D kernels (`WG` in the shader).
const WG: u32 = 256;
/// Rows `i` of `dx` per workgroup of `backward_dx` (`DXR` in the shader; 256 threads each).
const DX_ROWS: usize = 16;

/// Element counts are u32 on the device.
fn count(n: usize) -> u32 {
    u32::try_from(n).expect("element count fits in u32")
}

/// The uniform shared by the three kernels: `rows` is B, or U for `backward_da`.
fn args(rows: usize, d: usize, mask: &DeviceMask) -> [Arg; 4] {
    [
        Arg::U(count(rows)),
        Arg::U(count(d)),
        Arg::U(mask.threshold),
        Arg::F(mask.scale),
    ]
}

/// Forward: `y (B x D)[b, j] = sum_i x[b, i] * m(b, i, j) * a[group[b], i, j]`, summed over `i`
/// in order. `x` is B x D, `a` U x D x D (any U covering `group`), `group` B u32, `mask` has
/// at least `B * D` rows. One thread per `(b, j)`.
#[allow(clippy::too_many_arguments)]
pub fn forward(
    rec: &mut Recorder,
    x: &Tensor,
    a: &Tensor,
    group: &Tensor,
    b: usize,
    d: usize,
    mask: &DeviceMask,
    y: &Tensor,
) {
    assert!(x.len >= b * d && y.len >= b * d && group.len >= b);
    assert!(
        mask.row_keys.len >= b * d,
        "mask of {} rows for {}",
        mask.row_keys.len,
        b * d
    );
    if b == 0 || d == 0 {
        return;
    }
    let n = count(b * d) as usize;
    let bufs = [x, a, group, &mask.row_keys, y];
    rec.dispatch(SRC, "forward", &args(b, d, mask), &bufs, grid(n, WG));
}

/// Gradient of `A`: `da (U x D x D)[u, i, j] = sum_b x[b, i] * m(b, i, j) * dy[b, j]` over the
/// examples `b` in `members[member_off[u]..member_off[u + 1]]`, in that order. `dy` and `x`
/// are B x D, `members` B u32, `member_off` `n_u + 1` u32; `da[..n_u * D * D]` is fully
/// overwritten. One thread per `(u, i, j)`.
#[allow(clippy::too_many_arguments)]
pub fn backward_da(
    rec: &mut Recorder,
    dy: &Tensor,
    x: &Tensor,
    members: &Tensor,
    member_off: &Tensor,
    n_u: usize,
    d: usize,
    mask: &DeviceMask,
    da: &Tensor,
) {
    // B is not an argument (buffers may be sized for a larger batch): only the sizes known
    // here are checked; `dy`, `x` and the mask must cover the rows of the listed examples.
    assert!(member_off.len > n_u && da.len >= n_u * d * d);
    if n_u == 0 || d == 0 {
        return;
    }
    let n = count(n_u * d * d) as usize;
    let bufs = [dy, x, members, member_off, &mask.row_keys, da];
    rec.dispatch(SRC, "backward_da", &args(n_u, d, mask), &bufs, grid(n, WG));
}

/// Gradient of `x`: `dx (B x D)[b, i] = sum_j a[group[b], i, j] * m(b, i, j) * dy[b, j]`.
/// `dy` is B x D, `a` U x D x D, `group` B u32. One workgroup per `(b, block of 16 rows i)`:
/// 16 lanes take strided columns `j`, then a fixed tree adds the lanes (deterministic).
#[allow(clippy::too_many_arguments)]
pub fn backward_dx(
    rec: &mut Recorder,
    dy: &Tensor,
    a: &Tensor,
    group: &Tensor,
    b: usize,
    d: usize,
    mask: &DeviceMask,
    dx: &Tensor,
) {
    assert!(dy.len >= b * d && dx.len >= b * d && group.len >= b);
    assert!(
        mask.row_keys.len >= b * d,
        "mask of {} rows for {}",
        mask.row_keys.len,
        b * d
    );
    if b == 0 || d == 0 {
        return;
    }
    // `grid` counts threads: one workgroup of WG per block.
    let blocks = b * d.div_ceil(DX_ROWS);
    let groups = grid(count(blocks * WG as usize) as usize, WG);
    let bufs = [dy, a, group, &mask.row_keys, dx];
    rec.dispatch(SRC, "backward_dx", &args(b, d, mask), &bufs, groups);
}
