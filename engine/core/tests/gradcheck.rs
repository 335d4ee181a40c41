//! Analytic gradients of every trainable tensor against central finite differences, in f64, on
//! a tiny model; with dropout off and on (masks are fixed by `(seed, step)`, so the loss is a
//! deterministic function of the parameters).

use neptune_core::config::{Activation, Config, InitScheme};
use neptune_core::net::{loss, loss_and_grads, Batch, Dropouts, Objective, Workspace};
use neptune_core::params::{Grads, Params, TRAINABLE_NAMES};

fn tiny(act: Activation) -> Params<f64> {
    let cfg = Config {
        d_e: 5,
        d_r: 3,
        activation: act,
        init: InitScheme::XavierNormal,
        seed: 11,
        ..Config::default()
    };
    let mut p = Params::<f64>::init(&cfg, 7, 4);
    // Non-trivial BN affine parameters so their gradients are exercised off the identity.
    for (i, v) in p.bn0.gamma.iter_mut().enumerate() {
        *v = 0.8 + 0.1 * i as f64;
    }
    for (i, v) in p.bn1.beta.iter_mut().enumerate() {
        *v = 0.05 * i as f64 - 0.1;
    }
    p
}

fn batch() -> Batch {
    let mut b = Batch::default();
    // Repeated heads and relations on purpose: the head scatter and the per-relation grouping.
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
    b
}

fn check(act: Activation, drop: Dropouts) {
    check_with(act, drop, Objective::bce(0.1));
}

fn check_with(act: Activation, drop: Dropouts, objective: Objective) {
    let (seed, step) = (3u64, 17u64);
    let mut p = tiny(act);
    let b = batch();
    let mut ws = Workspace::new();
    let mut g = Grads::zeros_like(&p);
    loss_and_grads(&mut p, &drop, objective, &b, &mut ws, &mut g, seed, step);
    let h = 1e-5;
    let mut worst = 0.0f64;
    for (ti, name) in TRAINABLE_NAMES.iter().enumerate() {
        for k in 0..g.t[ti].len() {
            let orig = p.trainable()[ti][k];
            p.trainable_mut()[ti][k] = orig + h;
            let lp = loss(&mut p, &drop, objective, &b, &mut ws, seed, step);
            p.trainable_mut()[ti][k] = orig - h;
            let lm = loss(&mut p, &drop, objective, &b, &mut ws, seed, step);
            p.trainable_mut()[ti][k] = orig;
            let num = (lp - lm) / (2.0 * h);
            let ana = g.t[ti][k];
            let err = (num - ana).abs() / (1e-4 + num.abs().max(ana.abs()));
            worst = worst.max(err);
            assert!(
                (num - ana).abs() <= 1e-7 + 1e-4 * num.abs().max(ana.abs()),
                "{act:?} {drop:?} {objective:?}: d loss / d {name}[{k}]: analytic {ana:e}, numeric {num:e}"
            );
        }
    }
    // Every tensor must actually receive gradient (guards against silently zero paths).
    for (ti, name) in TRAINABLE_NAMES.iter().enumerate() {
        assert!(
            g.t[ti].iter().any(|v| v.abs() > 1e-9),
            "{name} gradient is all zero"
        );
    }
    eprintln!("{act:?} {drop:?} {objective:?}: worst relative error {worst:e}");
}

#[test]
fn gradients_match_finite_differences_without_dropout() {
    check(Activation::Prelu, Dropouts::default());
    check(Activation::LeakyRelu, Dropouts::default());
}

#[test]
fn gradients_match_finite_differences_with_dropout() {
    check(
        Activation::Prelu,
        Dropouts {
            input: 0.3,
            h1: 0.2,
            h2: 0.4,
        },
    );
    check(
        Activation::Relu,
        Dropouts {
            input: 0.1,
            h1: 0.5,
            h2: 0.2,
        },
    );
}

#[test]
fn softmax_gradients_match_finite_differences() {
    // With and without label smoothing, dropout off and on: the softmax loss through the net.
    check_with(
        Activation::Prelu,
        Dropouts::default(),
        Objective::softmax(0.0),
    );
    check_with(
        Activation::LeakyRelu,
        Dropouts {
            input: 0.3,
            h1: 0.2,
            h2: 0.4,
        },
        Objective::softmax(0.1),
    );
}
