//! Filtered link-prediction evaluation.
//!
//! Queries are every triple `(h, r, t)` of the split ("tail" direction) plus its reverse
//! `(t, r⁻¹, h)` ("head" direction). The true answer is ranked on logits (eval mode: no dropout,
//! BatchNorm running statistics) against all entities, after removing every other answer known
//! in train + valid + test. Ties: `rank = 1 + #greater + #equal / 2`, the mean of the optimistic
//! (`1 + #greater`) and pessimistic (`1 + #greater + #equal`) ranks, so a constant model gets the
//! expected rank of a random order rather than rank 1. A NaN score ranks last.

use crate::candidate_mask::{rank_excluding, CandidateMask, OutsideAnswer};
pub use crate::dataset::Direction;
use crate::dataset::{InverseMode, PairIndex, Triple};
use crate::kernels::rank_count::count_greater_equal;
use crate::kernels::ranking_product_avx512::{self as fused, PackedEntities};
use crate::kernels::score_tiles_avx512::paired_scores;
use crate::params::Params;
use crate::scoring::{hidden_into, logits_into, CoreCache, ScoreBuffers};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Summary statistics of a set of ranks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RankStats {
    pub count: usize,
    /// Mean reciprocal rank.
    pub mrr: f64,
    /// Mean rank.
    pub mr: f64,
    pub hits1: f64,
    pub hits3: f64,
    pub hits10: f64,
}

#[derive(Clone, Copy, Debug, Default)]
struct Acc {
    n: usize,
    rr: f64,
    r: f64,
    h1: usize,
    h3: usize,
    h10: usize,
}

impl Acc {
    fn add(&mut self, rank: f64) {
        self.n += 1;
        self.rr += 1.0 / rank;
        self.r += rank;
        self.h1 += (rank <= 1.0) as usize;
        self.h3 += (rank <= 3.0) as usize;
        self.h10 += (rank <= 10.0) as usize;
    }
    fn stats(&self) -> RankStats {
        let n = self.n.max(1) as f64;
        RankStats {
            count: self.n,
            mrr: self.rr / n,
            mr: self.r / n,
            hits1: self.h1 as f64 / n,
            hits3: self.h3 as f64 / n,
            hits10: self.h10 as f64 / n,
        }
    }
}

/// Metrics of one base relation in one direction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RelationMetrics {
    /// Base relation id.
    pub relation: u32,
    pub direction: Direction,
    pub stats: RankStats,
}

/// Overall and per-relation filtered ranking metrics.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    pub overall: RankStats,
    pub tail: RankStats,
    pub head: RankStats,
    /// Sorted by (relation, direction); relations without queries are absent.
    pub per_relation: Vec<RelationMetrics>,
}

/// Filtered rank of entity `t` in `scores`, removing the known answers `known` (other than `t`).
pub fn filtered_rank(scores: &[f32], t: u32, known: &[u32]) -> f64 {
    filtered_rank_at(scores, t, scores[t as usize], known)
}

/// [`filtered_rank`] as if `t` scored `s` (at least its own score: a served score that only
/// raises the model's): the entities other than `t` and the known answers scoring above `s`,
/// plus half of those scoring equal to it.
pub fn filtered_rank_at(scores: &[f32], t: u32, s: f32, known: &[u32]) -> f64 {
    let own = scores[t as usize];
    if own.is_nan() {
        return scores.len() as f64;
    }
    let s = if s > own { s } else { own };
    let (mut gt, mut eq) = count_greater_equal(scores, s);
    if own == s {
        eq -= 1; // t itself
    }
    for &k in known {
        if k == t {
            continue;
        }
        let v = scores[k as usize];
        if v > s {
            gt -= 1;
        } else if v == s {
            eq -= 1;
        }
    }
    1.0 + gt as f64 + eq as f64 / 2.0
}

/// [`filtered_rank`] from `(gt, eq)`, the entities other than the known answers scoring above
/// and equal to the answer's score `s` (the answer among the equal).
fn rank_from_counts(n: usize, s: f32, (gt, eq): (u32, u32)) -> f64 {
    if s.is_nan() {
        return n as f64;
    }
    1.0 + gt as f64 + (eq - 1) as f64 / 2.0
}

/// Answers scored per task of the fused path (sixteen per register).
const ANSWERS_PER_TASK: usize = 64;

/// Cores kept at once during an evaluation (bounds its memory on graphs with many relations).
const CORE_BUDGET_BYTES: usize = 256 << 20;

/// Evaluates `triples` (base relation ids) with filtered ranking. `filter` must be built from
/// train + valid + test with reverses in `mode` (see `Dataset::filter_index`). Runs on the
/// ambient rayon pool.
///
/// Queries are scored grouped by model relation, so each relation's core `R[r] · W` is computed
/// once per evaluation (see [`crate::scoring`]) rather than once per batch it appears in.
pub fn evaluate_triples(
    p: &Params<f32>,
    triples: &[Triple],
    n_base_rel: usize,
    mode: InverseMode,
    filter: &PairIndex,
    batch_size: usize,
) -> Metrics {
    // Where the CPU has AVX-512, the scores are counted as they are computed (never stored).
    let packed = PackedEntities::new(&p.e, p.n_ent, p.d_e);
    evaluate_with(
        p,
        triples,
        n_base_rel,
        mode,
        filter,
        batch_size,
        packed.as_ref(),
        None,
    )
}

/// [`evaluate_triples`] with each query's candidates restricted to `mask`'s row of its (base
/// relation, direction): entities outside it are left out of the rank like known answers; the
/// true answer is ranked even when outside, unless `mask.outside` is [`OutsideAnswer::Missed`].
#[allow(clippy::too_many_arguments)]
pub fn evaluate_triples_masked(
    p: &Params<f32>,
    triples: &[Triple],
    n_base_rel: usize,
    mode: InverseMode,
    filter: &PairIndex,
    batch_size: usize,
    mask: &CandidateMask,
) -> Metrics {
    let packed = PackedEntities::new(&p.e, p.n_ent, p.d_e);
    evaluate_with(
        p,
        triples,
        n_base_rel,
        mode,
        filter,
        batch_size,
        packed.as_ref(),
        Some(mask),
    )
}

/// The exclusion bits of one query: its other known answers and, with a mask, the entities
/// outside its candidates (never the answer itself).
fn exclusion_bits(
    bits: &mut [u32],
    known: &[u32],
    t: u32,
    typed: Option<(&CandidateMask, u32, Direction)>,
) {
    bits.iter_mut().for_each(|w| *w = 0);
    for &k in known.iter().filter(|&&k| k != t) {
        bits[k as usize / 32] |= 1 << (k % 32);
    }
    if let Some((mask, r, dir)) = typed {
        mask.exclude_outside(r, dir, bits);
        bits[t as usize / 32] &= !(1 << (t % 32));
    }
}

/// [`evaluate_triples`] through the fused scoring-and-counting kernel when `packed` is given,
/// else through stored logits; typed by `mask` when given.
#[allow(clippy::too_many_arguments)]
fn evaluate_with(
    p: &Params<f32>,
    triples: &[Triple],
    n_base_rel: usize,
    mode: InverseMode,
    filter: &PairIndex,
    batch_size: usize,
    packed: Option<&PackedEntities>,
    mask: Option<&CandidateMask>,
) -> Metrics {
    // (h, r_model, answer, base relation, direction)
    let queries: Vec<(u32, u32, u32, u32, Direction)> = triples
        .iter()
        .flat_map(|&[h, r, t]| {
            [
                (h, r, t, r, Direction::Tail),
                (t, mode.reverse(r, n_base_rel), h, r, Direction::Head),
            ]
        })
        .collect();
    let mut order: Vec<usize> = (0..queries.len()).collect();
    order.sort_by_key(|&i| queries[i].1);
    let max_cores = (CORE_BUDGET_BYTES / (p.d_e * p.d_e * 4).max(1)).max(1);

    let mut ranks = vec![0.0f64; queries.len()];
    let mut cache = CoreCache::new(p.n_rel);
    let mut buf = ScoreBuffers::default();
    let (mut pairs, mut logits, mut batch_ranks) = (Vec::new(), Vec::new(), Vec::new());
    let n = p.n_ent;
    let words = fused::exclusion_words(n);
    let (mut answers, mut excluded, mut counts) = (Vec::new(), Vec::new(), Vec::new());
    // The chunk's queries are the rows 0.. of its hidden vectors.
    let (mut targets, rows) = (
        Vec::new(),
        (0..batch_size.max(1) as u32).collect::<Vec<_>>(),
    );
    let mut start = 0;
    while start < order.len() {
        // A segment: the queries of the next `max_cores` relations.
        let (mut end, mut rels) = (start, Vec::new());
        while end < order.len() {
            let r = queries[order[end]].1;
            if rels.last() != Some(&r) {
                if rels.len() == max_cores {
                    break;
                }
                rels.push(r);
            }
            end += 1;
        }
        cache.clear();
        cache.prepare(p, &rels);
        for ids in order[start..end].chunks(batch_size.max(1)) {
            pairs.clear();
            pairs.extend(ids.iter().map(|&i| (queries[i].0, queries[i].1)));
            batch_ranks.resize(ids.len(), 0.0f64);
            if let Some(packed) = packed {
                let d = p.d_e;
                let x2 = hidden_into(p, &cache, &pairs, &mut buf);
                // The answers' scores, and the other known answers left out of the counts.
                targets.clear();
                targets.extend(ids.iter().map(|&i| queries[i].2));
                answers.resize(ids.len(), 0.0f32);
                answers
                    .par_chunks_mut(ANSWERS_PER_TASK)
                    .zip(targets.par_chunks(ANSWERS_PER_TASK))
                    .zip(rows[..ids.len()].par_chunks(ANSWERS_PER_TASK))
                    .for_each(|((out, ts), qs)| paired_scores(&p.e, ts, x2, qs, d, out));
                excluded.resize(ids.len() * words, 0u32);
                ids.par_iter()
                    .zip(excluded.par_chunks_mut(words))
                    .for_each(|(&i, bits)| {
                        let (h, r, t, base, dir) = queries[i];
                        let typed = mask.map(|m| (m, base, dir));
                        exclusion_bits(bits, filter.lookup(h, r), t, typed);
                    });
                counts.resize(ids.len(), (0, 0));
                fused::count_greater_equal(packed, x2, &answers, &excluded, &mut counts);
                batch_ranks
                    .par_iter_mut()
                    .zip(answers.par_iter().zip(&counts))
                    .for_each(|(rank, (&s, &c))| *rank = rank_from_counts(n, s, c));
            } else {
                logits.resize(ids.len() * n, 0.0f32);
                logits_into(p, &cache, &pairs, &mut buf, &mut logits);
                logits[..ids.len() * n]
                    .par_chunks(n)
                    .zip(batch_ranks.par_iter_mut())
                    .zip(ids.par_iter())
                    .for_each(|((row, rank), &i)| {
                        let (h, r, t, base, dir) = queries[i];
                        *rank = match mask {
                            None => filtered_rank(row, t, filter.lookup(h, r)),
                            Some(m) => {
                                let mut bits = vec![0u32; n.div_ceil(32)];
                                exclusion_bits(
                                    &mut bits,
                                    filter.lookup(h, r),
                                    t,
                                    Some((m, base, dir)),
                                );
                                rank_excluding(row, t, &bits)
                            }
                        };
                    });
            }
            ids.iter().zip(&batch_ranks).for_each(|(&i, &rank)| {
                let (_, _, t, base, dir) = queries[i];
                let missed = mask
                    .is_some_and(|m| m.outside == OutsideAnswer::Missed && !m.allows(base, dir, t));
                ranks[i] = if missed { n as f64 } else { rank };
            });
        }
        start = end;
    }
    summarize(
        &queries.iter().map(|q| (q.3, q.4)).collect::<Vec<_>>(),
        &ranks,
    )
}

/// Aggregates ranks of queries labelled `(base relation, direction)`.
fn summarize(labels: &[(u32, Direction)], ranks: &[f64]) -> Metrics {
    let (mut all, mut tail, mut head) = (Acc::default(), Acc::default(), Acc::default());
    let mut per: std::collections::BTreeMap<(u32, u8), Acc> = Default::default();
    for (&(r, dir), &rank) in labels.iter().zip(ranks) {
        all.add(rank);
        match dir {
            Direction::Tail => tail.add(rank),
            Direction::Head => head.add(rank),
        }
        per.entry((r, (dir == Direction::Head) as u8))
            .or_default()
            .add(rank);
    }
    Metrics {
        overall: all.stats(),
        tail: tail.stats(),
        head: head.stats(),
        per_relation: per
            .into_iter()
            .map(|((relation, d), acc)| RelationMetrics {
                relation,
                direction: if d == 0 {
                    Direction::Tail
                } else {
                    Direction::Head
                },
                stats: acc.stats(),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_with_ties_and_filtering() {
        // scores:          e0   e1   e2   e3   e4
        let s = [0.5f32, 2.0, 1.0, 1.0, 3.0];
        // t = 2: greater {1, 4}, equal {3} -> 1 + 2 + 0.5
        assert_eq!(filtered_rank(&s, 2, &[]), 3.5);
        // filtering e4 (greater) and e3 (tie) and t itself (ignored)
        assert_eq!(filtered_rank(&s, 2, &[2, 3, 4]), 2.0);
        // best entity, nothing filtered
        assert_eq!(filtered_rank(&s, 4, &[]), 1.0);
        // all equal: mean of 1 and 5
        assert_eq!(filtered_rank(&[7.0f32; 5], 0, &[]), 3.0);
        assert_eq!(filtered_rank(&[0.0, f32::NAN], 1, &[]), 2.0);
    }

    #[test]
    fn the_fused_kernel_ranks_as_the_stored_logits_do() {
        use crate::config::Config;
        use crate::dataset::with_reverse;
        let cfg = Config {
            d_e: 24,
            d_r: 6,
            ..Config::default()
        };
        // 300 entities: not a whole number of 32-entity tiles.
        let (n, n_base) = (300u32, 3usize);
        let p = Params::<f32>::init(&cfg, n as usize, 2 * n_base);
        let mode = InverseMode::NewRelation;
        // Heads with 40 known tails each: the filter removes many entities from every rank.
        let triples: Vec<Triple> = (0..400u32)
            .map(|i| [(i / 40) * 29 % n, (i / 40) % 3, (i * 13 + 5) % n])
            .collect();
        let filter = PairIndex::build(&with_reverse(&triples, n_base, mode));
        let Some(packed) = PackedEntities::new(&p.e, p.n_ent, p.d_e) else {
            eprintln!("no AVX-512 on this CPU: only the stored-logits path runs here");
            return;
        };
        let split = &triples[..150];
        // Chunks of 50 queries: several chunks, each several 12-query tiles and a partial one.
        let fused = evaluate_with(&p, split, n_base, mode, &filter, 50, Some(&packed), None);
        let stored = evaluate_with(&p, split, n_base, mode, &filter, 50, None, None);
        assert_eq!(fused.overall.count, 300);
        assert!(
            (fused.overall.mrr - stored.overall.mrr).abs() < 1e-12
                && fused.overall.mr == stored.overall.mr,
            "fused {:?} vs stored {:?}",
            fused.overall,
            stored.overall
        );
        assert_eq!(fused.per_relation, stored.per_relation);
    }

    /// Brute force: every query's logits, then rank among the allowed, unfiltered candidates.
    #[test]
    fn typed_ranks_match_brute_force() {
        use crate::config::Config;
        use crate::dataset::with_reverse;
        let cfg = Config {
            d_e: 16,
            d_r: 4,
            ..Config::default()
        };
        let (n, n_base) = (70u32, 3usize);
        let p = Params::<f32>::init(&cfg, n as usize, 2 * n_base);
        let mode = InverseMode::NewRelation;
        let triples: Vec<Triple> = (0..120u32)
            .map(|i| [(i * 7) % n, i % 3, (i * 11 + 3) % n])
            .collect();
        let filter = PairIndex::build(&with_reverse(&triples, n_base, mode));
        let words = (n as usize).div_ceil(32);
        // A pseudo-random mask: about two candidates in three allowed.
        let mut bits = vec![0u32; 2 * n_base * words];
        for row in 0..2 * n_base {
            for e in 0..n as usize {
                if (e * 31 + row * 17) % 3 != 0 {
                    bits[row * words + e / 32] |= 1 << (e % 32);
                }
            }
        }
        let split = &triples[..40];
        let cache = CoreCache::new(p.n_rel);
        cache.prepare(&p, &(0..p.n_rel as u32).collect::<Vec<_>>());
        for outside in [OutsideAnswer::Ranked, OutsideAnswer::Missed] {
            let mask = CandidateMask::new(n as usize, n_base, bits.clone(), outside).unwrap();
            let mut expected = Vec::new();
            let mut labels = Vec::new();
            for &[h, r, t] in split {
                for (qh, qr, qt, dir) in [
                    (h, r, t, Direction::Tail),
                    (t, mode.reverse(r, n_base), h, Direction::Head),
                ] {
                    let mut row = vec![0f32; n as usize];
                    logits_into(
                        &p,
                        &cache,
                        &[(qh, qr)],
                        &mut ScoreBuffers::default(),
                        &mut row,
                    );
                    let s = row[qt as usize];
                    let known = filter.lookup(qh, qr);
                    let (mut gt, mut eq) = (0usize, 0usize);
                    for e in 0..n {
                        if e == qt || known.contains(&e) || !mask.allows(r, dir, e) {
                            continue;
                        }
                        gt += (row[e as usize] > s) as usize;
                        eq += (row[e as usize] == s) as usize;
                    }
                    let rank = 1.0 + gt as f64 + eq as f64 / 2.0;
                    let missed = outside == OutsideAnswer::Missed && !mask.allows(r, dir, qt);
                    expected.push(if missed { n as f64 } else { rank });
                    labels.push((r, dir));
                }
            }
            let want = summarize(&labels, &expected);
            let stored = evaluate_with(&p, split, n_base, mode, &filter, 16, None, Some(&mask));
            assert!(
                (stored.overall.mrr - want.overall.mrr).abs() < 1e-9,
                "{outside:?}"
            );
            assert!(
                (stored.overall.mr - want.overall.mr).abs() < 1e-9,
                "{outside:?}"
            );
            let untyped = evaluate_with(&p, split, n_base, mode, &filter, 16, None, None);
            if outside == OutsideAnswer::Ranked {
                // Fewer competitors: never a worse rank.
                assert!(stored.overall.mr <= untyped.overall.mr);
            }
            if let Some(packed) = PackedEntities::new(&p.e, p.n_ent, p.d_e) {
                let fused = evaluate_with(
                    &p,
                    split,
                    n_base,
                    mode,
                    &filter,
                    16,
                    Some(&packed),
                    Some(&mask),
                );
                assert!(
                    (fused.overall.mrr - want.overall.mrr).abs() < 1e-9,
                    "{outside:?}"
                );
                assert_eq!(fused.per_relation.len(), want.per_relation.len());
            }
        }
        // A mask of the wrong size is refused.
        assert!(CandidateMask::new(n as usize, n_base, vec![0; 3], OutsideAnswer::Ranked).is_err());
    }

    #[test]
    fn summary_statistics() {
        let labels = [
            (0, Direction::Tail),
            (0, Direction::Head),
            (1, Direction::Tail),
            (1, Direction::Tail),
        ];
        let m = summarize(&labels, &[1.0, 2.0, 4.0, 12.0]);
        assert_eq!(m.overall.count, 4);
        assert!((m.overall.mrr - (1.0 + 0.5 + 0.25 + 1.0 / 12.0) / 4.0).abs() < 1e-12);
        assert_eq!(m.overall.mr, 19.0 / 4.0);
        assert_eq!(
            (m.overall.hits1, m.overall.hits3, m.overall.hits10),
            (0.25, 0.5, 0.75)
        );
        assert_eq!(m.per_relation.len(), 3);
        assert_eq!(m.per_relation[2].stats.count, 2);
        assert_eq!(m.tail.count, 3);
    }
}
