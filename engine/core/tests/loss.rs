//! The fused BCE equals BCE(sigmoid(logits), y') where nothing saturates, stays finite where it
//! does (logits ±1000), and its gradient is sigmoid(l) - y' over B x N. The fused softmax
//! cross-entropy equals a straightforward f64 `-sum y log softmax(l)` (mean over examples) and
//! its gradient `(softmax(l) - y) / B`, on random rows with extreme logits, duplicate and
//! missing tails, with and without smoothing, and matches finite differences of its own loss.
//! The gradient row alone (fold-in's candidates) is `(sigmoid(l) - base) * scale` in f32 and f64.

use neptune_core::kernels::loss::{bce_fused, bce_gradient_row, softmax_fused};
use neptune_core::real::Real;

fn reference(logits: &[f64], tails: &[Vec<u32>], n: usize, eps: f64) -> f64 {
    let mut s = 0.0;
    for (b, row) in logits.chunks(n).enumerate() {
        for (j, &l) in row.iter().enumerate() {
            let y = (1.0 - eps) * tails[b].contains(&(j as u32)) as u8 as f64 + 1.0 / n as f64;
            let p = 1.0 / (1.0 + (-l).exp());
            s -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
        }
    }
    s / logits.len() as f64
}

fn run<T: Real>(logits: &[f64], tails: &[Vec<u32>], n: usize, eps: f64) -> (f64, Vec<f64>) {
    let b = tails.len();
    let mut l: Vec<T> = logits.iter().map(|&x| T::from_f64(x)).collect();
    let mut rows = vec![0.0; b];
    let loss = bce_fused(&mut l, b, n, eps, |i| &tails[i], &mut rows);
    (loss, l.iter().map(|x| x.to_f64()).collect())
}

#[test]
fn matches_bce_of_sigmoid_when_not_saturated() {
    let n = 37;
    let tails = vec![vec![0u32, 5], vec![], vec![36], vec![1, 2, 3]];
    let logits: Vec<f64> = (0..tails.len() * n)
        .map(|i| ((i * 7919) % 1000) as f64 / 100.0 - 5.0)
        .collect();
    let want = reference(&logits, &tails, n, 0.1);
    let (got64, grad) = run::<f64>(&logits, &tails, n, 0.1);
    assert!(
        (got64 - want).abs() < 1e-12 * want.abs().max(1.0),
        "{got64} vs {want}"
    );
    let (got32, _) = run::<f32>(&logits, &tails, n, 0.1);
    assert!(
        (got32 - want).abs() < 1e-5 * want.abs(),
        "f32 {got32} vs {want}"
    );
    // Gradient: (sigmoid(l) - y') / (B N).
    for (k, (&g, &l)) in grad.iter().zip(&logits).enumerate() {
        let (b, j) = (k / n, k % n);
        let y = 0.9 * tails[b].contains(&(j as u32)) as u8 as f64 + 1.0 / n as f64;
        let want = (1.0 / (1.0 + (-l).exp()) - y) / logits.len() as f64;
        assert!((g - want).abs() < 1e-15, "grad[{k}] {g} vs {want}");
    }
}

#[test]
fn finite_when_saturated() {
    let n = 4;
    let tails = vec![vec![0u32], vec![3]];
    let logits = [
        1000.0, -1000.0, 1000.0, -1000.0, -1000.0, 1000.0, 0.0, -1000.0,
    ];
    for eps in [0.0, 0.1] {
        let (l64, g64) = run::<f64>(&logits, &tails, n, eps);
        let (l32, g32) = run::<f32>(&logits, &tails, n, eps);
        assert!(l64.is_finite() && l32.is_finite());
        assert!(g64.iter().chain(&g32).all(|g| g.is_finite()));
        // softplus(1000) - y' * 1000 with y' = 1/N for a wrong positive logit: about 750 per element.
        assert!(l64 > 100.0 && (l32 - l64).abs() < 1e-3 * l64);
    }
}

/// Straightforward f64 softmax cross-entropy: per row `y_j = (1 - eps) * count_j / |T| + eps / N`
/// (a tail listed twice counts twice; no tails: only `eps / N`), loss `-sum_j y_j log p_j` with
/// `p = softmax(l)` from the max-shifted exponentials, gradient `(sum_j y_j) p - y`, both / B.
fn softmax_reference(logits: &[f64], tails: &[Vec<u32>], n: usize, eps: f64) -> (f64, Vec<f64>) {
    let b = tails.len();
    let mut loss = 0.0;
    let mut grad = Vec::with_capacity(logits.len());
    for (i, row) in logits.chunks(n).enumerate() {
        let m = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let z: f64 = row.iter().map(|&l| (l - m).exp()).sum();
        let y: Vec<f64> = (0..n)
            .map(|j| {
                let count = tails[i].iter().filter(|&&t| t as usize == j).count() as f64;
                let pos = if tails[i].is_empty() {
                    0.0
                } else {
                    (1.0 - eps) * count / tails[i].len() as f64
                };
                pos + eps / n as f64
            })
            .collect();
        let mass: f64 = y.iter().sum();
        for j in 0..n {
            let log_p = row[j] - m - z.ln();
            loss -= y[j] * log_p;
            grad.push((mass * log_p.exp() - y[j]) / b as f64);
        }
    }
    (loss / b as f64, grad)
}

fn run_softmax<T: Real>(logits: &[f64], tails: &[Vec<u32>], n: usize, eps: f64) -> (f64, Vec<f64>) {
    let b = tails.len();
    let mut l: Vec<T> = logits.iter().map(|&x| T::from_f64(x)).collect();
    let mut rows = vec![0.0; b];
    let loss = softmax_fused(&mut l, b, n, eps, |i| &tails[i], &mut rows);
    assert!((rows.iter().sum::<f64>() / b as f64 - loss).abs() <= 1e-12 * loss.abs().max(1.0));
    (loss, l.iter().map(|x| x.to_f64()).collect())
}

/// Seeded uniform values in [0, 1).
fn uniform(len: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect()
}

/// Random rows: logits over [-spread, spread) with ±80 and 0 planted; row i has i % 5 tails,
/// row 3 lists one twice, the last row has none.
fn softmax_case(b: usize, n: usize, spread: f64, seed: u64) -> (Vec<f64>, Vec<Vec<u32>>) {
    let r = uniform(b * n + b * 5, seed);
    let mut logits: Vec<f64> = r[..b * n]
        .iter()
        .map(|v| (v * 2.0 - 1.0) * spread)
        .collect();
    for (k, v) in [80.0, -80.0, 0.0, 80.0].into_iter().enumerate() {
        logits[(k * 7919 + 5) % (b * n)] = v;
    }
    let mut tails: Vec<Vec<u32>> = (0..b)
        .map(|i| {
            (0..i % 5)
                .map(|k| (r[b * n + i * 5 + k] * n as f64) as u32)
                .collect()
        })
        .collect();
    tails[3] = vec![1, 4, 1];
    tails[b - 1].clear();
    (logits, tails)
}

#[test]
fn softmax_matches_the_formula_on_random_rows() {
    for (n, spread, seed) in [(37, 5.0, 1), (301, 30.0, 2), (2000, 80.0, 3)] {
        let b = 9;
        let (logits, tails) = softmax_case(b, n, spread, seed);
        for eps in [0.0, 0.1] {
            let (want, want_grad) = softmax_reference(&logits, &tails, n, eps);
            let (got64, grad64) = run_softmax::<f64>(&logits, &tails, n, eps);
            let what = format!("N={n} spread {spread} eps {eps}");
            assert!(
                (got64 - want).abs() <= 1e-12 * want.abs().max(1.0),
                "{what}: f64 {got64} vs {want}"
            );
            for (k, (&g, &w)) in grad64.iter().zip(&want_grad).enumerate() {
                assert!(
                    (g - w).abs() <= 1e-15,
                    "{what}: f64 grad[{k}] {g:e} vs {w:e}"
                );
            }
            // f32: logits rounded to f32 first (the reference sees the same inputs), then the
            // kernel's f32 arithmetic and Cephes exp: within a few ulps of the loss's scale.
            let l32: Vec<f64> = logits.iter().map(|&x| x as f32 as f64).collect();
            let (want32, want_grad32) = softmax_reference(&l32, &tails, n, eps);
            let (got32, grad32) = run_softmax::<f32>(&l32, &tails, n, eps);
            let mag = l32.iter().map(|v| v.abs()).fold(1.0, f64::max);
            assert!(
                (got32 - want32).abs() <= 1e-6 * mag,
                "{what}: f32 {got32} vs {want32}"
            );
            for (k, (&g, &w)) in grad32.iter().zip(&want_grad32).enumerate() {
                assert!(
                    (g - w).abs() <= 1e-6 / b as f64,
                    "{what}: f32 grad[{k}] {g:e} vs {w:e}"
                );
            }
        }
    }
}

#[test]
fn softmax_rows_are_probabilities_minus_targets() {
    // Every row's gradient sums to 0 (both the softmax and the target sum to 1), except a row
    // without tails, whose target holds only the smoothing mass and whose gradient sums to 0 too
    // (eps * softmax - eps / N); its loss is eps * logsumexp - eps / N * sum l.
    let (n, b, eps) = (50, 9, 0.1);
    let (logits, tails) = softmax_case(b, n, 80.0, 7);
    let (_, grad) = run_softmax::<f64>(&logits, &tails, n, eps);
    for (i, row) in grad.chunks(n).enumerate() {
        let s: f64 = row.iter().sum();
        assert!(s.abs() < 1e-15, "row {i} gradient sums to {s:e}");
    }
    // A tail listed twice gets twice the positive weight: row 3's tails are [1, 4, 1].
    let mut single = tails.clone();
    single[3] = vec![1, 4];
    let (_, g1) = run_softmax::<f64>(&logits, &single, n, eps);
    let (g_dup, g_one) = (
        grad[3 * n + 1] - g1[3 * n + 1],
        grad[3 * n + 4] - g1[3 * n + 4],
    );
    // Weights (1 - eps) * 2/3 and 1/3 with the duplicate, 1/2 and 1/2 without; / B.
    assert!(
        (g_dup + 0.9 * (2.0 / 3.0 - 0.5) / b as f64).abs() < 1e-15,
        "{g_dup:e}"
    );
    assert!(
        (g_one + 0.9 * (1.0 / 3.0 - 0.5) / b as f64).abs() < 1e-15,
        "{g_one:e}"
    );
}

#[test]
fn softmax_gradient_matches_finite_differences_of_its_loss() {
    let (n, b) = (23, 9);
    let (mut logits, tails) = softmax_case(b, n, 4.0, 11);
    for eps in [0.0, 0.1] {
        let (_, grad) = run_softmax::<f64>(&logits, &tails, n, eps);
        let h = 1e-6;
        for k in 0..logits.len() {
            let orig = logits[k];
            logits[k] = orig + h;
            let lp = run_softmax::<f64>(&logits, &tails, n, eps).0;
            logits[k] = orig - h;
            let lm = run_softmax::<f64>(&logits, &tails, n, eps).0;
            logits[k] = orig;
            let num = (lp - lm) / (2.0 * h);
            assert!(
                (num - grad[k]).abs() <= 1e-8,
                "eps {eps} grad[{k}]: {:e} vs numeric {num:e}",
                grad[k]
            );
        }
    }
}

#[test]
fn softmax_stays_accurate_on_long_rows_in_f32() {
    // 70001 entities: the blocked sums keep the f32 row sums close to the f64 reference.
    let (n, b) = (70_001, 2);
    let (logits, tails) = softmax_case(b.max(5), n, 10.0, 13);
    let (logits, tails) = (logits[..b * n].to_vec(), tails[..b].to_vec());
    let l32: Vec<f64> = logits.iter().map(|&x| x as f32 as f64).collect();
    for eps in [0.0, 0.1] {
        let (want, _) = softmax_reference(&l32, &tails, n, eps);
        let (got, _) = run_softmax::<f32>(&l32, &tails, n, eps);
        assert!((got - want).abs() <= 1e-5, "eps {eps}: f32 {got} vs {want}");
    }
}

#[test]
fn the_gradient_row_is_the_scaled_sigmoid_less_the_base() {
    let logits: Vec<f64> = (0..53).map(|i| (i as f64 - 26.0) * 1.7).collect();
    let (base, scale) = (0.01, 0.25);
    let want: Vec<f64> = logits
        .iter()
        .map(|&l| (1.0 / (1.0 + (-l).exp()) - base) * scale)
        .collect();
    let mut f64s = logits.clone();
    bce_gradient_row(&mut f64s, base, scale);
    let mut f32s: Vec<f32> = logits.iter().map(|&l| l as f32).collect();
    bce_gradient_row(&mut f32s, base as f32, scale as f32);
    for ((w, a), b) in want.iter().zip(&f64s).zip(&f32s) {
        assert!((w - a).abs() < 1e-15, "{a} vs {w}");
        assert!((w - *b as f64).abs() < 1e-7, "{b} vs {w}");
    }
}
