//! The fused softmax cross-entropy against golden values of the formula (LibKGE's KvsAll with
//! its KL / cross-entropy loss, Ruffinelli et al. ICLR 2020; PyKEEN's `CrossEntropyLoss`):
//! golden/softmax_golden.json, from golden/gen_softmax_golden.py (exact sums in Python, logits
//! ±80 included), with and without label smoothing, in f64 and f32.

use neptune_core::kernels::loss::softmax_fused;
use neptune_core::real::Real;
use serde_json::Value;

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .flat_map(|x| match x.as_array() {
            Some(row) => row.iter().map(|y| y.as_f64().unwrap()).collect(),
            None => vec![x.as_f64().unwrap()],
        })
        .collect()
}

fn check<T: Real>(tol: f64) {
    let g: Value = serde_json::from_str(include_str!("golden/softmax_golden.json")).unwrap();
    let n = g["n_ent"].as_u64().unwrap() as usize;
    for case in g["cases"].as_array().unwrap() {
        let eps = case["eps"].as_f64().unwrap();
        let tails: Vec<Vec<u32>> = case["tails"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| floats(t).iter().map(|&v| v as u32).collect())
            .collect();
        let b = tails.len();
        let mut l: Vec<T> = floats(&case["logits"])
            .iter()
            .map(|&v| T::from_f64(v))
            .collect();
        let mut rows = vec![0.0; b];
        let loss = softmax_fused(&mut l, b, n, eps, |i| &tails[i], &mut rows);
        let want = case["loss"].as_f64().unwrap();
        assert!(
            (loss - want).abs() <= tol * want.abs().max(1.0),
            "eps {eps}: loss {loss} vs golden {want}"
        );
        for (k, (got, want)) in l.iter().zip(floats(&case["grad"])).enumerate() {
            assert!(
                (got.to_f64() - want).abs() <= tol,
                "eps {eps}: grad[{k}] {got:?} vs golden {want}"
            );
        }
    }
}

#[test]
fn softmax_loss_and_gradient_match_the_golden_values_in_f64() {
    check::<f64>(1e-13);
}

#[test]
fn softmax_loss_and_gradient_match_the_golden_values_in_f32() {
    check::<f32>(2e-6);
}
