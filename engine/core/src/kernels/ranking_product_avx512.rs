//! Filtered ranking's scoring product fused with its counting, in AVX-512 for f32. Each query's
//! scores against every entity (`x2 · Eᵀ`) are computed a 12-query x 32-entity tile at a time in
//! registers and compared with the query's answer score there, so the queries' B x N scores are
//! never written or read back, and the entities are packed once per evaluation rather than once
//! per product.
//!
//! The answer's score computed by [`super::score_tiles_avx512::paired_scores`] is the very value
//! the tiles compare against (the answer counts as equal to itself, never above). The other
//! known answers are left out of the counts by a bit per (query, entity), so their scores are
//! never needed.

#[cfg(target_arch = "x86_64")]
use super::score_tiles_avx512::tile_scores;
use super::score_tiles_avx512::{pack_entities, pack_queries, TILE_ENTITIES, TILE_QUERIES};
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Tiles of entities per block: a block (256 x d floats, 200 KB at d = 200) stays in L2 while
/// every query of the call passes over it.
const BLOCK_TILES: usize = 8;

/// The entity embeddings (N x d) in tiles of 32 entities, each stored `[k][32]`, the last tile
/// padded with zeros (masked out of the counts).
pub struct PackedEntities {
    tiles: Vec<f32>,
    n: usize,
    d: usize,
}

impl PackedEntities {
    /// Packs `e` (N x d, row-major), or `None` where the CPU lacks AVX-512 (nothing here runs).
    pub fn new(e: &[f32], n: usize, d: usize) -> Option<Self> {
        if !super::has_avx512() || d == 0 {
            return None;
        }
        let mut tiles = vec![0.0f32; n.div_ceil(TILE_ENTITIES) * d * TILE_ENTITIES];
        pack_entities(&e[..n * d], d, &mut tiles);
        Some(Self { tiles, n, d })
    }
}

/// Words of a query's row in the exclusion bits of [`count_greater_equal`]: one bit per entity.
pub fn exclusion_words(n: usize) -> usize {
    n.div_ceil(TILE_ENTITIES)
}

/// For each query `q` (row `q` of `x2`, Q x d): `counts[q] = (#{entities scoring above
/// thresholds[q]}, #{scoring equal to it})`, leaving out the entities whose bit is set in
/// `excluded` (Q rows of [`exclusion_words`] words; entity `j` is bit `j % 32` of word `j / 32`).
/// A NaN threshold counts nothing.
pub fn count_greater_equal(
    packed: &PackedEntities,
    x2: &[f32],
    thresholds: &[f32],
    excluded: &[u32],
    counts: &mut [(u32, u32)],
) {
    let (d, q, words) = (packed.d, thresholds.len(), exclusion_words(packed.n));
    assert!(x2.len() >= q * d && counts.len() >= q && excluded.len() >= q * words);
    #[cfg(target_arch = "x86_64")]
    {
        use rayon::prelude::*;
        // Padded queries' counts are dropped.
        let q_tiles = q.div_ceil(TILE_QUERIES);
        let xq = pack_queries(&x2[..q * d], d);
        let mut thr = thresholds.to_vec();
        thr.resize(q_tiles * TILE_QUERIES, f32::NAN);
        let block = d * TILE_ENTITIES * BLOCK_TILES;
        let total = packed
            .tiles
            .par_chunks(block)
            .enumerate()
            .fold(
                || vec![(0u32, 0u32); q_tiles * TILE_QUERIES],
                |mut acc, (b, entities)| {
                    let first = b * TILE_ENTITIES * BLOCK_TILES;
                    // SAFETY: AVX-512 was detected when `packed` was built; the tiles and the
                    // packed queries hold whole tiles of `d` steps, and `acc` and `thr` one
                    // entry per padded query.
                    unsafe {
                        count_block(entities, first, packed.n, &xq, &thr, excluded, d, &mut acc)
                    };
                    acc
                },
            )
            .reduce(
                || vec![(0u32, 0u32); q_tiles * TILE_QUERIES],
                |mut a, b| {
                    a.iter_mut().zip(&b).for_each(|(x, y)| {
                        x.0 += y.0;
                        x.1 += y.1;
                    });
                    a
                },
            );
        counts[..q].copy_from_slice(&total[..q]);
    }
}

/// One block of entity tiles (`entities`, starting at entity `first` of `n`) against every
/// query tile, adding into `acc`. Padded queries (past `excluded`'s rows) have NaN thresholds.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn count_block(
    entities: &[f32],
    first: usize,
    n: usize,
    xq: &[f32],
    thr: &[f32],
    excluded: &[u32],
    d: usize,
    acc: &mut [(u32, u32)],
) {
    let (tile_len, words) = (d * TILE_ENTITIES, exclusion_words(n));
    let rows = excluded.len() / words.max(1);
    for (qt, xt) in xq.chunks_exact(d * TILE_QUERIES).enumerate() {
        for (et, tile) in entities.chunks_exact(tile_len).enumerate() {
            let word = first / TILE_ENTITIES + et;
            let left = n - word * TILE_ENTITIES;
            let valid = if left >= TILE_ENTITIES {
                u32::MAX
            } else {
                (1u32 << left) - 1
            };
            let s = tile_scores(tile.as_ptr(), xt.as_ptr(), d);
            for r in 0..TILE_QUERIES {
                let qi = qt * TILE_QUERIES + r;
                let keep = if qi < rows {
                    valid & !excluded[qi * words + word]
                } else {
                    valid
                };
                let (lo, hi) = (keep as __mmask16, (keep >> 16) as __mmask16);
                let t = _mm512_set1_ps(thr[qi]);
                let gt = _mm512_mask_cmp_ps_mask::<_CMP_GT_OQ>(lo, s[2 * r], t).count_ones()
                    + _mm512_mask_cmp_ps_mask::<_CMP_GT_OQ>(hi, s[2 * r + 1], t).count_ones();
                let eq = _mm512_mask_cmp_ps_mask::<_CMP_EQ_OQ>(lo, s[2 * r], t).count_ones()
                    + _mm512_mask_cmp_ps_mask::<_CMP_EQ_OQ>(hi, s[2 * r + 1], t).count_ones();
                let c = &mut acc[qi];
                c.0 += gt;
                c.1 += eq;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::score_tiles_avx512::test_values as values;

    #[test]
    fn counts_are_those_of_the_scores_summed_one_by_one() {
        use crate::kernels::score_tiles_avx512::paired_scores;
        for (n, d, q) in [(1, 1, 1), (31, 7, 13), (300, 37, 25), (1000, 64, 12)] {
            let (mut e, x) = (values(n * d, 1), values(q * d, 2));
            // The last entity a copy of the first: exact ties across tiles.
            e.copy_within(0..d, (n - 1) * d);
            let Some(packed) = PackedEntities::new(&e, n, d) else {
                eprintln!("no AVX-512 on this CPU: the fused kernel is not used here");
                return;
            };
            let all: Vec<u32> = (0..n as u32).collect();
            let words = exclusion_words(n);
            let mut excluded = vec![0u32; q * words];
            let mut scores = vec![0.0f32; n];
            let mut thresholds = Vec::new();
            let mut want = Vec::new();
            for qi in 0..q {
                paired_scores(&e, &all, &x, &vec![qi as u32; n], d, &mut scores);
                // Each query's threshold is one of its scores, so ties with it are exercised.
                let s = scores[(qi * 7) % n];
                thresholds.push(s);
                // Every third entity from the query's own offset is left out.
                let kept = |j: usize| !(j + qi).is_multiple_of(3) || j == (qi * 7) % n;
                for j in (0..n).filter(|&j| !kept(j)) {
                    excluded[qi * words + j / 32] |= 1 << (j % 32);
                }
                let counted = |f: &dyn Fn(f32) -> bool| {
                    (0..n).filter(|&j| kept(j) && f(scores[j])).count() as u32
                };
                want.push((counted(&|v| v > s), counted(&|v| v == s)));
            }
            let mut counts = vec![(0, 0); q];
            count_greater_equal(&packed, &x, &thresholds, &excluded, &mut counts);
            assert_eq!(counts, want, "n {n}, d {d}, q {q}");
            assert!(counts.iter().all(|c| c.1 >= 1), "the answer equals itself");
            let mut nan = vec![(9, 9); 1];
            count_greater_equal(&packed, &x, &[f32::NAN], &excluded, &mut nan);
            assert_eq!(nan, [(0, 0)]);
        }
    }
}
