//! Suggestions across the graph: for one relation and direction, the best `n` missing edges over
//! every query entity, scored in bulk and kept in bounded heaps.
//!
//! Queries go in chunks of at most [`ROWS`], candidates in blocks: each tile costs one product
//! `x2 (B x d_e) · E_b^T (d_e x K)` over one block of candidates only (their rows gathered, or
//! borrowed from the model when the candidates are every entity). A tile's rows are cut into one
//! part per thread, each selected into its own heap of at most `n` entries, merged into the
//! relation's heap. Memory: the heaps (`n` per thread), plus one tile of logits and one block of
//! gathered rows, each within [`tile_floats`] (1 MiB, or more only for a large `n`): bounded by
//! `n`, not by the number of entities.

use crate::dataset::Direction;
use crate::error::{Error, Result};
use crate::linalg::{matmul, Op};
use crate::model::Model;
use crate::scoring::{hidden_into, ScoreBuffers};
use rayon::prelude::*;
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};

/// One suggested edge: `query` is the known end (the head for tail suggestions, the tail for head
/// suggestions), `candidate` the suggested end; ids are model entity ids.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Suggestion {
    pub query: u32,
    pub candidate: u32,
    pub logit: f32,
}

/// What one relation's suggestions range over.
#[derive(Clone, Copy, Debug)]
pub struct SuggestScope<'a> {
    /// Base relation id.
    pub relation: u32,
    pub direction: Direction,
    /// How many to keep.
    pub n: usize,
    /// Query entities, ascending and distinct; `None`: every entity.
    pub queries: Option<&'a [u32]>,
    /// Candidate entities, ascending and distinct; `None`: every entity.
    pub candidates: Option<&'a [u32]>,
    /// Excluded edges of the relation as `(head << 32) | tail` keys, ascending (known and rejected
    /// edges; the same keys in both directions): [`ExcludedEdges::of`].
    pub exclude: &'a [u64],
}

/// The edge key of [`SuggestScope::exclude`]: `head` in the high half, `tail` in the low one.
pub fn pair_key(head: u32, tail: u32) -> u64 {
    (head as u64) << 32 | tail as u64
}

/// Every excluded edge of a graph, grouped by base relation, for a whole job of suggestions:
/// 8 bytes per edge, passed once rather than copied per relation.
#[derive(Clone, Debug, Default)]
pub struct ExcludedEdges {
    /// Relation `r`'s keys are `keys[offsets[r]..offsets[r + 1]]`, ascending, distinct.
    keys: Vec<u64>,
    offsets: Vec<usize>,
}

impl ExcludedEdges {
    /// Groups `heads[i]`-`relations[i]`->`tails[i]` (base relations, any order, repeats allowed).
    pub fn new(
        n_rel: usize,
        n_ent: usize,
        heads: &[u32],
        relations: &[u32],
        tails: &[u32],
    ) -> Result<ExcludedEdges> {
        if heads.len() != relations.len() || heads.len() != tails.len() {
            return Err(Error::arg(
                "excluded",
                format!(
                    "heads ({}), relations ({}) and tails ({}) differ in length",
                    heads.len(),
                    relations.len(),
                    tails.len()
                ),
            ));
        }
        let mut offsets = vec![0usize; n_rel + 1];
        for (i, &r) in relations.iter().enumerate() {
            let (h, t) = (heads[i] as usize, tails[i] as usize);
            if r as usize >= n_rel || h >= n_ent || t >= n_ent {
                return Err(Error::arg(
                    "excluded",
                    format!(
                        "edge {i} ({h}, {r}, {t}) is out of range (model has {n_ent} entities, {n_rel} relations)"
                    ),
                ));
            }
            offsets[r as usize + 1] += 1;
        }
        for r in 0..n_rel {
            offsets[r + 1] += offsets[r];
        }
        // A counting sort by relation, then each relation's keys sorted in place.
        let mut next = offsets.clone();
        let mut keys = vec![0u64; heads.len()];
        for (i, &r) in relations.iter().enumerate() {
            keys[next[r as usize]] = pair_key(heads[i], tails[i]);
            next[r as usize] += 1;
        }
        let mut out = ExcludedEdges {
            keys: Vec::with_capacity(heads.len()),
            offsets: vec![0; n_rel + 1],
        };
        for r in 0..n_rel {
            let group = &mut keys[offsets[r]..offsets[r + 1]];
            group.sort_unstable();
            let start = out.keys.len();
            out.keys.extend_from_slice(group);
            let mut end = start;
            for i in start..out.keys.len() {
                if i == start || out.keys[i] != out.keys[end - 1] {
                    out.keys[end] = out.keys[i];
                    end += 1;
                }
            }
            out.keys.truncate(end);
            out.offsets[r + 1] = end;
        }
        Ok(out)
    }

    /// Relation `r`'s keys, ascending (empty for a relation out of range).
    pub fn of(&self, r: u32) -> &[u64] {
        match (
            self.offsets.get(r as usize),
            self.offsets.get(r as usize + 1),
        ) {
            (Some(&a), Some(&b)) => &self.keys[a..b],
            _ => &[],
        }
    }

    /// Distinct excluded edges held.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

/// Queries per chunk (larger chunks make the product no faster: bench/train-speed/LEVERS.md).
pub const ROWS: usize = 128;

/// The floor of [`tile_floats`]: 1 MiB of f32.
const TILE_FLOOR_FLOATS: usize = 1 << 18;

/// Floats one tile of logits, and one block of gathered candidate rows, may hold: 1 MiB, or
/// `4 x n x threads` when larger (the heaps hold `n x threads` entries of 12 bytes), so the
/// working set is bounded by `n` whatever the graph's size.
pub fn tile_floats(n: usize, threads: usize) -> usize {
    TILE_FLOOR_FLOATS.max(n.saturating_mul(threads.max(1)).saturating_mul(4))
}

/// Heap order: "greater" is worse (lower logit; on a tie, the later pair), so the heap's top is
/// the entry to evict. Better first is therefore ascending order.
#[derive(Clone, Copy, Debug)]
struct Ranked(Suggestion);

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .0
            .logit
            .total_cmp(&self.0.logit)
            .then(self.0.query.cmp(&other.0.query))
            .then(self.0.candidate.cmp(&other.0.candidate))
    }
}
impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Ranked {}

/// The best `cap` entries seen (at most `cap` held).
struct TopN {
    cap: usize,
    heap: BinaryHeap<Ranked>,
}

impl TopN {
    fn new(cap: usize) -> Self {
        TopN {
            cap,
            heap: BinaryHeap::with_capacity(cap.min(1 << 16) + 1),
        }
    }
    /// Whether an entry of this logit could enter (cheap pre-check before the exclusion lookup).
    fn admits(&self, logit: f32) -> bool {
        self.heap.len() < self.cap || self.heap.peek().is_some_and(|w| logit >= w.0.logit)
    }
    fn push(&mut self, s: Suggestion) {
        if self.cap == 0 {
            return;
        }
        if self.heap.len() < self.cap {
            self.heap.push(Ranked(s));
        } else if let Some(mut worst) = self.heap.peek_mut() {
            if Ranked(s) < *worst {
                *worst = Ranked(s);
            }
        }
    }
    fn merge(mut self, other: TopN) -> TopN {
        for r in other.heap {
            self.push(r.0);
        }
        self
    }
    fn into_sorted(self) -> Vec<Suggestion> {
        self.heap
            .into_sorted_vec()
            .into_iter()
            .map(|r| r.0)
            .collect()
    }
}

fn check_ids(what: &'static str, ids: &[u32], n_ent: usize) -> Result<()> {
    if let Some(w) = ids.windows(2).find(|w| w[0] >= w[1]) {
        return Err(Error::arg(
            what,
            format!("must be ascending and distinct ({} then {})", w[0], w[1]),
        ));
    }
    if let Some(&e) = ids.last().filter(|&&e| e as usize >= n_ent) {
        return Err(Error::arg(
            what,
            format!("{e} is out of range (model has {n_ent} entities)"),
        ));
    }
    Ok(())
}

/// The best `scope.n` suggestions of one relation and direction, best first (ties: lower query,
/// then lower candidate first). NaN logits, a query paired with itself, and excluded pairs are
/// never returned. `None`: `cancel` was set (checked between tiles).
pub fn suggest(
    model: &Model,
    scope: &SuggestScope,
    cancel: &AtomicBool,
) -> Result<Option<Vec<Suggestion>>> {
    suggest_in_chunks(model, scope, cancel, None)
}

/// [`suggest`] with tiles of `(queries, candidates)` given (default: [`ROWS`] queries, and
/// candidates within [`tile_floats`]): tests use small tiles so that many of them, and the
/// floor carried across them, are exercised.
#[doc(hidden)]
pub fn suggest_in_chunks(
    model: &Model,
    scope: &SuggestScope,
    cancel: &AtomicBool,
    tile: Option<(usize, usize)>,
) -> Result<Option<Vec<Suggestion>>> {
    model.validate()?;
    model.check_trained("suggestions")?;
    let (n_ent, d) = (model.params.n_ent, model.params.d_e);
    let head = scope.direction == Direction::Head;
    let r = if head {
        model.reverse_relation(scope.relation)?
    } else {
        model.reverse_relation(scope.relation)?;
        scope.relation
    };
    if let Some(w) = scope.exclude.windows(2).find(|w| w[0] > w[1]) {
        return Err(Error::arg(
            "exclude",
            format!("must be ascending ({} then {})", w[0], w[1]),
        ));
    }
    let all: Vec<u32>;
    let (queries, candidates) = match (scope.queries, scope.candidates) {
        (Some(q), Some(c)) => (q, c),
        (q, c) => {
            all = (0..n_ent as u32).collect();
            (q.unwrap_or(&all), c.unwrap_or(&all))
        }
    };
    check_ids("queries", queries, n_ent)?;
    check_ids("candidates", candidates, n_ent)?;
    if scope.n == 0 || queries.is_empty() || candidates.is_empty() {
        return Ok(Some(Vec::new()));
    }
    let threads = rayon::current_num_threads().max(1);
    let (rows, block) = tile.unwrap_or_else(|| {
        let floats = tile_floats(scope.n, threads);
        (ROWS, (floats / ROWS).min(floats / d.max(1)))
    });
    let (rows, block) = (rows.max(1), block.max(1));
    // Every entity as candidates: a block's rows are a slice of the model's, not a copy.
    let borrowed = scope.candidates.is_none();
    model.cores.prepare(&model.params, &[r]);
    let (mut buf, mut logits, mut gathered) = (ScoreBuffers::default(), Vec::new(), Vec::new());
    let mut best = TopN::new(scope.n);
    let excluded = |q: u32, e: u32| {
        let key = if head { pair_key(e, q) } else { pair_key(q, e) };
        scope.exclude.binary_search(&key).is_ok()
    };
    let cap = scope.n;
    for qs in queries.chunks(rows) {
        let pairs: Vec<(u32, u32)> = qs.iter().map(|&h| (h, r)).collect();
        let x2 = hidden_into(&model.params, &model.cores, &pairs, &mut buf);
        for cs in candidates.chunks(block) {
            if cancel.load(AtomicOrdering::Relaxed) {
                return Ok(None);
            }
            let (c, e) = (cs.len(), &model.params.e);
            let e_b: &[f32] = if borrowed {
                let first = cs[0] as usize;
                &e[first * d..(first + c) * d]
            } else {
                gathered.clear();
                for &i in cs {
                    gathered.extend_from_slice(&e[i as usize * d..(i as usize + 1) * d]);
                }
                &gathered
            };
            logits.resize(qs.len() * c, 0.0);
            // logits = x2 · E_b^T                                         (B x K)
            matmul(
                &mut logits,
                Op::n(x2, qs.len(), d),
                Op::t(e_b, c, d),
                false,
                true,
            );
            // One contiguous part of rows per thread, each into its own heap of at most n (so
            // a part's threshold rises as it goes); once the relation's heap is full, its worst
            // logit is a floor no entry below can pass.
            let floor = (best.heap.len() == cap)
                .then(|| best.heap.peek().map(|w| w.0.logit))
                .flatten();
            let rows_per = qs.len().div_ceil(threads);
            let parts: Vec<TopN> = logits
                .par_chunks(rows_per * c)
                .zip(qs.par_chunks(rows_per))
                .map(|(tile, part)| {
                    let mut top = TopN::new(cap);
                    for (row, &q) in tile.chunks(c).zip(part) {
                        for (&e, &v) in cs.iter().zip(row) {
                            if v.is_nan() || floor.is_some_and(|f| v < f) || !top.admits(v) {
                                continue;
                            }
                            if e != q && !excluded(q, e) {
                                top.push(Suggestion {
                                    query: q,
                                    candidate: e,
                                    logit: v,
                                });
                            }
                        }
                    }
                    top
                })
                .collect();
            for part in parts {
                best = best.merge(part);
            }
        }
    }
    Ok(Some(best.into_sorted()))
}
