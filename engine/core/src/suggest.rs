//! Suggestions across the graph: for one relation and direction, the best `n` missing edges over
//! every query entity, scored in bulk and kept in bounded heaps.
//!
//! The candidates' embedding rows are gathered once (C x d_e), so each chunk of queries costs one
//! product `x2 (B x d_e) · E_c^T (d_e x C)` over the candidates only. A chunk's rows are cut into
//! one block per thread, each selected into its own heap of at most `n` entries (memory: `n` per
//! thread plus one chunk of logits), merged into the relation's heap.

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
    /// Excluded `(query << 32) | candidate` pairs, ascending (known and rejected edges).
    pub exclude: &'a [u64],
}

/// The pair key of [`SuggestScope::exclude`].
pub fn pair_key(query: u32, candidate: u32) -> u64 {
    (query as u64) << 32 | candidate as u64
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
/// never returned. `None`: `cancel` was set (checked between chunks of queries).
pub fn suggest(
    model: &Model,
    scope: &SuggestScope,
    cancel: &AtomicBool,
) -> Result<Option<Vec<Suggestion>>> {
    suggest_in_chunks(model, scope, cancel, None)
}

/// [`suggest`] with `rows` queries per chunk (default: a chunk of logits within 16 MiB): tests
/// use small chunks so that many chunks, and the floor carried across them, are exercised.
#[doc(hidden)]
pub fn suggest_in_chunks(
    model: &Model,
    scope: &SuggestScope,
    cancel: &AtomicBool,
    rows: Option<usize>,
) -> Result<Option<Vec<Suggestion>>> {
    model.validate()?;
    let (n_ent, d) = (model.params.n_ent, model.params.d_e);
    let r = match scope.direction {
        Direction::Tail => {
            model.reverse_relation(scope.relation)?;
            scope.relation
        }
        Direction::Head => model.reverse_relation(scope.relation)?,
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
    // E_c: the candidates' rows (C x d_e), gathered once for the whole relation.
    let c = candidates.len();
    let e_c = model.entity_vectors(candidates)?;
    model.cores.prepare(&model.params, &[r]);
    let chunk = rows.unwrap_or((1usize << 22) / c).clamp(1, 512);
    let (mut buf, mut logits) = (ScoreBuffers::default(), Vec::new());
    let mut best = TopN::new(scope.n);
    let excluded = |q: u32, e: u32| scope.exclude.binary_search(&pair_key(q, e)).is_ok();
    for qs in queries.chunks(chunk) {
        if cancel.load(AtomicOrdering::Relaxed) {
            return Ok(None);
        }
        let pairs: Vec<(u32, u32)> = qs.iter().map(|&h| (h, r)).collect();
        let x2 = hidden_into(&model.params, &model.cores, &pairs, &mut buf);
        logits.resize(qs.len() * c, 0.0);
        // logits = x2 · E_c^T                                             (B x C)
        matmul(
            &mut logits,
            Op::n(x2, qs.len(), d),
            Op::t(&e_c, c, d),
            false,
            true,
        );
        // One contiguous block of rows per thread, each into its own heap of at most n (so a
        // block's threshold rises as it goes); once the relation's heap is full, its worst
        // logit is a floor no entry below can pass.
        let cap = scope.n;
        let floor = (best.heap.len() == cap)
            .then(|| best.heap.peek().map(|w| w.0.logit))
            .flatten();
        let rows_per = qs.len().div_ceil(rayon::current_num_threads().max(1));
        let parts: Vec<TopN> = logits
            .par_chunks(rows_per * c)
            .zip(qs.par_chunks(rows_per))
            .map(|(rows, block)| {
                let mut top = TopN::new(cap);
                for (row, &q) in rows.chunks(c).zip(block) {
                    for (&e, &v) in candidates.iter().zip(row) {
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
    Ok(Some(best.into_sorted()))
}
