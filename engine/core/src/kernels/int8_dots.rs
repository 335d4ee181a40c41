//! Dot products of f32 queries with 8-bit rows: the per-entity work of the exact top-k scan
//! ([`crate::exact_top_k`]), which must keep up with memory (16 bytes of a row per vector FMA).
//!
//! `out[i * m + r] = Σ_j x[i][j] · q[r][j]` for queries `x` (b x d) and rows `q` (m x d). Each
//! 16 values of a row are widened to f32 once and multiplied into up to four queries' partial
//! sums held in registers. Every version sums each row in the same lanes and order, so they
//! agree to the last bit only within one instruction set; the scan's error bound allows for any
//! order (see [`crate::int8_rows::Int8Rows::error_bound`]).

/// See the module documentation; dispatches to AVX-512 or AVX2 + FMA where the CPU has them.
pub fn int8_dots(q: &[i8], d: usize, m: usize, x: &[f32], out: &mut [f32]) {
    let b = x.len() / d.max(1);
    assert!(q.len() >= m * d && out.len() >= b * m && x.len() == b * d);
    #[cfg(target_arch = "x86_64")]
    {
        if super::has_avx512() && std::arch::is_x86_feature_detected!("avx512bw") {
            // SAFETY: the CPU has the features (checked just above); lengths checked above.
            return unsafe { x86::dots_avx512(q, d, m, x, out) };
        }
        if super::has_avx2() {
            // SAFETY: as above.
            return unsafe { x86::dots_avx2(q, d, m, x, out) };
        }
    }
    for (r, row) in q.chunks_exact(d.max(1)).take(m).enumerate() {
        for (i, xi) in x.chunks_exact(d).enumerate() {
            out[i * m + r] = row.iter().zip(xi).map(|(&v, &w)| v as f32 * w).sum();
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// Queries per group: their partial sums stay in registers while a row streams by.
    const GROUP: usize = 4;

    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,fma")]
    pub(super) unsafe fn dots_avx512(q: &[i8], d: usize, m: usize, x: &[f32], out: &mut [f32]) {
        let b = x.len() / d;
        let mut first = 0;
        while first < b {
            let g = (b - first).min(GROUP);
            match g {
                4 => group_avx512::<4>(q, d, m, x, first, out),
                3 => group_avx512::<3>(q, d, m, x, first, out),
                2 => group_avx512::<2>(q, d, m, x, first, out),
                _ => group_avx512::<1>(q, d, m, x, first, out),
            }
            first += g;
        }
    }

    /// Queries `first..first + G` against every row.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,fma")]
    unsafe fn group_avx512<const G: usize>(
        q: &[i8],
        d: usize,
        m: usize,
        x: &[f32],
        first: usize,
        out: &mut [f32],
    ) {
        let full = d / 16;
        // The last partial vector: a mask of the remaining lanes.
        let rest = d % 16;
        let mask: __mmask16 = ((1u32 << rest) - 1) as __mmask16;
        let xp = x.as_ptr().add(first * d);
        for r in 0..m {
            let row = q.as_ptr().add(r * d);
            let mut acc = [_mm512_setzero_ps(); G];
            for c in 0..full {
                let v = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(
                    row.add(c * 16) as *const __m128i
                )));
                for (i, a) in acc.iter_mut().enumerate() {
                    *a = _mm512_fmadd_ps(v, _mm512_loadu_ps(xp.add(i * d + c * 16)), *a);
                }
            }
            if rest > 0 {
                let v = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(
                    mask,
                    row.add(full * 16),
                )));
                for (i, a) in acc.iter_mut().enumerate() {
                    let w = _mm512_maskz_loadu_ps(mask, xp.add(i * d + full * 16));
                    *a = _mm512_fmadd_ps(v, w, *a);
                }
            }
            for (i, a) in acc.iter().enumerate() {
                *out.get_unchecked_mut((first + i) * m + r) = _mm512_reduce_add_ps(*a);
            }
        }
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn dots_avx2(q: &[i8], d: usize, m: usize, x: &[f32], out: &mut [f32]) {
        let b = x.len() / d;
        let mut first = 0;
        while first < b {
            let g = (b - first).min(GROUP);
            match g {
                4 => group_avx2::<4>(q, d, m, x, first, out),
                3 => group_avx2::<3>(q, d, m, x, first, out),
                2 => group_avx2::<2>(q, d, m, x, first, out),
                _ => group_avx2::<1>(q, d, m, x, first, out),
            }
            first += g;
        }
    }

    /// [`group_avx512`] in 8 lanes; the last `d % 8` values of a row are summed one by one.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn group_avx2<const G: usize>(
        q: &[i8],
        d: usize,
        m: usize,
        x: &[f32],
        first: usize,
        out: &mut [f32],
    ) {
        let full = d / 8;
        let xp = x.as_ptr().add(first * d);
        for r in 0..m {
            let row = q.as_ptr().add(r * d);
            let mut acc = [_mm256_setzero_ps(); G];
            for c in 0..full {
                let v = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(
                    row.add(c * 8) as *const __m128i
                )));
                for (i, a) in acc.iter_mut().enumerate() {
                    *a = _mm256_fmadd_ps(v, _mm256_loadu_ps(xp.add(i * d + c * 8)), *a);
                }
            }
            for (i, a) in acc.iter().enumerate() {
                // Horizontal sum: halves, then pairs.
                let s4 = _mm_add_ps(_mm256_castps256_ps128(*a), _mm256_extractf128_ps(*a, 1));
                let s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
                let s1 = _mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1));
                let mut sum = _mm_cvtss_f32(s1);
                for j in full * 8..d {
                    sum += *row.add(j) as f32 * *xp.add(i * d + j);
                }
                *out.get_unchecked_mut((first + i) * m + r) = sum;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_width_and_query_count_matches_a_plain_sum() {
        for d in [1usize, 7, 8, 16, 23, 200] {
            for b in 1..=6 {
                let m = 5;
                let q: Vec<i8> = (0..m * d).map(|i| ((i * 37) % 255) as i32 as i8).collect();
                let x: Vec<f32> = (0..b * d).map(|i| (i % 11) as f32 * 0.25 - 1.0).collect();
                let mut out = vec![0.0f32; b * m];
                int8_dots(&q, d, m, &x, &mut out);
                for i in 0..b {
                    for r in 0..m {
                        let want: f64 = (0..d)
                            .map(|j| q[r * d + j] as f64 * x[i * d + j] as f64)
                            .sum();
                        let got = out[i * m + r] as f64;
                        assert!((got - want).abs() <= 1e-3 * (1.0 + want.abs()), "{d} {b}");
                    }
                }
            }
        }
    }
}
