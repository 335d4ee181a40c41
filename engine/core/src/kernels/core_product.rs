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
pub fn forward<T: Real>(
    x: &[T],
    a: &[T],
    group: &[u32],
    d: usize,
    mask: &Mask,
    scale: T,
    y: &mut [T],
) {
    let b = group.len();
    y[..b * d]
        .par_chunks_mut(d)
        .enumerate()
        .for_each(|(bi, yr)| {
            let au = &a[group[bi] as usize * d * d..][..d * d];
            fwd_row(&x[bi * d..][..d], au, bi, mask, scale, yr);
        });
}

/// `yr = xr · au` for one example without dropout (`au`: D x D), as the eval-mode forward
/// computes it; used by the cached-core scoring path.
pub fn row_times_matrix<T: Real>(xr: &[T], au: &[T], yr: &mut [T]) {
    let identity = Mask::new(0, 0, crate::rng::Stream::Hidden1, 0.0);
    fwd_row(xr, au, 0, &identity, T::ONE, yr);
}

multiversion!(fn fwd_row<T>(xr: &[T], au: &[T], bi: usize, mask: &Mask, scale: T, yr: &mut [T]) => fwd_row_body);

#[inline(always)]
fn fwd_row_body<T: Real>(xr: &[T], au: &[T], bi: usize, mask: &Mask, scale: T, yr: &mut [T]) {
    let d = xr.len();
    yr.iter_mut().for_each(|v| *v = T::ZERO);
    for i in 0..d {
        let xi = xr[i] * scale;
        if xi == T::ZERO {
            continue;
        }
        let arow = &au[i * d..][..d];
        if mask.identity {
            for j in 0..d {
                yr[j] += xi * arow[j];
            }
        } else {
            let rk = mask.row_key((bi * d + i) as u64);
            for j in 0..d {
                let m = if mask.keep(rk, j as u32) { xi } else { T::ZERO };
                yr[j] += m * arow[j];
            }
        }
    }
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
    da[..n_u * d * d]
        .par_chunks_mut(d)
        .enumerate()
        .with_min_len(16)
        .for_each(|(task, dar)| {
            // Moves the Send wrapper, not its raw-pointer field (see linalg::matmul).
            #[allow(clippy::redundant_locals)]
            let dxp = dxp;
            let (u, i) = (task / d, task % d);
            let arow = &a[u * d * d + i * d..][..d];
            bwd_task(
                dy,
                x,
                arow,
                &members[off[u]..off[u + 1]],
                i,
                mask,
                scale,
                dar,
                dxp.0,
            );
        });
}

multiversion!(fn bwd_task<T>(dy: &[T], x: &[T], arow: &[T], members: &[u32], i: usize, mask: &Mask, scale: T, dar: &mut [T], dx: *mut T) => bwd_task_body);

#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn bwd_task_body<T: Real>(
    dy: &[T],
    x: &[T],
    arow: &[T],
    members: &[u32],
    i: usize,
    mask: &Mask,
    scale: T,
    dar: &mut [T],
    dx: *mut T,
) {
    let d = arow.len();
    dar.iter_mut().for_each(|v| *v = T::ZERO);
    for &bi in members {
        let bi = bi as usize;
        let dyr = &dy[bi * d..][..d];
        let xi = x[bi * d + i] * scale;
        // Eight partial sums: a single running sum would serialise the loop.
        let mut part = [T::ZERO; 8];
        let rk = mask.row_key((bi * d + i) as u64);
        // Blocks of 64: first the masked gradient row (vectorised hashing), then the two FMAs.
        let mut j0 = 0;
        while j0 < d {
            let len = (d - j0).min(64);
            let mut gm = [T::ZERO; 64];
            if mask.identity {
                gm[..len].copy_from_slice(&dyr[j0..j0 + len]);
            } else {
                // Unconditional load then select (no bounds checks, no branches): vectorises.
                for (k, (g, &v)) in gm[..len].iter_mut().zip(&dyr[j0..j0 + len]).enumerate() {
                    *g = if mask.keep(rk, (j0 + k) as u32) {
                        v
                    } else {
                        T::ZERO
                    };
                }
            }
            let (ab, db) = (&arow[j0..j0 + len], &mut dar[j0..j0 + len]);
            let mut gc = gm[..len].chunks_exact(8);
            let mut ac = ab.chunks_exact(8);
            let mut dc = db.chunks_exact_mut(8);
            for ((g8, a8), d8) in (&mut gc).zip(&mut ac).zip(&mut dc) {
                for k in 0..8 {
                    part[k] += g8[k] * a8[k];
                    d8[k] += xi * g8[k];
                }
            }
            for (k, ((&g, &a), dv)) in gc
                .remainder()
                .iter()
                .zip(ac.remainder())
                .zip(dc.into_remainder())
                .enumerate()
            {
                part[k] += g * a;
                *dv += xi * g;
            }
            j0 += len;
        }
        let acc = part.iter().fold(T::ZERO, |a, &v| a + v);
        // SAFETY: element (bi, i) is written only by task (u(bi), i); dx has B x D elements.
        unsafe { *dx.add(bi * d + i) = acc * scale };
    }
}
