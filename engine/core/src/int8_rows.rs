//! Entity rows quantised to 8 bits for the scan of exact top-k ([`crate::exact_top_k`]): a
//! quarter of the bytes of the f32 rows, so one pass over every entity reads 4x less memory.
//!
//! Row `e` is stored as `q[e] (d_e, i8)` and `scale[e]` with `E[e][j] ≈ scale[e] · q[e][j]`,
//! `scale[e] = max_j |E[e][j]| / 127` and `q` rounded to nearest: each value is off by at most
//! `scale[e] / 2`. Queries are quantised to 16 bits the same way ([`Int16Queries`]), so a score
//! is an exact integer dot product times the two scales; [`Int16Queries::bound_steps`] bounds
//! its distance from the exact score.

use crate::kernels::int8_dots::{int8_dots, padded};
use rayon::prelude::*;

/// Quantised entity rows (n x d, row-major) and one scale per row.
#[derive(Clone, Debug, Default)]
pub struct Int8Rows {
    d: usize,
    q: Vec<i8>,
    /// `+inf` for a row holding a non-finite value: its bound is infinite, so it is always
    /// scored exactly.
    scale: Vec<f32>,
}

impl Int8Rows {
    /// Quantises `rows` (n x d, row-major).
    pub fn new(rows: &[f32], d: usize) -> Int8Rows {
        let mut out = Int8Rows {
            d,
            q: Vec::new(),
            scale: Vec::new(),
        };
        out.push_rows(rows);
        out
    }

    /// These rows with `rows` (k x d) appended as rows `n..n + k`.
    pub fn with_rows(&self, rows: &[f32]) -> Int8Rows {
        let mut out = self.clone();
        out.push_rows(rows);
        out
    }

    fn push_rows(&mut self, rows: &[f32]) {
        let d = self.d.max(1);
        let (n0, n) = (self.scale.len(), rows.len() / d);
        self.q.resize((n0 + n) * d, 0);
        self.scale.resize(n0 + n, 0.0);
        self.q[n0 * d..]
            .par_chunks_mut(d)
            .zip(self.scale[n0..].par_iter_mut())
            .zip(rows.par_chunks_exact(d))
            .for_each(|((q, scale), row)| {
                if row.iter().any(|v| !v.is_finite()) {
                    *scale = f32::INFINITY;
                    return;
                }
                *scale = row.iter().fold(0.0f32, |m, v| m.max(v.abs())) / 127.0;
                let inv = if *scale > 0.0 { 1.0 / *scale } else { 0.0 };
                for (o, &v) in q.iter_mut().zip(row) {
                    *o = (v * inv).round().clamp(-127.0, 127.0) as i8;
                }
            });
    }

    pub fn len(&self) -> usize {
        self.scale.len()
    }

    pub fn is_empty(&self) -> bool {
        self.scale.is_empty()
    }

    /// Bytes held (what one pass reads).
    pub fn bytes(&self) -> usize {
        self.q.len() + self.scale.len() * 4
    }

    pub fn scale(&self, e: usize) -> f32 {
        self.scale[e]
    }

    /// `out[i][r] = x̂[i] · q[first + r]` (exact integers) for the queries of `x` and the `m`
    /// rows from `first`; `out` is b x m. Times `x.scale(i) · scale[e]` it is the quantised
    /// score.
    pub fn dots(&self, first: usize, m: usize, x: &Int16Queries, out: &mut [i32]) {
        let d = self.d;
        int8_dots(&self.q[first * d..][..m * d], d, m, &x.values, out);
    }

    /// Every row's scale.
    pub fn scales(&self) -> &[f32] {
        &self.scale
    }
}

/// Queries (b x d f32) quantised to 16 bits, one scale per query, rows zero-padded for the
/// kernel ([`padded`]).
#[derive(Clone, Debug, Default)]
pub struct Int16Queries {
    d: usize,
    values: Vec<i16>,
    scale: Vec<f32>,
    l1: Vec<f32>,
}

impl Int16Queries {
    /// Quantises `x` (b x d). The largest magnitude is at most `(2^31 - 1) / (128 padded(d))`
    /// (32,767 up to d 512), so no integer dot product with 8-bit rows can overflow.
    pub fn new(x: &[f32], d: usize) -> Int16Queries {
        let dp = padded(d);
        let top = (i32::MAX as usize / (128 * dp.max(1))).min(i16::MAX as usize) as f32;
        let b = x.len() / d.max(1);
        let mut out = Int16Queries {
            d,
            values: vec![0; b * dp],
            scale: Vec::with_capacity(b),
            l1: Vec::with_capacity(b),
        };
        for (i, row) in x.chunks_exact(d.max(1)).enumerate() {
            let max = row.iter().fold(0.0f32, |m, v| m.max(v.abs()));
            let scale = max / top;
            let inv = if scale > 0.0 { 1.0 / scale } else { 0.0 };
            for (o, &v) in out.values[i * dp..][..d].iter_mut().zip(row) {
                *o = (v * inv).round().clamp(-top, top) as i16;
            }
            out.scale.push(scale);
            // Non-finite: an infinite or NaN bound, so every entity is scored exactly.
            out.l1.push(row.iter().map(|v| v.abs()).sum());
        }
        out
    }

    pub fn len(&self) -> usize {
        self.scale.len()
    }

    pub fn is_empty(&self) -> bool {
        self.scale.is_empty()
    }

    /// Query `i`'s scale: `x[i][j] ≈ scale · x̂[i][j]`.
    pub fn scale(&self, i: usize) -> f32 {
        self.scale[i]
    }

    /// How far `x[i] · E[e]` can be from its quantised score `scale[e] · scale(i) · (x̂[i] ·
    /// q[e])` (computed in f32), in units of the row's `scale[e]`:
    /// `x · (E[e] - scale[e] q) + scale[e] (x - scale(i) x̂) · q`, at most half a row step per
    /// value (`l1 / 2`) plus half a query step per value of `q` (`scale(i) / 2 · 127 d`), plus
    /// the f32 rounding of the quantisations and of the product (generously: `1e-3` of each
    /// and `512 d 2^-23` steps per unit of `l1`).
    pub fn bound_steps(&self, i: usize) -> f32 {
        let d = self.d as f32;
        self.l1[i] * (0.5 + 1e-3 + 512.0 * d * f32::EPSILON)
            + self.scale[i] * (0.5 + 1e-3) * 127.0 * d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_value_is_within_half_a_step() {
        let rows = [0.5f32, -1.27, 0.01, 0.0, 0.0, 0.0, 3.0, -0.7, 2.2];
        let q = Int8Rows::new(&rows, 3);
        assert_eq!(q.len(), 3);
        // Unit queries (quantised to exactly their top value) read back each value.
        let mut out = [0i32; 9];
        for j in 0..3 {
            let mut unit = [0.0f32; 3];
            unit[j] = 1.0;
            let x = Int16Queries::new(&unit, 3);
            let mut col = [0i32; 3];
            q.dots(0, 3, &x, &mut col);
            (0..3).for_each(|e| out[e * 3 + j] = col[e]);
            for (e, row) in rows.chunks(3).enumerate() {
                let back = col[e] as f32 * x.scale(0) * q.scale(e);
                assert!((back - row[j]).abs() <= q.scale(e) * 0.5 + 1e-6, "{e} {j}");
            }
        }
        // The largest value of a row is exact (+-127 steps); a zero row has scale 0.
        assert_eq!(out[1], -127 * 32_767);
        assert_eq!(q.scale(1), 0.0);
    }

    #[test]
    fn the_bound_holds_and_is_infinite_for_non_finite_values() {
        let d = 40;
        let rows: Vec<f32> = (0..20 * d)
            .map(|i| ((i * 7919) % 1000) as f32 / 300.0 - 1.6)
            .collect();
        let x: Vec<f32> = (0..3 * d)
            .map(|i| ((i * 104_729) % 997) as f32 / 100.0 - 5.0)
            .collect();
        let (q, xq) = (Int8Rows::new(&rows, d), Int16Queries::new(&x, d));
        let mut raw = vec![0i32; 3 * 20];
        q.dots(0, 20, &xq, &mut raw);
        for i in 0..3 {
            let exact: Vec<f64> = (0..20)
                .map(|e| {
                    (0..d)
                        .map(|j| x[i * d + j] as f64 * rows[e * d + j] as f64)
                        .sum()
                })
                .collect();
            let largest = exact.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            for (e, &exact) in exact.iter().enumerate() {
                let approx = raw[i * 20 + e] as f64 * xq.scale(i) as f64 * q.scale(e) as f64;
                let bound = (q.scale(e) * xq.bound_steps(i)) as f64;
                assert!((exact - approx).abs() <= bound, "{i} {e}");
                // Not vacuous: far below the scores' range.
                assert!(bound < 0.1 * largest, "{i} {e}: {bound} against {largest}");
            }
        }
        let nan = Int16Queries::new(&[1.0, f32::NAN], 2);
        assert!(nan.bound_steps(0).is_nan());
        let q = Int8Rows::new(&[1.0, f32::NAN], 2).with_rows(&[0.25, -0.5]);
        assert_eq!(q.len(), 2);
        assert_eq!(q.scale(0), f32::INFINITY);
        // Row 1 after the append: 0.25 / (0.5 / 127) rounds to 64.
        let mut out = [0i32; 1];
        q.dots(1, 1, &Int16Queries::new(&[1.0, 0.0], 2), &mut out);
        assert_eq!(out, [64 * 32_767]);
    }
}
