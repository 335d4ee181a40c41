//! The scoring product's tiles in AVX-512 for f32, shared by the kernels that consume scores as
//! they are computed (ranking counts in evaluation, the loss in training): a tile is 12 queries
//! x 32 entities, 24 registers summed over `k` from entity tiles stored `[k][32]` and query tiles
//! stored `[k][12]`.
//!
//! Every score is one FMA chain over `k = 0..d` in order, starting from +0, in the tiles and in
//! [`paired_scores`] alike, so a score recomputed by [`paired_scores`] is the very value its tile
//! held.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Entities per tile: two 16-lane registers.
pub const TILE_ENTITIES: usize = 32;
/// Queries per tile (12 x 2 accumulators, two entity loads and a broadcast: 27 of 32 registers).
pub const TILE_QUERIES: usize = 12;

/// Packs the rows of `e` (M x d, row-major) into tiles of 32 entities stored `[k][32]` in `out`
/// (whole tiles; the last one's missing entities are left as they are in `out`).
pub fn pack_entities(e: &[f32], d: usize, out: &mut [f32]) {
    let m = e.len() / d.max(1);
    assert!(out.len() >= m.div_ceil(TILE_ENTITIES) * d * TILE_ENTITIES);
    for (tile, rows) in out
        .chunks_exact_mut(d * TILE_ENTITIES)
        .zip(e.chunks(d * TILE_ENTITIES))
    {
        // Written in order, read down the tile's rows (a few cache lines at a time).
        for (k, column) in tile.chunks_exact_mut(TILE_ENTITIES).enumerate() {
            for (o, row) in column.iter_mut().zip(rows.chunks_exact(d)) {
                *o = row[k];
            }
        }
    }
}

/// The rows of `x` (Q x d, row-major) in tiles of 12 queries stored `[k][12]`, padded with zeros.
pub fn pack_queries(x: &[f32], d: usize) -> Vec<f32> {
    let q = x.len() / d.max(1);
    let mut out = vec![0.0f32; q.div_ceil(TILE_QUERIES) * d * TILE_QUERIES];
    for (tile, rows) in out
        .chunks_exact_mut(d * TILE_QUERIES)
        .zip(x.chunks(d * TILE_QUERIES))
    {
        for (r, row) in rows.chunks_exact(d).enumerate() {
            for (k, &v) in row.iter().enumerate() {
                tile[k * TILE_QUERIES + r] = v;
            }
        }
    }
    out
}

/// Scores of one query tile (`xt`, `[k][12]`) against one entity tile (`et`, `[k][32]`):
/// register `2r + h` holds query `r`'s scores of entities `16h..16h + 16`.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f,avx512vl,fma")]
pub(crate) unsafe fn tile_scores(
    et: *const f32,
    xt: *const f32,
    d: usize,
) -> [__m512; 2 * TILE_QUERIES] {
    let mut s = [_mm512_setzero_ps(); 2 * TILE_QUERIES];
    for k in 0..d {
        let e0 = _mm512_loadu_ps(et.add(k * TILE_ENTITIES));
        let e1 = _mm512_loadu_ps(et.add(k * TILE_ENTITIES + 16));
        for r in 0..TILE_QUERIES {
            let x = _mm512_set1_ps(*xt.add(k * TILE_QUERIES + r));
            s[2 * r] = _mm512_fmadd_ps(e0, x, s[2 * r]);
            s[2 * r + 1] = _mm512_fmadd_ps(e1, x, s[2 * r + 1]);
        }
    }
    s
}

/// `out[j] = x[queries[j]] · e[entities[j]]` (rows of `x`: Q x d, `e`: N x d), each summed as
/// the tiles sum it.
pub fn paired_scores(
    e: &[f32],
    entities: &[u32],
    x: &[f32],
    queries: &[u32],
    d: usize,
    out: &mut [f32],
) {
    assert!(entities.len() == queries.len() && out.len() == queries.len());
    for (&j, &q) in entities.iter().zip(queries) {
        assert!((j as usize + 1) * d <= e.len() && (q as usize + 1) * d <= x.len());
    }
    #[cfg(target_arch = "x86_64")]
    if super::has_avx512() && e.len().max(x.len()) <= i32::MAX as usize {
        // SAFETY: AVX-512 detected just above; every row in bounds (checked above).
        unsafe { gathered_scores(e, entities, x, queries, d, out) };
        return;
    }
    for ((o, &j), &q) in out.iter_mut().zip(entities).zip(queries) {
        let (ej, xq) = (&e[j as usize * d..][..d], &x[q as usize * d..][..d]);
        *o = ej
            .iter()
            .zip(xq)
            .fold(0.0f32, |acc, (&ev, &xv)| ev.mul_add(xv, acc));
    }
}

/// [`paired_scores`], sixteen pairs per register: lane `j` runs pair `j`'s FMA chain (element
/// offsets in 32-bit lanes: `e` and `x` hold at most 2^31 floats each).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,fma")]
unsafe fn gathered_scores(
    e: &[f32],
    entities: &[u32],
    x: &[f32],
    queries: &[u32],
    d: usize,
    out: &mut [f32],
) {
    let pairs = entities.chunks(16).zip(queries.chunks(16));
    for ((es, qs), o) in pairs.zip(out.chunks_mut(16)) {
        let m: __mmask16 = ((1u32 << es.len()) - 1) as __mmask16;
        let (mut erows, mut xrows) = ([0i32; 16], [0i32; 16]);
        for (lane, (&j, &q)) in es.iter().zip(qs).enumerate() {
            erows[lane] = (j as usize * d) as i32;
            xrows[lane] = (q as usize * d) as i32;
        }
        let mut ei = _mm512_loadu_si512(erows.as_ptr().cast());
        let mut xi = _mm512_loadu_si512(xrows.as_ptr().cast());
        let (zero, one) = (_mm512_setzero_ps(), _mm512_set1_epi32(1));
        let mut s = zero;
        for _ in 0..d {
            let ev = _mm512_mask_i32gather_ps::<4>(zero, m, ei, e.as_ptr().cast());
            let xv = _mm512_mask_i32gather_ps::<4>(zero, m, xi, x.as_ptr().cast());
            s = _mm512_fmadd_ps(ev, xv, s);
            ei = _mm512_add_epi32(ei, one);
            xi = _mm512_add_epi32(xi, one);
        }
        let mut lanes = [0.0f32; 16];
        _mm512_storeu_ps(lanes.as_mut_ptr(), s);
        o.copy_from_slice(&lanes[..es.len()]);
    }
}

/// Test inputs: `n` values spread over [-1, 1] by a hash of their index and `seed`.
#[cfg(test)]
pub(crate) fn test_values(n: usize, seed: u32) -> Vec<f32> {
    (0..n)
        .map(|i| {
            let h = (i as u32 ^ seed).wrapping_mul(0x9e37_79b9).rotate_left(13);
            (h % 2001) as f32 / 1000.0 - 1.0
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::test_values as values;
    use super::*;

    #[test]
    fn scores_are_the_dot_products() {
        let (n, q, d) = (40, 5, 21);
        let (e, x) = (values(n * d, 3), values(q * d, 4));
        let entities: Vec<u32> = vec![39, 0, 5, 5, 17, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14];
        let queries: Vec<u32> = (0..entities.len() as u32)
            .map(|i| (i * 3) % q as u32)
            .collect();
        let mut got = vec![f32::NAN; entities.len()];
        paired_scores(&e, &entities, &x, &queries, d, &mut got);
        for ((&j, &qi), &g) in entities.iter().zip(&queries).zip(&got) {
            let want: f64 = (0..d)
                .map(|k| e[j as usize * d + k] as f64 * x[qi as usize * d + k] as f64)
                .sum();
            assert!(
                (g as f64 - want).abs() < 1e-5,
                "entity {j}, query {qi}: {g} vs {want}"
            );
        }
    }
}
