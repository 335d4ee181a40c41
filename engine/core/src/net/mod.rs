//! The NePTuNe network: one training step's forward and backward, and eval-mode scoring, over
//! reusable buffers.
//!
//! Shapes: B examples, N entities, D = d_e, Dr = d_r, U distinct relations in the batch.

mod backward;
mod forward;
mod sampled;

pub use backward::backward;
pub use forward::forward;
pub use sampled::{
    backward_sampled_rows, finish_backward_sampled, gather_sampled, score_sampled_rows,
};

use crate::rng::{Mask, Stream};

/// A batch of `(head, relation)` queries with their positive tails (CSR).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Batch {
    pub heads: Vec<u32>,
    pub rels: Vec<u32>,
    /// Tails of example `i` are `tails[offsets[i]..offsets[i + 1]]`; starts with 0.
    pub offsets: Vec<usize>,
    pub tails: Vec<u32>,
}

impl Batch {
    pub fn clear(&mut self) {
        self.heads.clear();
        self.rels.clear();
        self.tails.clear();
        self.offsets.clear();
        self.offsets.push(0);
    }
    pub fn push(&mut self, h: u32, r: u32, tails: &[u32]) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        self.heads.push(h);
        self.rels.push(r);
        self.tails.extend_from_slice(tails);
        self.offsets.push(self.tails.len());
    }
    pub fn len(&self) -> usize {
        self.heads.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heads.is_empty()
    }
    pub fn tails_of(&self, i: usize) -> &[u32] {
        &self.tails[self.offsets[i]..self.offsets[i + 1]]
    }
}

/// Training (batch statistics, dropout keyed by `(seed, step)`) or evaluation.
#[derive(Clone, Copy, Debug)]
pub enum Mode {
    Train { seed: u64, step: u64 },
    Eval,
}

/// Dropout probabilities of one pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct Dropouts {
    pub input: f64,
    pub h1: f64,
    pub h2: f64,
}

/// The training loss of a step and its label smoothing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Objective {
    pub loss: crate::config::Loss,
    pub eps: f64,
}

impl Objective {
    /// The paper's BCE with label smoothing `eps`.
    pub fn bce(eps: f64) -> Self {
        Objective {
            loss: crate::config::Loss::Bce,
            eps,
        }
    }

    /// The softmax cross-entropy over all entities with label smoothing `eps`.
    pub fn softmax(eps: f64) -> Self {
        Objective {
            loss: crate::config::Loss::Softmax,
            eps,
        }
    }

    /// The loss and smoothing `cfg` trains with.
    pub fn of(cfg: &crate::config::Config) -> Self {
        Objective {
            loss: cfg.loss,
            eps: cfg.label_smoothing,
        }
    }
}

/// The masks of one training step (identity in eval mode).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Masks {
    pub in_head: Mask,
    pub h1: Mask,
    pub h2: Mask,
    pub in_ent: Mask,
}

impl Masks {
    pub fn new(mode: Mode, p: &Dropouts) -> Self {
        let (seed, step, p) = match mode {
            Mode::Train { seed, step } => (seed, step, *p),
            Mode::Eval => (0, 0, Dropouts::default()),
        };
        Masks {
            in_head: Mask::new(seed, step, Stream::InHead, p.input),
            h1: Mask::new(seed, step, Stream::Hidden1, p.h1),
            h2: Mask::new(seed, step, Stream::Hidden2, p.h2),
            in_ent: Mask::new(seed, step, Stream::InEntity, p.input),
        }
    }
}

/// Buffers reused across batches; each grows to its high-water mark once and is never freed,
/// so the training loop does not allocate after its first batch.
#[derive(Clone, Debug, Default)]
pub struct Workspace<T> {
    // Relation grouping.
    pub(crate) slot: Vec<u32>,
    pub(crate) uniq: Vec<u32>,
    pub(crate) group: Vec<u32>,
    pub(crate) members: Vec<u32>,
    pub(crate) member_off: Vec<usize>,
    // Forward activations.
    pub(crate) x0: Vec<T>,
    pub(crate) xhat0: Vec<T>,
    pub(crate) inv0: Vec<T>,
    pub(crate) mean0: Vec<T>,
    pub(crate) var0: Vec<T>,
    pub(crate) x1: Vec<T>,
    pub(crate) ru: Vec<T>,
    pub(crate) a: Vec<T>,
    pub(crate) y: Vec<T>,
    pub(crate) xhat1: Vec<T>,
    pub(crate) inv1: Vec<T>,
    pub(crate) mean1: Vec<T>,
    pub(crate) var1: Vec<T>,
    pub(crate) z2: Vec<T>,
    pub(crate) x2: Vec<T>,
    pub(crate) e_drop: Vec<T>,
    /// `B x N` logits after [`forward`]; the loss kernel turns them into their gradient.
    pub logits: Vec<T>,
    pub(crate) row_loss: Vec<f64>,
    // Backward.
    pub(crate) dx2: Vec<T>,
    pub(crate) dy: Vec<T>,
    pub(crate) da: Vec<T>,
    pub(crate) dx1: Vec<T>,
    pub(crate) dx0: Vec<T>,
    pub(crate) dru: Vec<T>,
    /// The scoring products' transposed results, where computing them transposed is faster
    /// (`linalg::matmul_oriented`).
    pub(crate) product_scratch: Vec<T>,
    /// Whether the last forward used a dropped-out copy of E for scoring.
    pub(crate) used_e_drop: bool,
    /// Seconds spent per phase (see [`PHASES`]), accumulated over calls; for profiling.
    pub timings: [f64; PHASES.len()],
}

/// Names of the phases timed in [`Workspace::timings`].
pub const PHASES: [&str; 12] = [
    "fwd bn0+gather",
    "fwd R.W gemm",
    "fwd core product",
    "fwd bn1+act",
    "fwd E dropout",
    "fwd logits gemm",
    "loss",
    "bwd logits gemms",
    "bwd act+bn1",
    "bwd core product",
    "bwd R/W gemms",
    "bwd bn0+scatter",
];

/// Adds the time since `*t` to `timings[i]` and restarts `*t`.
#[inline]
pub(crate) fn lap(timings: &mut [f64], i: usize, t: &mut std::time::Instant) {
    let now = std::time::Instant::now();
    timings[i] += (now - *t).as_secs_f64();
    *t = now;
}

/// Grows `v` to at least `n` elements (never shrinks; no-op once warm).
pub(crate) fn ensure<T: Clone + Default>(v: &mut Vec<T>, n: usize) {
    if v.len() < n {
        v.resize(n, T::default());
    }
}

impl<T: crate::real::Real> Workspace<T> {
    pub fn new() -> Self {
        Workspace::default()
    }

    /// Groups the batch by relation: `uniq[u]` is the u-th distinct relation, `group[b] = u`,
    /// and `members[member_off[u]..member_off[u + 1]]` lists the examples of `u` in order.
    pub(crate) fn group_relations(&mut self, rels: &[u32], n_rel: usize) {
        ensure(&mut self.slot, n_rel);
        self.uniq.clear();
        self.group.clear();
        for &r in rels {
            let s = &mut self.slot[r as usize];
            if *s == 0 {
                self.uniq.push(r);
                *s = self.uniq.len() as u32;
            }
            self.group.push(*s - 1);
        }
        for &r in &self.uniq {
            self.slot[r as usize] = 0;
        }
        let n_u = self.uniq.len();
        self.member_off.clear();
        self.member_off.resize(n_u + 1, 0);
        for &g in &self.group {
            self.member_off[g as usize + 1] += 1;
        }
        for u in 0..n_u {
            self.member_off[u + 1] += self.member_off[u];
        }
        self.members.clear();
        self.members.resize(rels.len(), 0);
        // Stable counting sort; `cursor` reuses `dru`-independent scratch: the slot array.
        for (b, &g) in self.group.iter().enumerate() {
            let pos = self.member_off[g as usize] + self.slot[g as usize] as usize;
            self.members[pos] = b as u32;
            self.slot[g as usize] += 1;
        }
        for u in 0..n_u {
            self.slot[u] = 0;
        }
    }
}

/// Training-mode loss of one batch, without gradients (`ws.logits` is left holding the
/// gradient of the loss with respect to the logits).
pub fn loss<T: crate::real::Real>(
    p: &mut crate::params::Params<T>,
    drop: &Dropouts,
    objective: Objective,
    batch: &Batch,
    ws: &mut Workspace<T>,
    seed: u64,
    step: u64,
) -> f64 {
    forward(p, drop, batch, ws, Mode::Train { seed, step });
    update_running_stats(p, ws, batch.len());
    ensure(&mut ws.row_loss, batch.len());
    let n = p.n_ent;
    let mut t = std::time::Instant::now();
    let fused = match objective.loss {
        crate::config::Loss::Bce => crate::kernels::loss::bce_fused,
        crate::config::Loss::Softmax => crate::kernels::loss::softmax_fused,
    };
    let l = fused(
        &mut ws.logits,
        batch.len(),
        n,
        objective.eps,
        |i| batch.tails_of(i),
        &mut ws.row_loss,
    );
    lap(&mut ws.timings, 6, &mut t);
    l
}

/// One training step's loss and gradients (forward, fused loss, backward).
#[allow(clippy::too_many_arguments)]
pub fn loss_and_grads<T: crate::real::Real>(
    p: &mut crate::params::Params<T>,
    drop: &Dropouts,
    objective: Objective,
    batch: &Batch,
    ws: &mut Workspace<T>,
    g: &mut crate::params::Grads<T>,
    seed: u64,
    step: u64,
) -> f64 {
    let l = loss(p, drop, objective, batch, ws, seed, step);
    backward(p, drop, batch, ws, g, seed, step);
    l
}

/// Applies the batch statistics of the last training-mode forward to the running statistics.
pub fn update_running_stats<T: crate::real::Real>(
    p: &mut crate::params::Params<T>,
    ws: &Workspace<T>,
    b: usize,
) {
    use crate::kernels::batchnorm::update_running;
    update_running(&mut p.bn0, &ws.mean0, &ws.var0, b);
    update_running(&mut p.bn1, &ws.mean1, &ws.var1, b);
}
