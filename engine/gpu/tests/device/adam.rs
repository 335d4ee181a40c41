//! The device Adam step against neptune_core's CPU Adam (the real `Adam::step`, on a model
//! whose only unfrozen tensor is the one under test) over five steps, so the bias corrections
//! of steps 1..5 and the moments carried between steps are all checked.
//!
//! Tolerances: the constants are the CPU's (same f64 computation, same rounding), but WGSL's
//! sqrt and division are not correctly rounded (Vulkan allows 2.5 ulp) and the driver may fuse
//! multiply-adds, so each value may differ by a few ulp: 1e-6 relative, plus an absolute 1e-7
//! for m and p (m = b1 m + c1 g can cancel; p moves by ~lr per step, whose few-ulp error is far
//! below 1e-7) and 1e-12 for v (a sum of squares, no cancellation; the floor only matters for
//! the tiny gradients).
use crate::common::{assert_close, data, gpu};
use neptune_core::adam::Adam;
use neptune_core::params::{BatchNorm, Grads, Params, N_TRAINABLE};
use neptune_gpu::ops::adam::step;

#[test]
fn five_steps_match_the_cpu_adam() {
    let g = gpu();
    // 65 workgroups of 64 and a partial one.
    let n = 65 * 64 + 7;
    let lr = 0.01;
    // The tensor under test is E (n x 1); every other tensor is frozen.
    let mut params = Params::<f32> {
        n_ent: n,
        n_rel: 1,
        d_e: 1,
        d_r: 1,
        e: data(n, 1).into(),
        r: vec![0.0],
        w: vec![0.0],
        bn0: BatchNorm::new(1),
        bn1: BatchNorm::new(1),
        slope: vec![0.25],
    };
    let mut frozen = [true; N_TRAINABLE];
    frozen[0] = false;
    let mut adam = Adam::new(&params);
    let mut grads = Grads::zeros_like(&params);

    let (dp, dm, dv) = (g.upload(&params.e), g.zeros(n), g.zeros(n));
    let dg = g.zeros(n);
    for t in 1..=5u64 {
        // Gradients spanning magnitudes 1 down to 1e-6 (where eps matters), with exact zeros.
        grads.t[0] = data(n, 10 + t)
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                if i % 97 == 0 {
                    0.0
                } else {
                    x * 10f32.powi(-((i % 7) as i32))
                }
            })
            .collect();
        adam.step(&mut params, &grads, lr, &frozen);
        assert_eq!(adam.step, t);

        g.write(&dg, &grads.t[0]);
        let mut rec = g.recorder();
        step(&mut rec, &dp, &dm, &dv, &dg, n, lr, t);
        rec.submit();
        let rd = |x| g.read::<f32>(x, n).unwrap();
        assert_close(&rd(&dm), &adam.m[0], 1e-6, 1e-7, &format!("m step {t}"));
        assert_close(&rd(&dv), &adam.v[0], 1e-6, 1e-12, &format!("v step {t}"));
        assert_close(&rd(&dp), &params.e, 1e-6, 1e-7, &format!("p step {t}"));
    }
    // Guard against a vacuous comparison: the parameters did move (by about lr per step).
    let moved = data(n, 1)
        .iter()
        .zip(&params.e)
        .filter(|(a, b)| (*a - *b).abs() > 0.01)
        .count();
    assert!(moved > n / 2, "only {moved} parameters moved");
}
