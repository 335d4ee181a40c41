//! The device core product (forward, dA, dx) against neptune_core's CPU kernels, with and
//! without the h1 dropout mask, on shapes that are not multiples of the workgroup sizes and
//! relation groups of unequal sizes.
//!
//! Tolerance: both sides sum the same rounded terms `(x * scale or 0) * a` (forward), `(x *
//! scale) * (dy or 0)` (dA) and `(dy or 0) * a` (dx, then times scale), but in different orders
//! (the CPU in SIMD lanes, the device in order or by a tree) and possibly with fused
//! multiply-adds on the device. Each side's error is at most `gamma_k * sum |terms|` with
//! `gamma_k ~ k * 2^-24` for `k` terms (plus one rounding for dx's scale), so the two differ by
//! at most `2 * gamma_{k+2} * sum |terms|` per element, which is what is asserted. A wrong
//! index, mask bit or group moves an element by the order of one term, far above it.
use crate::common::{data, gpu};
use neptune_core::kernels::core_product;
use neptune_core::rng::{Mask, Stream};
use neptune_gpu::ops::core_product::{backward_da, backward_dx, forward};
use neptune_gpu::DeviceMask;

/// `net::group_relations` (crate-private in neptune_core, transcribed): `group[b]` is the slot
/// of example `b`'s relation in order of first appearance; `members[off[u]..off[u + 1]]` are
/// the examples of slot `u` in batch order.
fn group_relations(rels: &[u32]) -> (Vec<u32>, Vec<u32>, Vec<usize>) {
    let mut uniq: Vec<u32> = Vec::new();
    let group: Vec<u32> = rels
        .iter()
        .map(|r| match uniq.iter().position(|u| u == r) {
            Some(u) => u as u32,
            None => {
                uniq.push(*r);
                uniq.len() as u32 - 1
            }
        })
        .collect();
    let mut off = vec![0usize; uniq.len() + 1];
    for &g in &group {
        off[g as usize + 1] += 1;
    }
    for u in 0..uniq.len() {
        off[u + 1] += off[u];
    }
    let mut cursor = off.clone();
    let mut members = vec![0u32; rels.len()];
    for (b, &g) in group.iter().enumerate() {
        members[cursor[g as usize]] = b as u32;
        cursor[g as usize] += 1;
    }
    (group, members, off)
}

/// Asserts `|got - want| <= (k + 2) * 2^-23 * bound` elementwise (`bound`: the sum of the
/// absolute terms, `k`: their count), and that the entries past `want.len()` (sentinels the
/// kernel must not touch) are unchanged.
fn assert_sum_close(
    got: &[f32],
    want: &[f32],
    bound: &[f64],
    k: &[usize],
    sentinel: &[f32],
    what: &str,
) {
    assert_eq!(got.len(), want.len() + sentinel.len(), "{what}: lengths");
    let mut worst = 0f64;
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let tol = (k[i] + 2) as f64 * f32::EPSILON as f64 * bound[i];
        if tol > 0.0 {
            worst = worst.max(((g - w) as f64).abs() / tol);
        }
        assert!(
            ((g - w) as f64).abs() <= tol,
            "{what}[{i}]: got {g}, want {w}, tolerance {tol:e}"
        );
    }
    assert_eq!(
        &got[want.len()..],
        sentinel,
        "{what}: wrote past its output"
    );
    eprintln!("{what}: worst error {worst:.3} of the tolerance");
}

#[test]
fn matches_the_cpu_core_product_and_its_gradients() {
    let g = gpu();
    let (b, d) = (37usize, 45usize);
    // Five relations with unequal group sizes (roughly 40%, 25%, 15%, 12%, 8% of the batch),
    // in a shuffled batch order.
    let rel_ids = [17u32, 3, 42, 8, 5];
    let rels: Vec<u32> = data(b, 9)
        .iter()
        .map(|&v| {
            let q = (v + 1.0) / 2.0;
            let k = [0.4, 0.65, 0.8, 0.92, 2.0]
                .iter()
                .position(|&c| q < c)
                .unwrap();
            rel_ids[k]
        })
        .collect();
    let (group, members, off) = group_relations(&rels);
    let n_u = off.len() - 1;
    let sizes: Vec<usize> = off.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(n_u, 5, "every relation used: {sizes:?}");
    assert!(
        sizes.iter().any(|&s| s != sizes[0]),
        "unequal groups: {sizes:?}"
    );
    let off32: Vec<u32> = off.iter().map(|&o| o as u32).collect();

    let x = data(b * d, 1);
    let a = data(n_u * d * d, 2);
    let dy = data(b * d, 3);
    // Outputs start as garbage (the kernels must overwrite them) followed by sentinels.
    let sentinel = [7.5f32; 5];
    let garbage = |len: usize, seed: u64| {
        let mut v = data(len, seed);
        v.extend_from_slice(&sentinel);
        v
    };

    let (dx_, da_, dgroup, dmembers, doff) = (
        g.upload(&x),
        g.upload(&a),
        g.upload(&group),
        g.upload(&members),
        g.upload(&off32),
    );
    let ddy = g.upload(&dy);
    let mut dmask = DeviceMask::new(&g, b * d);
    for p in [0.3, 0.0] {
        let mask = Mask::new(11, 4, Stream::Hidden1, p);
        dmask.set(&g, &mask, p, b * d);
        let scale = dmask.scale;
        assert_eq!(scale, (1.0 / (1.0 - p)) as f32, "the CPU's keep scale");
        // m(b, i, j): the dropped count shows the masked case is exercised.
        let m =
            |bi: usize, i: usize, j: usize| mask.keep(mask.row_key((bi * d + i) as u64), j as u32);
        let dropped = (0..b * d * d)
            .filter(|&e| !m(e / (d * d), e / d % d, e % d))
            .count();
        if p > 0.0 {
            assert!(dropped > b * d * d / 5, "p = {p}: {dropped} dropped");
        } else {
            assert_eq!(dropped, 0);
        }

        // CPU references.
        let mut y_want = vec![0f32; b * d];
        core_product::forward(&x, &a, &members, &off, d, &mask, scale, &mut y_want);
        let mut da_want = vec![0f32; n_u * d * d];
        let mut dx_want = vec![0f32; b * d];
        core_product::backward(
            &dy,
            &x,
            &a,
            &members,
            &off,
            d,
            &mask,
            scale,
            &mut da_want,
            &mut dx_want,
        );
        assert!(y_want.iter().all(|v| v.is_finite()) && y_want.iter().any(|&v| v != 0.0));

        // Error bounds: sum of |terms| per output element (f64), and the number of terms.
        let xs = |bi: usize, i: usize| x[bi * d + i] * scale;
        let mut y_bound = vec![0f64; b * d];
        let mut dx_bound = vec![0f64; b * d];
        for bi in 0..b {
            let u = group[bi] as usize;
            for i in 0..d {
                for j in 0..d {
                    if m(bi, i, j) {
                        let av = a[(u * d + i) * d + j] as f64;
                        y_bound[bi * d + j] += (xs(bi, i) as f64 * av).abs();
                        dx_bound[bi * d + i] += (dy[bi * d + j] as f64 * av).abs() * scale as f64;
                    }
                }
            }
        }
        let mut da_bound = vec![0f64; n_u * d * d];
        let mut da_k = vec![0usize; n_u * d * d];
        for u in 0..n_u {
            for &bi in &members[off[u]..off[u + 1]] {
                let bi = bi as usize;
                for i in 0..d {
                    for j in 0..d {
                        let e = (u * d + i) * d + j;
                        da_k[e] += 1;
                        if m(bi, i, j) {
                            da_bound[e] += (xs(bi, i) as f64 * dy[bi * d + j] as f64).abs();
                        }
                    }
                }
            }
        }

        // Device.
        let y = g.upload(&garbage(b * d, 4));
        let da = g.upload(&garbage(n_u * d * d, 5));
        let dxo = g.upload(&garbage(b * d, 6));
        let mut rec = g.recorder();
        forward(&mut rec, &dx_, &da_, &dgroup, b, d, &dmask, &y);
        backward_da(&mut rec, &ddy, &dx_, &dmembers, &doff, n_u, d, &dmask, &da);
        backward_dx(&mut rec, &ddy, &da_, &dgroup, b, d, &dmask, &dxo);
        rec.submit();
        let y_got: Vec<f32> = g.read(&y, y.len).unwrap();
        let da_got: Vec<f32> = g.read(&da, da.len).unwrap();
        let dx_got: Vec<f32> = g.read(&dxo, dxo.len).unwrap();

        let kd = vec![d; b * d];
        assert_sum_close(
            &y_got,
            &y_want,
            &y_bound,
            &kd,
            &sentinel,
            &format!("y p={p}"),
        );
        assert_sum_close(
            &da_got,
            &da_want,
            &da_bound,
            &da_k,
            &sentinel,
            &format!("dA p={p}"),
        );
        assert_sum_close(
            &dx_got,
            &dx_want,
            &dx_bound,
            &kd,
            &sentinel,
            &format!("dx p={p}"),
        );
    }
}
