//! The HNSW index over one model's entity rows (built once per loaded version; it does not
//! change while serving: a fold-in's new entities are scanned exactly beside it).
//!
//! The graph holds the rows less their mean: a trained model's rows share one large direction
//! (every logit of a query carries `x · mean`, the same for every entity), which makes a few rows
//! every row's largest inner products and leaves most rows out of the graph. Taking it off
//! changes no query's order of entities (`x · E[e] = x · mean + x · (E[e] - mean)`) and lets the
//! graph reach nearly every row (bench/scale/RESULTS.md).

use crate::inner_product_gap::{largest_norm_squared, scale_query, InnerProductGap};
use hnsw_rs::prelude::{FilterT, Hnsw};
use neptune_core::{Error, Result};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// Rows inserted between two checks of the stop flag and two progress reports.
const INSERT_CHUNK: usize = 8192;

/// How the graph is built: more connections and a wider construction search give a better
/// graph (higher recall at the same search width) for a longer build and more memory.
#[derive(Clone, Copy, Debug)]
pub struct BuildOptions {
    /// Neighbours kept per row and layer (HNSW's `M`; 1..=255).
    pub connections: usize,
    /// Candidates considered while inserting a row (HNSW's `efConstruction`).
    pub ef_construction: usize,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            connections: 24,
            ef_construction: 200,
        }
    }
}

/// A build stopped through its flag before it finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildStopped;

pub struct ApproxIndex {
    hnsw: Hnsw<'static, f32, InnerProductGap>,
    norm_squared: f32,
    entities: usize,
    dimension: usize,
    /// Rows no search can reach (ascending), scanned exactly beside every search.
    unreachable: Vec<u32>,
}

impl ApproxIndex {
    /// Builds the index over `e` (`n x d`, row-major) on the current rayon pool. `stop` is read
    /// between chunks of rows (`Ok(Err(BuildStopped))` once it is set); `progress(done, n)` is
    /// called after each chunk.
    pub fn build(
        e: &[f32],
        d: usize,
        options: BuildOptions,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<std::result::Result<ApproxIndex, BuildStopped>> {
        if d == 0 || !e.len().is_multiple_of(d) {
            return Err(Error::Argument {
                arg: "e",
                message: format!("{} floats are not rows of {d}", e.len()),
            });
        }
        if !(1..=255).contains(&options.connections) {
            return Err(Error::Argument {
                arg: "connections",
                message: format!("{} is outside 1..=255", options.connections),
            });
        }
        if options.ef_construction == 0 {
            return Err(Error::Argument {
                arg: "efConstruction",
                message: "must be at least 1".into(),
            });
        }
        let n = e.len() / d;
        let mean = mean_row(e, d);
        let norm_squared = largest_norm_squared(e, &mean);
        let layers = 16.min(((n.max(2)) as f64).ln().ceil() as usize);
        let mut hnsw = Hnsw::new(
            options.connections,
            n,
            layers,
            options.ef_construction,
            InnerProductGap { norm_squared },
        );

        for first in (0..n).step_by(INSERT_CHUNK) {
            if stop.load(Ordering::Relaxed) {
                return Ok(Err(BuildStopped));
            }
            let last = (first + INSERT_CHUNK).min(n);
            let centered = centered_rows(&e[first * d..last * d], &mean);
            let batch: Vec<(&[f32], usize)> = centered
                .chunks(d)
                .enumerate()
                .map(|(i, r)| (r, first + i))
                .collect();
            hnsw.parallel_insert_slice(&batch);
            progress(last, n);
        }
        hnsw.set_searching_mode(true);
        let unreachable = unreachable_rows(&hnsw, n);
        Ok(Ok(ApproxIndex {
            hnsw,
            norm_squared,
            entities: n,
            dimension: d,
            unreachable,
        }))
    }

    /// Rows indexed (the model's entities when it was built).
    pub fn entities(&self) -> usize {
        self.entities
    }

    /// Rows no search reaches through the graph, ascending: every query scores them exactly.
    pub fn unreachable(&self) -> &[u32] {
        &self.unreachable
    }

    /// Floats per row (the model's `d_e`).
    pub fn dimension(&self) -> usize {
        self.dimension
    }

    /// Up to `ef` entities with the highest `x · E[e]` as the graph finds them (`ef` is the
    /// search width: larger finds more of the true best, slower), none of them in `exclude`
    /// (sorted ascending). Their order is the index's, not re-scored.
    pub fn candidates(&self, x: &[f32], ef: usize, exclude: &[u32]) -> Vec<u32> {
        let q = scale_query(x, self.norm_squared);
        let allowed = |id: &usize| exclude.binary_search(&(*id as u32)).is_err();
        let filter: Option<&dyn FilterT> = if exclude.is_empty() {
            None
        } else {
            Some(&allowed)
        };
        self.hnsw
            .search_filter(&q, ef, ef, filter)
            .into_iter()
            .map(|n| n.d_id as u32)
            .filter(|e| exclude.binary_search(e).is_err())
            .collect()
    }
}

/// The mean of the rows of `e` (`n x d`, row-major), summed in f64.
pub fn mean_row(e: &[f32], d: usize) -> Vec<f32> {
    let n = (e.len() / d).max(1);
    e.par_chunks_exact(d)
        .fold(
            || vec![0f64; d],
            |mut sum, row| {
                sum.iter_mut()
                    .zip(row)
                    .for_each(|(s, &v)| *s += f64::from(v));
                sum
            },
        )
        .reduce(
            || vec![0f64; d],
            |mut sum, other| {
                sum.iter_mut().zip(other).for_each(|(s, v)| *s += v);
                sum
            },
        )
        .into_iter()
        .map(|s| (s / n as f64) as f32)
        .collect()
}

/// `rows` (`m x d`) less `mean` (`d`), row-major.
pub fn centered_rows(rows: &[f32], mean: &[f32]) -> Vec<f32> {
    rows.par_chunks_exact(mean.len())
        .flat_map_iter(|row| row.iter().zip(mean).map(|(v, m)| v - m))
        .collect()
}

/// Rows a search may never return. A search descends the upper layers to some row, then walks
/// layer 0's (directed) edges from it. Layer 0 is one large strongly connected part and a few
/// rows outside it (rows of small norm are rarely any row's largest inner product, so few
/// edges lead to them); a search that reaches the large part reaches everything reachable from
/// it, so the rows outside that are the ones scanned exactly.
fn unreachable_rows(hnsw: &Hnsw<'static, f32, InnerProductGap>, n: usize) -> Vec<u32> {
    let mut edges: Vec<Vec<u32>> = vec![Vec::new(); n];
    for point in hnsw.get_point_indexation() {
        if let Some(layer0) = point.get_neighborhood_id().first() {
            edges[point.get_origin_id()] = layer0.iter().map(|nb| nb.d_id as u32).collect();
        }
    }
    let component = largest_strong_component(&edges);
    let mut reached = vec![false; n];
    let mut stack: Vec<u32> = component;
    for &id in &stack {
        reached[id as usize] = true;
    }
    while let Some(id) = stack.pop() {
        for &next in &edges[id as usize] {
            if !std::mem::replace(&mut reached[next as usize], true) {
                stack.push(next);
            }
        }
    }
    (0..n as u32).filter(|&i| !reached[i as usize]).collect()
}

/// The rows of the largest strongly connected component of the graph `edges` (Kosaraju:
/// rows in order of finishing a depth-first search, then the reversed graph searched from the
/// last finished; iterative, so a million rows need no deep stack).
fn largest_strong_component(edges: &[Vec<u32>]) -> Vec<u32> {
    let n = edges.len();
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    for root in 0..n {
        if seen[root] {
            continue;
        }
        seen[root] = true;
        let mut stack = vec![(root, 0usize)];
        while let Some(&mut (id, ref mut next)) = stack.last_mut() {
            if let Some(&to) = edges[id].get(*next) {
                *next += 1;
                if !std::mem::replace(&mut seen[to as usize], true) {
                    stack.push((to as usize, 0));
                }
            } else {
                order.push(id);
                stack.pop();
            }
        }
    }
    let mut reverse: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (from, tos) in edges.iter().enumerate() {
        for &to in tos {
            reverse[to as usize].push(from as u32);
        }
    }
    let mut component = vec![u32::MAX; n];
    let (mut best, mut best_size, mut count) = (0u32, 0usize, 0u32);
    for &root in order.iter().rev() {
        if component[root] != u32::MAX {
            continue;
        }
        component[root] = count;
        let (mut stack, mut size) = (vec![root], 0usize);
        while let Some(id) = stack.pop() {
            size += 1;
            for &from in &reverse[id] {
                if component[from as usize] == u32::MAX {
                    component[from as usize] = count;
                    stack.push(from as usize);
                }
            }
        }
        if size > best_size {
            (best, best_size) = (count, size);
        }
        count += 1;
    }
    (0..n as u32)
        .filter(|&i| component[i as usize] == best)
        .collect()
}
