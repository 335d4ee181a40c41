//! The device elementwise and row kernels against neptune_core's CPU kernels (dropout,
//! activation) or, for the row moves that the CPU does inline in `net`, against loops
//! transcribed from `net/forward.rs` and `net/backward.rs`. Shapes are not multiples of the
//! 64-thread workgroup, and two cases need `grid`'s 2-D split (more than 65535 workgroups).
//!
//! Tolerances: everything but the activation's slope gradient is compared bit for bit, since
//! each element is one correctly rounded IEEE operation (a copy, a product by scale or 0, a
//! product by slope) or the same sequence of additions as the CPU. The slope gradient is a sum
//! of ~n products reduced in a different order than the CPU's sequential loop: 1e-4 relative.
use crate::common::{data, gpu};
use neptune_core::kernels::elementwise as cpu;
use neptune_core::rng::{Mask, Stream};
use neptune_gpu::ops::elementwise::*;
use neptune_gpu::{DeviceMask, Gpu, Tensor};

/// Threads per workgroup of the 1-D kernels: more than 65535 * WG elements need the 2-D grid.
const WG: usize = 64;

fn read(g: &Gpu, t: &Tensor, n: usize) -> Vec<f32> {
    g.read(t, n).unwrap()
}

/// Bitwise equality (so -0.0 vs 0.0 or a one-ulp difference fails), naming the first mismatch.
fn assert_bits(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g.to_bits(), w.to_bits(), "{what}[{i}]: got {g}, want {w}");
    }
}

/// Deterministic u32s below `bound`.
fn indices(n: usize, bound: usize, seed: u64) -> Vec<u32> {
    data(n, seed)
        .iter()
        .map(|&x| (((x + 1.0) * 0.5 * bound as f32) as usize).min(bound - 1) as u32)
        .collect()
}

#[test]
fn fill_covers_exactly_n_elements_including_a_2d_grid() {
    let g = gpu();
    // 65536 * 64 + 5 elements: 65537 workgroups of 64, split over x and y by `grid`.
    for n in [1usize, 1665, 65536 * WG + 5] {
        let t = g.upload(&vec![-7.0f32; n + 3]);
        let mut rec = g.recorder();
        fill(&mut rec, &t, n, 0.375);
        rec.submit();
        let got = read(&g, &t, n + 3);
        assert!(
            got[..n].iter().all(|&v| v == 0.375),
            "fill {n}: some element not set"
        );
        assert_eq!(&got[n..], &[-7.0; 3], "fill {n}: wrote past n");
    }
}

#[test]
fn gather_and_scatter_rows_move_whole_rows() {
    let g = gpu();
    let (n_src, rows, cols) = (40, 37, 45);
    let src = data(n_src * cols, 1);
    // Gather with repeats, as the batch's heads do.
    let idx = indices(rows, n_src, 2);
    let mut want = vec![0.0f32; rows * cols];
    for (i, &r) in idx.iter().enumerate() {
        want[i * cols..][..cols].copy_from_slice(&src[r as usize * cols..][..cols]);
    }
    let (ds, di, dd) = (g.upload(&src), g.upload(&idx), g.zeros(rows * cols));
    let mut rec = g.recorder();
    gather_rows(&mut rec, &ds, &di, rows, cols, &dd);
    rec.submit();
    assert_bits(&read(&g, &dd, rows * cols), &want, "gather_rows");

    // Scatter into distinct rows (every third row of a 120-row destination, reversed); the
    // other rows keep their old values.
    let n_dst = 120;
    let idx: Vec<u32> = (0..rows as u32).rev().map(|i| i * 3 + 1).collect();
    let block = data(rows * cols, 3);
    let old = data(n_dst * cols, 4);
    let mut want = old.clone();
    for (i, &r) in idx.iter().enumerate() {
        want[r as usize * cols..][..cols].copy_from_slice(&block[i * cols..][..cols]);
    }
    let (ds, di, dd) = (g.upload(&block), g.upload(&idx), g.upload(&old));
    let mut rec = g.recorder();
    scatter_rows(&mut rec, &ds, &di, rows, cols, &dd);
    rec.submit();
    assert_bits(&read(&g, &dd, n_dst * cols), &want, "scatter_rows");
}

#[test]
fn scatter_add_rows_matches_the_cpu_head_accumulation() {
    let g = gpu();
    // b = 150 gradient rows onto heads drawn from 40 entities: many heads repeat.
    let (n_ent, b, cols) = (40, 150, 45);
    let heads = indices(b, n_ent, 5);
    let dx0 = data(b * cols, 6);
    let ge0 = data(n_ent * cols, 7);
    // Transcribed from net/backward.rs (step 1'): each batch row added in batch order.
    let mut want = ge0.clone();
    for (row, &h) in dx0.chunks_exact(cols).zip(&heads) {
        for (gv, &v) in want[h as usize * cols..][..cols].iter_mut().zip(row) {
            *gv += v;
        }
    }
    // The device's grouping: distinct heads in first-seen order, each with its batch rows.
    let mut targets: Vec<u32> = Vec::new();
    for &h in &heads {
        if !targets.contains(&h) {
            targets.push(h);
        }
    }
    assert!(targets.len() < b, "the test needs repeated heads");
    let (mut off, mut members) = (vec![0u32], Vec::new());
    for &t in &targets {
        members.extend((0..b as u32).filter(|&i| heads[i as usize] == t));
        off.push(members.len() as u32);
    }
    let h = targets.len();
    let (ds, dt, doff, dm) = (
        g.upload(&dx0),
        g.upload(&targets),
        g.upload(&off),
        g.upload(&members),
    );
    let dd = g.upload(&ge0);
    let mut rec = g.recorder();
    scatter_add_rows(&mut rec, &ds, &dt, &doff, &dm, h, cols, &dd);
    rec.submit();
    assert_bits(&read(&g, &dd, n_ent * cols), &want, "scatter_add_rows");
}

/// CPU and device dropout (copy and in place) of a `rows x cols` matrix; returns the device's
/// copy result.
fn check_dropout(g: &Gpu, rows: usize, cols: usize, p: f64, step: u64) -> Vec<f32> {
    let mask = Mask::new(42, step, Stream::Hidden2, p);
    let scale = (1.0 / (1.0 - p)) as f32;
    let mut dm = DeviceMask::new(g, rows);
    dm.set(g, &mask, p, rows);
    let x = data(rows * cols, step + 10);
    let what = format!("{rows}x{cols} p={p}");

    let mut want = vec![0.0f32; rows * cols];
    cpu::dropout_copy(&x, &mut want, cols, &mask, scale);
    let (dx, dd) = (g.upload(&x), g.zeros(rows * cols));
    let mut rec = g.recorder();
    dropout_copy(&mut rec, &dx, &dd, rows, cols, &dm);
    rec.submit();
    let got = read(g, &dd, rows * cols);
    assert_bits(&got, &want, &format!("dropout_copy {what}"));

    let mut want_in = x.clone();
    cpu::dropout_inplace(&mut want_in, cols, &mask, scale);
    let mut rec = g.recorder();
    dropout_inplace(&mut rec, &dx, rows, cols, &dm);
    rec.submit();
    assert_bits(
        &read(g, &dx, rows * cols),
        &want_in,
        &format!("dropout_inplace {what}"),
    );
    got
}

#[test]
fn dropout_is_bit_identical_to_the_cpu() {
    let g = gpu();
    let got = check_dropout(&g, 37, 45, 0.3, 1);
    // The mask really drops about 30% (data has no exact zeros): guards against a test that
    // would pass with both sides keeping everything.
    let dropped = got.iter().filter(|&&v| v == 0.0).count() as f64 / got.len() as f64;
    assert!((dropped - 0.3).abs() < 0.05, "dropped {dropped}");
    // p = 0: the CPU's identity mask multiplies by scale 1; the device's zero threshold keeps all.
    let got = check_dropout(&g, 37, 45, 0.0, 2);
    assert!(got.iter().all(|&v| v != 0.0));
    // 65537 x 64 elements: 65537 workgroups, the 2-D grid (the row index goes past 65535 too).
    check_dropout(&g, 65537, 64, 0.3, 3);
}

#[test]
fn activation_matches_the_cpu() {
    let g = gpu();
    // 1665 = 37 x 45 elements (26 workgroups, last partial); 100_003 elements make each of the
    // reduction's 256 threads sum many strided terms.
    for (n, slope) in [(1665usize, 0.25f32), (100_003, 0.01), (1, 0.25)] {
        let z = data(n, n as u64);
        let g0 = data(n, n as u64 + 1);
        let what = format!("n={n} slope={slope}");

        let mut want = vec![0.0f32; n];
        cpu::act_forward(&z, slope, &mut want);
        let (dz, ds, dout) = (g.upload(&z), g.upload(&[slope]), g.zeros(n));
        let mut rec = g.recorder();
        act_forward(&mut rec, &dz, &ds, &dout, n);
        rec.submit();
        assert_bits(&read(&g, &dout, n), &want, &format!("act_forward {what}"));

        let mut want_g = g0.clone();
        let want_ds = cpu::act_backward(&z, slope, &mut want_g);
        let (dg, dds) = (g.upload(&g0), g.upload(&[123.0f32]));
        let mut rec = g.recorder();
        act_backward(&mut rec, &dz, &ds, &dg, n, &dds);
        rec.submit();
        assert_bits(
            &read(&g, &dg, n),
            &want_g,
            &format!("act_backward g {what}"),
        );
        let got_ds = read(&g, &dds, 1)[0];
        // Reduction order differs from the CPU's: 1e-4 relative, plus 1e-6 of the sum of the
        // terms' magnitudes in case of cancellation.
        let mag: f32 = z
            .iter()
            .zip(&g0)
            .filter(|(&v, _)| v <= 0.0)
            .map(|(v, gv)| (v * gv).abs())
            .sum();
        assert!(
            (got_ds - want_ds).abs() <= 1e-4 * want_ds.abs() + 1e-6 * mag,
            "act_backward dslope {what}: got {got_ds}, want {want_ds}"
        );
    }
}
