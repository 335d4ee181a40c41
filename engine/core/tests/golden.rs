//! Forward logits, loss, gradients, BatchNorm running statistics and two Adam steps against
//! PyTorch. The numbers in golden/golden.json come from golden/gen_golden.py (float64, dropout 0,
//! BatchNorm in training mode, PReLU, the reference's BCELoss on sigmoid outputs); regenerate
//! with `/usr/bin/python3 engine/core/tests/golden/gen_golden.py`.

use neptune_core::adam::Adam;
use neptune_core::net::{loss_and_grads, Batch, Dropouts, Objective, Workspace};
use neptune_core::params::{BatchNorm, Grads, Params, TRAINABLE_NAMES};
use neptune_core::real::Real;
use serde_json::Value;

fn golden() -> Value {
    let text = include_str!("golden/golden.json");
    serde_json::from_str(text).expect("golden.json parses")
}

fn vecf<T: Real>(v: &Value) -> Vec<T> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| T::from_f64(x.as_f64().unwrap()))
        .collect()
}

fn params<T: Real>(g: &Value) -> Params<T> {
    let t = &g["initial"];
    let us = |k: &str| g[k].as_u64().unwrap() as usize;
    let bn = |w: &str, b: &str| BatchNorm {
        gamma: vecf(&t[w]),
        beta: vecf(&t[b]),
        running_mean: vec![T::ZERO; us("d_e")],
        running_var: vec![T::ONE; us("d_e")],
    };
    Params {
        n_ent: us("n_ent"),
        n_rel: us("n_rel"),
        d_e: us("d_e"),
        d_r: us("d_r"),
        e: vecf(&t["E"]).into(),
        r: vecf(&t["R"]),
        w: vecf(&t["W"]),
        bn0: bn("bn0.weight", "bn0.bias"),
        bn1: bn("bn1.weight", "bn1.bias"),
        slope: vecf(&t["prelu.weight"]),
    }
}

fn batch(g: &Value) -> Batch {
    let mut b = Batch::default();
    let ids = |k: &str| {
        g[k].as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as u32)
            .collect::<Vec<_>>()
    };
    let (hs, rs) = (ids("heads"), ids("rels"));
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

fn close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        assert!(
            (a - b).abs() <= tol * (1.0 + b.abs()),
            "{what}[{i}]: got {a:e}, want {b:e}"
        );
    }
}

fn run<T: Real>(tol: f64) {
    let g = golden();
    let mut p = params::<T>(&g);
    let b = batch(&g);
    let eps = g["label_smoothing"].as_f64().unwrap();
    let lr = g["lr"].as_f64().unwrap();
    let mut ws = Workspace::new();
    let mut grads = Grads::zeros_like(&p);
    let mut adam = Adam::new(&p);
    let to64 = |v: &[T]| v.iter().map(|x| x.to_f64()).collect::<Vec<f64>>();
    for (s, want) in g["steps"].as_array().unwrap().iter().enumerate() {
        let loss = loss_and_grads(
            &mut p,
            &Dropouts::default(),
            Objective::bce(eps),
            &b,
            &mut ws,
            &mut grads,
            0,
            s as u64,
        );
        // Logits were replaced by their gradient; recompute them in a separate forward.
        let p2 = p.clone();
        let mut ws2 = Workspace::new();
        neptune_core::net::forward(
            &p2,
            &Dropouts::default(),
            &b,
            &mut ws2,
            neptune_core::net::Mode::Train { seed: 0, step: 0 },
        );
        let n_logits = b.len() * p.n_ent;
        close(
            &format!("step {s} logits"),
            &to64(&ws2.logits[..n_logits]),
            &vecf::<f64>(&want["logits"]),
            tol,
        );
        close(
            &format!("step {s} loss"),
            &[loss],
            &[want["loss"].as_f64().unwrap()],
            tol,
        );
        for (i, name) in TRAINABLE_NAMES.iter().enumerate() {
            close(
                &format!("step {s} grad {name}"),
                &to64(&grads.t[i]),
                &vecf::<f64>(&want["grads"][name]),
                tol,
            );
        }
        let r = &want["running"];
        close(
            "bn0.running_mean",
            &to64(&p.bn0.running_mean),
            &vecf::<f64>(&r["bn0.running_mean"]),
            tol,
        );
        close(
            "bn0.running_var",
            &to64(&p.bn0.running_var),
            &vecf::<f64>(&r["bn0.running_var"]),
            tol,
        );
        close(
            "bn1.running_mean",
            &to64(&p.bn1.running_mean),
            &vecf::<f64>(&r["bn1.running_mean"]),
            tol,
        );
        close(
            "bn1.running_var",
            &to64(&p.bn1.running_var),
            &vecf::<f64>(&r["bn1.running_var"]),
            tol,
        );
        adam.step(&mut p, &grads, lr, &[false; TRAINABLE_NAMES.len()]);
        for (i, name) in TRAINABLE_NAMES.iter().enumerate() {
            close(
                &format!("step {s} after Adam {name}"),
                &to64(p.trainable()[i]),
                &vecf::<f64>(&want["after_adam"][name]),
                tol,
            );
        }
    }
}

#[test]
fn matches_pytorch_in_f64() {
    run::<f64>(1e-9);
}

#[test]
fn matches_pytorch_in_f32() {
    run::<f32>(2e-4);
}
