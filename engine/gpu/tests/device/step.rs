//! The whole GPU step (forward, fused loss, backward, Adam) against the CPU engine and PyTorch:
//! the PyTorch golden values the CPU engine is tested with (tests/golden in neptune_core), the
//! CPU's float64 gradients (themselves checked against finite differences) with dropout on, and
//! a directional finite difference computed on the device alone.
use crate::common::gpu;
use neptune_core::adam::Adam;
use neptune_core::config::{Activation, Config, InitScheme, Loss};
use neptune_core::net::{loss_and_grads, Batch, Dropouts, Objective, Workspace};
use neptune_core::params::{BatchNorm, Grads, Params, TRAINABLE_NAMES};
use neptune_core::step_engine::StepEngine;
use neptune_gpu::GpuSteps;
use serde_json::Value;
use std::sync::Arc;

fn golden() -> Value {
    serde_json::from_str(include_str!("../../../core/tests/golden/golden.json")).unwrap()
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn f32s(v: &Value) -> Vec<f32> {
    floats(v).into_iter().map(|x| x as f32).collect()
}

fn golden_params(g: &Value) -> Params<f32> {
    let t = &g["initial"];
    let us = |k: &str| g[k].as_u64().unwrap() as usize;
    let bn = |w: &str, b: &str| BatchNorm {
        gamma: f32s(&t[w]),
        beta: f32s(&t[b]),
        running_mean: vec![0.0; us("d_e")],
        running_var: vec![1.0; us("d_e")],
    };
    Params {
        n_ent: us("n_ent"),
        n_rel: us("n_rel"),
        d_e: us("d_e"),
        d_r: us("d_r"),
        e: f32s(&t["E"]).into(),
        r: f32s(&t["R"]),
        w: f32s(&t["W"]),
        bn0: bn("bn0.weight", "bn0.bias"),
        bn1: bn("bn1.weight", "bn1.bias"),
        slope: f32s(&t["prelu.weight"]),
    }
}

fn golden_batch(g: &Value) -> Batch {
    let ids = |k: &str| -> Vec<u32> {
        g[k].as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as u32)
            .collect()
    };
    let (hs, rs) = (ids("heads"), ids("rels"));
    let mut b = Batch::default();
    for (i, ts) in g["tails"].as_array().unwrap().iter().enumerate() {
        let ts: Vec<u32> = ts
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as u32)
            .collect();
        b.push(hs[i], rs[i], &ts);
    }
    b
}

/// `|got - want| <= tol * (1 + |want|)`, as neptune_core's golden test.
fn close(what: &str, got: &[f32], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (&a, &b)) in got.iter().zip(want).enumerate() {
        assert!(
            (a as f64 - b).abs() <= tol * (1.0 + b.abs()),
            "{what}[{i}]: got {a:e}, want {b:e}"
        );
    }
}

fn config(g: &Value) -> Config {
    Config {
        label_smoothing: g["label_smoothing"].as_f64().unwrap(),
        dropout_in: 0.0,
        dropout_h1: 0.0,
        dropout_h2: 0.0,
        activation: Activation::Prelu,
        seed: 0,
        ..Config::default()
    }
}

/// Loss, gradients, running statistics and parameters after Adam, for the golden file's two
/// steps, within the CPU engine's own float32 tolerance against PyTorch (2e-4).
#[test]
fn matches_pytorch_golden_values() {
    let g = golden();
    let mut params = golden_params(&g);
    let mut adam = Adam::new(&params);
    let batch = golden_batch(&g);
    let lr = g["lr"].as_f64().unwrap();
    let tol = 2e-4;
    let mut steps = GpuSteps::new(Arc::new(gpu()), &config(&g), &params, &adam).unwrap();
    for (s, want) in g["steps"].as_array().unwrap().iter().enumerate() {
        let loss = steps.step(&mut params, &mut adam, &batch, lr).unwrap();
        assert_eq!(adam.step, s as u64 + 1);
        assert!(
            (loss - want["loss"].as_f64().unwrap()).abs() <= tol,
            "step {s} loss {loss} vs {}",
            want["loss"]
        );
        for (i, (grad, name)) in steps
            .grads()
            .unwrap()
            .iter()
            .zip(TRAINABLE_NAMES)
            .enumerate()
        {
            let _ = i;
            close(
                &format!("step {s} grad {name}"),
                grad,
                &floats(&want["grads"][name]),
                tol,
            );
        }
        steps.sync(&mut params, &mut adam).unwrap();
        let r = &want["running"];
        close(
            "bn0.running_mean",
            &params.bn0.running_mean,
            &floats(&r["bn0.running_mean"]),
            tol,
        );
        close(
            "bn0.running_var",
            &params.bn0.running_var,
            &floats(&r["bn0.running_var"]),
            tol,
        );
        close(
            "bn1.running_mean",
            &params.bn1.running_mean,
            &floats(&r["bn1.running_mean"]),
            tol,
        );
        close(
            "bn1.running_var",
            &params.bn1.running_var,
            &floats(&r["bn1.running_var"]),
            tol,
        );
        for (i, name) in TRAINABLE_NAMES.iter().enumerate() {
            close(
                &format!("step {s} after Adam {name}"),
                params.trainable()[i],
                &floats(&want["after_adam"][name]),
                tol,
            );
        }
    }
}

/// neptune_core's gradient-check model and batch (tests/gradcheck.rs): repeated heads and
/// relations, non-trivial BatchNorm affine parameters.
pub fn tiny(act: Activation) -> (Config, Params<f64>, Batch) {
    let cfg = Config {
        d_e: 5,
        d_r: 3,
        activation: act,
        init: InitScheme::XavierNormal,
        seed: 3,
        label_smoothing: 0.1,
        dropout_in: 0.2,
        dropout_h1: 0.3,
        dropout_h2: 0.25,
        ..Config::default()
    };
    let p = tiny_params(&cfg, 7);
    let mut b = Batch::default();
    for &(h, r, ref t) in &[
        (0u32, 1u32, vec![2u32, 3]),
        (4, 1, vec![0]),
        (0, 2, vec![6]),
        (5, 0, vec![1, 2, 4]),
        (3, 1, vec![5]),
        (6, 3, vec![0, 6]),
    ] {
        b.push(h, r, t);
    }
    (cfg, p, b)
}

/// [`tiny`]'s parameters over `entities` entities and its 4 relations.
pub fn tiny_params(cfg: &Config, entities: usize) -> Params<f64> {
    let init = Config {
        seed: 11,
        ..cfg.clone()
    };
    let mut p = Params::<f64>::init(&init, entities, 4);
    for (i, v) in p.bn0.gamma.iter_mut().enumerate() {
        *v = 0.8 + 0.1 * i as f64;
    }
    for (i, v) in p.bn1.beta.iter_mut().enumerate() {
        *v = 0.05 * i as f64 - 0.1;
    }
    p
}

/// With every dropout on (the masks regenerated on the device from the same keys), the device
/// gradients equal the CPU's float64 ones to float32 accuracy, at several steps (masks differ
/// per step) and for both slope paths.
#[test]
fn gradients_match_the_cpu_in_f64_with_dropout() {
    let device = Arc::new(gpu());
    for (act, loss) in [
        (Activation::Prelu, Loss::Bce),
        (Activation::LeakyRelu, Loss::Bce),
        (Activation::Prelu, Loss::Softmax),
        (Activation::LeakyRelu, Loss::Softmax),
    ] {
        let (mut cfg, p64, batch) = tiny(act);
        cfg.loss = loss;
        let p32 = p64.cast::<f32>();
        let mut adam = Adam::new(&p32);
        let mut host = p32.clone();
        let drop = Dropouts {
            input: cfg.dropout_in,
            h1: cfg.dropout_h1,
            h2: cfg.dropout_h2,
        };
        for step in 0..3u64 {
            // Same parameters on both sides: the device's after its earlier steps.
            let mut steps = GpuSteps::new(device.clone(), &cfg, &host, &adam).unwrap();
            adam.step = step;
            let got_loss = steps.step(&mut host, &mut adam, &batch, 0.0).unwrap();
            let got = steps.grads().unwrap();
            let mut p = host.cast::<f64>();
            let mut g = Grads::zeros_like(&p);
            let mut ws = Workspace::new();
            let want_loss = loss_and_grads(
                &mut p,
                &drop,
                Objective::of(&cfg),
                &batch,
                &mut ws,
                &mut g,
                cfg.seed,
                step,
            );
            assert!(
                (got_loss - want_loss).abs() <= 1e-5 * want_loss.abs(),
                "{act:?} {loss:?} step {step}: device loss {got_loss}, cpu {want_loss}"
            );
            for (i, name) in TRAINABLE_NAMES.iter().enumerate() {
                let scale = g.t[i].iter().fold(0.0f64, |m, v| m.max(v.abs()));
                assert!(scale > 1e-6, "{name}: the CPU gradient is all zero");
                for (k, (&a, &b)) in got[i].iter().zip(&g.t[i]).enumerate() {
                    assert!(
                        (a as f64 - b).abs() <= 1e-4 * scale + 1e-7,
                        "{act:?} {loss:?} step {step} d loss / d {name}[{k}]: device {a:e}, cpu {b:e}"
                    );
                }
            }
        }
    }
}

/// On the device alone: the loss's change along the gradient, (L(p + hg) - L(p - hg)) / 2h,
/// equals |g|^2 (a float32 central difference over the whole direction, so within 2%).
#[test]
fn directional_derivative_matches_the_gradient() {
    let device = Arc::new(gpu());
    let (cfg, p64, batch) = tiny(Activation::Prelu);
    let p = p64.cast::<f32>();
    let loss_at = |q: &Params<f32>| -> (f64, Vec<Vec<f32>>) {
        let mut adam = Adam::new(q);
        adam.step = 5;
        let mut steps = GpuSteps::new(device.clone(), &cfg, q, &adam).unwrap();
        let mut host = q.clone();
        // lr 0: Adam leaves the parameters as they are.
        let l = steps.step(&mut host, &mut adam, &batch, 0.0).unwrap();
        (l, steps.grads().unwrap())
    };
    let (_, g) = loss_at(&p);
    let norm2: f64 = g.iter().flatten().map(|&v| (v as f64) * (v as f64)).sum();
    let h = 1e-2 / norm2.sqrt();
    let moved = |sign: f32| {
        let mut q = p.clone();
        for (t, gt) in q.trainable_mut().into_iter().zip(&g) {
            for (v, &d) in t.iter_mut().zip(gt) {
                *v += sign * h as f32 * d;
            }
        }
        loss_at(&q).0
    };
    let numeric = (moved(1.0) - moved(-1.0)) / (2.0 * h);
    assert!(
        (numeric - norm2).abs() <= 0.02 * norm2,
        "directional derivative {numeric:e} vs |g|^2 {norm2:e}"
    );
}
