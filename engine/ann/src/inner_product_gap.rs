//! Maximum inner product search on a proximity graph built with the inner product itself
//! (ip-NSW, Morozov and Babenko 2018): a row's neighbours are the rows with which it has the
//! largest inner product, and a search walks toward larger `x · E[e]`. The "distance"
//! [`InnerProductGap`] is `M² - a · b` with `M` the largest norm of the rows the graph holds
//! (the model's rows less their mean, [`crate::approx_index`]): non-negative for two rows
//! (`a · b ≤ |a| |b| ≤ M²`) and for a query scaled to norm `M` ([`scale_query`]; scaling does
//! not change a query's order of rows). Reducing MIPS to nearest neighbours by adding a
//! coordinate that gives every row norm `M` (Bachrach et al. 2014) was tried first: queries then
//! lie far from every row, and recall@10 on a trained FB15k-237 model was .84 at search width
//! 512 against .99 at 256 this way; a graph built by Euclidean or angular distance and searched
//! by the inner product reached .83 and .89 (bench/scale/RESULTS.md).
//!
//! A row with a small norm is rarely any row's largest inner product, so such a graph can leave
//! rows no search reaches: [`crate::approx_index`] finds them after the build and scans them
//! exactly with every query. Splitting the rows into bands of similar norm, one graph each
//! (norm ranging), reached more rows of a barely trained million-entity model but cost a
//! search per band at no better recall for the time on trained FB15k-237 and WN18RR models.

use anndists::dist::Distance;
use neptune_core::kernels::dot::dot;
use rayon::prelude::*;

/// `M² - a · b` (clamped at 0 against rounding).
#[derive(Clone, Copy, Debug)]
pub struct InnerProductGap {
    pub norm_squared: f32,
}

impl Distance<f32> for InnerProductGap {
    fn eval(&self, a: &[f32], b: &[f32]) -> f32 {
        (self.norm_squared - dot(a, b)).max(0.0)
    }
}

/// The largest norm of the rows of `e` (`n x d`, row-major) less `mean` (`d`), squared; never 0.
pub fn largest_norm_squared(e: &[f32], mean: &[f32]) -> f32 {
    e.par_chunks_exact(mean.len().max(1))
        .map(|row| row.iter().zip(mean).map(|(v, m)| (v - m) * (v - m)).sum())
        .reduce(|| f32::MIN_POSITIVE, f32::max)
}

/// Query `x` scaled to norm `sqrt(norm_squared)`. A zero query stays zero (every row then
/// scores 0: any order is exact).
pub fn scale_query(x: &[f32], norm_squared: f32) -> Vec<f32> {
    let norm = dot(x, x).sqrt();
    let scale = if norm > 0.0 {
        norm_squared.sqrt() / norm
    } else {
        0.0
    };
    x.iter().map(|v| v * scale).collect()
}
