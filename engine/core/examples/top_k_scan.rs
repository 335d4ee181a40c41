//! Exact top-k at scale: scoring every entity from the f32 rows against scanning 8-bit rows
//! with an exact re-rank, each against the floor of one pass over its rows (their bytes at this
//! run's measured read bandwidth, all threads). Prints a markdown table.
//!
//! `cargo run --release --example top_k_scan -- [--model <dir>] [--entities 1000000] [--d-e 200]
//!  [--k 20] [--queries 64]`
//! Then the filtered ranks of given answers, one or many a call (`filtered_ranks_with`), both ways.
//! Without `--model` the model is the default initialisation at the given size (its rows are
//! random: the survivors of the scan are fewer than a trained model's; `--model` measures those).

use neptune_core::config::Config;
use neptune_core::exact_top_k::exact_top_k;
use neptune_core::params::Params;
use neptune_core::scoring::{hidden_into, CoreCache, ScoreBuffers};
use neptune_core::{filtered_ranks_with, Model, TopKScan};
use rayon::prelude::*;
use std::time::Instant;

#[path = "shared/timing.rs"]
mod timing;
use timing::best_of;

#[path = "shared/args.rs"]
mod args;
use args::{arg, num};

/// Read bandwidth in bytes/s: a parallel sum over a buffer of `bytes` (as u64 words; far larger
/// than the caches), best of 5.
fn read_bandwidth(bytes: usize) -> f64 {
    let words = vec![1u64; bytes / 8];
    let mut sink = 0u64;
    let s = best_of(5, &mut || {
        sink = sink.wrapping_add(
            words
                .par_chunks(1 << 16)
                .map(|c| c.iter().fold(0u64, |a, &w| a.wrapping_add(w)))
                .reduce(|| 0, u64::wrapping_add),
        );
    });
    assert!(sink > 0);
    bytes as f64 / s
}

/// Copy bandwidth in bytes/s (bytes read + written), best of 5.
fn copy_bandwidth(bytes: usize) -> f64 {
    let src = vec![1u8; bytes];
    let mut dst = vec![0u8; bytes];
    let s = best_of(5, &mut || {
        dst.par_chunks_mut(1 << 20)
            .zip(src.par_chunks(1 << 20))
            .for_each(|(d, s)| d.copy_from_slice(s));
    });
    assert_eq!(dst[bytes - 1], 1);
    2.0 * bytes as f64 / s
}

fn main() {
    let model = match arg("--model") {
        Some(dir) => Model::load(&dir).expect("a saved model"),
        None => {
            let n = num("--entities", 1_000_000);
            let cfg = Config {
                d_e: num("--d-e", 200),
                d_r: 30,
                ..Config::default()
            };
            let params = Params::<f32>::init(&cfg, n, 20);
            Model::new(
                cfg,
                params,
                (0..n).map(|i| format!("e{i}")).collect(),
                (0..10).map(|i| format!("r{i}")).collect(),
                0,
                None,
            )
        }
    };
    let (n, d) = (model.n_entities(), model.params.d_e);
    let k = num("--k", 20);
    let n_queries = num("--queries", 64);
    let n_rel = model.n_model_relations() as u32;
    let queries: Vec<(u32, u32)> = (0..n_queries as u32)
        .map(|i| ((i as u64 * 2_654_435_761 % n as u64) as u32, i % n_rel))
        .collect();
    let t = Instant::now();
    model.warm_up(usize::MAX);
    let int8_bytes = model.int8_rows().bytes();
    let warm_up_s = t.elapsed().as_secs_f64();
    let f32_bytes = n * d * 4;
    let read = read_bandwidth(f32_bytes.max(256 << 20));
    let copy = copy_bandwidth(f32_bytes.max(256 << 20));
    let threads = rayon::current_num_threads();
    println!(
        "{n} entities, d_e {d}, k {k}, {threads} threads; read {:.1} GB/s, copy {:.1} GB/s \
         (read + written); warm-up (relation cores, 8-bit rows) {:.2} s\n",
        read / 1e9,
        copy / 1e9,
        warm_up_s
    );
    // Both ways agree before anything is timed.
    let a = model
        .top_k_batch_with(&queries, k, &[], TopKScan::F32)
        .unwrap();
    let b = model
        .top_k_batch_with(&queries, k, &[], TopKScan::Int8)
        .unwrap();
    let same = a
        .iter()
        .zip(&b)
        .filter(|(x, y)| {
            x.iter().map(|p| p.entity).collect::<Vec<_>>()
                == y.iter().map(|p| p.entity).collect::<Vec<_>>()
        })
        .count();
    // How many entities the scan leaves to re-score, per query.
    let cache = CoreCache::new(model.params.n_rel);
    cache.prepare(
        &model.params,
        &queries.iter().map(|q| q.1).collect::<Vec<_>>(),
    );
    let x = hidden_into(
        &model.params,
        &cache,
        &queries,
        &mut ScoreBuffers::default(),
    )
    .to_vec();
    let rescored = exact_top_k(model.int8_rows(), model.entity_rows(), &x, k, &[]).rescored;
    println!(
        "same top {k} both ways: {same} of {n_queries} queries; re-scored exactly per query: {:.1}\n",
        rescored as f64 / n_queries as f64
    );
    println!("| scan | rows read | queries per call | ms per call (best) | ms per query | floor ms (one pass) | x floor | p50 / p99 ms, one query a call |");
    println!("|---|---|---|---|---|---|---|---|");
    for (name, scan, bytes) in [
        ("f32 rows", TopKScan::F32, f32_bytes),
        ("8-bit rows + exact re-rank", TopKScan::Int8, int8_bytes),
    ] {
        let floor = bytes as f64 / read;
        for batch in [1usize, 16] {
            let calls: Vec<&[(u32, u32)]> = queries.chunks(batch).take(8).collect();
            let mut i = 0;
            let s = best_of(calls.len().max(3), &mut || {
                let q = calls[i % calls.len()];
                i += 1;
                model.top_k_batch_with(q, k, &[], scan).unwrap();
            });
            // Latency percentiles of single queries, each its own call.
            let percentiles = if batch == 1 {
                let mut times: Vec<f64> = queries
                    .iter()
                    .map(|q| {
                        let t = Instant::now();
                        model.top_k_batch_with(&[*q], k, &[], scan).unwrap();
                        t.elapsed().as_secs_f64() * 1e3
                    })
                    .collect();
                times.sort_by(f64::total_cmp);
                let at = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
                format!("{:.1} / {:.1}", at(0.5), at(0.99))
            } else {
                String::new()
            };
            println!(
                "| {name} | {:.0} MB | {batch} | {:.1} | {:.2} | {:.1} | {:.2} | {percentiles} |",
                bytes as f64 / 1e6,
                s * 1e3,
                s * 1e3 / batch as f64,
                floor * 1e3,
                s / floor
            );
        }
    }
    // The filtered rank of one given tail (edgeProbabilities), both ways.
    let triples: Vec<(u32, u32, u32)> = queries
        .iter()
        .zip(&b)
        .map(|(&(h, r), top)| (h, r, top.last().map_or(0, |p| p.entity)))
        .collect();
    for (name, scan) in [("f32 rows", TopKScan::F32), ("8-bit rows", TopKScan::Int8)] {
        let mut i = 0;
        let s = best_of(8, &mut || {
            let t = triples[i % triples.len()];
            i += 1;
            filtered_ranks_with(&model, &[t], &[], scan).unwrap();
        });
        println!("filtered rank of one tail, {name}: {:.1} ms", s * 1e3);
    }
    // Filtered ranks of many given tails at once (evaluation, the promotion gate, the fold-in
    // canary): answers the model ranks first, and answers deep in its ranking (any entity).
    println!("\n| filtered ranks per call | answers | f32 rows ms/query | 8-bit rows ms/query | Auto ms/query |");
    println!("|---|---|---|---|---|");
    for batch in [16usize, 64, 256, 2048] {
        for (answers, high) in [
            ("ranked first by the model", true),
            ("any entity (deep)", false),
        ] {
            let triples: Vec<(u32, u32, u32)> = (0..batch)
                .map(|i| {
                    let (h, r) = queries[i % queries.len()];
                    let t = if high {
                        a[i % a.len()].first().map_or(0, |p| p.entity)
                    } else {
                        (i as u64 * 7_919 % n as u64) as u32
                    };
                    (h, r, t)
                })
                .collect();
            let per_query = |scan| {
                best_of(2, &mut || {
                    filtered_ranks_with(&model, &triples, &[], scan).unwrap();
                }) * 1e3
                    / batch as f64
            };
            println!(
                "| {batch} | {answers} | {:.3} | {:.3} | {:.3} |",
                per_query(TopKScan::F32),
                per_query(TopKScan::Int8),
                per_query(TopKScan::Auto)
            );
        }
    }
}
