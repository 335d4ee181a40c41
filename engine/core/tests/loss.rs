//! The fused loss equals BCE(sigmoid(logits), y') where nothing saturates, stays finite where it
//! does (logits ±1000), and its gradient is sigmoid(l) - y' over B x N.

use neptune_core::kernels::loss::bce_fused;
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
