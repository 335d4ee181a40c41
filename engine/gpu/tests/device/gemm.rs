//! The device product against neptune_core's CPU product, on every transpose combination and
//! on shapes that are not multiples of the tile.
use crate::common::{assert_close, data, gpu};
use neptune_core::linalg::{matmul, Op};
use neptune_gpu::ops::gemm::{gemm, Operand};

#[test]
fn matches_the_cpu_product_for_every_transpose() {
    let g = gpu();
    for &(m, n, k) in &[(1, 1, 1), (70, 130, 33), (128, 65, 200), (5, 300, 17)] {
        for ta in [false, true] {
            for tb in [false, true] {
                let a = data(m * k, 1);
                let b = data(k * n, 2);
                let c0 = data(m * n, 3);
                let opa = if ta { Op::t(&a, k, m) } else { Op::n(&a, m, k) };
                let opb = if tb { Op::t(&b, n, k) } else { Op::n(&b, k, n) };
                for acc in [false, true] {
                    let mut want = c0.clone();
                    matmul(&mut want, opa, opb, acc, false);
                    let (da, db, dc) = (g.upload(&a), g.upload(&b), g.upload(&c0));
                    let mut rec = g.recorder();
                    let oa = Operand {
                        t: &da,
                        transposed: ta,
                    };
                    let ob = Operand {
                        t: &db,
                        transposed: tb,
                    };
                    gemm(&mut rec, &dc, oa, ob, m, n, k, acc);
                    rec.submit();
                    let got: Vec<f32> = g.read(&dc, m * n).unwrap();
                    let what = format!("{m}x{n}x{k} ta={ta} tb={tb} acc={acc}");
                    assert_close(&got, &want, 1e-5, 2e-6 * k as f32, &what);
                }
            }
        }
    }
}
