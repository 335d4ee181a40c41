//! The masked per-example core product (`core_product`'s forward chunks and backward rows) in
//! AVX-512 for f32. The portable versions go through 64-column blocks of selected values or
//! factors; here a block's 32 hashes become four 16-lane keep masks applied straight to the
//! loads. Whole 16-column chunks use plain stores: a load that follows a masked store to the
//! same place (the next row's `y`, the next example's `dA`) waits for the store to retire, which
//! made a first, all-masked version slower than the portable one in training. The draws,
//! operations and their order are the portable versions', so the bits are the same (tested
//! against them).

use crate::rng::{Mask, HASH_INDEX_MULTIPLIER, MASK_BLOCK};
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// `core_product::masked_rows` for f32 (row `i` of one relation's `dA`, and `dx[b, i]` for its
/// `members`), or `false` without running where the CPU lacks AVX-512.
#[allow(clippy::too_many_arguments)]
pub(crate) fn masked_rows_f32(
    dy: &[f32],
    x: &[f32],
    arow: &[f32],
    members: &[u32],
    i: usize,
    mask: &Mask,
    scale: f32,
    dar: &mut [f32],
    dx: *mut f32,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if super::has_avx512() {
        let d = arow.len();
        assert!(dar.len() >= d);
        for &bi in members {
            let row = bi as usize * d;
            assert!(dy.len() >= row + d && x.len() > row + i);
        }
        // SAFETY: AVX-512 F and VL were just detected; every row read or written is in bounds
        // (checked above), and dx has the caller's contract (B x D, element (b, i) one writer).
        unsafe { rows(dy, x, arow, members, i, mask, scale, dar, dx) };
        return true;
    }
    false
}

/// `lowbias32` (`rng::lowbias32`) on sixteen lanes.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
fn lowbias32(x: __m512i) -> __m512i {
    let x = _mm512_xor_si512(x, _mm512_srli_epi32::<16>(x));
    let x = _mm512_mullo_epi32(x, _mm512_set1_epi32(0x7feb_352d));
    let x = _mm512_xor_si512(x, _mm512_srli_epi32::<15>(x));
    let x = _mm512_mullo_epi32(x, _mm512_set1_epi32(0x846c_a68b_u32 as i32));
    _mm512_xor_si512(x, _mm512_srli_epi32::<16>(x))
}

/// `core_product::fwd_chunk` with a dropout mask for f32 (`y_b = x_b · mask_b ⊙ A_u` for the
/// examples of `chunk`), or `false` without running where the CPU lacks AVX-512.
#[allow(clippy::too_many_arguments)]
pub(crate) fn forward_chunk_f32(
    x: &[f32],
    au: &[f32],
    chunk: &[u32],
    d: usize,
    mask: &Mask,
    scale: f32,
    y: *mut f32,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if super::has_avx512() {
        assert!(au.len() >= d * d);
        for &bi in chunk {
            assert!(x.len() >= (bi as usize + 1) * d);
        }
        // SAFETY: AVX-512 F and VL were just detected; A and x are in bounds (checked above),
        // and y has the caller's contract (B x D, each example's row written by one chunk).
        unsafe { forward_chunk(x, au, chunk, d, mask, scale, y) };
        return true;
    }
    false
}

/// The keep masks of one 64-column block of a mask row: columns 0-15, 16-31, 32-47, 48-63.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct BlockHasher {
    threshold: __m512i,
    low_half: __m512i,
    /// Hash k of block b mixes index 32 b + k as `(32 b + k) x HASH_INDEX_MULTIPLIER` (wrapping,
    /// as `Mask::hash`): the lanes' part once here, the block's per block.
    lanes_mixed: __m512i,
    next_16_mixed: __m512i,
}

#[cfg(target_arch = "x86_64")]
impl BlockHasher {
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    fn new(mask: &Mask) -> Self {
        let lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        BlockHasher {
            threshold: _mm512_set1_epi32(mask.threshold() as i32),
            low_half: _mm512_set1_epi32(0xFFFF),
            lanes_mixed: _mm512_mullo_epi32(lanes, _mm512_set1_epi32(HASH_INDEX_MULTIPLIER as i32)),
            next_16_mixed: _mm512_set1_epi32(16u32.wrapping_mul(HASH_INDEX_MULTIPLIER) as i32),
        }
    }

    /// Hash k of the block decides column k with its low half and column 32 + k with its high.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    fn keep(&self, row_key: __m512i, block: u32) -> [__mmask16; 4] {
        let block_mixed =
            _mm512_set1_epi32((block * 32).wrapping_mul(HASH_INDEX_MULTIPLIER) as i32);
        let first = _mm512_add_epi32(row_key, _mm512_add_epi32(block_mixed, self.lanes_mixed));
        let h0 = lowbias32(first);
        let h1 = lowbias32(_mm512_add_epi32(first, self.next_16_mixed));
        [
            _mm512_cmpge_epu32_mask(_mm512_and_si512(h0, self.low_half), self.threshold),
            _mm512_cmpge_epu32_mask(_mm512_and_si512(h1, self.low_half), self.threshold),
            _mm512_cmpge_epu32_mask(_mm512_srli_epi32::<16>(h0), self.threshold),
            _mm512_cmpge_epu32_mask(_mm512_srli_epi32::<16>(h1), self.threshold),
        ]
    }
}

// The forward and the backward walk a row's blocks and chunks with the same loop written out
// twice: one iterator shared by both (blocks flat-mapped to chunks) ran them at half the speed.

/// Lanes `0..n` of a 16-lane chunk (n at most 16).
#[inline(always)]
fn first_lanes(n: usize) -> u16 {
    if n >= 16 {
        0xFFFF
    } else {
        (1u16 << n) - 1
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl")]
#[allow(clippy::too_many_arguments)]
unsafe fn forward_chunk(
    x: &[f32],
    au: &[f32],
    chunk: &[u32],
    d: usize,
    mask: &Mask,
    scale: f32,
    y: *mut f32,
) {
    let hasher = BlockHasher::new(mask);
    for &bi in chunk {
        std::ptr::write_bytes(y.add(bi as usize * d), 0, d);
    }
    for i in 0..d {
        let arow = au.as_ptr().add(i * d);
        for &bi in chunk {
            let bi = bi as usize;
            let xi = x[bi * d + i] * scale;
            if xi == 0.0 {
                continue;
            }
            let (xi, yr) = (_mm512_set1_ps(xi), y.add(bi * d));
            let row_key = _mm512_set1_epi32(mask.row_key((bi * d + i) as u64) as i32);
            let mut j0 = 0;
            let mut block = 0u32;
            while j0 < d {
                let len = (d - j0).min(MASK_BLOCK);
                for (c, &kept) in hasher.keep(row_key, block).iter().enumerate() {
                    if c * 16 >= len {
                        break;
                    }
                    let j = j0 + c * 16;
                    // y += (keep ? xi : 0) · a: a multiply then an add, as the portable loop.
                    let factor = _mm512_maskz_mov_ps(kept, xi);
                    if len - c * 16 >= 16 {
                        // Plain stores: the next row's load of y would wait for a masked one.
                        let a = _mm512_loadu_ps(arow.add(j));
                        let yv = _mm512_loadu_ps(yr.add(j));
                        _mm512_storeu_ps(yr.add(j), _mm512_add_ps(yv, _mm512_mul_ps(factor, a)));
                    } else {
                        let valid = first_lanes(len - c * 16);
                        let a = _mm512_maskz_loadu_ps(valid, arow.add(j));
                        let yv = _mm512_maskz_loadu_ps(valid, yr.add(j));
                        let sum = _mm512_add_ps(yv, _mm512_mul_ps(factor, a));
                        _mm512_mask_storeu_ps(yr.add(j), valid, sum);
                    }
                }
                j0 += len;
                block += 1;
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl")]
#[allow(clippy::too_many_arguments)]
unsafe fn rows(
    dy: &[f32],
    x: &[f32],
    arow: &[f32],
    members: &[u32],
    i: usize,
    mask: &Mask,
    scale: f32,
    dar: &mut [f32],
    dx: *mut f32,
) {
    let d = arow.len();
    let hasher = BlockHasher::new(mask);
    for &bi in members {
        let bi = bi as usize;
        let dyr = dy.as_ptr().add(bi * d);
        let xi = _mm512_set1_ps(x[bi * d + i] * scale);
        // Lanes 0-7 are the portable version's `part`, lanes 8-15 its `part2`.
        let mut part = _mm512_setzero_ps();
        let row_key = _mm512_set1_epi32(mask.row_key((bi * d + i) as u64) as i32);
        let mut j0 = 0;
        let mut block = 0u32;
        while j0 < d {
            let len = (d - j0).min(MASK_BLOCK);
            for (c, &kept) in hasher.keep(row_key, block).iter().enumerate() {
                if c * 16 >= len {
                    break;
                }
                let j = j0 + c * 16;
                if len - c * 16 >= 16 {
                    // A whole chunk: plain loads and stores (a load of `dA` that follows a masked
                    // store to it, the last example's, would wait for the store to retire).
                    let g = _mm512_maskz_loadu_ps(kept, dyr.add(j));
                    let a = _mm512_loadu_ps(arow.as_ptr().add(j));
                    part = _mm512_add_ps(part, _mm512_mul_ps(g, a));
                    let dv = _mm512_loadu_ps(dar.as_ptr().add(j));
                    let dv = _mm512_add_ps(dv, _mm512_mul_ps(xi, g));
                    _mm512_storeu_ps(dar.as_mut_ptr().add(j), dv);
                } else {
                    // The row's last, partial chunk.
                    let valid = first_lanes(len - c * 16);
                    let g = _mm512_maskz_loadu_ps(kept & valid, dyr.add(j));
                    let a = _mm512_maskz_loadu_ps(valid, arow.as_ptr().add(j));
                    part = _mm512_mask_add_ps(part, valid, part, _mm512_mul_ps(g, a));
                    let dv = _mm512_maskz_loadu_ps(valid, dar.as_ptr().add(j));
                    let dv = _mm512_add_ps(dv, _mm512_mul_ps(xi, g));
                    _mm512_mask_storeu_ps(dar.as_mut_ptr().add(j), valid, dv);
                }
            }
            j0 += len;
            block += 1;
        }
        let mut sums = [0f32; 16];
        _mm512_storeu_ps(sums.as_mut_ptr(), part);
        let acc = (0..8).fold(0.0f32, |a, k| a + (sums[k] + sums[k + 8]));
        *dx.add(bi * d + i) = acc * scale;
    }
}
