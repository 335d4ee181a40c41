//! Filtered ranks over 8-bit entity rows: the rank of a given tail among every entity from one
//! pass over [`crate::int8_rows::Int8Rows`], exactly as scoring every entity ranks it.
//!
//! The tail's exact score `s` is computed first. In the pass, an entity whose upper bound is
//! below `s` scores below it, one whose lower bound is above `s` scores above it
//! ([`crate::int8_scan::Tile::bounds`]); only the entities in between are scored exactly. The
//! rank is then `1 + #above + #equal / 2`, the known answers other than the tail removed by
//! their exact scores, as [`crate::eval::filtered_rank`] counts.

use crate::int8_rows::{Int16Queries, Int8Rows};
use crate::int8_scan::{exact_score, scan_tiles, Tile, QUERIES_PER_PASS};
use crate::rows::EntityRows;

/// One query's counts from the pass.
#[derive(Default)]
struct Counts {
    above: usize,
    /// Entities the bounds could not place (scored exactly afterwards).
    undecided: Vec<u32>,
}

/// The filtered rank and exact logit of each tail `tails[i]` for query `x[i]` (B x d,
/// row-major) among every entity of `e` (`rows` quantising its trained rows; its appended rows
/// are scored exactly), `known[i]` (ascending, distinct) removed except the tail itself. A NaN
/// tail score ranks last (`n`). With `ranked`, the tail ranks as if it scored `ranked[i]` when
/// that is above its own logit (a served score that only raises the model's); the logit
/// returned is still its own.
pub fn exact_ranks(
    rows: &Int8Rows,
    e: EntityRows<'_>,
    x: &[f32],
    tails: &[u32],
    known: &[&[u32]],
    ranked: Option<&[f32]>,
) -> Vec<(f64, f32)> {
    let (n, d) = (e.len(), e.width());
    let row = |ent: u32| e.row(ent);
    let mut out = Vec::with_capacity(tails.len());
    for (c, xs) in x.chunks(QUERIES_PER_PASS * d).enumerate() {
        let first = c * QUERIES_PER_PASS;
        let logits: Vec<f32> = xs
            .chunks(d)
            .zip(&tails[first..])
            .map(|(xq, &t)| exact_score(row(t), xq))
            .collect();
        let scores: Vec<f32> = match ranked {
            Some(ranked) => logits
                .iter()
                .zip(&ranked[first..])
                .map(|(&l, &r)| if r > l { r } else { l })
                .collect(),
            None => logits.clone(),
        };
        let visit = |counts: &mut Counts, q: usize, tile: &Tile<'_>| {
            let s = scores[q];
            if !tile.any_reaches(s) {
                return;
            }
            for i in 0..tile.raw.len() {
                let (low, up) = tile.bounds(i);
                if up < s {
                    continue;
                }
                if low > s {
                    counts.above += 1;
                } else {
                    counts.undecided.push((tile.first + i) as u32);
                }
            }
        };
        let merge = |mut a: Counts, b: Counts| {
            a.above += b.above;
            a.undecided.extend(b.undecided);
            a
        };
        let xq = Int16Queries::new(xs, d);
        let counted = scan_tiles(rows, &xq, Counts::default, visit, merge);
        for (q, counts) in counted.into_iter().enumerate() {
            let (t, s, xq) = (tails[first + q], scores[q], &xs[q * d..][..d]);
            if s.is_nan() {
                out.push((n as f64, logits[q]));
                continue;
            }
            let (mut above, mut equal) = (counts.above as i64, 0i64);
            let undecided = counts.undecided.into_iter().chain(e.appended_ids());
            for ent in undecided.filter(|&ent| ent != t) {
                let v = exact_score(row(ent), xq);
                above += i64::from(v > s);
                equal += i64::from(v == s);
            }
            for &ent in known.get(first + q).copied().unwrap_or(&[]) {
                if ent != t {
                    let v = exact_score(row(ent), xq);
                    above -= i64::from(v > s);
                    equal -= i64::from(v == s);
                }
            }
            out.push((1.0 + above as f64 + equal as f64 / 2.0, logits[q]));
        }
    }
    out
}
