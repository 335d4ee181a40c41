//! Shared by the device tests: the device (lavapipe in CI), seeded data and comparisons.
#![allow(dead_code)]

use neptune_gpu::{DeviceChoice, Gpu};

/// The test device: any adapter, software included. Tests fail (not skip) without one: CI
/// installs Mesa's lavapipe.
pub fn gpu() -> Gpu {
    Gpu::open(DeviceChoice::Gpu)
        .expect("open a GPU adapter")
        .expect("an adapter")
}

/// Deterministic values in [-1, 1).
pub fn data(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

/// Asserts `|got - want| <= atol + rtol * |want|` elementwise, naming the first bad index.
pub fn assert_close(got: &[f32], want: &[f32], rtol: f32, atol: f32, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= atol + rtol * w.abs(),
            "{what}[{i}]: got {g}, want {w}"
        );
    }
}
