//! How much of the entity matrix a partitioned scan (IVF) must read to find the exact top k, on
//! one saved model: the rows less their mean are split into `--lists` cells by spherical k-means
//! (`--rounds` rounds from seeded random rows), and each query reads its cells in one of two
//! orders: by `x · (the cell's mean row)`, or by the bound `x · mean + |x| · radius` that no row
//! of the cell can exceed (read by the bound until it falls below the k-th best score, the scan
//! is exact). Per number of cells read the table gives recall@k against the exact top k and the
//! share of rows read. A scan's time is about that share of the exact scan's (which reads every
//! row), so a share well under a half is what would make such an index worth building. Prints a
//! markdown table.
//!
//! `cargo run --release -p neptune_ann --example partitioned_scan -- --model <dir>
//!  [--queries 300] [--k 10] [--lists 1024] [--rounds 4]`
//!
//! Queries are seeded random (entity, relation) pairs over base and reverse relations, as in
//! `approx_top_k`.

use neptune_ann::approx_index::{centered_rows, mean_row};
use neptune_core::kernels::dot::dot;
use neptune_core::linalg::{matmul, Op};
use neptune_core::Model;
use rayon::prelude::*;

#[path = "../../core/examples/shared/args.rs"]
mod args;
use args::{arg, num};
#[path = "shared/draws.rs"]
mod draws;
use draws::Draws;

/// Rows scored against the cells at once (`ROW_CHUNK x lists` floats of scores).
const ROW_CHUNK: usize = 32_768;

/// The cell of every row of `rows` (`n x d`): the largest inner product with a unit `center`.
fn assign(rows: &[f32], d: usize, centers: &[f32], lists: usize) -> Vec<u32> {
    let mut cell = Vec::with_capacity(rows.len() / d);
    let mut scores = vec![0f32; ROW_CHUNK * lists];
    for chunk in rows.chunks(ROW_CHUNK * d) {
        let m = chunk.len() / d;
        matmul(
            &mut scores[..m * lists],
            Op::n(chunk, m, d),
            Op::t(centers, lists, d),
            false,
            true,
        );
        cell.par_extend(scores[..m * lists].par_chunks(lists).map(|s| {
            let best = s
                .iter()
                .enumerate()
                .fold((0, f32::MIN), |b, (c, &v)| if v > b.1 { (c, v) } else { b });
            best.0 as u32
        }));
    }
    cell
}

/// The mean row of each cell (`lists x d`); `unit` scales each to norm 1 (empty cells keep
/// `previous`).
fn cell_means(
    rows: &[f32],
    d: usize,
    cell: &[u32],
    lists: usize,
    unit: bool,
    previous: &[f32],
) -> Vec<f32> {
    let mut sum = vec![0f64; lists * d];
    let mut count = vec![0usize; lists];
    for (row, &c) in rows.chunks_exact(d).zip(cell) {
        let c = c as usize;
        count[c] += 1;
        for (s, &v) in sum[c * d..][..d].iter_mut().zip(row) {
            *s += f64::from(v);
        }
    }
    let mut out = previous.to_vec();
    for c in 0..lists {
        if count[c] == 0 {
            continue;
        }
        let mean: Vec<f64> = sum[c * d..][..d]
            .iter()
            .map(|s| s / count[c] as f64)
            .collect();
        let norm = if unit {
            mean.iter()
                .map(|v| v * v)
                .sum::<f64>()
                .sqrt()
                .max(f64::MIN_POSITIVE)
        } else {
            1.0
        };
        for (o, v) in out[c * d..][..d].iter_mut().zip(&mean) {
            *o = (v / norm) as f32;
        }
    }
    out
}

fn main() {
    let dir = arg("--model").expect("--model <dir>");
    let (count, k) = (num("--queries", 300), num("--k", 10));
    let (lists, rounds) = (num("--lists", 1024), num("--rounds", 4));
    let model = Model::load(&dir).expect("a saved model");
    let (n, d, rels) = (model.params.n_ent, model.params.d_e, model.params.n_rel);
    let mut draws = Draws::new();
    let queries = draws.queries(count, n, rels);

    // The rows less their mean (the shared direction every query's logits carry alike).
    let mean = mean_row(&model.params.e, d);
    let rows = centered_rows(&model.params.e, &mean);

    let mut centers: Vec<f32> = Vec::with_capacity(lists * d);
    for _ in 0..lists {
        let row = &rows[draws.below(n) as usize * d..][..d];
        let norm = dot(row, row).sqrt().max(f32::MIN_POSITIVE);
        centers.extend(row.iter().map(|v| v / norm));
    }
    let mut cell = assign(&rows, d, &centers, lists);
    for round in 1..rounds {
        centers = cell_means(&rows, d, &cell, lists, true, &centers);
        cell = assign(&rows, d, &centers, lists);
        eprintln!("k-means round {round} of {rounds}");
    }
    let means = cell_means(&rows, d, &cell, lists, false, &vec![0.0; lists * d]);
    let mut size = vec![0usize; lists];
    cell.iter().for_each(|&c| size[c as usize] += 1);
    // Each cell's radius: the largest distance of its rows from its mean row.
    let mut radius = vec![0f32; lists];
    for (row, &c) in rows.chunks_exact(d).zip(&cell) {
        let m = &means[c as usize * d..][..d];
        let r = row
            .iter()
            .zip(m)
            .map(|(v, w)| (v - w) * (v - w))
            .sum::<f32>();
        radius[c as usize] = radius[c as usize].max(r.sqrt());
    }

    let exact = model.top_k_batch(&queries, k, &[]).expect("exact top-k");
    let x = model.hidden_vectors(&queries).expect("hidden vectors");
    let mut scores = vec![0f32; count * lists];
    matmul(
        &mut scores,
        Op::n(&x, count, d),
        Op::t(&means, lists, d),
        false,
        true,
    );
    // Per query: the rank of each cell in its reading order, and the rows read before each rank.
    let depths: Vec<usize> = std::iter::successors(Some(1usize), |p| Some(p * 2))
        .take_while(|&p| p < lists)
        .chain([lists])
        .collect();
    // Two reading orders: by `x · mean` (the cell's centre), and by the bound
    // `x · mean + |x| radius`, above which no row of the cell can score; reading by the bound
    // until the next cell's is below the k-th best score found is exact.
    let mut found = [vec![0usize; depths.len()], vec![0usize; depths.len()]];
    let mut read = [vec![0usize; depths.len()], vec![0usize; depths.len()]];
    let mut exact_read = 0usize;
    for (q, top) in exact.iter().enumerate() {
        let s = &scores[q * lists..][..lists];
        let xq = &x[q * d..][..d];
        let x_norm = dot(xq, xq).sqrt();
        let bound: Vec<f32> = (0..lists).map(|c| s[c] + x_norm * radius[c]).collect();
        // The k-th logit less the mean row's share (`x · mean`), as the cells' scores are.
        let shift = dot(xq, &mean);
        let kth = top.last().map_or(f32::MIN, |p| p.logit - shift);
        for (o, key) in [s, &bound[..]].into_iter().enumerate() {
            let mut order: Vec<usize> = (0..lists).collect();
            order.sort_by(|&a, &b| key[b].total_cmp(&key[a]));
            let mut rank = vec![0usize; lists];
            order.iter().enumerate().for_each(|(r, &c)| rank[c] = r);
            for (t, &p) in depths.iter().enumerate() {
                found[o][t] += top
                    .iter()
                    .filter(|a| rank[cell[a.entity as usize] as usize] < p)
                    .count();
                read[o][t] += order[..p].iter().map(|&c| size[c]).sum::<usize>();
            }
            if o == 1 {
                let unread_cannot_beat = |&&c: &&usize| bound[c] >= kth;
                exact_read += order
                    .iter()
                    .take_while(unread_cannot_beat)
                    .map(|&c| size[c])
                    .sum::<usize>();
            }
        }
    }
    let wanted: usize = exact.iter().map(Vec::len).sum();
    println!(
        "model {dir}: {n} entities, d_e {d}; {lists} cells, {rounds} rounds of spherical k-means; \
         largest cell {:.2}% of the rows, {} empty\n{count} queries, top {k}\n",
        100.0 * *size.iter().max().unwrap_or(&0) as f64 / n as f64,
        size.iter().filter(|&&s| s == 0).count()
    );
    let share = |rows: usize| 100.0 * rows as f64 / (n * count) as f64;
    println!(
        "| cells read | by centre: recall@{k} | rows read | by bound: recall@{k} | rows read |"
    );
    println!("|---:|---:|---:|---:|---:|");
    for (t, &p) in depths.iter().enumerate() {
        println!(
            "| {p} | {:.4} | {:.2}% | {:.4} | {:.2}% |",
            found[0][t] as f64 / wanted.max(1) as f64,
            share(read[0][t]),
            found[1][t] as f64 / wanted.max(1) as f64,
            share(read[1][t]),
        );
    }
    println!(
        "\nread by the bound until no unread cell can hold a top-{k} row (exact): {:.2}% of the rows",
        share(exact_read)
    );
}
