//! The approximate index against the exact scan on one saved model: build time, rows left to
//! the exact side scan (and the share of the exact answers among them), memory, then per search
//! width recall@k against the exact top k and single-query latency percentiles, with the exact
//! scan's latency measured in the same run.
//! Prints a markdown table.
//!
//! `cargo run --release -p neptune_ann --example approx_top_k -- --model <dir> [--queries 1000]
//!  [--k 10] [--widths 64,128,256,512] [--connections 24] [--build-width 200]`
//!
//! Queries are seeded random (entity, relation) pairs over base and reverse relations; nothing
//! is excluded (exclusions are exact either way).

use neptune_ann::{approx_top_k_batch, recall, ApproxIndex, BuildOptions};
use neptune_core::Model;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

#[path = "../../core/examples/shared/args.rs"]
mod args;
use args::{arg, num};
#[path = "shared/draws.rs"]
mod draws;
use draws::Draws;

/// Resident memory of this process in MiB (Linux).
fn rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// The p-th percentile (0..=100) of sorted milliseconds.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Each query alone, in milliseconds, sorted.
fn latencies(queries: &[(u32, u32)], mut one: impl FnMut((u32, u32))) -> Vec<f64> {
    let mut ms: Vec<f64> = queries
        .iter()
        .map(|&q| {
            let t = Instant::now();
            one(q);
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    ms
}

fn main() {
    let dir = arg("--model").expect("--model <dir>");
    let (count, k) = (num("--queries", 1000), num("--k", 10));
    let widths: Vec<usize> = arg("--widths")
        .unwrap_or_else(|| "64,128,256,512".into())
        .split(',')
        .map(|w| w.parse().expect("a width"))
        .collect();
    let options = BuildOptions {
        connections: num("--connections", 24),
        ef_construction: num("--build-width", 200),
    };
    let model = Model::load(&dir).expect("a saved model");
    model.warm_up(1 << 30);
    let (n, d, rels) = (model.params.n_ent, model.params.d_e, model.params.n_rel);
    let mut draws = Draws::new();
    let queries = draws.queries(count, n, rels);

    let before = rss_mib();
    let t = Instant::now();
    let index = ApproxIndex::build(
        &model.params.e,
        d,
        options,
        &AtomicBool::new(false),
        &mut |done, total| {
            // Every tenth of the rows (the build takes minutes at a million entities).
            let step = (total / 10).max(1);
            if done % step < 8192 || done == total {
                eprintln!(
                    "built {done} of {total} rows, {:.0} s",
                    t.elapsed().as_secs_f64()
                );
            }
        },
    )
    .expect("valid options")
    .expect("not stopped");
    let build_s = t.elapsed().as_secs_f64();
    let index_mib = rss_mib() - before;

    let exact = model.top_k_batch(&queries, k, &[]).expect("exact top-k");
    let exact_ms = latencies(&queries, |q| {
        model.top_k_batch(&[q], k, &[]).expect("exact top-k");
    });
    println!(
        "model {dir}: {n} entities, d_e {d}; index M {} efConstruction {}: built in {build_s:.1} s, \
         {} rows ({:.2}%) scanned exactly beside every search, index memory {index_mib:.0} MiB",
        options.connections,
        options.ef_construction,
        index.unreachable().len(),
        100.0 * index.unreachable().len() as f64 / n as f64,
    );
    let answers: Vec<u32> = exact
        .iter()
        .flat_map(|top| top.iter().map(|p| p.entity))
        .collect();
    let beside = answers
        .iter()
        .filter(|e| index.unreachable().binary_search(e).is_ok())
        .count();
    println!(
        "{count} single queries, top {k}, {} threads; {:.2}% of the exact answers are rows scanned beside\n",
        rayon::current_num_threads(),
        100.0 * beside as f64 / answers.len().max(1) as f64
    );
    println!("| search | recall@{k} | p50 ms | p99 ms | exact fallbacks |");
    println!("|---|---:|---:|---:|---:|");
    println!(
        "| exact scan | 1.0000 | {:.3} | {:.3} | |",
        percentile(&exact_ms, 50.0),
        percentile(&exact_ms, 99.0)
    );
    for &ef in &widths {
        let found = approx_top_k_batch(&model, &index, &queries, k, &[], ef).expect("approx");
        let ms = latencies(&queries, |q| {
            approx_top_k_batch(&model, &index, &[q], k, &[], ef).expect("approx");
        });
        println!(
            "| width {ef} | {:.4} | {:.3} | {:.3} | {} |",
            recall(&found.top, &exact),
            percentile(&ms, 50.0),
            percentile(&ms, 99.0),
            found.exact_fallbacks
        );
    }
}
