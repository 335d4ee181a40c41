//! Timing shared by the examples (included with `#[path]`: a folder under `examples/` without a
//! `main.rs` is not an example of its own).

use std::time::Instant;

/// Best of `reps` runs of `f`, in seconds (one warm-up run first).
pub fn best_of(reps: usize, f: &mut dyn FnMut()) -> f64 {
    f();
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}
