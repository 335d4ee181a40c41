//! The GPU's sampled step (`sampled_candidates` > 0) against the CPU's: with every dropout on,
//! its gradients (E's at the rows it touched) equal neptune_core's float64
//! `sampled_loss_and_grads` over the same drawn columns, for both losses and at several steps
//! (draws and masks differ per step). That CPU step is itself tested against the losses'
//! formulas and, with a sample of every entity, against the exact step (core tests/sampled.rs).
use crate::common::gpu;
use crate::step::{tiny, tiny_params};
use neptune_core::adam::Adam;
use neptune_core::column_sampler::ColumnSampler;
use neptune_core::config::{Activation, Config, Loss};
use neptune_core::net::{Batch, Dropouts, Objective, Workspace};
use neptune_core::params::{Grads, Params, TRAINABLE_NAMES};
use neptune_core::sampled_steps::sampled_loss_and_grads;
use neptune_core::step_engine::StepEngine;
use neptune_gpu::GpuSteps;
use std::sync::Arc;

/// [`tiny`]'s model over 40 entities, its batch with heads 30 and 35 for two of its own: the
/// batch's 7 distinct tails and 6 sampled columns, each standing for 5.5 entities, and heads
/// that are rows of the step but not columns (unless the sample draws them).
const ENTITIES: usize = 40;
const SAMPLE: usize = 6;

fn setup(loss: Loss) -> (Config, Params<f64>, Batch) {
    let (cfg, _, mut batch) = tiny(Activation::Prelu);
    let cfg = Config {
        loss,
        sampled_candidates: SAMPLE,
        ..cfg
    };
    (batch.heads[1], batch.heads[5]) = (30, 35);
    (cfg.clone(), tiny_params(&cfg, ENTITIES), batch)
}

#[test]
fn sampled_gradients_match_the_cpu_in_f64_with_dropout() {
    let device = Arc::new(gpu());
    for loss in [Loss::Bce, Loss::Softmax] {
        let (cfg, p64, batch) = setup(loss);
        let host = p64.cast::<f32>();
        let mut adam = Adam::new(&host);
        let drop = Dropouts {
            input: cfg.dropout_in,
            h1: cfg.dropout_h1,
            h2: cfg.dropout_h2,
        };
        let mut sampler = ColumnSampler::new(ENTITIES);
        for step in 0..3u64 {
            let cols = sampler.draw(&batch, SAMPLE, cfg.seed, step).clone();
            assert_eq!(cols.shape().total, 7 + SAMPLE);
            // Heads 30 and 35 are rows of their own unless the sample drew them.
            assert!(cols.rows.len() > 7 + SAMPLE, "{:?}", cols.rows);
            let mut steps = GpuSteps::new(device.clone(), &cfg, &host, &adam).unwrap();
            adam.step = step;
            let mut h = host.clone();
            // lr 0: the gradients are compared, the parameters stay.
            let got_loss = steps.step(&mut h, &mut adam, &batch, 0.0).unwrap();
            let got = steps.grads().unwrap();
            let got_rows = steps.row_grads().unwrap().expect("a sampled step");
            assert!(got[0].is_empty(), "no dense E gradient in a sampled step");

            let mut p = host.cast::<f64>();
            let (mut g, mut want_rows) = (Grads::zeros_like(&p), Vec::new());
            let want_loss = sampled_loss_and_grads(
                &mut p,
                &drop,
                Objective::of(&cfg),
                &cols,
                &mut Workspace::new(),
                &mut g,
                &mut want_rows,
                cfg.seed,
                step,
            );
            assert!(
                (got_loss - want_loss).abs() <= 1e-5 * want_loss.abs(),
                "{loss:?} step {step}: device loss {got_loss}, cpu {want_loss}"
            );
            let mut pairs: Vec<(&str, &[f32], &[f64])> = vec![("E rows", &got_rows, &want_rows)];
            for i in 1..TRAINABLE_NAMES.len() {
                pairs.push((TRAINABLE_NAMES[i], &got[i], &g.t[i]));
            }
            for (name, got, want) in pairs {
                assert_eq!(got.len(), want.len(), "{name}");
                let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs()));
                assert!(scale > 1e-6, "{name}: the CPU gradient is all zero");
                for (k, (&a, &b)) in got.iter().zip(want).enumerate() {
                    assert!(
                        (a as f64 - b).abs() <= 1e-4 * scale + 1e-7,
                        "{loss:?} step {step} d loss / d {name}[{k}]: device {a:e}, cpu {b:e}"
                    );
                }
            }
        }
    }
}
