//! Exact top-k over 8-bit entity rows: one pass over [`Int8Rows`] (a quarter of the f32 rows'
//! bytes: the pass is bound by memory bandwidth on large graphs), then the few entities that
//! could still be in the top k re-scored exactly from the f32 rows.
//!
//! For a query's hidden vector `x` (quantised to 16 bits), each entity's quantised score `a_e`
//! is within `δ_e` of its exact score `s_e` ([`Int16Queries::bound_steps`]). Let `τ` be the
//! k-th largest lower bound `a_e - δ_e` over the entities that may be returned: at least k of
//! them score `≥ τ`, so every entity of the exact top k scores `≥ τ`, hence has `a_e + δ_e ≥ τ`.
//! The scan keeps exactly those (against a running `τ` that only rises), and the re-rank scores
//! them in f64 and keeps the best k: the same entities, in the same order, as scoring every
//! entity exactly.

use crate::int8_rows::{Int16Queries, Int8Rows};
use crate::int8_scan::{exact_score, scan_tiles, Tile, QUERIES_PER_PASS};
use crate::rows::EntityRows;
use rayon::prelude::*;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// The top `k` of each query `x[b]` (B x d, row-major) over every entity of `e`, skipping
/// `excludes[b]` (any order; may be empty) and NaN scores, best first, ties to the lower id.
/// `rows` quantise `e`'s trained rows, which the pass reads; `e`'s appended rows (a few, from
/// fold-in) join every query's survivors; the re-rank reads the f32 rows.
pub fn exact_top_k(
    rows: &Int8Rows,
    e: EntityRows<'_>,
    x: &[f32],
    k: usize,
    excludes: &[&[u32]],
) -> TopKScanned {
    let d = e.width();
    let b = x.len() / d.max(1);
    let sorted: Vec<Vec<u32>> = (0..b)
        .map(|i| {
            let mut ex = excludes.get(i).map_or_else(Vec::new, |l| l.to_vec());
            ex.sort_unstable();
            ex
        })
        .collect();
    let mut out = TopKScanned {
        top: Vec::with_capacity(b),
        rescored: 0,
    };
    for (c, xs) in x.chunks(QUERIES_PER_PASS * d).enumerate() {
        let first = c * QUERIES_PER_PASS;
        let scans = scan(rows, d, xs, k, &sorted[first..]);
        out.rescored += scans.iter().map(|s| s.candidates.len()).sum::<usize>();
        let tops: Vec<Vec<(u32, f32)>> = scans
            .into_par_iter()
            .zip(xs.par_chunks(d))
            .enumerate()
            .map(|(q, (mut s, xq))| {
                let ex = &sorted[first + q];
                let appended = e.appended_ids().filter(|a| ex.binary_search(a).is_err());
                s.candidates.extend(appended.map(|a| (a, f32::INFINITY)));
                rerank(s, e, xq, k)
            })
            .collect();
        out.top.extend(tops);
    }
    out
}

/// What [`exact_top_k`] found.
#[derive(Clone, Debug, Default)]
pub struct TopKScanned {
    /// Per query, `(entity, logit)` best first.
    pub top: Vec<Vec<(u32, f32)>>,
    /// Entities re-scored from the f32 rows, over all queries (the scan's survivors).
    pub rescored: usize,
}

/// One query's survivors of the scan.
#[derive(Default)]
struct Survivors {
    /// The k largest lower bounds seen (a min-heap): `τ` is its least once full.
    lows: BinaryHeap<Reverse<Bound>>,
    /// Entities and their upper bounds, each `≥ τ` when added.
    candidates: Vec<(u32, f32)>,
}

impl Survivors {
    fn tau(&self, k: usize) -> f32 {
        match self.lows.peek() {
            Some(Reverse(Bound(t))) if self.lows.len() >= k => *t,
            _ => f32::NEG_INFINITY,
        }
    }

    fn offer_low(&mut self, low: f32, k: usize) {
        if low.is_nan() || k == 0 {
            return;
        }
        if self.lows.len() < k {
            self.lows.push(Reverse(Bound(low)));
        } else if let Some(mut least) = self.lows.peek_mut() {
            if low > least.0 .0 {
                *least = Reverse(Bound(low));
            }
        }
    }

    /// Drops the candidates that the current `τ` rules out (NaN bounds stay: they are decided
    /// by the exact score).
    fn prune(&mut self, k: usize) {
        let tau = self.tau(k);
        self.candidates.retain(|&(_, up)| up >= tau || up.is_nan());
    }

    fn merge(mut self, other: Survivors, k: usize) -> Survivors {
        for Reverse(Bound(low)) in other.lows {
            self.offer_low(low, k);
        }
        self.candidates.extend(other.candidates);
        self
    }
}

/// A lower bound, ordered by value (never NaN).
#[derive(Clone, Copy, PartialEq, PartialOrd)]
struct Bound(f32);
impl Eq for Bound {}
#[allow(clippy::derive_ord_xor_partial_ord)]
impl Ord for Bound {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// The pass: every entity's quantised score for each query of `x` (at most
/// [`QUERIES_PER_PASS`]), kept when its upper bound reaches the running `τ`.
fn scan(rows: &Int8Rows, d: usize, x: &[f32], k: usize, excludes: &[Vec<u32>]) -> Vec<Survivors> {
    let compact_at = (4 * k).max(4096);
    let visit = |s: &mut Survivors, q: usize, tile: &Tile<'_>| {
        let mut tau = s.tau(k);
        if !tile.any_reaches(tau) {
            return;
        }
        for i in 0..tile.raw.len() {
            let (low, up) = tile.bounds(i);
            let ent = (tile.first + i) as u32;
            if up < tau || excludes[q].binary_search(&ent).is_ok() {
                continue;
            }
            s.candidates.push((ent, up));
            s.offer_low(low, k);
            tau = s.tau(k);
            if s.candidates.len() >= compact_at {
                s.prune(k);
            }
        }
    };
    let xq = Int16Queries::new(x, d);
    scan_tiles(rows, &xq, Survivors::default, visit, |a, b| a.merge(b, k))
        .into_iter()
        .map(|mut s| {
            s.prune(k);
            s
        })
        .collect()
}

/// The exact top k of one query's survivors: each scored in f64 from its f32 row.
fn rerank(s: Survivors, e: EntityRows<'_>, x: &[f32], k: usize) -> Vec<(u32, f32)> {
    let mut scored: Vec<(f32, u32)> = s
        .candidates
        .into_iter()
        .map(|(ent, _)| (exact_score(e.row(ent), x), ent))
        .filter(|(logit, _)| !logit.is_nan())
        .collect();
    scored.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.truncate(k);
    scored
        .into_iter()
        .map(|(logit, entity)| (entity, logit))
        .collect()
}
