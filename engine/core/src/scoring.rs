//! Eval-mode 1-N scoring with the relation cores cached.
//!
//! In eval mode (no dropout, BatchNorm running statistics) query `(h, r)` scores every entity as
//! `act(BN1(BN0(E[h]) · A_r)) · E^T` with `A_r = R[r] · W` (d_e x d_e). `A_r` does not depend on
//! the head, so it is computed once per relation and kept: a query then costs d_e² + N·d_e
//! multiply-adds instead of also d_r·d_e² (a pass over all of W: 24 MB at FB15k-237's sizes).

use crate::kernels::{batchnorm, core_product, elementwise, SyncPtr};
use crate::linalg::{matmul, Op};
use crate::params::Params;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

/// Queries scored per chunk: at most 2^24 logits (64 MiB) per chunk, and at most 512 queries
/// (larger chunks make the scoring product no faster: bench/train-speed/LEVERS.md).
pub fn queries_per_chunk(n_ent: usize) -> usize {
    ((1usize << 24) / n_ent.max(1)).clamp(1, 512)
}

/// Queries of one relation per task of the core product (its core is read once for all of them).
const CORE_CHUNK: usize = 12;

/// Cores computed per matrix product in [`CoreCache::prepare`]: the product's output stays
/// within 64 MiB.
const PREPARE_FLOATS: usize = 1 << 24;

/// `A_r = R[r] · W` (d_e x d_e, row-major) per model relation, computed on first use and kept.
/// Holds at most `n_rel x d_e²` floats. Must be cleared when the parameters change.
#[derive(Clone, Debug, Default)]
pub struct CoreCache {
    /// Each core is its place in the output of the product that computed it (shared with the
    /// other relations of that product, so it is never copied out).
    cores: Vec<OnceLock<CoreSlot>>,
}

/// A product's output (U x d_e²) and one core's place in it.
type CoreSlot = (Arc<Vec<f32>>, Range<usize>);

impl CoreCache {
    pub fn new(n_rel: usize) -> Self {
        CoreCache {
            cores: (0..n_rel).map(|_| OnceLock::new()).collect(),
        }
    }

    /// Computes the cores of `rels` that are not cached yet, many relations per product (one
    /// pass over W serves them all). Relations must be `< n_rel` (checked by the caller).
    pub fn prepare(&self, p: &Params<f32>, rels: &[u32]) {
        let (dr, d2) = (p.d_r, p.d_e * p.d_e);
        let mut missing: Vec<u32> = rels
            .iter()
            .copied()
            .filter(|&r| self.cores[r as usize].get().is_none())
            .collect();
        missing.sort_unstable();
        missing.dedup();
        let mut ru = Vec::new();
        for rs in missing.chunks((PREPARE_FLOATS / d2.max(1)).max(1)) {
            ru.clear();
            rs.iter()
                .for_each(|&r| ru.extend_from_slice(&p.r[r as usize * dr..][..dr]));
            let mut out = vec![0.0f32; rs.len() * d2];
            matmul(
                &mut out,
                Op::n(&ru, rs.len(), dr),
                Op::n(&p.w, dr, d2),
                false,
                true,
            );
            let out = Arc::new(out);
            for (i, &r) in rs.iter().enumerate() {
                // Another thread may have set it meanwhile, to the same value.
                let _ = self.cores[r as usize].set((Arc::clone(&out), i * d2..(i + 1) * d2));
            }
        }
    }

    /// The cached core of relation `r`, if prepared.
    pub fn core(&self, r: u32) -> Option<&[f32]> {
        self.cores
            .get(r as usize)
            .and_then(|c| c.get())
            .map(|(out, at)| &out[at.clone()])
    }

    /// Drops every cached core (keeps the capacity for `n_rel` relations).
    pub fn clear(&mut self) {
        self.cores.iter_mut().for_each(|c| *c = OnceLock::new());
    }

    /// Number of cores currently held.
    pub fn len(&self) -> usize {
        self.cores.iter().filter(|c| c.get().is_some()).count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Activations of one scoring call, reused across calls.
#[derive(Clone, Debug, Default)]
pub struct ScoreBuffers {
    x0: Vec<f32>,
    x1: Vec<f32>,
    y: Vec<f32>,
    z2: Vec<f32>,
    x2: Vec<f32>,
}

/// Eval-mode hidden vectors `x2` (B x d_e, row-major) of `queries` `(h, r)`, the left side of
/// the scoring product. Every relation must have been prepared in `cache` and every id checked
/// by the caller.
pub fn hidden_into<'a>(
    p: &Params<f32>,
    cache: &CoreCache,
    queries: &[(u32, u32)],
    buf: &'a mut ScoreBuffers,
) -> &'a [f32] {
    let d = p.d_e;
    buf.x0.resize(queries.len() * d, 0.0);
    for (row, &(h, _)) in buf.x0.chunks_exact_mut(d).zip(queries) {
        row.copy_from_slice(&p.e[h as usize * d..][..d]);
    }
    hidden_of_x0(p, cache, &|i| queries[i].1, queries.len(), buf)
}

/// [`hidden_into`] for head rows already in `buf`'s `x0` (B x d_e; see
/// [`ScoreBuffers::heads_mut`]), query `i` under relation `relation(i)`.
pub(crate) fn hidden_of_x0<'a>(
    p: &Params<f32>,
    cache: &CoreCache,
    relation: &(dyn Fn(usize) -> u32 + Sync),
    b: usize,
    buf: &'a mut ScoreBuffers,
) -> &'a [f32] {
    let d = p.d_e;
    for v in [&mut buf.x1, &mut buf.y, &mut buf.z2, &mut buf.x2] {
        v.resize(b * d, 0.0);
    }
    batchnorm::forward_eval(&p.bn0, &buf.x0, b, d, &mut buf.x1);
    // y_b = x1_b · A_{r_b}                                              (B x D)
    // In tasks of up to 12 queries of one relation, each reading its core once for all of them.
    let relation = |i: &u32| relation(*i as usize);
    let mut order: Vec<u32> = (0..b as u32).collect();
    order.sort_by_key(relation);
    let tasks: Vec<&[u32]> = order
        .chunk_by(|i, j| relation(i) == relation(j))
        .flat_map(|run| run.chunks(CORE_CHUNK))
        .collect();
    let (x1, yp) = (&buf.x1, SyncPtr(buf.y.as_mut_ptr()));
    tasks.par_iter().for_each(|&chunk| {
        // Moves the Send wrapper, not its raw-pointer field (see linalg::matmul).
        #[allow(clippy::redundant_locals)]
        let yp = yp;
        let core = cache
            .core(relation(&chunk[0]))
            .expect("relation core prepared before scoring");
        // Every query is in one task: its row of y has one writer.
        core_product::forward_unmasked(x1, core, chunk, d, yp.0);
    });
    batchnorm::forward_eval(&p.bn1, &buf.y, b, d, &mut buf.z2);
    elementwise::act_forward(&buf.z2, p.slope[0], &mut buf.x2);
    &buf.x2[..b * d]
}

impl ScoreBuffers {
    /// The head rows `x0` of the next [`hidden_of_x0`], resized to `b x d` rows.
    pub(crate) fn heads_mut(&mut self, len: usize) -> &mut [f32] {
        self.x0.resize(len, 0.0);
        &mut self.x0[..len]
    }
    /// The last forward's pre-activation `BN1(x1 · A_r)` (B x d_e): backward needs it.
    pub(crate) fn pre_activation(&self) -> &[f32] {
        &self.z2
    }
}

/// Eval-mode logits of `queries` `(h, r)` into `logits` (B x N, row-major). Every relation must
/// have been prepared in `cache` and every id checked by the caller.
pub fn logits_into(
    p: &Params<f32>,
    cache: &CoreCache,
    queries: &[(u32, u32)],
    buf: &mut ScoreBuffers,
    logits: &mut [f32],
) {
    let (b, d, n) = (queries.len(), p.d_e, p.n_ent);
    let x2 = hidden_into(p, cache, queries, buf);
    // logits = x2 · E^T                                                 (B x N)
    matmul(
        &mut logits[..b * n],
        Op::n(x2, b, d),
        Op::t(&p.e, n, d),
        false,
        true,
    );
}
