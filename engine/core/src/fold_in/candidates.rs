//! Sampled candidates for the head side between full passes (`FoldInSettings::candidates`).
//!
//! The exact head side scores each of the entity's queries against all N entities per step
//! (two `Q x N x d_e` products): at FB15k-237's size that is most of a fold-in's time. With
//! candidates, a full pass every `REFRESH_STEPS` steps (an exact step) picks, per entity, its
//! queries' targets, the `candidates / 2` negatives with the largest gradient (the hardest: the
//! ones that decide its ranks), and a uniform sample of `candidates / 2` of the other negatives
//! drawn with replacement, each weighted `rest / sample`: BCE's loss over the rest is estimated
//! without bias, softmax's partition through the sample's logits shifted by `ln(rest / sample)`
//! (as a sampled training step estimates it: `crate::kernels::sampled_loss`). The steps in
//! between score the candidates only.

use super::queries::Batch;
use crate::config::Loss;
use crate::kernels::loss;
use crate::kernels::sampled_loss::{sampled_softmax_fused, SampledColumns};
use crate::linalg::{matmul, Op};
use crate::model::Model;
use crate::rng::{CounterRng, Stream};
use rayon::prelude::*;

/// Steps between full passes (the first step is one): at the default 15 steps, one pass. A
/// second at step 11 moved validation MRR by at most .001 on FB15k-237's and WN18RR's held-out
/// entities and cost a hub entity a quarter of its time (bench/freshness/RESULTS.md).
pub(super) const REFRESH_STEPS: usize = 20;

/// One entity's candidates until the next full pass.
pub(super) struct EntityCandidates {
    /// Candidate entity ids: the entity's targets (sorted), then its hardest negatives, then
    /// the sample (repeats possible).
    ids: Vec<u32>,
    /// The sampled candidates' weight in the loss, `rest / sample` (the others weigh 1).
    sample_weight: f32,
    /// How many candidates are sampled (the last of `ids`).
    sampled: usize,
    /// The candidates' embedding rows (`ids.len() x d_e`).
    rows: Vec<f32>,
    /// How many of `ids` are targets (of any of the entity's queries).
    targets: usize,
}

/// Whether `settings.candidates` samples at all for a model of `n` entities.
pub(super) fn samples(candidates: usize, n: usize) -> bool {
    candidates > 0 && 2 * candidates < n
}

/// Picks every entity's candidates from a full pass's gradient rows (`grad`: the chunk's
/// `queries x N` logit gradients, as the loss leaves them); `refresh` numbers the pass.
pub(super) fn select(
    model: &Model,
    batch: &Batch,
    grad: &[f32],
    candidates: usize,
    seed: u64,
    refresh: u64,
) -> Vec<EntityCandidates> {
    let n = model.n_entities();
    (0..batch.entities())
        .into_par_iter()
        .map(|e| {
            let (a, b) = (batch.q_off[e], batch.q_off[e + 1]);
            let targets = batch.entity_targets(e);
            let mut taken = vec![false; n];
            targets.iter().for_each(|&t| taken[t as usize] = true);
            // The hardest negatives: the largest gradient over the entity's queries.
            let mut largest = grad[a * n..][..n].to_vec();
            for q in a + 1..b {
                largest
                    .iter_mut()
                    .zip(&grad[q * n..][..n])
                    .for_each(|(m, &g)| *m = m.max(g));
            }
            let mut hardest: Vec<(f32, u32)> = (0..n)
                .filter(|&j| !taken[j])
                .map(|j| (largest[j], j as u32))
                .collect();
            let hard = (candidates / 2).min(hardest.len());
            if hard > 0 && hard < hardest.len() {
                hardest.select_nth_unstable_by(hard - 1, |x, y| y.0.total_cmp(&x.0));
            }
            hardest.truncate(hard);
            hardest.iter().for_each(|&(_, j)| taken[j as usize] = true);
            let rest = n - targets.len() - hard;
            let sample = if rest == 0 { 0 } else { candidates - hard };
            let mut ids = targets.clone();
            ids.extend(hardest.iter().map(|&(_, j)| j));
            let mut rng = CounterRng::new(seed, 2 + refresh, Stream::Shuffle);
            while ids.len() < targets.len() + hard + sample {
                let j = rng.below(n);
                if !taken[j] {
                    ids.push(j as u32);
                }
            }
            let d = model.params.d_e;
            let rows = ids
                .iter()
                .flat_map(|&j| model.params.e[j as usize * d..][..d].iter().copied())
                .collect();
            EntityCandidates {
                ids,
                sample_weight: if sample == 0 {
                    1.0
                } else {
                    rest as f32 / sample as f32
                },
                sampled: sample,
                rows,
                targets: targets.len(),
            }
        })
        .collect()
}

/// The head side over the candidates: `dx` (queries x d_e) = the gradient of each entity's
/// estimated loss with respect to its queries' hidden vectors `x2`, scaled as the exact loss
/// scales it (BCE: a mean over the entity's `Q_u x N` cells; softmax: over its `Q_u` queries).
/// The loss itself is not reported (NaN per entity): the fit needs only its gradient, and a
/// logit's `softplus` would cost more than its product.
pub(super) fn loss_and_dx(
    model: &Model,
    batch: &Batch,
    cands: &[EntityCandidates],
    x2: &[f32],
    dx: &mut [f32],
) -> Vec<f64> {
    let (n, d) = (model.n_entities(), model.params.d_e);
    let eps = model.config.label_smoothing;
    // Fewer entities than threads (one alone: the latency case): each product uses the threads.
    let inner = batch.entities() < rayon::current_num_threads();
    // Split dx into each entity's rows.
    let mut parts: Vec<&mut [f32]> = Vec::with_capacity(batch.entities());
    let mut rest = dx;
    for e in 0..batch.entities() {
        let (mine, tail) = rest.split_at_mut((batch.q_off[e + 1] - batch.q_off[e]) * d);
        parts.push(mine);
        rest = tail;
    }
    parts
        .into_par_iter()
        .enumerate()
        .map(|(e, dx_e)| {
            let c = &cands[e];
            let (a, b) = (batch.q_off[e], batch.q_off[e + 1]);
            let (q_e, m) = (b - a, c.ids.len());
            // logits = x2_e · E_C^T                                         (Q_e x C)
            let mut logits = vec![0.0f32; q_e * m];
            matmul(
                &mut logits,
                Op::n(&x2[a * d..b * d], q_e, d),
                Op::t(&c.rows, m, d),
                false,
                inner,
            );
            let targets = |i: usize| batch.targets(a + i);
            logit_gradients(model.config.loss, &mut logits, c, targets, n, eps);
            // dx_e = dlogits · E_C                                          (Q_e x D)
            matmul(
                dx_e,
                Op::n(&logits, q_e, m),
                Op::n(&c.rows, m, d),
                false,
                inner,
            );
            f64::NAN
        })
        .collect()
}

/// One entity's logit gradients over its candidates (`logits`: its `Q_u x C` logits, replaced
/// in place), the targets and hardest negatives standing for themselves, each sampled candidate
/// for `sample_weight` entities:
/// - BCE: `(sigmoid(l) - y) * weight * scale` with `y = 1 / N` and `scale = 1 / (Q_u N)`, less
///   `(1 - eps) * scale` at each query's own targets (all among the first candidates);
/// - softmax: the partition estimated from the candidates (`sampled_softmax_fused`).
fn logit_gradients<'a>(
    loss_kind: Loss,
    logits: &mut [f32],
    c: &EntityCandidates,
    targets: impl Fn(usize) -> &'a [u32],
    n: usize,
    eps: f64,
) {
    let m = c.ids.len();
    let q_e = logits.len() / m;
    match loss_kind {
        Loss::Bce => {
            let (base, scale) = (1.0 / n as f32, 1.0 / (q_e as f32 * n as f32));
            for (i, row) in logits.chunks_exact_mut(m).enumerate() {
                let (plain, sampled) = row.split_at_mut(m - c.sampled);
                loss::bce_gradient_row(plain, base, scale);
                loss::bce_gradient_row(sampled, base, scale * c.sample_weight);
                let known = targets(i);
                for (l, id) in plain[..c.targets].iter_mut().zip(&c.ids) {
                    if known.binary_search(id).is_ok() {
                        *l -= (1.0 - eps as f32) * scale;
                    }
                }
            }
        }
        Loss::Softmax => {
            // Each query's targets as positions among the candidates (the first `c.targets`).
            let positions: Vec<Vec<u32>> = (0..q_e)
                .map(|i| {
                    let known = targets(i);
                    (0..c.targets as u32)
                        .filter(|&k| known.binary_search(&c.ids[k as usize]).is_ok())
                        .collect()
                })
                .collect();
            let cols = SampledColumns {
                total: m,
                positives: m - c.sampled,
                weight: c.sample_weight as f64,
                entities: n,
            };
            let mut row_loss = vec![0.0; q_e];
            sampled_softmax_fused(logits, q_e, cols, eps, |i| &positions[i], &mut row_loss);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Candidates that are every entity (no sample): the estimate is the exact loss's gradient,
    /// the columns in the candidates' order.
    fn check_against_exact(loss_kind: Loss) {
        let (n, q_e, eps) = (7, 2, 0.1);
        // Query 0's targets: entities 2 and 5; query 1's: 5. Candidates: targets, then the rest.
        let known: [&[u32]; 2] = [&[2, 5], &[5]];
        let ids: Vec<u32> = vec![2, 5, 0, 1, 3, 4, 6];
        let c = EntityCandidates {
            ids: ids.clone(),
            sample_weight: 1.0,
            sampled: 0,
            rows: Vec::new(),
            targets: 2,
        };
        let exact_logits: Vec<f32> = (0..q_e * n).map(|k| (k as f32 * 0.7).sin() * 3.0).collect();
        let mut exact = exact_logits.clone();
        let mut row_loss = vec![0.0; q_e];
        let tails = |i: usize| known[i];
        match loss_kind {
            Loss::Bce => loss::bce_fused(&mut exact, q_e, n, eps, tails, &mut row_loss),
            Loss::Softmax => loss::softmax_fused(&mut exact, q_e, n, eps, tails, &mut row_loss),
        };
        let mut mine: Vec<f32> = (0..q_e)
            .flat_map(|i| ids.iter().map(move |&j| (i, j as usize)))
            .map(|(i, j)| exact_logits[i * n + j])
            .collect();
        logit_gradients(loss_kind, &mut mine, &c, tails, n, eps);
        for i in 0..q_e {
            for (k, &j) in ids.iter().enumerate() {
                let (got, want) = (mine[i * n + k], exact[i * n + j as usize]);
                assert!(
                    (got - want).abs() < 1e-6,
                    "{loss_kind:?} ({i}, {j}): {got} vs {want}"
                );
            }
        }
    }

    #[test]
    fn candidates_that_are_every_entity_give_the_exact_gradient() {
        check_against_exact(Loss::Bce);
        check_against_exact(Loss::Softmax);
    }

    #[test]
    fn a_sampled_candidate_stands_for_the_entities_it_was_drawn_from() {
        // Softmax: one sampled candidate of weight 4 among 2 plain ones moves the partition as
        // four copies of it would: its gradient is four copies' share, the plain ones' as if
        // those copies were there.
        let (n, eps) = (6, 0.0);
        let known: [&[u32]; 1] = [&[0]];
        let sampled = EntityCandidates {
            ids: vec![0, 1, 2],
            sample_weight: 4.0,
            sampled: 1,
            rows: Vec::new(),
            targets: 1,
        };
        let copies = EntityCandidates {
            ids: vec![0, 1, 2, 2, 2, 2],
            sample_weight: 1.0,
            sampled: 0,
            rows: Vec::new(),
            targets: 1,
        };
        let mut one = vec![1.0f32, -0.5, 0.3];
        let mut four = vec![1.0f32, -0.5, 0.3, 0.3, 0.3, 0.3];
        logit_gradients(Loss::Softmax, &mut one, &sampled, |i| known[i], n, eps);
        logit_gradients(Loss::Softmax, &mut four, &copies, |i| known[i], n, eps);
        assert!((one[0] - four[0]).abs() < 1e-6 && (one[1] - four[1]).abs() < 1e-6);
        let copies_sum: f32 = four[2..].iter().sum();
        assert!(
            (one[2] - copies_sum).abs() < 1e-6,
            "{} vs {copies_sum}",
            one[2]
        );
    }
}
