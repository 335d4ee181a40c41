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
//! Under the softmax loss a cell's logit is shifted by its query's log-sum-exp over the known
//! entities (`u`'s probability were it added to that query's softmax, to first order), targets
//! `1 - eps` and 0, and the weights are those times N (softmax means over queries, not cells).

use super::queries::Batch;
use crate::config::Loss;
use crate::error::Result;
use crate::kernels::dot;
use crate::model::Model;
use crate::real::{sigmoid, softplus};
use crate::rng::{CounterRng, Stream};
use crate::scoring::{hidden_into, ScoreBuffers};

/// Known queries sampled as the negatives of the column.
pub const NEGATIVES: usize = 256;

/// Known queries' hidden vectors `x` (rows x d_e) and logit shifts (0 under BCE).
#[derive(Debug, Default)]
pub(super) struct Columns {
    x: Vec<f32>,
    shift: Vec<f64>,
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
    Ok(Columns { x, shift })
}

/// `NEGATIVES` known queries `(h, r)`, uniform over heads and model relations, seeded.
pub fn negative_queries(model: &Model, seed: u64) -> Vec<(u32, u32)> {
    let mut rng = CounterRng::new(seed, 1, Stream::Shuffle);
    let (n, nr) = (model.n_entities(), model.n_model_relations());
    (0..NEGATIVES)
        .map(|_| (rng.below(n) as u32, rng.below(nr) as u32))
        .collect()
}

/// Adds each entity's column loss to `losses` and its gradient to `grad` (entities x d_e);
/// `pos` holds the rows of `batch.tail_queries`, `neg` the sampled negatives.
pub(super) fn add_loss_and_grad(
    model: &Model,
    batch: &Batch,
    pos: &Columns,
    neg: &Columns,
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
    for e in 0..batch.q_off.len() - 1 {
        let row = &rows[e * d..][..d];
        let g = &mut grad[e * d..][..d];
        let q_u = (batch.q_off[e + 1] - batch.q_off[e]).max(1) as f64;
        let mut cell = |x: &[f32], shift: f64, y: f64, w: f64| {
            let l = dot::dot(x, row) as f64 - shift;
            dot::axpy((w * (sigmoid(l) - y)) as f32, x, g);
            w * (softplus(l) - y * l)
        };
        let mut loss = 0.0;
        for p in batch.p_off[e]..batch.p_off[e + 1] {
            loss += cell(&pos.x[p * d..][..d], pos.shift[p], y_pos, 1.0 / (q_u * z));
        }
        for k in 0..neg.shift.len() {
            loss += cell(&neg.x[k * d..][..d], neg.shift[k], y_neg, n / (m * z));
        }
        losses[e] += loss;
    }
}
