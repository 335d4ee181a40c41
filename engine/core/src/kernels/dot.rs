//! Dot products and matrix-vector rows for the small products fold-in runs per step (one
//! entity's queries: too small for a GEMM's packing to pay).

use crate::real::Real;

multiversion!(pub fn dot<T>(a: &[T], b: &[T]) -> T => dot_body);
multiversion!(pub fn add_scaled_row_dots<T>(m: &[T], x: &[T], scale: &[T], out: &mut [T]) => add_scaled_row_dots_body);
multiversion!(pub fn axpy<T>(alpha: T, x: &[T], y: &mut [T]) => axpy_body);

/// `a · b` in sixteen partial sums, so the loop vectorises (one running sum would not).
#[inline(always)]
fn dot_body<T: Real>(a: &[T], b: &[T]) -> T {
    let mut part = [T::ZERO; 16];
    let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..16 {
            part[k] += x[k] * y[k];
        }
    }
    let mut sum = T::ZERO;
    for p in part {
        sum += p;
    }
    for (&x, &y) in ra.iter().zip(rb) {
        sum += x * y;
    }
    sum
}

/// `out[i] += scale[i] * (m_i · x)` for each row `m_i` of `m` (`out.len()` rows of `x.len()`).
#[inline(always)]
fn add_scaled_row_dots_body<T: Real>(m: &[T], x: &[T], scale: &[T], out: &mut [T]) {
    let d = x.len();
    for ((o, &s), row) in out.iter_mut().zip(scale).zip(m.chunks_exact(d)) {
        *o += s * dot_body(row, x);
    }
}

/// `y += alpha * x`.
#[inline(always)]
fn axpy_body<T: Real>(alpha: T, x: &[T], y: &mut [T]) {
    for (v, &u) in y.iter_mut().zip(x) {
        *v += alpha * u;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn match_the_plain_sums() {
        let a: Vec<f64> = (0..37).map(|i| (i as f64 * 0.37).sin()).collect();
        let b: Vec<f64> = (0..37).map(|i| (i as f64 * 0.11).cos()).collect();
        let plain: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - plain).abs() < 1e-12);
        // Two rows of 37 against b, scaled by 2 and -1, added to 1 and 0.
        let m = [a.clone(), b.clone()].concat();
        let mut out = vec![1.0, 0.0];
        add_scaled_row_dots(&m, &b, &[2.0, -1.0], &mut out);
        let bb: f64 = b.iter().map(|x| x * x).sum();
        assert!((out[0] - (1.0 + 2.0 * plain)).abs() < 1e-12);
        assert!((out[1] + bb).abs() < 1e-12);
        let mut y = b.clone();
        axpy(0.5, &a, &mut y);
        assert!(y
            .iter()
            .zip(&a)
            .zip(&b)
            .all(|((v, x), z)| (v - (z + 0.5 * x)).abs() < 1e-15));
    }
}
