//! The device fused BCE against neptune_core's CPU `bce_fused`: gradients, per-row losses and
//! the mean loss, on logits over [-30, 30] plus saturating values (±100, ±87.5, 0), rows
//! with 0 to 5 tails (first and last columns included), row lengths that are not multiples of
//! the workgroup, rows of a million, and more rows than one dispatch dimension holds (65535).
//! This also tests the WGSL port of the CPU's f32 `exp_neg` / `ln_1p_unit` polynomials. Both
//! losses over a sampled step's columns against the CPU's `sampled_bce_fused` and
//! `sampled_softmax_fused` (themselves tested against their formulas in neptune_core).
use crate::common::data;
use neptune_core::kernels::loss;
use neptune_core::kernels::sampled_loss::{sampled_bce_fused, sampled_softmax_fused};
use neptune_core::real::fast_f32;
use neptune_gpu::ops::loss::{
    bce_fused, every_entity, mean_loss, softmax_fused, softmax_mean_loss, SampledColumns,
};

/// Seeded logits over [-30, 30) with a few saturating values and an exact zero.
fn logits(len: usize, seed: u64) -> Vec<f32> {
    let mut l: Vec<f32> = data(len, seed).iter().map(|v| v * 30.0).collect();
    for (k, v) in [100.0, -100.0, 87.5, -87.5, 0.0, 30.0, -30.0]
        .into_iter()
        .enumerate()
    {
        let at = (k * 7919 + 13) % len;
        l[at] = v;
    }
    l
}

/// Row `i`'s tails: `i % 6` distinct columns, the first and last among them in some rows.
fn tails(b: usize, n: usize, seed: u64) -> (Vec<u32>, Vec<u32>) {
    let mut off = vec![0u32];
    let mut all = Vec::new();
    let r = data(b * 5, seed);
    for i in 0..b {
        let mut row: Vec<u32> = Vec::new();
        for k in 0..i % 6 {
            let mut t = match (i + k) % 7 {
                0 => 0,
                1 => n as u32 - 1,
                _ => (((r[i * 5 + k] + 1.0) / 2.0 * n as f32) as u32).min(n as u32 - 1),
            };
            while row.contains(&t) {
                t = (t + 1) % n as u32;
            }
            row.push(t);
            if row.len() == n {
                break;
            }
        }
        all.extend_from_slice(&row);
        off.push(all.len() as u32);
    }
    (off, all)
}

fn run(b: usize, n: usize, eps: f64, seed: u64) {
    let g = crate::common::gpu();
    let l0 = logits(b * n, seed);
    let (off, ts) = tails(b, n, seed + 1);
    let row_tails = |i: usize| &ts[off[i] as usize..off[i + 1] as usize];

    // CPU reference.
    let mut want = l0.clone();
    let mut want_rows = vec![0f64; b];
    let want_mean = loss::bce_fused(&mut want, b, n, eps, row_tails, &mut want_rows);

    // Device.
    let (dl, doff, dts, drows) = (g.upload(&l0), g.upload(&off), g.upload(&ts), g.zeros(b));
    let mut rec = g.recorder();
    bce_fused(&mut rec, &dl, b, every_entity(n), eps, &doff, &dts, &drows);
    rec.submit();
    let got: Vec<f32> = g.read(&dl, b * n).unwrap();
    let got_rows: Vec<f32> = g.read(&drows, b).unwrap();
    let what = format!("B={b} N={n}");

    // Gradient: (sigmoid(l) - 1/N - [tail] (1 - eps)) / (B N). The sigmoid differs from the
    // CPU's by a few ulps (fused multiply-adds the device compiler may form in the
    // polynomials; WGSL division is within 2.5 ulps) and the subtractions and the product by
    // 1/(B N) add one rounding each, so the error is bounded relative to the magnitudes before
    // cancellation: 1e-6 (about 17 ulps) of (sigmoid + 1/N + [tail] (1 - eps)) / (B N)
    // (observed: under 2.5e-7). A wrong or missing tail step, or a wrong sigmoid, misses this
    // by orders of magnitude.
    let (base, scale) = (1.0 / n as f64, 1.0 / (b as f64 * n as f64));
    let mut is_tail = vec![false; b * n];
    for i in 0..b {
        for &t in row_tails(i) {
            is_tail[i * n + t as usize] = true;
        }
    }
    let mut worst = 0f64;
    for (k, (&gv, &wv)) in got.iter().zip(&want).enumerate() {
        let x = l0[k] as f64;
        let sg = 1.0 / (1.0 + (-x).exp());
        let pos = if is_tail[k] { 1.0 - eps } else { 0.0 };
        let unit = (sg + base + pos) * scale;
        let err = (gv as f64 - wv as f64).abs() / unit;
        worst = worst.max(err);
        assert!(
            err <= 1e-6,
            "{what} gradient[{k}] (logit {x}): got {gv:e}, want {wv:e}, error {err:e} units"
        );
    }

    // Row losses. Every dense term softplus(l) - l/N is positive; the positive part may cancel
    // the dense sum (targets above 1 with label smoothing), so errors are measured against
    // `mag` = dense sum + (1 - eps) * sum |l_t|. The reference is the exact (f64) sum of the
    // CPU's own f32 terms (its `fast_f32` polynomials, here on the host): the device, whose
    // threads sum ~N/256 terms each and then a tree, must be within 2e-6 of it (observed
    // <1e-7). The CPU itself sums N/8 terms per f32 lane, which drops the small terms (those of
    // negative logits) once a lane's sum is large: at N = 70001 its row sums are ~1.4e-5 low.
    // So the device is compared with the CPU's row sums within the CPU's own worst-case
    // summation error, gamma_{N/8 + 8} * mag (~5e-4 at N = 70001, 7e-6 at N = 1000), plus the
    // device's 2e-6.
    let u = f32::EPSILON as f64 / 2.0;
    let cpu_bound = (n / 8 + 8) as f64 * u + 2e-6;
    let (mut got_total, mut exact_total, mut mag_total) = (0.0, 0.0, 0.0);
    let mut worst_row = 0f64;
    for i in 0..b {
        let dense: f64 = l0[i * n..][..n]
            .iter()
            .map(|&x| {
                let e = fast_f32::exp_neg(-x.abs());
                let sp = x.max(0.0) + fast_f32::ln_1p_unit(e);
                (sp - base as f32 * x) as f64
            })
            .sum();
        let tl = row_tails(i).iter().map(|&t| l0[i * n + t as usize] as f64);
        let exact = dense - (1.0 - eps) * tl.clone().sum::<f64>();
        let mag = dense + (1.0 - eps) * tl.map(f64::abs).sum::<f64>();
        let (gr, wr) = (got_rows[i] as f64, want_rows[i]);
        (got_total, exact_total, mag_total) =
            (got_total + gr, exact_total + exact, mag_total + mag);
        worst_row = worst_row.max((gr - exact).abs() / mag);
        assert!(
            (gr - exact).abs() <= 2e-6 * mag,
            "{what} row_loss[{i}]: got {gr}, exact sum of the CPU's terms {exact}"
        );
        assert!(
            (gr - wr).abs() <= cpu_bound * mag,
            "{what} row_loss[{i}]: got {gr}, CPU {wr}"
        );
    }
    // The mean: the f64 sum of the rows over B x N, against the exact one and the CPU's.
    let bn = b as f64 * n as f64;
    let mean = mean_loss(&got_rows, b, n);
    assert!(
        (mean - got_total / bn).abs() <= 1e-12 * mag_total / bn,
        "{what} mean_loss: got {mean}, sum of rows / BN {}",
        got_total / bn
    );
    assert!(
        (mean - exact_total / bn).abs() <= 2e-6 * mag_total / bn,
        "{what} mean loss: got {mean}, exact {}",
        exact_total / bn
    );
    assert!(
        (mean - want_mean).abs() <= cpu_bound * mag_total / bn,
        "{what} mean loss: got {mean}, CPU {want_mean}"
    );
    eprintln!(
        "{what}: worst gradient error {worst:.3e} units; worst row loss error {worst_row:.3e} \
         relative; mean loss {mean} (exact {}, CPU {want_mean})",
        exact_total / bn
    );
}

#[test]
fn matches_the_cpu_loss_on_short_rows() {
    run(37, 1000, 0.1, 1);
}

#[test]
fn matches_the_cpu_loss_on_long_rows() {
    run(4, 70001, 0.1, 2);
}

#[test]
fn matches_the_cpu_loss_on_more_rows_than_one_grid_dimension() {
    // 65537 rows need the 2-D split of the workgroups; eps = 0 (no smoothing).
    run(65537, 3, 0.0, 3);
}

#[test]
fn matches_the_cpu_loss_on_rows_of_a_million() {
    run(2, 1_000_000, 0.1, 4);
}

/// The device softmax cross-entropy against the CPU's `softmax_fused` (itself tested against
/// the formula in f64): the same logits (±100, ±87.5 planted) and tails, with row 1's first
/// tail listed twice. The device computes exp(l - max) with the same f32 polynomial; its sums
/// are blocked per thread and then a tree, the CPU's blocked per 16 lanes: both within a few
/// ulps per element of the exact sum. Gradient errors are measured in units of
/// `(softmax + y) / B` (the magnitudes before the subtraction), row losses relative to
/// `mass * |logsumexp| + sum_j y_j |l_j|`.
fn run_softmax(b: usize, n: usize, eps: f64, seed: u64) {
    let g = crate::common::gpu();
    let l0 = logits(b * n, seed);
    let (mut off, mut ts) = tails(b, n, seed + 1);
    if b > 1 && off[2] > off[1] {
        // Row 1 lists its first tail twice.
        let first = ts[off[1] as usize];
        ts.insert(off[2] as usize, first);
        for o in off.iter_mut().skip(2) {
            *o += 1;
        }
    }
    let row_tails = |i: usize| &ts[off[i] as usize..off[i + 1] as usize];
    let mut want = l0.clone();
    let mut want_rows = vec![0f64; b];
    let want_mean = loss::softmax_fused(&mut want, b, n, eps, row_tails, &mut want_rows);

    let (dl, doff, dts, drows) = (g.upload(&l0), g.upload(&off), g.upload(&ts), g.zeros(b));
    let mut rec = g.recorder();
    softmax_fused(&mut rec, &dl, b, every_entity(n), eps, &doff, &dts, &drows);
    rec.submit();
    let got: Vec<f32> = g.read(&dl, b * n).unwrap();
    let got_rows: Vec<f32> = g.read(&drows, b).unwrap();
    let what = format!("softmax B={b} N={n} eps {eps}");

    let mut worst = 0f64;
    for i in 0..b {
        let row = &l0[i * n..][..n];
        let m = row.iter().fold(f32::NEG_INFINITY, |a, &v| a.max(v)) as f64;
        let z: f64 = row.iter().map(|&v| (v as f64 - m).exp()).sum();
        let t = row_tails(i);
        let (mass, w) = if t.is_empty() {
            (eps, 0.0)
        } else {
            (1.0, (1.0 - eps) / t.len() as f64)
        };
        let mut y = vec![eps / n as f64; n];
        for &tt in t {
            y[tt as usize] += w;
        }
        let mut mag = mass * (m + z.ln()).abs();
        for j in 0..n {
            let k = i * n + j;
            let p = (row[j] as f64 - m).exp() / z;
            let unit = (mass * p + y[j]) / b as f64 + 1e-30;
            let err = (got[k] as f64 - want[k] as f64).abs() / unit;
            worst = worst.max(err);
            assert!(
                err <= 2e-6,
                "{what} gradient[{k}] (logit {}): got {:e}, CPU {:e}, error {err:e} units",
                row[j],
                got[k],
                want[k]
            );
            mag += y[j] * (row[j] as f64).abs();
        }
        let (gr, wr) = (got_rows[i] as f64, want_rows[i]);
        assert!(
            (gr - wr).abs() <= 2e-6 * mag + 1e-6,
            "{what} row_loss[{i}]: got {gr}, CPU {wr}"
        );
    }
    let mean = softmax_mean_loss(&got_rows, b);
    assert!(
        (mean - want_mean).abs() <= 2e-6 * want_mean.abs().max(1.0) + 1e-6,
        "{what} mean loss: got {mean}, CPU {want_mean}"
    );
    eprintln!("{what}: worst gradient error {worst:.3e} units; mean loss {mean} (CPU {want_mean})");
}

#[test]
fn softmax_matches_the_cpu_loss_on_short_rows() {
    run_softmax(37, 1000, 0.1, 5);
    run_softmax(37, 1000, 0.0, 6);
}

#[test]
fn softmax_matches_the_cpu_loss_on_long_rows() {
    run_softmax(4, 70001, 0.1, 7);
}

#[test]
fn softmax_matches_the_cpu_loss_on_more_rows_than_one_grid_dimension() {
    run_softmax(65537, 3, 0.0, 8);
}

/// A sampled step's columns: `positives` columns holding the rows' tails, then a sample that
/// stands for the other `entities - positives` entities, each column for `weight` of them. The
/// device against the CPU's sampled losses: per element within 1e-5 of the CPU's value plus
/// 1e-6 of the row's largest gradient (a wrong weight or logQ correction is off by factors),
/// row losses and the mean within 1e-5 relative.
fn run_sampled(b: usize, cols: SampledColumns, eps: f64, seed: u64) {
    let g = crate::common::gpu();
    let m = cols.total;
    let l0: Vec<f32> = data(b * m, seed).iter().map(|v| v * 8.0).collect();
    let (off, ts) = tails(b, cols.positives, seed + 1);
    let row_tails = |i: usize| &ts[off[i] as usize..off[i + 1] as usize];
    let (dl, doff, dts, drows) = (g.upload(&l0), g.upload(&off), g.upload(&ts), g.zeros(b));
    for softmax in [false, true] {
        let mut want = l0.clone();
        let mut want_rows = vec![0f64; b];
        let want_mean = if softmax {
            sampled_softmax_fused(&mut want, b, cols, eps, row_tails, &mut want_rows)
        } else {
            sampled_bce_fused(&mut want, b, cols, eps, row_tails, &mut want_rows)
        };
        g.write(&dl, &l0);
        let mut rec = g.recorder();
        let fused = if softmax { softmax_fused } else { bce_fused };
        fused(&mut rec, &dl, b, cols, eps, &doff, &dts, &drows);
        rec.submit();
        let got: Vec<f32> = g.read(&dl, b * m).unwrap();
        let got_rows: Vec<f32> = g.read(&drows, b).unwrap();
        let what = format!("softmax {softmax}, B={b} {cols:?} eps {eps}");
        for i in 0..b {
            let (gr, wr) = (&got[i * m..][..m], &want[i * m..][..m]);
            let big = wr.iter().fold(0f32, |a, v| a.max(v.abs())) as f64;
            for (j, (&gv, &wv)) in gr.iter().zip(wr).enumerate() {
                let err = (gv as f64 - wv as f64).abs();
                assert!(
                    err <= 1e-5 * (wv as f64).abs() + 1e-6 * big,
                    "{what} gradient[{i}, {j}]: got {gv:e}, CPU {wv:e}"
                );
            }
            let (gl, wl) = (got_rows[i] as f64, want_rows[i]);
            assert!(
                (gl - wl).abs() <= 1e-5 * wl.abs().max(1.0),
                "{what} row_loss[{i}]: got {gl}, CPU {wl}"
            );
        }
        let mean = if softmax {
            softmax_mean_loss(&got_rows, b)
        } else {
            mean_loss(&got_rows, b, cols.entities)
        };
        assert!(
            (mean - want_mean).abs() <= 1e-5 * want_mean.abs(),
            "{what} mean loss: got {mean}, CPU {want_mean}"
        );
    }
}

#[test]
fn sampled_columns_match_the_cpu_sampled_losses() {
    let sampled = |total, positives, entities: usize| SampledColumns {
        total,
        positives,
        weight: (entities - positives) as f64 / (total - positives) as f64,
        entities,
    };
    // A batch's 150 tails and 1350 sampled columns standing for 100,000 entities.
    run_sampled(37, sampled(1500, 150, 100_000), 0.1, 11);
    run_sampled(37, sampled(1500, 150, 100_000), 0.0, 12);
    // More columns than a workgroup's blocks, few positives; a sample of every other entity
    // (weight 1).
    run_sampled(5, sampled(9000, 3, 2_000_000), 0.1, 13);
    run_sampled(6, sampled(700, 40, 700), 0.1, 14);
}
