//! The per-example core product without dropout (`y_b = x_b · A_u` for the examples of one
//! relation) in AVX-512 for f32: tiles of up to 12 examples x 32 columns summed in registers
//! over every row of `A_u` and stored once, where the portable chunk adds into `y` in memory
//! row by row. Used by the cached-core scoring path (evaluation, serving), where the queries of
//! a relation come in long runs.
//!
//! The operations and their order are the portable chunk's (`core_product::fwd_chunk`): each
//! `y_b[j]` starts at +0 and adds `(x_b[i] · scale) · A[i][j]` for `i = 0..d` in order, a
//! product and a sum each rounded (no FMA), skipping rows where `x_b[i] · scale` is zero; so the
//! bits are the same (tested against it).

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Examples per tile at most (24 accumulators, two rows of `A`, a broadcast and two products:
/// 29 of 32 registers).
pub(crate) const TILE_EXAMPLES: usize = 12;
/// Columns per tile: two 16-lane registers.
const TILE_COLUMNS: usize = 32;

/// `y_b = x_b · au` scaled as the portable chunk scales it, for the examples of `chunk` (all of
/// one relation; `au`: D x D, `y`: B x D), or `false` without running where the CPU lacks
/// AVX-512. `y` must be valid for the chunk's rows, and no other thread may write them.
pub(crate) fn forward_chunk_f32(
    x: &[f32],
    au: &[f32],
    chunk: &[u32],
    d: usize,
    scale: f32,
    y: *mut f32,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if super::has_avx512() {
        assert!(au.len() >= d * d);
        for &bi in chunk {
            assert!(x.len() >= (bi as usize + 1) * d);
        }
        for tile in chunk.chunks(TILE_EXAMPLES) {
            // SAFETY: AVX-512 was just detected; rows of x and au are in bounds (checked above),
            // and y has the caller's contract.
            unsafe { tile_rows(x, au, tile, d, scale, y) };
        }
        return true;
    }
    false
}

/// One tile of examples over every column block.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl")]
unsafe fn tile_rows(x: &[f32], au: &[f32], tile: &[u32], d: usize, scale: f32, y: *mut f32) {
    // The tile's scaled inputs, `[i][example]`, so a column block reads them in order.
    let r = tile.len();
    let mut xs = [0.0f32; 512 * TILE_EXAMPLES];
    let mut heap = Vec::new();
    let xs: &mut [f32] = if d * r <= xs.len() {
        &mut xs[..d * r]
    } else {
        heap.resize(d * r, 0.0);
        &mut heap
    };
    for (e, &bi) in tile.iter().enumerate() {
        for (i, &v) in x[bi as usize * d..][..d].iter().enumerate() {
            xs[i * r + e] = v * scale;
        }
    }
    let mut j0 = 0;
    while j0 < d {
        let width = TILE_COLUMNS.min(d - j0);
        let lanes = |w: usize| ((1u32 << w.min(16)) - 1) as __mmask16;
        let (m0, m1) = (lanes(width), lanes(width.saturating_sub(16)));
        macro_rules! run {
            ($($n:literal)*) => {
                match r {
                    $($n => block::<$n>(au, xs, d, j0, m0, m1, tile, y),)*
                    _ => unreachable!("tiles hold 1 to {} examples", TILE_EXAMPLES),
                }
            };
        }
        run!(1 2 3 4 5 6 7 8 9 10 11 12);
        j0 += TILE_COLUMNS;
    }
}

/// Columns `j0..j0 + 32` (lanes `m0`, `m1`) of the tile's `R` examples.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
#[allow(clippy::too_many_arguments)]
unsafe fn block<const R: usize>(
    au: &[f32],
    xs: &[f32],
    d: usize,
    j0: usize,
    m0: __mmask16,
    m1: __mmask16,
    tile: &[u32],
    y: *mut f32,
) {
    let zero = _mm512_setzero_ps();
    let mut acc = [[zero; 2]; R];
    let (a, xp) = (au.as_ptr(), xs.as_ptr());
    for i in 0..d {
        let row = a.add(i * d + j0);
        let a0 = _mm512_maskz_loadu_ps(m0, row);
        let a1 = _mm512_maskz_loadu_ps(m1, row.add(16));
        for (e, sums) in acc.iter_mut().enumerate() {
            let xb = _mm512_set1_ps(*xp.add(i * R + e));
            // Rows where the scaled input is zero are skipped, as the portable chunk skips them.
            let keep = _mm512_cmp_ps_mask::<_CMP_NEQ_UQ>(xb, zero);
            sums[0] = _mm512_mask_add_ps(sums[0], keep, sums[0], _mm512_mul_ps(xb, a0));
            sums[1] = _mm512_mask_add_ps(sums[1], keep, sums[1], _mm512_mul_ps(xb, a1));
        }
    }
    for (sums, &bi) in acc.iter().zip(tile) {
        let out = y.add(bi as usize * d + j0);
        _mm512_mask_storeu_ps(out, m0, sums[0]);
        _mm512_mask_storeu_ps(out.add(16), m1, sums[1]);
    }
}
