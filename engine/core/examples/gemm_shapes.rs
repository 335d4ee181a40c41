//! Times the GEMM shapes of one FB15k-237 training batch on 1 and 2 threads.
//! `cargo run --release --example gemm_shapes [wn18rr]` (WN18RR's sizes: d_e 500, d_r 30).

use neptune_core::linalg::{matmul, Op};
use std::time::Instant;

fn main() {
    let wn18rr = std::env::args().any(|a| a == "wn18rr");
    let (b, n, d, dr, u) = if wn18rr {
        (128usize, 40943usize, 500usize, 30usize, 16usize)
    } else {
        (128, 14541, 200, 150, 74)
    };
    let v = |len: usize| {
        (0..len)
            .map(|i| ((i * 7919) % 101) as f32 / 101.0 - 0.5)
            .collect::<Vec<f32>>()
    };
    let (x2, e, dl, ru, w, da) = (
        v(b * d),
        v(n * d),
        v(b * n),
        v(u * dr),
        v(dr * d * d),
        v(u * d * d),
    );
    let mut out = vec![0f32; (n * d).max(dr * d * d).max(b * n)];
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut run = |name: &str, flops: f64, f: &mut dyn FnMut(&mut [f32])| {
                f(&mut out);
                let t = Instant::now();
                let reps = 5;
                for _ in 0..reps {
                    f(&mut out);
                }
                let s = t.elapsed().as_secs_f64() / reps as f64;
                println!(
                    "{threads}t {name:28} {:7.2} ms {:6.1} GFLOP/s",
                    s * 1e3,
                    flops / s / 1e9
                );
            };
            let f = |m: usize, nn: usize, k: usize| 2.0 * (m * nn * k) as f64;
            run("A = R_U W   (U x D²)", f(u, d * d, dr), &mut |o| {
                matmul(
                    &mut o[..u * d * d],
                    Op::n(&ru, u, dr),
                    Op::n(&w, dr, d * d),
                    false,
                    true,
                )
            });
            run("L = x2 E'^T (B x N)", f(b, n, d), &mut |o| {
                matmul(
                    &mut o[..b * n],
                    Op::n(&x2, b, d),
                    Op::t(&e, n, d),
                    false,
                    true,
                )
            });
            run("dx2 = dL E' (B x D)", f(b, d, n), &mut |o| {
                matmul(
                    &mut o[..b * d],
                    Op::n(&dl, b, n),
                    Op::n(&e, n, d),
                    false,
                    true,
                )
            });
            run("dE = dL^T x2 (N x D)", f(n, d, b), &mut |o| {
                matmul(
                    &mut o[..n * d],
                    Op::t(&dl, b, n),
                    Op::n(&x2, b, d),
                    false,
                    true,
                )
            });
            run("dR = dA W^T (U x Dr)", f(u, dr, d * d), &mut |o| {
                matmul(
                    &mut o[..u * dr],
                    Op::n(&da, u, d * d),
                    Op::t(&w, dr, d * d),
                    false,
                    true,
                )
            });
            run("dW = R_U^T dA (Dr x D²)", f(dr, d * d, u), &mut |o| {
                matmul(
                    &mut o[..dr * d * d],
                    Op::t(&ru, u, dr),
                    Op::n(&da, u, d * d),
                    false,
                    true,
                )
            });
        });
    }
}
