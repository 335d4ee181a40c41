//! Dot products of f32 queries with 8-bit rows: the per-entity work of the exact top-k scan
//! ([`crate::exact_top_k`]), which must keep up with memory (16 bytes of a row per vector FMA).
//!
//! `out[i * m + r] = Σ_j x[i][j] · q[r][j]` for queries `x` (b x d) and rows `q` (m x d). Each
//! 16 values of a row are widened to f32 once and multiplied into up to four queries' partial
//! sums held in registers; with fewer queries, several rows are summed side by side. Every version sums each row in the same lanes and order, so they
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

    /// Independent sums in flight: `G` queries x `R` rows with `G * R = CHAINS`, so the FMAs'
    /// latency (4 cycles) is hidden behind each other instead of one chain per row.
    const CHAINS: usize = 4;

    /// Runs `$group::<G, R>` over every query group and row block (`G` queries, `R = CHAINS / G`
    /// rows at a time, the last rows one at a time).
    macro_rules! dispatch {
        ($group:ident, $q:expr, $d:expr, $m:expr, $x:expr, $out:expr) => {{
            let (q, d, m, x, out) = ($q, $d, $m, $x, $out);
            let b = x.len() / d;
            let mut first = 0;
            while first < b {
                let g = (b - first).min(CHAINS);
                let blocked = m - m % (CHAINS / g);
                match g {
                    4 => $group::<4, 1>(q, d, 0..m, m, x, first, out),
                    3 => $group::<3, 1>(q, d, 0..m, m, x, first, out),
                    2 => {
                        $group::<2, 2>(q, d, 0..blocked, m, x, first, out);
                        $group::<2, 1>(q, d, blocked..m, m, x, first, out);
                    }
                    _ => {
                        $group::<1, 4>(q, d, 0..blocked, m, x, first, out);
                        $group::<1, 1>(q, d, blocked..m, m, x, first, out);
                    }
                }
                first += g;
            }
        }};
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,fma")]
    pub(super) unsafe fn dots_avx512(q: &[i8], d: usize, m: usize, x: &[f32], out: &mut [f32]) {
        dispatch!(group_avx512, q, d, m, x, out)
    }

    /// Queries `first..first + G` against `rows` (a multiple of `R` long), `R` rows at a time.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,fma")]
    unsafe fn group_avx512<const G: usize, const R: usize>(
        q: &[i8],
        d: usize,
        rows: std::ops::Range<usize>,
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
        for r in rows.step_by(R) {
            let mut acc = [[_mm512_setzero_ps(); R]; G];
            for c in 0..full {
                for j in 0..R {
                    let v = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(
                        q.as_ptr().add((r + j) * d + c * 16) as *const __m128i,
                    )));
                    for (i, a) in acc.iter_mut().enumerate() {
                        let w = _mm512_loadu_ps(xp.add(i * d + c * 16));
                        a[j] = _mm512_fmadd_ps(v, w, a[j]);
                    }
                }
            }
            if rest > 0 {
                for j in 0..R {
                    let v = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(
                        mask,
                        q.as_ptr().add((r + j) * d + full * 16),
                    )));
                    for (i, a) in acc.iter_mut().enumerate() {
                        let w = _mm512_maskz_loadu_ps(mask, xp.add(i * d + full * 16));
                        a[j] = _mm512_fmadd_ps(v, w, a[j]);
                    }
                }
            }
            for (i, a) in acc.iter().enumerate() {
                for (j, sum) in a.iter().enumerate() {
                    *out.get_unchecked_mut((first + i) * m + r + j) = _mm512_reduce_add_ps(*sum);
                }
            }
        }
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn dots_avx2(q: &[i8], d: usize, m: usize, x: &[f32], out: &mut [f32]) {
        dispatch!(group_avx2, q, d, m, x, out)
    }

    /// [`group_avx512`] in 8 lanes; the last `d % 8` values of a row are summed one by one.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn group_avx2<const G: usize, const R: usize>(
        q: &[i8],
        d: usize,
        rows: std::ops::Range<usize>,
        m: usize,
        x: &[f32],
        first: usize,
        out: &mut [f32],
    ) {
        let full = d / 8;
        let xp = x.as_ptr().add(first * d);
        for r in rows.step_by(R) {
            let mut acc = [[_mm256_setzero_ps(); R]; G];
            for c in 0..full {
                for j in 0..R {
                    let v = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(
                        q.as_ptr().add((r + j) * d + c * 8) as *const __m128i,
                    )));
                    for (i, a) in acc.iter_mut().enumerate() {
                        let w = _mm256_loadu_ps(xp.add(i * d + c * 8));
                        a[j] = _mm256_fmadd_ps(v, w, a[j]);
                    }
                }
            }
            for (i, a) in acc.iter().enumerate() {
                for (j, sum) in a.iter().enumerate() {
                    // Horizontal sum: halves, then pairs.
                    let s4 =
                        _mm_add_ps(_mm256_castps256_ps128(*sum), _mm256_extractf128_ps(*sum, 1));
                    let s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
                    let s1 = _mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1));
                    let mut total = _mm_cvtss_f32(s1);
                    let row = q.as_ptr().add((r + j) * d);
                    for k in full * 8..d {
                        total += *row.add(k) as f32 * *xp.add(i * d + k);
                    }
                    *out.get_unchecked_mut((first + i) * m + r + j) = total;
                }
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
                // Rows not a multiple of the row blocks: the last ones go one at a time.
                let m = 7;
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
