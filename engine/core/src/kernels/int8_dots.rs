//! Integer dot products of 16-bit queries with 8-bit rows: the per-entity work of the exact
//! top-k scan ([`crate::exact_top_k`]), which must keep up with memory.
//!
//! `out[i * m + r] = Σ_j x[i][j] · q[r][j]`, exact in i32, for queries `x` (b x `padded(d)`
//! i16, zero past d) and rows `q` (m x d i8). A row's bytes are widened to i16 and multiplied
//! pairwise into i32 (`vpmaddwd`: 32 products per instruction with AVX-512); up to four sums
//! (queries, or rows side by side when there are fewer queries) are in flight at once. Every
//! version gives the same integers. The caller keeps `Σ_j |x[i][j]| · 128` below 2^31.

/// Values per block: one AVX-512 `vpmaddwd`; query rows are padded with zeros to a multiple.
pub const BLOCK: usize = 32;

/// A query row's length: `d` rounded up to [`BLOCK`].
pub fn padded(d: usize) -> usize {
    d.div_ceil(BLOCK) * BLOCK
}

/// See the module documentation; dispatches to AVX-512 or AVX2 where the CPU has them.
pub fn int8_dots(q: &[i8], d: usize, m: usize, x: &[i16], out: &mut [i32]) {
    let dp = padded(d);
    if dp == 0 {
        // d 0: every dot product is the empty sum.
        out.iter_mut().for_each(|o| *o = 0);
        return;
    }
    let b = x.len() / dp;
    assert!(q.len() >= m * d && out.len() >= b * m && x.len() == b * dp);
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
    for (r, row) in q.chunks_exact(d).take(m).enumerate() {
        for (i, xi) in x.chunks_exact(dp).enumerate() {
            out[i * m + r] = row.iter().zip(xi).map(|(&v, &w)| v as i32 * w as i32).sum();
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{padded, BLOCK};
    use std::arch::x86_64::*;

    /// Independent sums in flight: `G` queries x `R` rows with `G * R = CHAINS`.
    const CHAINS: usize = 4;

    /// Runs `$group::<G, R>` over every query group and row block (`G` queries, `R = CHAINS / G`
    /// rows at a time, the last rows one at a time).
    macro_rules! dispatch {
        ($group:ident, $q:expr, $d:expr, $m:expr, $x:expr, $out:expr) => {{
            let (q, d, m, x, out) = ($q, $d, $m, $x, $out);
            let b = x.len() / padded(d);
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

    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    pub(super) unsafe fn dots_avx512(q: &[i8], d: usize, m: usize, x: &[i16], out: &mut [i32]) {
        dispatch!(group_avx512, q, d, m, x, out)
    }

    /// Queries `first..first + G` against `rows` (a multiple of `R` long), `R` rows at a time.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    unsafe fn group_avx512<const G: usize, const R: usize>(
        q: &[i8],
        d: usize,
        rows: std::ops::Range<usize>,
        m: usize,
        x: &[i16],
        first: usize,
        out: &mut [i32],
    ) {
        let dp = padded(d);
        let full = d / BLOCK;
        // The last partial block: a mask of the remaining bytes (the query is zero past d).
        let rest = d % BLOCK;
        let mask: __mmask32 = ((1u64 << rest) - 1) as __mmask32;
        let xp = x.as_ptr().add(first * dp);
        for r in rows.step_by(R) {
            let mut acc = [[_mm512_setzero_si512(); R]; G];
            for c in 0..full {
                for j in 0..R {
                    let v = _mm512_cvtepi8_epi16(_mm256_loadu_si256(
                        q.as_ptr().add((r + j) * d + c * BLOCK) as *const __m256i,
                    ));
                    for (i, a) in acc.iter_mut().enumerate() {
                        let w = _mm512_loadu_si512(xp.add(i * dp + c * BLOCK) as *const _);
                        a[j] = _mm512_add_epi32(a[j], _mm512_madd_epi16(v, w));
                    }
                }
            }
            if rest > 0 {
                for j in 0..R {
                    let v = _mm512_cvtepi8_epi16(_mm256_maskz_loadu_epi8(
                        mask,
                        q.as_ptr().add((r + j) * d + full * BLOCK),
                    ));
                    for (i, a) in acc.iter_mut().enumerate() {
                        let w = _mm512_loadu_si512(xp.add(i * dp + full * BLOCK) as *const _);
                        a[j] = _mm512_add_epi32(a[j], _mm512_madd_epi16(v, w));
                    }
                }
            }
            for (i, a) in acc.iter().enumerate() {
                for (j, sum) in a.iter().enumerate() {
                    *out.get_unchecked_mut((first + i) * m + r + j) = _mm512_reduce_add_epi32(*sum);
                }
            }
        }
    }

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn dots_avx2(q: &[i8], d: usize, m: usize, x: &[i16], out: &mut [i32]) {
        dispatch!(group_avx2, q, d, m, x, out)
    }

    /// [`group_avx512`] in 16-value halves; a row's last `d % 16` bytes are copied into a zeroed
    /// block first (AVX2 has no masked byte load).
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn group_avx2<const G: usize, const R: usize>(
        q: &[i8],
        d: usize,
        rows: std::ops::Range<usize>,
        m: usize,
        x: &[i16],
        first: usize,
        out: &mut [i32],
    ) {
        const HALF: usize = BLOCK / 2;
        let dp = padded(d);
        let full = d / HALF;
        let rest = d % HALF;
        let xp = x.as_ptr().add(first * dp);
        for r in rows.step_by(R) {
            let mut acc = [[_mm256_setzero_si256(); R]; G];
            for c in 0..full + usize::from(rest > 0) {
                for j in 0..R {
                    let row = q.as_ptr().add((r + j) * d + c * HALF);
                    let bytes = if c < full {
                        _mm_loadu_si128(row as *const __m128i)
                    } else {
                        let mut tail = [0i8; HALF];
                        std::ptr::copy_nonoverlapping(row, tail.as_mut_ptr(), rest);
                        _mm_loadu_si128(tail.as_ptr() as *const __m128i)
                    };
                    let v = _mm256_cvtepi8_epi16(bytes);
                    for (i, a) in acc.iter_mut().enumerate() {
                        let w = _mm256_loadu_si256(xp.add(i * dp + c * HALF) as *const __m256i);
                        a[j] = _mm256_add_epi32(a[j], _mm256_madd_epi16(v, w));
                    }
                }
            }
            for (i, a) in acc.iter().enumerate() {
                for (j, sum) in a.iter().enumerate() {
                    // Horizontal sum: halves, then pairs.
                    let s4 = _mm_add_epi32(
                        _mm256_castsi256_si128(*sum),
                        _mm256_extracti128_si256(*sum, 1),
                    );
                    let s2 = _mm_add_epi32(s4, _mm_unpackhi_epi64(s4, s4));
                    let s1 = _mm_add_epi32(s2, _mm_shuffle_epi32(s2, 1));
                    *out.get_unchecked_mut((first + i) * m + r + j) = _mm_cvtsi128_si32(s1);
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
        for d in [1usize, 7, 16, 23, 32, 33, 200] {
            let dp = padded(d);
            for b in 1..=6 {
                // Rows not a multiple of the row blocks: the last ones go one at a time.
                let m = 7;
                let q: Vec<i8> = (0..m * d).map(|i| ((i * 37) % 256) as u8 as i8).collect();
                let mut x = vec![0i16; b * dp];
                for i in 0..b {
                    for j in 0..d {
                        x[i * dp + j] = ((i * 7919 + j * 104_729) % 65_535) as i32 as i16;
                    }
                }
                let mut out = vec![0i32; b * m];
                int8_dots(&q, d, m, &x, &mut out);
                // The AVX2 version too, where it can run beside the AVX-512 one.
                #[cfg(target_arch = "x86_64")]
                if crate::kernels::has_avx2() {
                    let mut avx2 = vec![0i32; b * m];
                    // SAFETY: the CPU has AVX2 (checked just above); lengths as above.
                    unsafe { x86::dots_avx2(&q, d, m, &x, &mut avx2) };
                    assert_eq!(avx2, out, "AVX2, d {d} b {b}");
                }
                for i in 0..b {
                    for r in 0..m {
                        let want: i64 = (0..d)
                            .map(|j| q[r * d + j] as i64 * x[i * dp + j] as i64)
                            .sum();
                        assert_eq!(out[i * m + r] as i64, want, "d {d} b {b} row {r}");
                    }
                }
            }
        }
    }
}
