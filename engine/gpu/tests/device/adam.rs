//! The device Adam step against neptune_core's CPU Adam (the real `Adam::step`, on a model
//! whose only unfrozen tensor is the one under test) over five steps, so the bias corrections
//! of steps 1..5 and the moments carried between steps are all checked. Then a sampled step's
//! row-wise Adam and catch-up against the CPU's `update_rows` and `catch_up_rows`.
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
use neptune_gpu::ops::adam::{catch_up_constants, catch_up_rows, step, step_rows};

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

/// Lazy Adam on a few rows of a 3-column tensor, each caught up first for the steps it sat
/// out (0 to 40), over six steps of different row sets, against the CPU's `catch_up_rows` then
/// `update_rows`; the rows outside a step's set must not move.
#[test]
fn row_updates_and_catch_up_match_the_cpu() {
    let g = gpu();
    let (n, cols, lr) = (200, 3, 0.01);
    let e0 = data(n * cols, 21);
    let mut params = Params::<f32> {
        n_ent: n,
        n_rel: 1,
        d_e: cols,
        d_r: 1,
        e: e0.clone().into(),
        r: vec![0.0],
        w: vec![0.0; cols * cols],
        bn0: BatchNorm::new(cols),
        bn1: BatchNorm::new(cols),
        slope: vec![0.25],
    };
    let mut adam = Adam::new(&params);
    // Every row has moments from an earlier dense history.
    adam.m[0] = data(n * cols, 22).iter().map(|v| v * 1e-2).collect();
    adam.v[0] = data(n * cols, 23).iter().map(|v| v * v * 1e-4).collect();
    adam.step = 7;
    let mut updated_at = vec![7u64; n];
    let (dp, dm, dv) = (
        g.upload(&params.e),
        g.upload(&adam.m[0]),
        g.upload(&adam.v[0]),
    );
    // Every tensor frozen: the dense step only counts the step, as in a sampled run.
    let (frozen, no_grads) = ([true; N_TRAINABLE], Grads::zeros_like(&params));
    for k in 0..6u64 {
        // Rows k, k + 7, k + 14, ... and every 40th row: some sat out many steps.
        let rows: Vec<u32> = (0..n as u32)
            .filter(|r| (r % 7) as u64 == k || r % 40 == 0)
            .collect();
        let step = adam.step;
        let skipped: Vec<u64> = rows
            .iter()
            .map(|&r| step - updated_at[r as usize])
            .collect();
        let grads: Vec<f32> = data(rows.len() * cols, 30 + k);
        let stale: Vec<(u32, u64)> = rows
            .iter()
            .zip(&skipped)
            .filter(|(_, &s)| s > 0)
            .map(|(&r, &s)| (r, s))
            .collect();
        let (stale_ids, stale_skips): (Vec<u32>, Vec<u64>) = stale.into_iter().unzip();
        assert!(
            k == 0 || stale_ids.len() > rows.len() / 2,
            "step {k}: rows catch up"
        );

        adam.catch_up_rows(0, &mut params.e, cols, &rows, &skipped, lr);
        adam.step(&mut params, &no_grads, lr, &frozen);
        adam.update_rows(0, &mut params.e, cols, &rows, &grads, lr);

        let k_dev = g.upload(&catch_up_constants(&stale_skips, lr, step));
        let (ids, dg) = (g.upload(&rows), g.upload(&grads));
        let mut rec = g.recorder();
        let stale_dev = g.upload(&stale_ids);
        catch_up_rows(
            &mut rec,
            [&dp, &dm, &dv],
            &k_dev,
            &stale_dev,
            stale_ids.len(),
            cols,
            step,
        );
        step_rows(
            &mut rec,
            [&dp, &dm, &dv],
            &dg,
            &ids,
            rows.len(),
            cols,
            lr,
            step + 1,
        );
        rec.submit();
        for &r in &rows {
            updated_at[r as usize] = adam.step;
        }
        let rd = |x| g.read::<f32>(x, n * cols).unwrap();
        assert_close(&rd(&dm), &adam.m[0], 1e-6, 1e-7, &format!("m step {k}"));
        assert_close(&rd(&dv), &adam.v[0], 1e-6, 1e-12, &format!("v step {k}"));
        assert_close(&rd(&dp), &params.e, 1e-6, 1e-7, &format!("p step {k}"));
    }
    let moved = e0.iter().zip(&params.e).filter(|(a, b)| a != b).count();
    assert!(moved > n * cols / 2, "only {moved} parameters moved");
}
