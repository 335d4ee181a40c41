//! The tail side of the fold-in objective: the new entity as a candidate in known queries.
//!
//! In training every entity is also a column of every query: a positive where it is a true tail,
//! a negative everywhere else, which keeps its row from growing without bound. Fold-in adds
//! the same column for `u`: the known queries where `u` is a true tail (its edges seen from the
//! other end, target as in training) and a seeded sample of `NEGATIVES` known queries standing
//! for all the others (target 1/N). Their hidden vectors `x2` are fixed (the model is frozen),
//! so the column's logits are `x2 · e_u`: cheap, and exact in gradient.
//!
//! Weights: training's mean over `B x N` gives each of `u`'s positive cells the weight of one
//! cell of its own rows, and the column over all T training queries as much weight as `T / N`
//! rows (the mean queries per entity). With the head side averaged over `u`'s `Q_u` queries, the
//! positives weigh `1 / (Q_u N)` each and the sample `(T / N) / (Q_u M)` each, with `T / N` taken
//! as `Q_u` (an average entity's column weighs as much as its rows): `1 / M`.
//! That takes `T / N`, the known queries per entity, as `Q_u`: a new entity with few edges (few
//! queries of its own) gets far less pressure from its column than training would give it, and
//! its row climbs into known queries' answers. A [`NegativePool`] (a stratified sample of the
//! known queries, each standing for the queries of its stratum) gives the column training's
//! weight instead: sample `k` weighs `stands_for[k] / (Q_u N)`, in all `T / (Q_u N)`.
//! Under the softmax loss a cell's logit is shifted by its query's log-sum-exp over the known
//! entities (`u`'s probability were it added to that query's softmax, to first order), and the
//! weights are those times N (softmax means over queries, not cells). The targets are 0 and,
//! where `u` answers a query with `k` known answers, `(1 - eps) / (k + 1)`: training shares a
//! query's target among its answers, so a row asked for `1 - eps` in a hub's query (thousands of
//! answers) would have to outscore all of them there, and climbs into every similar query.

use super::queries::Batch;
use crate::config::Loss;
use crate::error::{Error, Result};
use crate::kernels::dot;
use crate::model::Model;
use crate::real::{sigmoid, softplus};
use crate::rng::{CounterRng, Stream};
use crate::scoring::{hidden_into, ScoreBuffers};
use rayon::prelude::*;

/// Known queries sampled as the negatives of the column.
pub const NEGATIVES: usize = 256;

/// Known queries' hidden vectors `x` (rows x d_e) and logit shifts (0 under BCE); for a pool's
/// negatives, the known queries each stands for (empty: the uniform sample's weights).
#[derive(Debug, Default)]
pub(super) struct Columns {
    x: Vec<f32>,
    shift: Vec<f64>,
    stands_for: Vec<f64>,
}

/// Known queries standing in, as the tail side's negatives, for every query of the graph the
/// model was trained on: `queries[k]` (a known head, a model relation) stands for
/// `stands_for[k]` of them (a stratified sample: its stratum's known queries over the samples
/// taken of it), so the sum of `stands_for` is the number of known queries `T`.
#[derive(Clone, Debug, PartialEq)]
pub struct NegativePool {
    pub queries: Vec<(u32, u32)>,
    pub stands_for: Vec<f64>,
}

impl NegativePool {
    /// Checks the lengths and weights (finite, at least one); ids are checked against a model
    /// when it is used.
    pub fn new(queries: Vec<(u32, u32)>, stands_for: Vec<f64>) -> Result<NegativePool> {
        if queries.len() != stands_for.len() {
            return Err(Error::arg(
                "negatives",
                format!("{} queries but {} weights", queries.len(), stands_for.len()),
            ));
        }
        if queries.is_empty() {
            return Err(Error::arg("negatives", "the pool is empty".to_string()));
        }
        if let Some(k) = stands_for
            .iter()
            .position(|w| !(w.is_finite() && *w >= 1.0))
        {
            return Err(Error::arg(
                "negatives",
                format!(
                    "query {k} stands for {} queries (at least 1)",
                    stands_for[k]
                ),
            ));
        }
        Ok(NegativePool {
            queries,
            stands_for,
        })
    }

    fn check(&self, model: &Model) -> Result<()> {
        let (n, nr) = (model.n_entities(), model.n_model_relations());
        match self
            .queries
            .iter()
            .position(|&(h, r)| h as usize >= n || r as usize >= nr)
        {
            Some(k) => Err(Error::arg(
                "negatives",
                format!(
                    "query {k} ({}, {}) is out of range (model has {n} entities, {nr} relations)",
                    self.queries[k].0, self.queries[k].1
                ),
            )),
            None => Ok(()),
        }
    }

    /// A hash of the pool: its columns are kept per model under it.
    fn key(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.queries.hash(&mut h);
        self.stands_for
            .iter()
            .for_each(|w| w.to_bits().hash(&mut h));
        h.finish()
    }
}

/// The columns of a pool's queries, kept per model and pool (one fold-in would otherwise spend
/// milliseconds on them).
pub(super) fn pool_columns(model: &Model, pool: &NegativePool) -> Result<std::sync::Arc<Columns>> {
    pool.check(model)?;
    model
        .fold_in_memo
        .get_or_make(("fold-in negative pool", pool.key()), || {
            let mut c = columns(model, &pool.queries)?;
            c.stands_for = pool.stands_for.clone();
            Ok::<_, Error>(c)
        })
}

/// The columns of `queries` (known heads, model relations).
pub(super) fn columns(model: &Model, queries: &[(u32, u32)]) -> Result<Columns> {
    let (p, n) = (&model.params, model.n_entities());
    model
        .cores
        .prepare(p, &queries.iter().map(|q| q.1).collect::<Vec<_>>());
    let x = hidden_into(p, &model.cores, queries, &mut ScoreBuffers::default()).to_vec();
    let shift = match model.config.loss {
        Loss::Bce => vec![0.0; queries.len()],
        Loss::Softmax => model
            .scores(queries)?
            .chunks(n.max(1))
            .map(|row| {
                let mx = row.iter().fold(f32::MIN, |m, &v| m.max(v)) as f64;
                mx + row.iter().map(|&v| (v as f64 - mx).exp()).sum::<f64>().ln()
            })
            .collect(),
    };
    Ok(Columns {
        x,
        shift,
        stands_for: Vec::new(),
    })
}

/// `NEGATIVES` known queries `(h, r)`, uniform over heads and model relations, seeded.
pub fn negative_queries(model: &Model, seed: u64) -> Vec<(u32, u32)> {
    let mut rng = CounterRng::new(seed, 1, Stream::Shuffle);
    let (n, nr) = (model.n_entities(), model.n_model_relations());
    (0..NEGATIVES)
        .map(|_| (rng.below(n) as u32, rng.below(nr) as u32))
        .collect()
}

/// Negatives per block of the column's sum: blocks run on the pool's threads, and their sums
/// are added in block order, so a row is the same on any number of threads.
const NEGATIVE_BLOCK: usize = 1024;

/// Pool negatives one optimiser step reads: each step takes the next slice of the pool, weighted
/// to stand for all of it. A pool of 16,384 is 13 MB of hidden vectors at d_e 200; read whole
/// at every step it was most of a lone entity's fold-in time. Over a fit the slices go round
/// the pool, so the row cannot settle low on one sample and high on the rest.
pub(super) const NEGATIVES_PER_STEP: usize = 4096;

/// The negatives a step reads: `count` of them from `first`, wrapping round the pool.
#[derive(Clone, Copy, Debug)]
pub(super) struct NegativeSlice {
    first: usize,
    count: usize,
}

impl NegativeSlice {
    /// All of `neg` (the objective as written, for its tests).
    pub(super) fn all(neg: &Columns) -> NegativeSlice {
        NegativeSlice {
            first: 0,
            count: neg.shift.len(),
        }
    }

    /// Step `t`'s slice (t from 0) of `neg`.
    pub(super) fn of_step(neg: &Columns, t: usize) -> NegativeSlice {
        let m = neg.shift.len();
        let count = m.min(NEGATIVES_PER_STEP);
        NegativeSlice {
            first: if m == 0 { 0 } else { (t * count) % m },
            count,
        }
    }
}

/// Adds each entity's column loss to `losses` and its gradient to `grad` (entities x d_e);
/// `pos` holds the rows of `batch.tail_queries`, `neg` the sampled negatives, of which `slice`
/// is read (weighted up to stand for all of them).
#[allow(clippy::too_many_arguments)]
pub(super) fn add_loss_and_grad(
    model: &Model,
    batch: &Batch,
    pos: &Columns,
    neg: &Columns,
    slice: NegativeSlice,
    rows: &[f32],
    grad: &mut [f32],
    losses: &mut [f64],
) {
    let (d, n) = (model.params.d_e, model.n_entities() as f64);
    let eps = model.config.label_smoothing;
    let (y_pos, y_neg, z) = match model.config.loss {
        Loss::Bce => (1.0 - eps + 1.0 / n, 1.0 / n, n),
        Loss::Softmax => (1.0 - eps, 0.0, 1.0),
    };
    let m = neg.shift.len().max(1) as f64;
    let up = m / slice.count.max(1) as f64;
    // One cell's loss, its gradient added to `g`.
    let cell = |row: &[f32], g: &mut [f32], x: &[f32], shift: f64, y: f64, w: f64| {
        let l = dot::dot(x, row) as f64 - shift;
        dot::axpy((w * (sigmoid(l) - y)) as f32, x, g);
        w * (softplus(l) - y * l)
    };
    for e in 0..batch.q_off.len() - 1 {
        let row = &rows[e * d..][..d];
        let g = &mut grad[e * d..][..d];
        let q_u = (batch.q_off[e + 1] - batch.q_off[e]).max(1) as f64;
        let mut loss = 0.0;
        for p in batch.p_off[e]..batch.p_off[e + 1] {
            let y = match model.config.loss {
                Loss::Bce => y_pos,
                Loss::Softmax => y_pos / (batch.tail_answers[p] as f64 + 1.0),
            };
            loss += cell(
                row,
                g,
                &pos.x[p * d..][..d],
                pos.shift[p],
                y,
                1.0 / (q_u * z),
            );
        }
        // The negatives: a pool of thousands of known queries, read once per step; in blocks
        // on the threads (a lone entity, the latency case, would read them on one).
        let blocks: Vec<(f64, Vec<f32>)> = (0..slice.count)
            .step_by(NEGATIVE_BLOCK)
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|first| {
                let mut part = vec![0.0f32; d];
                let mut loss = 0.0;
                for j in first..(first + NEGATIVE_BLOCK).min(slice.count) {
                    let k = (slice.first + j) % neg.shift.len();
                    let w = up
                        * match neg.stands_for.get(k) {
                            Some(&t) => t / (q_u * z),
                            None => n / (m * z),
                        };
                    loss += cell(row, &mut part, &neg.x[k * d..][..d], neg.shift[k], y_neg, w);
                }
                (loss, part)
            })
            .collect();
        for (block_loss, part) in blocks {
            loss += block_loss;
            g.iter_mut().zip(&part).for_each(|(a, b)| *a += b);
        }
        losses[e] += loss;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(m: usize) -> Columns {
        Columns {
            shift: vec![0.0; m],
            ..Columns::default()
        }
    }

    #[test]
    fn the_steps_go_round_the_pool_each_negative_read_as_often() {
        // 4 steps of 4,096 read 16,384 negatives once each.
        let neg = pool(4 * NEGATIVES_PER_STEP);
        let firsts: Vec<usize> = (0..5)
            .map(|t| NegativeSlice::of_step(&neg, t).first)
            .collect();
        assert_eq!(firsts, [0, 4096, 8192, 12288, 0]);
        // A pool that does not divide: over its steps every negative is read 2 or 3 times.
        let m = 10_000;
        let neg = pool(m);
        let mut reads = vec![0; m];
        for t in 0..6 {
            let s = NegativeSlice::of_step(&neg, t);
            assert_eq!(s.count, NEGATIVES_PER_STEP);
            (0..s.count).for_each(|j| reads[(s.first + j) % m] += 1);
        }
        assert!(reads.iter().all(|&r| r == 2 || r == 3), "{reads:?}");
        // A pool smaller than a step's share is read whole at every step.
        let small = NegativeSlice::of_step(&pool(256), 3);
        assert_eq!((small.first, small.count), (0, 256));
        let all = NegativeSlice::all(&pool(20_000));
        assert_eq!((all.first, all.count), (0, 20_000));
    }
}
