//! One pass over every entity's 8-bit row for a few queries ([`Int16Queries`]): the scan that
//! exact top-k ([`crate::exact_top_k`]) and exact filtered ranks ([`crate::exact_rank`]) share.
//! Each entity's quantised score comes with bounds on its exact score ([`Tile::bounds`]).

use crate::int8_rows::{Int16Queries, Int8Rows};
use rayon::prelude::*;

/// Queries that share one pass over the rows (beyond this the dot products, not memory, bound
/// it).
pub const QUERIES_PER_PASS: usize = 16;

/// Entities scored per tile (their integer scores for every query of the pass stay in L1).
const TILE_ROWS: usize = 64;

/// One query's view of a tile: entities `first..first + raw.len()`.
pub struct Tile<'a> {
    pub first: usize,
    /// `x̂ · q[e]`, exact integers.
    pub raw: &'a [i32],
    /// The rows' scales.
    pub scales: &'a [f32],
    /// The query's scale and its bound in units of a row's scale ([`Int16Queries`]).
    pub x_scale: f32,
    pub steps: f32,
}

impl Tile<'_> {
    /// `(low, up)` around tile entity `i`'s exact score (NaN for a non-finite row or query:
    /// then only the exact score decides).
    #[inline]
    pub fn bounds(&self, i: usize) -> (f32, f32) {
        let (r, sc) = (self.raw[i] as f32 * self.x_scale, self.scales[i]);
        (sc * (r - self.steps), sc * (r + self.steps))
    }

    /// Whether any entity's upper bound reaches `floor` (or is NaN): one vectorised pass, so
    /// that tiles of entities all below it cost little.
    #[inline]
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    pub fn any_reaches(&self, floor: f32) -> bool {
        let (xs, steps) = (self.x_scale, self.steps);
        let reaching: u32 = self
            .raw
            .iter()
            .zip(self.scales)
            .map(|(&r, &sc)| u32::from(!(sc * (r as f32 * xs + steps) < floor)))
            .sum();
        reaching > 0
    }
}

/// Visits every entity's tile for each query of `x`: the entities are cut into one contiguous
/// range per thread; a range's states (`init()`, one per query) see its tiles in order,
/// `visit(state of query q, q, tile)`; the ranges' states are merged with `merge`.
pub fn scan_tiles<S: Send>(
    rows: &Int8Rows,
    x: &Int16Queries,
    init: impl Fn() -> S + Sync,
    visit: impl Fn(&mut S, usize, &Tile<'_>) + Sync,
    merge: impl Fn(S, S) -> S + Sync,
) -> Vec<S> {
    let (n, b) = (rows.len(), x.len());
    let per = n.div_ceil(rayon::current_num_threads().max(1)).max(1);
    let ranges: Vec<(usize, usize)> = (0..n.div_ceil(per))
        .map(|p| (p * per, ((p + 1) * per).min(n)))
        .collect();
    let fresh = || (0..b).map(|_| init()).collect::<Vec<S>>();
    ranges
        .into_par_iter()
        .map(|(start, end)| {
            let mut states = fresh();
            let mut scores = vec![0i32; b * TILE_ROWS];
            let mut first = start;
            while first < end {
                let m = TILE_ROWS.min(end - first);
                // scores = x̂ · q[first..first + m]ᵀ                            (b x m)
                rows.dots(first, m, x, &mut scores[..b * m]);
                for (q, state) in states.iter_mut().enumerate() {
                    let tile = Tile {
                        first,
                        raw: &scores[q * m..][..m],
                        scales: &rows.scales()[first..first + m],
                        x_scale: x.scale(q),
                        steps: x.bound_steps(q),
                    };
                    visit(state, q, &tile);
                }
                first += m;
            }
            states
        })
        .reduce(fresh, |a, other| {
            a.into_iter().zip(other).map(|(s, o)| merge(s, o)).collect()
        })
}

/// `x · row` summed in f64, rounded to f32: the exact score the scans re-rank by.
pub fn exact_score(row: &[f32], x: &[f32]) -> f32 {
    let s: f64 = row.iter().zip(x).map(|(&a, &b)| a as f64 * b as f64).sum();
    s as f32
}
