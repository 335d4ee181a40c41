//! Times the loss pass and the per-example core product on one FB15k-237 (or WN18RR) batch's
//! shapes, 2 threads, against their memory floors from the bytes they must move.
//! `cargo run --release --example kernel_passes [wn18rr]`

use neptune_core::kernels::{core_product, loss};
use neptune_core::rng::{Mask, Stream};
use rayon::prelude::*;

#[path = "shared/timing.rs"]
mod timing;
use timing::best_of;

fn main() {
    let wn18rr = std::env::args().any(|a| a == "wn18rr");
    // (batch, entities, d_e, distinct relations in a batch)
    let (b, n, d, u) = if wn18rr {
        (128usize, 40943usize, 500usize, 16usize)
    } else {
        (128, 14541, 200, 74)
    };
    let v = |len: usize, s: usize| {
        (0..len)
            .map(|i| (((i * 7919 + s) % 1009) as f32 / 1009.0 - 0.5) * 8.0)
            .collect::<Vec<f32>>()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| {
        let logits0 = v(b * n, 1);
        let mut logits = logits0.clone();
        let tails: Vec<Vec<u32>> = (0..b).map(|i| vec![(i * 37 % n) as u32]).collect();
        let mut row_loss = vec![0f64; b];
        let s = best_of(10, &mut || {
            logits.copy_from_slice(&logits0);
            loss::bce_fused(&mut logits, b, n, 0.1, |i| &tails[i], &mut row_loss);
        });
        let copy = best_of(10, &mut || logits.copy_from_slice(&logits0));
        println!(
            "loss pass (B x N = {b} x {n}): {:.2} ms (the copy that restores the logits: {:.2} ms, \
             subtracted), {:.2} ns per element",
            (s - copy) * 1e3,
            copy * 1e3,
            (s - copy) * 1e9 / (b * n) as f64
        );

        // Core product: examples spread over u relations as a batch's are (round robin).
        let x = v(b * d, 2);
        let a = v(u * d * d, 3);
        let group: Vec<u32> = (0..b).map(|i| (i % u) as u32).collect();
        let mut off = vec![0usize; u + 1];
        for &g in &group {
            off[g as usize + 1] += 1;
        }
        for k in 0..u {
            off[k + 1] += off[k];
        }
        let mut members = vec![0u32; b];
        let mut cursor = off.clone();
        for (i, &g) in group.iter().enumerate() {
            members[cursor[g as usize]] = i as u32;
            cursor[g as usize] += 1;
        }
        let mut y = vec![0f32; b * d];
        let mut da = vec![0f32; u * d * d];
        let mut dx = vec![0f32; b * d];
        for p in [0.0, 0.3]
            .into_iter()
            .filter(|p| std::env::var("KP_P").map_or(true, |v| v.parse::<f64>().unwrap() == *p))
        {
            let mask = Mask::new(7, 1, Stream::Hidden1, p);
            let scale = 1.0 / (1.0 - p as f32);
            let fwd = best_of(10, &mut || {
                core_product::forward(&x, &a, &members, &off, d, &mask, scale, &mut y)
            });
            let bwd = best_of(10, &mut || {
                core_product::backward(
                    &y, &x, &a, &members, &off, d, &mask, scale, &mut da, &mut dx,
                )
            });
            {
                let cp = best_of(10, &mut || {
                    da.par_chunks_mut(d * d / 4)
                        .zip(a.par_chunks(d * d / 4))
                        .for_each(|(o, i)| o.copy_from_slice(i))
                });
                println!("copy A -> dA: {:.2} ms", cp * 1e3);
            }
            if !mask.identity {
                let rows = b * d;
                let hashing = best_of(10, &mut || {
                    let kept: u64 = (0..rows)
                        .into_par_iter()
                        .with_min_len(64)
                        .map(|row| count_kept(&mask, row as u64, d))
                        .sum();
                    std::hint::black_box(kept);
                });
                println!(
                    "the mask alone (hash and compare {b} x {d} x {d} draws, count the kept): \
                     {:.2} ms",
                    hashing * 1e3
                );
            }
            println!(
                "core product (B {b}, U {u}, d_e {d}, dropout {p}): forward {:.2} ms, backward \
                 {:.2} ms ({:.2} / {:.2} ns per masked element)",
                fwd * 1e3,
                bwd * 1e3,
                fwd * 1e9 / (b * d * d) as f64,
                bwd * 1e9 / (b * d * d) as f64
            );
        }
    });
}

/// Kept draws of one mask row of `d` columns: the hashing and comparing every masked pass pays,
/// without the products (the floor of regenerating the mask).
fn count_kept(mask: &Mask, row: u64, d: usize) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
        unsafe fn avx512(mask: &Mask, row: u64, d: usize) -> u64 {
            count_kept_body(mask, row, d)
        }
        #[target_feature(enable = "avx2,fma")]
        unsafe fn avx2(mask: &Mask, row: u64, d: usize) -> u64 {
            count_kept_body(mask, row, d)
        }
        if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512vl") {
            // SAFETY: the features were just detected.
            return unsafe { avx512(mask, row, d) };
        }
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            // SAFETY: the features were just detected.
            return unsafe { avx2(mask, row, d) };
        }
    }
    count_kept_body(mask, row, d)
}

#[inline(always)]
fn count_kept_body(mask: &Mask, row: u64, d: usize) -> u64 {
    let rk = mask.row_key(row);
    let mut kept = 0u32;
    for block in 0..d.div_ceil(64) as u32 {
        for k in 0..32 {
            let (lo, hi) = mask.keep_pair(rk, block, k);
            kept += lo as u32 + hi as u32;
        }
    }
    kept as u64
}
