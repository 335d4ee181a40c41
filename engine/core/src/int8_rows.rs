//! Entity rows quantised to 8 bits for the scan of exact top-k ([`crate::exact_top_k`]): a
//! quarter of the bytes of the f32 rows, so one pass over every entity reads 4x less memory.
//!
//! Row `e` is stored as `q[e] (d_e, i8)` and `scale[e]` with `E[e][j] ≈ scale[e] · q[e][j]`,
//! `scale[e] = max_j |E[e][j]| / 127` and `q` rounded to nearest: each value is off by at most
//! `scale[e] / 2`, which [`Int8Rows::error_bound`] turns into a bound on a score.

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

    /// `out[i][r] = x[i] · q[first + r]` (unscaled: times the row's scale it is the score
    /// against the quantised row) for the `b = x.len() / d` queries of `x` (b x d) and the `m`
    /// rows from `first`; `out` is b x m. Each row is converted once for all the queries.
    pub fn unscaled_dots(&self, first: usize, m: usize, x: &[f32], out: &mut [f32]) {
        let d = self.d;
        let q = &self.q[first * d..][..m * d];
        crate::kernels::int8_dots::int8_dots(q, d, m, x, out);
    }

    /// How far `x · E[e]` can be from `scale[e] · (x · q[e])` computed in f32, for a query `x`
    /// of L1 norm `l1`: `scale[e] · bound_steps(l1)`.
    pub fn error_bound(&self, e: usize, l1: f32) -> f32 {
        self.scale[e] * self.bound_steps(l1)
    }

    /// [`Int8Rows::error_bound`] in units of a row's scale: half a step per value, plus the f32
    /// rounding of the d-term sum and of the quantisation itself (generously: `128 d 2^-23`
    /// steps per unit of `l1`).
    pub fn bound_steps(&self, l1: f32) -> f32 {
        l1 * (0.5 + 1e-3 + 128.0 * self.d as f32 * f32::EPSILON)
    }

    /// Every row's scale.
    pub fn scales(&self) -> &[f32] {
        &self.scale
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
        // Unit queries read back each value.
        let mut out = [0.0f32; 9];
        for j in 0..3 {
            let mut unit = [0.0f32; 3];
            unit[j] = 1.0;
            let mut col = [0.0f32; 3];
            q.unscaled_dots(0, 3, &unit, &mut col);
            (0..3).for_each(|e| out[e * 3 + j] = col[e]);
        }
        for (e, row) in rows.chunks(3).enumerate() {
            for j in 0..3 {
                let back = out[e * 3 + j] * q.scale(e);
                assert!((back - row[j]).abs() <= q.scale(e) * 0.5 + 1e-7, "{e} {j}");
            }
        }
        // The largest value of a row is exact (+-127 steps); a zero row has scale 0.
        assert_eq!(out[1], -127.0);
        assert_eq!(q.scale(1), 0.0);
    }

    #[test]
    fn a_non_finite_row_has_an_infinite_bound_and_rows_append() {
        let q = Int8Rows::new(&[1.0, f32::NAN], 2).with_rows(&[0.25, -0.5]);
        assert_eq!(q.len(), 2);
        assert_eq!(q.error_bound(0, 1.0), f32::INFINITY);
        // Two queries against row 1: its values, then their sum.
        let mut out = vec![0.0f32; 2];
        q.unscaled_dots(1, 1, &[1.0, 0.0, 1.0, 1.0], &mut out);
        assert_eq!(out, [64.0, -63.0]);
    }
}
