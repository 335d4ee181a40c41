//! Sampled training (`sampled_steps`): the losses estimated from sampled columns equal their
//! formulas in f64 (BCE's Horvitz-Thompson sum, softmax's logQ-corrected partition), equal the
//! exact fused losses when the sample is every entity, and BCE's estimate is unbiased over
//! draws; lazy Adam on every row is dense Adam, and a row caught up after sitting out steps is
//! within 1% of dense Adam's; a sampled step with a sample of every entity
//! is the exact step (dropout included); a sampled run learns, and validates on a seeded
//! sample of a large validation split.

mod common;

use neptune_core::adam::Adam;
use neptune_core::column_sampler::ColumnSampler;
use neptune_core::kernels::loss::{bce_fused, softmax_fused};
use neptune_core::kernels::sampled_loss::{
    sampled_bce_fused, sampled_softmax_fused, SampledColumns,
};
use neptune_core::net::Batch;
use neptune_core::params::{Grads, Params, N_TRAINABLE};
use neptune_core::rng::{CounterRng, Stream};
use neptune_core::sampled_steps::SampledSteps;
use neptune_core::step_engine::{CpuSteps, StepEngine};
use neptune_core::train::{validation_triples, SAMPLED_RUN_VALIDATION_TRIPLES};
use neptune_core::{Activation, Config, InitScheme, InverseMode, Loss, Trainer};
use std::sync::atomic::AtomicBool;

fn softplus(l: f64) -> f64 {
    l.max(0.0) + (-l.abs()).exp().ln_1p()
}
fn sigmoid(l: f64) -> f64 {
    1.0 / (1.0 + (-l).exp())
}

/// Logits in [-6, 6) from a counter stream.
fn logits(len: usize, key: u64) -> Vec<f64> {
    let mut rng = CounterRng::new(key, 0, Stream::Init);
    (0..len).map(|_| rng.uniform() * 12.0 - 6.0).collect()
}

/// `(loss, gradient)` of one of the sampled kernels in f64.
fn run_sampled(
    softmax: bool,
    logits: &[f64],
    cols: SampledColumns,
    eps: f64,
    tails: &[Vec<u32>],
) -> (f64, Vec<f64>) {
    let b = tails.len();
    let mut l = logits.to_vec();
    let mut rows = vec![0.0; b];
    let tails_of = |i: usize| tails[i].as_slice();
    let loss = if softmax {
        sampled_softmax_fused(&mut l, b, cols, eps, tails_of, &mut rows)
    } else {
        sampled_bce_fused(&mut l, b, cols, eps, tails_of, &mut rows)
    };
    (loss, l)
}

#[test]
fn sampled_bce_is_the_weighted_sum_of_its_formula() {
    let (n, m, p, eps) = (500usize, 40usize, 6usize, 0.1);
    let tails = vec![vec![0u32, 3], vec![5], vec![], vec![1, 2, 4]];
    let b = tails.len();
    let w = (n - p) as f64 / (m - p) as f64;
    let cols = SampledColumns {
        total: m,
        positives: p,
        weight: w,
        entities: n,
    };
    let x = logits(b * m, 1);
    let (loss, grad) = run_sampled(false, &x, cols, eps, &tails);
    let mut want = 0.0;
    for (i, row) in x.chunks(m).enumerate() {
        for (j, &l) in row.iter().enumerate() {
            let y = (1.0 - eps) * tails[i].contains(&(j as u32)) as u8 as f64 + 1.0 / n as f64;
            let weight = if j < p { 1.0 } else { w };
            want += weight * (softplus(l) - y * l);
            let g = weight * (sigmoid(l) - 1.0 / n as f64) / (b * n) as f64
                - (1.0 - eps) * tails[i].contains(&(j as u32)) as u8 as f64 / (b * n) as f64;
            assert!((grad[i * m + j] - g).abs() < 1e-15, "grad [{i}, {j}]");
        }
    }
    want /= (b * n) as f64;
    assert!((loss - want).abs() < 1e-12, "{loss} vs {want}");
}

#[test]
fn sampled_softmax_is_the_corrected_cross_entropy() {
    let (n, m, p) = (300usize, 25usize, 4usize);
    let tails = vec![vec![0u32, 1], vec![2], vec![], vec![3, 3]];
    let b = tails.len();
    let w = (n - p) as f64 / (m - p) as f64;
    let cols = SampledColumns {
        total: m,
        positives: p,
        weight: w,
        entities: n,
    };
    let x = logits(b * m, 2);
    for eps in [0.0, 0.1] {
        let (loss, grad) = run_sampled(true, &x, cols, eps, &tails);
        let mut want = 0.0;
        for (i, row) in x.chunks(m).enumerate() {
            let weight = |j: usize| if j < p { 1.0 } else { w };
            let z: f64 = row
                .iter()
                .enumerate()
                .map(|(j, &l)| weight(j) * l.exp())
                .sum();
            let (pos_w, mass) = if tails[i].is_empty() {
                (0.0, eps)
            } else {
                ((1.0 - eps) / tails[i].len() as f64, 1.0)
            };
            let count = |j: usize| tails[i].iter().filter(|&&t| t as usize == j).count() as f64;
            want += mass * z.ln();
            for (j, &l) in row.iter().enumerate() {
                want -= (pos_w * count(j) + weight(j) * eps / n as f64) * l;
                let g = (mass * weight(j) * l.exp() / z
                    - pos_w * count(j)
                    - weight(j) * eps / n as f64)
                    / b as f64;
                assert!(
                    (grad[i * m + j] - g).abs() < 1e-12,
                    "eps {eps} grad [{i}, {j}]"
                );
            }
        }
        want /= b as f64;
        assert!((loss - want).abs() < 1e-12, "eps {eps}: {loss} vs {want}");
    }
}

#[test]
fn a_sample_of_every_entity_is_the_exact_loss() {
    let n = 64;
    let tails = [vec![7u32, 40], vec![63], vec![], vec![0, 1, 2]];
    let b = tails.len();
    let mut batch = Batch::default();
    for (i, t) in tails.iter().enumerate() {
        batch.push(i as u32, 0, t);
    }
    let mut sampler = ColumnSampler::new(n);
    let cols = sampler.draw(&batch, n, 1, 1).clone();
    assert_eq!(cols.shape().total, n);
    let full = logits(b * n, 3);
    // The sampled logits are the full ones' columns in the sampler's order.
    let picked: Vec<f64> = (0..b)
        .flat_map(|i| cols.ids.iter().map(move |&e| (i, e)))
        .map(|(i, e)| full[i * n + e as usize])
        .collect();
    for (softmax, eps) in [(false, 0.1), (true, 0.0), (true, 0.1)] {
        let mut exact = full.clone();
        let mut rows = vec![0.0; b];
        let exact_loss = if softmax {
            softmax_fused(&mut exact, b, n, eps, |i| tails[i].as_slice(), &mut rows)
        } else {
            bce_fused(&mut exact, b, n, eps, |i| tails[i].as_slice(), &mut rows)
        };
        let local: Vec<Vec<u32>> = (0..b).map(|i| cols.batch.tails_of(i).to_vec()).collect();
        let (loss, grad) = run_sampled(softmax, &picked, cols.shape(), eps, &local);
        assert!((loss - exact_loss).abs() < 1e-12, "{loss} vs {exact_loss}");
        for i in 0..b {
            for (c, &e) in cols.ids.iter().enumerate() {
                let (g, want) = (grad[i * n + c], exact[i * n + e as usize]);
                assert!((g - want).abs() < 1e-15, "softmax {softmax}: [{i}, {e}]");
            }
        }
    }
}

#[test]
fn sampled_bce_is_unbiased_over_draws() {
    let n = 200;
    let tails = [vec![3u32], vec![10, 11]];
    let b = tails.len();
    let mut batch = Batch::default();
    for (i, t) in tails.iter().enumerate() {
        batch.push(i as u32, 0, t);
    }
    let full = logits(b * n, 4);
    let mut exact = full.clone();
    let want = bce_fused(
        &mut exact,
        b,
        n,
        0.1,
        |i| tails[i].as_slice(),
        &mut [0.0; 2],
    );
    let mut sampler = ColumnSampler::new(n);
    let draws = 4000;
    let (mut sum, mut sum_sq) = (0.0, 0.0);
    for step in 0..draws {
        let cols = sampler.draw(&batch, 20, 9, step).clone();
        let picked: Vec<f64> = (0..b)
            .flat_map(|i| cols.ids.iter().map(move |&e| (i, e)))
            .map(|(i, e)| full[i * n + e as usize])
            .collect();
        let local: Vec<Vec<u32>> = (0..b).map(|i| cols.batch.tails_of(i).to_vec()).collect();
        let (loss, _) = run_sampled(false, &picked, cols.shape(), 0.1, &local);
        sum += loss;
        sum_sq += loss * loss;
    }
    let mean = sum / draws as f64;
    let std_err = ((sum_sq / draws as f64 - mean * mean) / draws as f64).sqrt();
    assert!(std_err > 0.0, "the estimate varies between draws");
    assert!(
        (mean - want).abs() < 4.0 * std_err,
        "mean {mean} vs exact {want} (standard error {std_err})"
    );
}

fn config(loss: Loss) -> Config {
    Config {
        d_e: 16,
        d_r: 8,
        dropout_in: 0.2,
        dropout_h1: 0.1,
        dropout_h2: 0.1,
        label_smoothing: 0.1,
        loss,
        activation: Activation::Prelu,
        inverse_mode: InverseMode::NewRelation,
        init: InitScheme::XavierNormal,
        lr: 0.01,
        decay: 1.0,
        batch_size: 16,
        epochs: 30,
        eval_every: 10,
        patience: 0,
        threads: 2,
        ..Config::default()
    }
}

#[test]
fn lazy_adam_on_every_row_is_dense_adam() {
    let cfg = config(Loss::Bce);
    let p0 = Params::<f32>::init(&cfg, 30, 4);
    let mut grads = Grads::zeros_like(&p0);
    let mut rng = CounterRng::new(5, 0, Stream::Init);
    for t in grads.t.iter_mut() {
        t.iter_mut().for_each(|v| *v = rng.normal() as f32);
    }
    let (mut dense, mut lazy) = (p0.clone(), p0.clone());
    let (mut a_dense, mut a_lazy) = (Adam::new(&p0), Adam::new(&p0));
    let mut only_e_frozen = [false; N_TRAINABLE];
    only_e_frozen[0] = true;
    let rows: Vec<u32> = (0..30).rev().collect();
    let reversed: Vec<f32> = rows
        .iter()
        .flat_map(|&r| grads.t[0][r as usize * 16..][..16].to_vec())
        .collect();
    for _ in 0..3 {
        a_dense.step(&mut dense, &grads, 0.01, &[false; N_TRAINABLE]);
        a_lazy.step(&mut lazy, &grads, 0.01, &only_e_frozen);
        a_lazy.update_rows(0, &mut lazy.e, 16, &rows, &reversed, 0.01);
    }
    assert_eq!(dense, lazy);
    assert_eq!(a_dense, a_lazy);
}

#[test]
fn catching_up_a_row_is_close_to_the_dense_steps_it_sat_out() {
    let cfg = config(Loss::Bce);
    let p0 = Params::<f64>::init(&cfg, 4, 2);
    let mut rng = CounterRng::new(6, 0, Stream::Init);
    let mut random_grads = |zero_row: Option<usize>| {
        let mut g = Grads::zeros_like(&p0);
        for t in g.t.iter_mut() {
            t.iter_mut().for_each(|v| *v = rng.normal());
        }
        if let Some(r) = zero_row {
            g.t[0][r * 16..][..16].fill(0.0);
        }
        g
    };
    let (mut p, mut adam) = (p0.clone(), Adam::new(&p0));
    // Late in a run: the bias corrections barely move over the skipped steps.
    for _ in 0..3000 {
        adam.step(&mut p, &random_grads(None), 1e-3, &[false; N_TRAINABLE]);
    }
    let (mut dense, mut a_dense) = (p.clone(), adam.clone());
    let (mut lazy, mut a_lazy) = (p.clone(), adam.clone());
    let mut only_e_frozen = [false; N_TRAINABLE];
    only_e_frozen[0] = true;
    let touched = [0u32, 2, 3];
    for _ in 0..30 {
        let g = random_grads(Some(1));
        a_dense.step(&mut dense, &g, 1e-3, &[false; N_TRAINABLE]);
        a_lazy.step(&mut lazy, &g, 1e-3, &only_e_frozen);
        let rows: Vec<f64> = touched
            .iter()
            .flat_map(|&r| g.t[0][r as usize * 16..][..16].to_vec())
            .collect();
        a_lazy.update_rows(0, &mut lazy.e, 16, &touched, &rows, 1e-3);
    }
    let row = |e: &[f64]| e[16..32].to_vec();
    let moved: f64 = row(&dense.e)
        .iter()
        .zip(row(&p.e))
        .map(|(a, b)| (a - b).abs())
        .sum();
    let off = |e: &[f64]| -> f64 {
        row(e)
            .iter()
            .zip(row(&dense.e))
            .map(|(a, b)| (a - b).abs())
            .sum()
    };
    // Plain lazy Adam leaves row 1 where it was; dense Adam moved it by its momentum.
    assert!(
        off(&lazy.e) > 0.9 * moved,
        "lazy {} vs moved {moved}",
        off(&lazy.e)
    );
    a_lazy.catch_up_rows(0, &mut lazy.e, 16, &[1], &[30], 1e-3);
    assert!(
        off(&lazy.e) < 0.01 * moved,
        "caught up {} vs moved {moved}",
        off(&lazy.e)
    );
    for (a, b) in a_lazy.m[0]
        .iter()
        .zip(&a_dense.m[0])
        .chain(a_lazy.v[0].iter().zip(&a_dense.v[0]))
    {
        assert!(
            (a - b).abs() <= 1e-12 * b.abs().max(1e-12),
            "moments {a} vs {b}"
        );
    }
    // The rows that were updated every step are untouched by a catch-up of 0 steps.
    let before = lazy.e.clone();
    a_lazy.catch_up_rows(0, &mut lazy.e, 16, &[0, 2], &[0, 0], 1e-3);
    assert_eq!(before, lazy.e);
}

/// Batches over a small graph's queries, as the trainer would form them.
fn batches(data: &neptune_core::Dataset, cfg: &Config) -> Vec<Batch> {
    let index = data.train_index(cfg.inverse_mode);
    let mut out = Vec::new();
    let mut batch = Batch::default();
    for i in 0..index.len() {
        let (h, r) = index.pairs[i];
        batch.push(h, r, index.tails_of(i));
        if batch.len() == cfg.batch_size {
            out.push(std::mem::take(&mut batch));
        }
    }
    out
}

#[test]
fn a_sampled_step_over_every_entity_is_the_exact_step() {
    let data = common::cluster_graph(4, 6, 3);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for loss in [Loss::Bce, Loss::Softmax] {
        let cfg = Config {
            sampled_candidates: 1000,
            ..config(loss)
        };
        let n_rel = cfg.inverse_mode.model_relations(data.n_relations());
        let p0 = Params::<f32>::init(&cfg, data.n_entities(), n_rel);
        let (mut exact, mut sampled) = (p0.clone(), p0.clone());
        let (mut a_exact, mut a_sampled) = (Adam::new(&p0), Adam::new(&p0));
        let mut cpu = CpuSteps::new(&pool, &cfg, &p0);
        let mut steps = SampledSteps::new(&pool, &cfg, &p0, 0);
        let batches = batches(&data, &cfg);
        assert!(batches.len() >= 4, "{} batches", batches.len());
        for batch in batches.iter().take(4) {
            let l1 = cpu.step(&mut exact, &mut a_exact, batch, cfg.lr).unwrap();
            let l2 = steps
                .step(&mut sampled, &mut a_sampled, batch, cfg.lr)
                .unwrap();
            assert!(
                (l1 - l2).abs() < 1e-5 * l1.abs(),
                "{loss:?}: loss {l1} vs {l2}"
            );
        }
        let worst = exact
            .e
            .iter()
            .zip(&sampled.e)
            .chain(exact.w.iter().zip(&sampled.w))
            .chain(exact.r.iter().zip(&sampled.r))
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(worst < 1e-5, "{loss:?}: parameters differ by {worst}");
        assert_eq!(a_exact.step, a_sampled.step);
    }
}

#[test]
fn a_sampled_run_learns_the_clusters() {
    let data = common::cluster_graph(6, 8, 4);
    for loss in [Loss::Bce, Loss::Softmax] {
        // 48 entities; a batch's tails plus 8 sampled: about a third of the columns.
        let cfg = Config {
            sampled_candidates: 8,
            epochs: 40,
            ..config(loss)
        };
        let out = Trainer::new(cfg)
            .unwrap()
            .train(&data, |_| {}, &AtomicBool::new(false))
            .unwrap();
        let mrr = out.model.valid_metrics.unwrap().overall.mrr;
        assert!(mrr > 0.5, "{loss:?}: validation MRR {mrr}");
    }
}

#[test]
fn a_sampled_run_validates_on_a_seeded_sample_of_a_large_split() {
    let base = common::cluster_graph(6, 8, 4);
    let flat = |t: &[[u32; 3]]| t.iter().flatten().copied().collect::<Vec<u32>>();
    // 12,000 validation triples over the 48 entities: more than a sampled run ranks.
    let valid: Vec<u32> = (0..12_000u32)
        .flat_map(|i| [i % 48, i % 4, (i * 7 + 3) % 48])
        .collect();
    let data =
        neptune_core::Dataset::from_arrays(48, 4, &flat(&base.train), &valid, &flat(&base.test))
            .unwrap();
    let ranked = |sampled: usize| {
        let cfg = Config {
            sampled_candidates: sampled,
            epochs: 2,
            eval_every: 1,
            ..config(Loss::Bce)
        };
        let mut counts = vec![];
        Trainer::new(cfg)
            .unwrap()
            .train(
                &data,
                |p| {
                    if let neptune_core::Progress::Validation { metrics, .. } = p {
                        counts.push(metrics.overall.count);
                    }
                },
                &AtomicBool::new(false),
            )
            .unwrap();
        counts
    };
    // Both directions of each ranked triple.
    assert_eq!(ranked(8), vec![2 * SAMPLED_RUN_VALIDATION_TRIPLES; 2]);
    assert_eq!(ranked(0), vec![2 * 12_000; 2]);

    // The sample: distinct triples in the split's order, the same for a seed, another for another.
    let triples: Vec<[u32; 3]> = (0..12_000u32).map(|i| [i, 0, i]).collect();
    let cfg = Config {
        sampled_candidates: 8,
        ..config(Loss::Bce)
    };
    let a = validation_triples(&cfg, &triples);
    assert_eq!(a.len(), SAMPLED_RUN_VALIDATION_TRIPLES);
    assert!(a.windows(2).all(|w| w[0][0] < w[1][0]));
    assert_eq!(a, validation_triples(&cfg, &triples));
    let other = Config { seed: 7, ..cfg };
    assert_ne!(a, validation_triples(&other, &triples));
    let exact = Config {
        sampled_candidates: 0,
        ..cfg
    };
    assert_eq!(validation_triples(&exact, &triples).len(), 12_000);
}

/// A batch whose columns pass the step's logit budget (a hub's tails) is taken in slices of
/// queries: the same loss, gradients and BatchNorm statistics as the whole batch at once, up to
/// the order of sums; a budget the batch fits in is the unsliced step bit for bit.
#[test]
fn a_sampled_step_in_slices_of_queries_is_the_whole_step() {
    use neptune_core::net::{Dropouts, Objective, Workspace};
    use neptune_core::sampled_steps::{sampled_loss_and_grads, sampled_loss_and_grads_within};
    let data = common::cluster_graph(4, 6, 3);
    for loss in [Loss::Bce, Loss::Softmax] {
        let cfg = Config {
            sampled_candidates: 10,
            ..config(loss)
        };
        let n_rel = cfg.inverse_mode.model_relations(data.n_relations());
        let p0 = Params::<f32>::init(&cfg, data.n_entities(), n_rel).cast::<f64>();
        let drop = Dropouts {
            input: cfg.dropout_in,
            h1: cfg.dropout_h1,
            h2: cfg.dropout_h2,
        };
        let batch = &batches(&data, &cfg)[0];
        let cols = ColumnSampler::new(data.n_entities())
            .draw(batch, cfg.sampled_candidates, cfg.seed, 3)
            .clone();
        let (b, m) = (batch.len(), cols.ids.len());
        let run = |max_logits: Option<usize>| {
            let mut p = p0.clone();
            let (mut g, mut rows) = (Grads::zeros_like(&p), Vec::new());
            let mut ws = Workspace::new();
            let objective = Objective::of(&cfg);
            let l = match max_logits {
                Some(cap) => sampled_loss_and_grads_within(
                    cap, &mut p, &drop, objective, &cols, &mut ws, &mut g, &mut rows, cfg.seed, 3,
                ),
                None => sampled_loss_and_grads(
                    &mut p, &drop, objective, &cols, &mut ws, &mut g, &mut rows, cfg.seed, 3,
                ),
            };
            (l, g, rows, p)
        };
        let whole = run(None);
        let fits = run(Some(b * m));
        assert_eq!(whole.0.to_bits(), fits.0.to_bits(), "{loss:?}");
        assert!(whole.1.t == fits.1.t && whole.2 == fits.2 && whole.3 == fits.3);
        // Slices of 3 queries, then of one.
        for cap in [3 * m, m] {
            let (l, g, rows, p) = run(Some(cap));
            let close = |a: &[f64], b: &[f64]| {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|(x, y)| (x - y).abs() <= 1e-12 * (1.0 + x.abs()))
            };
            assert!(
                (l - whole.0).abs() <= 1e-12 * whole.0.abs(),
                "{loss:?} {cap}: loss {l} vs {}",
                whole.0
            );
            for (i, (a, want)) in g.t.iter().zip(&whole.1.t).enumerate().skip(1) {
                assert!(close(a, want), "{loss:?} {cap}: gradient {i} differs");
            }
            assert!(
                close(&rows, &whole.2),
                "{loss:?} {cap}: E's row gradients differ"
            );
            assert!(close(&p.bn0.running_mean, &whole.3.bn0.running_mean));
            assert!(close(&p.bn1.running_var, &whole.3.bn1.running_var));
            assert!(rows.iter().any(|v| *v != 0.0));
        }
    }
}
