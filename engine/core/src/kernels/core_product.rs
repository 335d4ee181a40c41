//! The per-example product `y_b = x_b · dropout_h1(A_{r_b})`, where `A_u` (d_e x d_e) is computed
//! once per distinct relation `u` of the batch. The dropout mask of example `b`, row `i` is
//! regenerated from the counter RNG (mask row id `b * d_e + i`), so the `B x d_e x d_e` masked
//! tensor is never materialised.

use super::{masked_core_avx512, unmasked_core_avx512, SyncPtr};
use crate::real::Real;
use crate::rng::{Mask, MASK_BLOCK};
use rayon::prelude::*;

/// Examples of one relation handled by one forward task: each task reads its `A_u` once, row by
/// row, for all of them (a row stays in L1 while the examples use it).
const FORWARD_CHUNK: usize = 8;
/// Mask tails up to this long are hashed column by column; longer ones as a padded block.
const SHORT_TAIL: usize = 16;

/// Forward. `x` (B x D), `a` (U x D x D); `members[off[u]..off[u + 1]]` are the examples whose
/// relation is `u`. Writes `y` (B x D). `scale = 1 / (1 - p_h1)`. Each `y_b[j]` sums over `i`
/// in order, so the result does not depend on the grouping.
#[allow(clippy::too_many_arguments)]
pub fn forward<T: Real>(
    x: &[T],
    a: &[T],
    members: &[u32],
    off: &[usize],
    d: usize,
    mask: &Mask,
    scale: T,
    y: &mut [T],
) {
    let n_u = off.len() - 1;
    let b = members.len();
    assert!(y.len() >= b * d && x.len() >= b * d && a.len() >= n_u * d * d);
    let tasks: Vec<(usize, usize, usize)> = (0..n_u)
        .flat_map(|u| {
            (off[u]..off[u + 1])
                .step_by(FORWARD_CHUNK)
                .map(move |s| (u, s, (s + FORWARD_CHUNK).min(off[u + 1])))
        })
        .collect();
    let yp = SyncPtr(y.as_mut_ptr());
    tasks.par_iter().for_each(|&(u, s, e)| {
        // Moves the Send wrapper, not its raw-pointer field (see linalg::matmul).
        #[allow(clippy::redundant_locals)]
        let yp = yp;
        let au = &a[u * d * d..][..d * d];
        let chunk = &members[s..e];
        // Without dropout the portable chunk runs: the scoring path's tiled kernel
        // (`forward_unmasked`) ran training's chunks of a few examples slower (WN18RR 1.0 ->
        // 1.7 ms per batch: its 1 MB cores read in 32-column strips).
        if !mask.identity && std::any::TypeId::of::<T>() == std::any::TypeId::of::<f32>() {
            // SAFETY: T is f32 (checked just above): the same slices and pointer.
            let (x32, au32) = unsafe { (as_f32(x), as_f32(au)) };
            let (s32, y32) = (scale.to_f64() as f32, yp.0.cast::<f32>());
            if masked_core_avx512::forward_chunk_f32(x32, au32, chunk, d, mask, s32, y32) {
                return;
            }
        }
        fwd_chunk(x, au, chunk, d, mask, scale, yp.0);
    });
}

/// `y_b = x_b · au` without dropout for the examples of `chunk`, all of one relation (the
/// cached-core scoring path): `au` (D x D) read once for all of them, each row summed as
/// [`forward`] sums it (the same bits as the eval-mode forward). `y` (B x D) must be valid for
/// the chunk's rows, and no other thread may write them.
pub(crate) fn forward_unmasked(x: &[f32], au: &[f32], chunk: &[u32], d: usize, y: *mut f32) {
    if !unmasked_core_avx512::forward_chunk_f32(x, au, chunk, d, 1.0, y) {
        let no_dropout = Mask::new(0, 0, crate::rng::Stream::Hidden1, 0.0);
        fwd_chunk(x, au, chunk, d, &no_dropout, 1.0, y);
    }
}

multiversion!(fn fwd_chunk<T>(x: &[T], au: &[T], chunk: &[u32], d: usize, mask: &Mask, scale: T, y: *mut T) => fwd_chunk_body);

#[inline(always)]
fn fwd_chunk_body<T: Real>(
    x: &[T],
    au: &[T],
    chunk: &[u32],
    d: usize,
    mask: &Mask,
    scale: T,
    y: *mut T,
) {
    // SAFETY: every example belongs to exactly one chunk, so its row of y (B x D, checked by
    // the caller) has one writer.
    let row = |bi: usize| unsafe { std::slice::from_raw_parts_mut(y.add(bi * d), d) };
    for &bi in chunk {
        row(bi as usize).iter_mut().for_each(|v| *v = T::ZERO);
    }
    for i in 0..d {
        let arow = &au[i * d..][..d];
        for &bi in chunk {
            let bi = bi as usize;
            let xi = x[bi * d + i] * scale;
            if xi == T::ZERO {
                continue;
            }
            accumulate_row(row(bi), arow, xi, mask, (bi * d + i) as u64);
        }
    }
}

/// `s` as f32.
///
/// # Safety
/// `T` must be `f32`.
unsafe fn as_f32<T: Real>(s: &[T]) -> &[f32] {
    std::slice::from_raw_parts(s.as_ptr().cast(), s.len())
}

/// `yr += xi · arow`.
#[inline(always)]
fn add_scaled<T: Real>(yr: &mut [T], arow: &[T], xi: T) {
    for (y, &a) in yr.iter_mut().zip(arow) {
        *y += xi * a;
    }
}

/// `yr += xi · mask_row ⊙ arow` (mask row id `mask_row`).
#[inline(always)]
fn accumulate_row<T: Real>(yr: &mut [T], arow: &[T], xi: T, mask: &Mask, mask_row: u64) {
    if mask.identity {
        add_scaled(yr, arow, xi);
        return;
    }
    let rk = mask.row_key(mask_row);
    let mut yc = yr.chunks_exact_mut(MASK_BLOCK);
    let mut ac = arow.chunks_exact(MASK_BLOCK);
    let mut block = 0;
    for (yb, ab) in (&mut yc).zip(&mut ac) {
        accumulate_block(yb, ab, xi, mask, rk, block);
        block += 1;
    }
    // The last, shorter block: a few columns one by one, more through the same loop, padded.
    let (yt, at) = (yc.into_remainder(), ac.remainder());
    let first = block * MASK_BLOCK as u32;
    if yt.len() <= SHORT_TAIL {
        for (j, (y, &a)) in yt.iter_mut().zip(at).enumerate() {
            *y += if mask.keep(rk, first + j as u32) {
                xi
            } else {
                T::ZERO
            } * a;
        }
    } else {
        let (mut yp, mut ap) = ([T::ZERO; MASK_BLOCK], [T::ZERO; MASK_BLOCK]);
        yp[..yt.len()].copy_from_slice(yt);
        ap[..at.len()].copy_from_slice(at);
        accumulate_block(&mut yp, &ap, xi, mask, rk, block);
        yt.copy_from_slice(&yp[..yt.len()]);
    }
}

/// One 64-column block of [`accumulate_row`]: a hash per column pair, fused with the FMAs.
#[inline(always)]
fn accumulate_block<T: Real>(yb: &mut [T], ab: &[T], xi: T, mask: &Mask, rk: u32, block: u32) {
    let half = MASK_BLOCK / 2;
    let (yb, ab) = (&mut yb[..MASK_BLOCK], &ab[..MASK_BLOCK]);
    for k in 0..half {
        let (lo, hi) = mask.keep_pair(rk, block, k as u32);
        yb[k] += if lo { xi } else { T::ZERO } * ab[k];
        yb[k + half] += if hi { xi } else { T::ZERO } * ab[k + half];
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
    dar.iter_mut().for_each(|v| *v = T::ZERO);
    if mask.identity {
        let rows = PlainRows {
            dy,
            x,
            arow,
            i,
            scale,
            dx,
        };
        let mut pairs = members.chunks_exact(PLAIN_GROUP);
        for pair in &mut pairs {
            rows.group::<PLAIN_GROUP>(pair.try_into().expect("chunks_exact"), dar);
        }
        for &bi in pairs.remainder() {
            rows.group::<1>(&[bi], dar);
        }
    } else {
        masked_rows(dy, x, arow, members, i, mask, scale, dar, dx);
    }
}

/// Examples the unmasked backward handles together: each loaded vector of `A` and `dA` serves
/// both. Two measured fastest on AVX2 (`examples/kernel_passes`); four spill their sums.
const PLAIN_GROUP: usize = 2;
/// Columns a vector of partial sums covers.
const LANES: usize = 8;

/// Row `i` of one relation's `dA` and its examples' `dx[., i]`, without dropout.
struct PlainRows<'a, T> {
    dy: &'a [T],
    x: &'a [T],
    arow: &'a [T],
    i: usize,
    scale: T,
    dx: *mut T,
}

impl<T: Real> PlainRows<'_, T> {
    /// Adds `G` examples (in order) to `dar` and writes their `dx[b, i]`.
    #[inline(always)]
    fn group<const G: usize>(&self, group: &[u32; G], dar: &mut [T]) {
        let d = self.arow.len();
        let row = |g: usize| group[g] as usize * d;
        let xi: [T; G] = std::array::from_fn(|g| self.x[row(g) + self.i] * self.scale);
        let dyr: [&[T]; G] = std::array::from_fn(|g| &self.dy[row(g)..][..d]);
        let mut part = [[T::ZERO; LANES]; G];
        let mut j0 = 0;
        while j0 + LANES <= d {
            let lanes = |v: &[T]| -> [T; LANES] { v[j0..j0 + LANES].try_into().expect("8") };
            let a8 = lanes(self.arow);
            let mut d8 = lanes(dar);
            for m in 0..G {
                let g8 = lanes(dyr[m]);
                for t in 0..LANES {
                    part[m][t] += g8[t] * a8[t];
                    d8[t] += xi[m] * g8[t];
                }
            }
            dar[j0..j0 + LANES].copy_from_slice(&d8);
            j0 += LANES;
        }
        for (t, j) in (j0..d).enumerate() {
            for m in 0..G {
                part[m][t] += dyr[m][j] * self.arow[j];
                dar[j] += xi[m] * dyr[m][j];
            }
        }
        for (g, p) in part.iter().enumerate() {
            let acc = p.iter().fold(T::ZERO, |s, &v| s + v);
            // SAFETY: element (b, i) is written only by task (u(b), i); dx has B x D elements.
            unsafe { *self.dx.add(row(g) + self.i) = acc * self.scale };
        }
    }
}

/// The masked backward, one example at a time. It takes the task's arguments as they come rather
/// than sharing `PlainRows`: folding both paths into one struct changed the generated code (92
/// more instructions in `bwd_task`) and measured no faster.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn masked_rows<T: Real>(
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
    if std::any::TypeId::of::<T>() == std::any::TypeId::of::<f32>() {
        // SAFETY: T is f32 (checked just above): the same slices and pointer.
        let (dy32, x32, a32) = unsafe { (as_f32(dy), as_f32(x), as_f32(arow)) };
        let dar32 = unsafe { std::slice::from_raw_parts_mut(dar.as_mut_ptr().cast(), dar.len()) };
        let (s32, dx32) = (scale.to_f64() as f32, dx.cast::<f32>());
        if masked_core_avx512::masked_rows_f32(dy32, x32, a32, members, i, mask, s32, dar32, dx32) {
            return;
        }
    }
    masked_rows_portable(dy, x, arow, members, i, mask, scale, dar, dx);
}

/// [`masked_rows`] in portable code (every CPU, and f64).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn masked_rows_portable<T: Real>(
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
    for &bi in members {
        let bi = bi as usize;
        let dyr = &dy[bi * d..][..d];
        let xi = x[bi * d + i] * scale;
        // Two sets of eight partial sums: a single running sum would serialise the loop.
        let (mut part, mut part2) = ([T::ZERO; 8], [T::ZERO; 8]);
        let rk = mask.row_key((bi * d + i) as u64);
        // Blocks of 64: first the masked gradient row (vectorised hashing), then the two FMAs.
        let mut gm = [T::ZERO; MASK_BLOCK];
        let mut j0 = 0;
        while j0 < d {
            let len = (d - j0).min(MASK_BLOCK);
            mask.select_block(rk, (j0 / MASK_BLOCK) as u32, &dyr[j0..j0 + len], &mut gm);
            let (ab, db) = (&arow[j0..j0 + len], &mut dar[j0..j0 + len]);
            // Sixteen columns a step into two sets of sums: two chains of adds, not one.
            let mut gc = gm[..len].chunks_exact(16);
            let mut ac = ab.chunks_exact(16);
            let mut dc = db.chunks_exact_mut(16);
            for ((g16, a16), d16) in (&mut gc).zip(&mut ac).zip(&mut dc) {
                for k in 0..8 {
                    part[k] += g16[k] * a16[k];
                    part2[k] += g16[k + 8] * a16[k + 8];
                    d16[k] += xi * g16[k];
                    d16[k + 8] += xi * g16[k + 8];
                }
            }
            for (k, ((&g, &a), dv)) in gc
                .remainder()
                .iter()
                .zip(ac.remainder())
                .zip(dc.into_remainder())
                .enumerate()
            {
                let sum = if k < 8 {
                    &mut part[k]
                } else {
                    &mut part2[k - 8]
                };
                *sum += g * a;
                *dv += xi * g;
            }
            j0 += len;
        }
        let acc = part
            .iter()
            .zip(&part2)
            .fold(T::ZERO, |a, (&v, &w)| a + (v + w));
        // SAFETY: element (bi, i) is written only by task (u(bi), i); dx has B x D elements.
        unsafe { *dx.add(bi * d + i) = acc * scale };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Stream;

    /// `y_b[j] = Σ_i x_b[i] · s · m_b[i, j] · A_{r_b}[i, j]` and its gradients, straight from the
    /// definition (f64, one multiply-add at a time).
    struct Reference {
        y: Vec<f64>,
        da: Vec<f64>,
        dx: Vec<f64>,
    }

    fn reference(
        x: &[f64],
        a: &[f64],
        rel: &[usize],
        dy: &[f64],
        d: usize,
        mask: &Mask,
        s: f64,
    ) -> Reference {
        let n_u = a.len() / (d * d);
        let (mut y, mut dx, mut da) = (
            vec![0.0; x.len()],
            vec![0.0; x.len()],
            vec![0.0; n_u * d * d],
        );
        for (b, &u) in rel.iter().enumerate() {
            for i in 0..d {
                let rk = mask.row_key((b * d + i) as u64);
                for j in 0..d {
                    let m = if mask.identity || mask.keep(rk, j as u32) {
                        s
                    } else {
                        0.0
                    };
                    let aij = a[u * d * d + i * d + j];
                    y[b * d + j] += x[b * d + i] * m * aij;
                    dx[b * d + i] += dy[b * d + j] * m * aij;
                    da[u * d * d + i * d + j] += x[b * d + i] * m * dy[b * d + j];
                }
            }
        }
        Reference { y, da, dx }
    }

    fn values(n: usize, seed: u64) -> Vec<f64> {
        let mut rng = crate::rng::CounterRng::new(seed, 0, Stream::InHead);
        (0..n).map(|_| rng.uniform() * 2.0 - 1.0).collect()
    }

    fn assert_close(what: &str, got: &[f64], want: &[f64]) {
        for (k, (g, w)) in got.iter().zip(want).enumerate() {
            assert!(
                (g - w).abs() <= 1e-12 * (1.0 + w.abs()),
                "{what}[{k}]: {g} vs {w}"
            );
        }
    }

    /// Widths around the vector (8, 16) and mask-block (64) boundaries, groups of odd and even
    /// sizes, with and without dropout: each path of the kernels against the definition.
    #[test]
    fn forward_and_backward_match_the_definition() {
        for d in [3, 8, 21, 70, 90] {
            for p in [0.0, 0.3] {
                // Relations 0, 1, 2 have 2, 5 and 7 examples, interleaved in the batch.
                let rel: Vec<usize> = (0..12)
                    .map(|b| [0, 1, 1, 2, 2, 2][b % 6])
                    .chain([1, 2])
                    .collect();
                let n_u = 3;
                let (mut members, mut off) = (Vec::new(), vec![0]);
                for u in 0..n_u {
                    members.extend((0..rel.len()).filter(|&b| rel[b] == u).map(|b| b as u32));
                    off.push(members.len());
                }
                let b = rel.len();
                let (x, a, dy) = (values(b * d, 1), values(n_u * d * d, 2), values(b * d, 3));
                let mask = Mask::new(7, 3, Stream::Hidden1, p);
                let s = 1.0 / (1.0 - p);
                let want = reference(&x, &a, &rel, &dy, d, &mask, s);

                let mut y = vec![f64::NAN; b * d];
                forward(&x, &a, &members, &off, d, &mask, s, &mut y);
                assert_close(&format!("d {d} p {p} y"), &y, &want.y);
                let (mut da, mut dx) = (vec![f64::NAN; n_u * d * d], vec![f64::NAN; b * d]);
                backward(&dy, &x, &a, &members, &off, d, &mask, s, &mut da, &mut dx);
                assert_close(&format!("d {d} p {p} dA"), &da, &want.da);
                assert_close(&format!("d {d} p {p} dx"), &dx, &want.dx);
            }
        }
    }

    /// The unmasked AVX-512 kernel gives the portable chunk's bits (on CPUs without AVX-512 it
    /// declines, and there is nothing to compare).
    #[test]
    fn the_unmasked_avx512_kernel_gives_the_portable_bits() {
        let f32s = |v: Vec<f64>| v.into_iter().map(|x| x as f32).collect::<Vec<f32>>();
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
        let no_dropout = Mask::new(0, 0, Stream::Hidden1, 0.0);
        for d in [1, 3, 16, 31, 32, 33, 70, 200] {
            for examples in [1, 5, 8, 12, 13, 25] {
                let b = examples + 2;
                let mut x = f32s(values(b * d, 7));
                x[d / 2] = 0.0; // skipped rows, of either sign
                x[d + d / 3] = -0.0;
                let a = f32s(values(d * d, 8));
                // Two examples of every three, so rows of y outside the chunk must stay untouched.
                let chunk: Vec<u32> = (0..b as u32)
                    .filter(|i| i % 3 != 1)
                    .take(examples)
                    .collect();
                let (mut y_simd, mut y_portable) = (vec![f32::NAN; b * d], vec![f32::NAN; b * d]);
                let ran = unmasked_core_avx512::forward_chunk_f32(
                    &x,
                    &a,
                    &chunk,
                    d,
                    1.25,
                    y_simd.as_mut_ptr(),
                );
                fwd_chunk_body(
                    &x,
                    &a,
                    &chunk,
                    d,
                    &no_dropout,
                    1.25,
                    y_portable.as_mut_ptr(),
                );
                if !ran {
                    eprintln!("no AVX-512 on this CPU: the portable kernel runs here");
                    return;
                }
                assert_eq!(
                    bits(&y_simd),
                    bits(&y_portable),
                    "d {d}, {examples} examples"
                );
            }
        }
    }

    /// The AVX-512 kernels for f32 give the portable kernels' bits, chunk by chunk and row by
    /// row, at widths with no tail, a short tail and a long one (on CPUs without AVX-512 they
    /// decline, and there is nothing to compare).
    #[test]
    fn the_avx512_kernels_give_the_portable_bits() {
        let f32s = |v: Vec<f64>| v.into_iter().map(|x| x as f32).collect::<Vec<f32>>();
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
        for d in [3, 21, 64, 70, 90, 128, 200] {
            for p in [0.3, 0.5] {
                let mask = Mask::new(11, 5, Stream::Hidden1, p);
                let scale = 1.0 / (1.0 - p as f32);
                let b = 6;
                let mut x = f32s(values(b * d, 4));
                x[d + 2] = 0.0; // a skipped row
                let (a, dy) = (f32s(values(d * d, 5)), f32s(values(b * d, 6)));
                let chunk: Vec<u32> = vec![0, 2, 3, 5];
                let (mut y_simd, mut y_portable) = (vec![f32::NAN; b * d], vec![f32::NAN; b * d]);
                let ran = masked_core_avx512::forward_chunk_f32(
                    &x,
                    &a,
                    &chunk,
                    d,
                    &mask,
                    scale,
                    y_simd.as_mut_ptr(),
                );
                fwd_chunk_body(&x, &a, &chunk, d, &mask, scale, y_portable.as_mut_ptr());
                if ran {
                    for &bi in &chunk {
                        let row = bi as usize * d..(bi as usize + 1) * d;
                        assert_eq!(
                            bits(&y_simd[row.clone()]),
                            bits(&y_portable[row]),
                            "y d {d}"
                        );
                    }
                }
                for i in [0, d / 2, d - 1] {
                    let (mut da_simd, mut da_portable) = (vec![0f32; d], vec![0f32; d]);
                    let (mut dx_simd, mut dx_portable) = (vec![0f32; b * d], vec![0f32; b * d]);
                    let arow = &a[i * d..][..d];
                    let ran = masked_core_avx512::masked_rows_f32(
                        &dy,
                        &x,
                        arow,
                        &chunk,
                        i,
                        &mask,
                        scale,
                        &mut da_simd,
                        dx_simd.as_mut_ptr(),
                    );
                    masked_rows_portable(
                        &dy,
                        &x,
                        arow,
                        &chunk,
                        i,
                        &mask,
                        scale,
                        &mut da_portable,
                        dx_portable.as_mut_ptr(),
                    );
                    if ran {
                        assert_eq!(bits(&da_simd), bits(&da_portable), "dA d {d} row {i}");
                        assert_eq!(bits(&dx_simd), bits(&dx_portable), "dx d {d} row {i}");
                    }
                }
            }
        }
    }
}
