//! Filtered link-prediction evaluation.
//!
//! Queries are every triple `(h, r, t)` of the split ("tail" direction) plus its reverse
//! `(t, r⁻¹, h)` ("head" direction). The true answer is ranked on logits (eval mode: no dropout,
//! BatchNorm running statistics) against all entities, after removing every other answer known
//! in train + valid + test. Ties: `rank = 1 + #greater + #equal / 2`, the mean of the optimistic
//! (`1 + #greater`) and pessimistic (`1 + #greater + #equal`) ranks, so a constant model gets the
//! expected rank of a random order rather than rank 1. A NaN score ranks last.

use crate::dataset::{InverseMode, PairIndex, Triple};
use crate::kernels::rank_count::count_greater_equal;
use crate::params::Params;
use crate::scoring::{logits_into, CoreCache, ScoreBuffers};
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

/// Whether a query asks for the tail of `(h, r, ?)` or, via the reverse relation, the head.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Tail,
    Head,
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
    let s = scores[t as usize];
    if s.is_nan() {
        return scores.len() as f64;
    }
    let (mut gt, mut eq) = count_greater_equal(scores, s);
    eq -= 1; // t itself
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
            logits.resize(ids.len() * n, 0.0f32);
            logits_into(p, &cache, &pairs, &mut buf, &mut logits);
            batch_ranks.resize(ids.len(), 0.0f64);
            logits[..ids.len() * n]
                .par_chunks(n)
                .zip(batch_ranks.par_iter_mut())
                .zip(ids.par_iter())
                .for_each(|((row, rank), &i)| {
                    let (h, r, t, ..) = queries[i];
                    *rank = filtered_rank(row, t, filter.lookup(h, r));
                });
            ids.iter()
                .zip(&batch_ranks)
                .for_each(|(&i, &rank)| ranks[i] = rank);
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
