//! Top-k through the index: each query's candidates re-scored exactly (f64 sums, as the exact
//! scans re-rank), best first, ties to the lower id; known edges never returned. A query whose
//! exclusions are more than the search width, or for which the index found fewer than `k`
//! allowed entities, is answered by the model's exact top-k instead. The rows the graph cannot
//! reach, and entities appended to the model after the index was built (fold-in), are scored
//! exactly beside the index's candidates.

use crate::approx_index::ApproxIndex;
use neptune_core::int8_scan::exact_score;
use neptune_core::real::sigmoid;
use neptune_core::{Error, Model, Prediction, Result};
use rayon::prelude::*;

/// What [`approx_top_k_batch`] found.
#[derive(Clone, Debug, Default)]
pub struct ApproxTopK {
    /// Per query, best first.
    pub top: Vec<Vec<Prediction>>,
    /// Queries answered by the exact scan instead of the index.
    pub exact_fallbacks: usize,
}

/// The top `k` of each `(h, r)` query of `model` found through `index` (built over this
/// model's E, or over its first rows when entities were appended since) searching `ef` wide
/// (raised to `k`), skipping `excludes[i]` for query `i` (`excludes` may be empty).
pub fn approx_top_k_batch(
    model: &Model,
    index: &ApproxIndex,
    queries: &[(u32, u32)],
    k: usize,
    excludes: &[&[u32]],
    ef: usize,
) -> Result<ApproxTopK> {
    let d = model.params.d_e;
    if index.entities() > model.params.n_ent || index.dimension() != d {
        return Err(Error::Argument {
            arg: "index",
            message: format!(
                "built over {} rows of {}, the model has {} of {}",
                index.entities(),
                index.dimension(),
                model.params.n_ent,
                d
            ),
        });
    }
    if !excludes.is_empty() && excludes.len() != queries.len() {
        return Err(Error::Argument {
            arg: "excludes",
            message: format!("{} lists for {} queries", excludes.len(), queries.len()),
        });
    }
    let x = model.hidden_vectors(queries)?;
    let n = model.n_entities();
    let ef = ef.max(k);
    let found: Vec<Option<Vec<Prediction>>> = x
        .par_chunks(d.max(1))
        .enumerate()
        .map(|(i, xq)| {
            let mut exclude = excludes.get(i).map_or_else(Vec::new, |l| l.to_vec());
            exclude.sort_unstable();
            exclude.dedup();
            if exclude.len() > ef {
                return None;
            }
            let reachable = n - exclude.iter().filter(|&&e| (e as usize) < n).count();
            let mut candidates = index.candidates(xq, ef, &exclude);
            let appended = index.entities() as u32..n as u32;
            let unreachable = index.unreachable().iter().copied();
            candidates.extend(
                unreachable
                    .chain(appended)
                    .filter(|e| exclude.binary_search(e).is_err()),
            );
            let top = rescore(model, candidates, xq, k);
            (top.len() >= k.min(reachable)).then_some(top)
        })
        .collect();
    let fallback: Vec<usize> = (0..queries.len()).filter(|&i| found[i].is_none()).collect();
    let mut exact = if fallback.is_empty() {
        Vec::new()
    } else {
        let qs: Vec<(u32, u32)> = fallback.iter().map(|&i| queries[i]).collect();
        let ex: Vec<&[u32]> = if excludes.is_empty() {
            Vec::new()
        } else {
            fallback.iter().map(|&i| excludes[i]).collect()
        };
        model.top_k_batch(&qs, k, &ex)?
    }
    .into_iter();
    let top = found
        .into_iter()
        .map(|f| f.unwrap_or_else(|| exact.next().unwrap_or_default()))
        .collect();
    Ok(ApproxTopK {
        top,
        exact_fallbacks: fallback.len(),
    })
}

/// The share of the exact lists' entities that the approximate lists hold (recall@k against
/// the exact top k, over every query together).
pub fn recall(approx: &[Vec<Prediction>], exact: &[Vec<Prediction>]) -> f64 {
    let found: usize = approx
        .iter()
        .zip(exact)
        .map(|(a, x)| {
            a.iter()
                .filter(|p| x.iter().any(|q| q.entity == p.entity))
                .count()
        })
        .sum();
    let wanted: usize = exact.iter().map(Vec::len).sum();
    found as f64 / wanted.max(1) as f64
}

/// The best `k` of `candidates` by their exact logit for `x` (NaN never returned).
fn rescore(model: &Model, candidates: Vec<u32>, x: &[f32], k: usize) -> Vec<Prediction> {
    let e = model.entity_rows();
    let mut scored: Vec<(f32, u32)> = candidates
        .into_iter()
        .map(|c| (exact_score(e.row(c), x), c))
        .filter(|(s, _)| !s.is_nan())
        .collect();
    scored.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.dedup_by_key(|s| s.1);
    scored.truncate(k);
    scored
        .into_iter()
        .map(|(logit, entity)| Prediction {
            entity,
            logit,
            probability: sigmoid(logit),
        })
        .collect()
}
