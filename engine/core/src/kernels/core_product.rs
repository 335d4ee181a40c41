//! The per-example product `y_b = x_b · dropout_h1(A_{r_b})`, where `A_u` (d_e x d_e) is computed
//! once per distinct relation `u` of the batch. The dropout mask of example `b`, row `i` is
//! regenerated from the counter RNG (mask row id `b * d_e + i`), so the `B x d_e x d_e` masked
//! tensor is never materialised.

use super::SyncPtr;
use crate::real::Real;
use crate::rng::Mask;
use rayon::prelude::*;

/// Forward. `x` (B x D), `a` (U x D x D), `group[b]` = index `u` of example `b`'s relation.
/// Writes `y` (B x D). `scale = 1 / (1 - p_h1)`.
pub fn forward<T: Real>(x: &[T], a: &[T], group: &[u32], d: usize, mask: &Mask, scale: T, y: &mut [T]) {
    let b = group.len();
    y[..b * d].par_chunks_mut(d).enumerate().for_each(|(bi, yr)| {
        yr.iter_mut().for_each(|v| *v = T::ZERO);
        let au = &a[group[bi] as usize * d * d..][..d * d];
        let xr = &x[bi * d..][..d];
        for i in 0..d {
            let xi = xr[i] * scale;
            if xi == T::ZERO {
                continue;
            }
            let arow = &au[i * d..][..d];
            if mask.identity {
                for (yv, &av) in yr.iter_mut().zip(arow) {
                    *yv += xi * av;
                }
            } else {
                let rk = mask.row_key((bi * d + i) as u64);
                for (j, (yv, &av)) in yr.iter_mut().zip(arow).enumerate() {
                    let m = if mask.keep(rk, j as u32) { xi } else { T::ZERO };
                    *yv += m * av;
                }
            }
        }
    });
}

/// Backward. `dy` (B x D) in; writes `da` (U x D x D, fully overwritten) and `dx` (B x D).
/// `members[off[u]..off[u + 1]]` are the examples whose relation is `u`.
/// One task per `(u, i)` row of `da`, so every output element has exactly one writer and the
/// summation order is fixed (deterministic under any thread schedule).
#[allow(clippy::too_many_arguments)]
pub fn backward<T: Real>(
    dy: &[T],
    x: &[T],
    a: &[T],
    members: &[u32],
    off: &[usize],
    d: usize,
    mask: &Mask,
    scale: T,
    da: &mut [T],
    dx: &mut [T],
) {
    let n_u = off.len() - 1;
    let dxp = SyncPtr(dx.as_mut_ptr());
    da[..n_u * d * d].par_chunks_mut(d).enumerate().for_each(|(task, dar)| {
        let dxp = dxp;
        let (u, i) = (task / d, task % d);
        dar.iter_mut().for_each(|v| *v = T::ZERO);
        let arow = &a[u * d * d + i * d..][..d];
        for &bi in &members[off[u]..off[u + 1]] {
            let bi = bi as usize;
            let dyr = &dy[bi * d..][..d];
            let xi = x[bi * d + i] * scale;
            let mut acc = T::ZERO;
            if mask.identity {
                for j in 0..d {
                    acc += dyr[j] * arow[j];
                    dar[j] += xi * dyr[j];
                }
            } else {
                let rk = mask.row_key((bi * d + i) as u64);
                for j in 0..d {
                    let g = if mask.keep(rk, j as u32) { dyr[j] } else { T::ZERO };
                    acc += g * arow[j];
                    dar[j] += xi * g;
                }
            }
            // SAFETY: element (bi, i) is written only by task (u(bi), i); dx has B x D elements.
            unsafe { *dxp.0.add(bi * d + i) = acc * scale };
        }
    });
}
