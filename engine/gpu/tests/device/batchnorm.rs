//! The device BatchNorm1d (training forward, running-statistics update, backward) against
//! neptune_core's CPU kernels, on shapes that are not multiples of the 64-column workgroup.
//!
//! Tolerances: 1e-5 relative plus a small absolute term. The device does the CPU's operations
//! in the CPU's order, but WGSL's division and square root are not correctly rounded (Vulkan
//! allows 2.5 ulp) and the driver may fuse a multiply-add into an fma, so results differ from
//! the CPU by a few ulp of the intermediate values: absolute 1e-5 covers O(1) outputs whose
//! inputs cancel (x - mean, dout - mean(dout)), and column sums of b terms get 1e-6 * b.
use crate::common::{assert_close, data, gpu};
use neptune_core::kernels::batchnorm as cpu;
use neptune_core::params::BatchNorm;
use neptune_gpu::ops::batchnorm::{backward, forward_train, update_running};

/// A batch with a different offset and spread per column, so means are not ~0 and variances
/// not ~1/3.
fn batch(b: usize, d: usize, seed: u64) -> Vec<f32> {
    let off = data(d, seed + 100);
    let spread = data(d, seed + 200);
    let mut x = data(b * d, seed);
    for row in x.chunks_exact_mut(d) {
        for j in 0..d {
            row[j] = row[j] * (1.5 + spread[j]) + 3.0 * off[j];
        }
    }
    x
}

fn bn(d: usize, seed: u64) -> BatchNorm<f32> {
    let mut bn = BatchNorm::<f32>::new(d);
    bn.gamma = data(d, seed).iter().map(|v| 1.0 + 0.5 * v).collect();
    bn.beta = data(d, seed + 1);
    bn.running_mean = data(d, seed + 2);
    bn.running_var = data(d, seed + 3).iter().map(|v| 1.0 + 0.5 * v).collect();
    bn
}

#[test]
fn forward_and_running_update_match_the_cpu() {
    let g = gpu();
    for &(b, d) in &[(37, 45), (128, 200), (2, 1)] {
        let what = format!("b={b} d={d}");
        let mut p = bn(d, 1);
        let x = batch(b, d, 2);
        let (mut xhat, mut inv, mut out) = (vec![0.0; b * d], vec![0.0; d], vec![0.0; b * d]);
        let (mut mean, mut var) = (vec![0.0; d], vec![0.0; d]);
        cpu::forward_train(
            &p, &x, b, d, &mut xhat, &mut inv, &mut out, &mut mean, &mut var,
        );

        let (dgam, dbet, dx) = (g.upload(&p.gamma), g.upload(&p.beta), g.upload(&x));
        let (dxhat, dinv, dout) = (g.zeros(b * d), g.zeros(d), g.zeros(b * d));
        let (dmean, dvar) = (g.zeros(d), g.zeros(d));
        let (drm, drv) = (g.upload(&p.running_mean), g.upload(&p.running_var));
        let mut rec = g.recorder();
        forward_train(
            &mut rec, &dgam, &dbet, &dx, b, d, &dxhat, &dinv, &dout, &dmean, &dvar,
        );
        update_running(&mut rec, &drm, &drv, &dmean, &dvar, b, d);
        rec.submit();
        let rd = |t, n| g.read::<f32>(t, n).unwrap();
        assert_close(&rd(&dmean, d), &mean, 1e-5, 1e-6, &format!("mean {what}"));
        assert_close(&rd(&dvar, d), &var, 1e-5, 1e-6, &format!("var {what}"));
        assert_close(&rd(&dinv, d), &inv, 1e-5, 1e-6, &format!("inv {what}"));
        assert_close(
            &rd(&dxhat, b * d),
            &xhat,
            1e-5,
            1e-5,
            &format!("xhat {what}"),
        );
        assert_close(&rd(&dout, b * d), &out, 1e-5, 1e-5, &format!("out {what}"));

        cpu::update_running(&mut p, &mean, &var, b);
        assert_close(
            &rd(&drm, d),
            &p.running_mean,
            1e-5,
            1e-6,
            &format!("running_mean {what}"),
        );
        assert_close(
            &rd(&drv, d),
            &p.running_var,
            1e-5,
            1e-6,
            &format!("running_var {what}"),
        );
    }
}

#[test]
fn running_update_of_a_single_example_keeps_the_biased_variance() {
    // b == 1 has no unbiased variance: factor 1 (with b / (b - 1) this would be inf).
    let g = gpu();
    let d = 45;
    let mut p = bn(d, 3);
    let (mean, var) = (
        data(d, 4),
        data(d, 5).iter().map(|v| v.abs()).collect::<Vec<f32>>(),
    );
    let (drm, drv) = (g.upload(&p.running_mean), g.upload(&p.running_var));
    let (dmean, dvar) = (g.upload(&mean), g.upload(&var));
    let mut rec = g.recorder();
    update_running(&mut rec, &drm, &drv, &dmean, &dvar, 1, d);
    rec.submit();
    cpu::update_running(&mut p, &mean, &var, 1);
    let rd = |t, n| g.read::<f32>(t, n).unwrap();
    assert_close(
        &rd(&drm, d),
        &p.running_mean,
        1e-5,
        1e-6,
        "running_mean b=1",
    );
    assert_close(&rd(&drv, d), &p.running_var, 1e-5, 1e-6, "running_var b=1");
}

#[test]
fn backward_matches_the_cpu() {
    let g = gpu();
    for &(b, d) in &[(37, 45), (128, 200), (2, 1)] {
        let what = format!("b={b} d={d}");
        let p = bn(d, 6);
        let x = batch(b, d, 7);
        let (mut xhat, mut inv, mut out) = (vec![0.0; b * d], vec![0.0; d], vec![0.0; b * d]);
        let (mut mean, mut var) = (vec![0.0; d], vec![0.0; d]);
        cpu::forward_train(
            &p, &x, b, d, &mut xhat, &mut inv, &mut out, &mut mean, &mut var,
        );
        let dout = data(b * d, 8);
        let (mut dx, mut dgamma, mut dbeta) = (vec![0.0; b * d], vec![0.0; d], vec![0.0; d]);
        cpu::backward(
            &p.gamma,
            &xhat,
            &inv,
            &dout,
            b,
            d,
            &mut dx,
            &mut dgamma,
            &mut dbeta,
        );

        // The device backward gets the CPU's saved statistics, so only backward is compared.
        let (dgam, dxh, dinv, ddo) = (
            g.upload(&p.gamma),
            g.upload(&xhat),
            g.upload(&inv),
            g.upload(&dout),
        );
        let (ddx, ddg, ddb) = (g.zeros(b * d), g.zeros(d), g.zeros(d));
        let mut rec = g.recorder();
        backward(&mut rec, &dgam, &dxh, &dinv, &ddo, b, d, &ddx, &ddg, &ddb);
        rec.submit();
        let rd = |t, n| g.read::<f32>(t, n).unwrap();
        let sum_atol = 1e-6 * b as f32;
        assert_close(
            &rd(&ddg, d),
            &dgamma,
            1e-5,
            sum_atol,
            &format!("dgamma {what}"),
        );
        assert_close(
            &rd(&ddb, d),
            &dbeta,
            1e-5,
            sum_atol,
            &format!("dbeta {what}"),
        );
        assert_close(&rd(&ddx, b * d), &dx, 1e-5, 1e-5, &format!("dx {what}"));
    }
}
