//! Loading a large model as a server does: seconds and memory (this process's resident set from
//! /proc/self/status) after loading, after warming up (relation cores, 8-bit rows), and with a
//! second version loaded beside it as during a hot swap, then after the first is dropped.
//! Anonymous memory is what the process itself holds; file-backed pages are the page cache's
//! (mapped files), which the kernel reclaims under pressure. Peaks are sampled every 2 ms.
//!
//! `cargo run --release --example model_load -- --save <dir> [--entities 1000000] [--d-e 200]`
//! `cargo run --release --example model_load -- --load <dir> [--second <dir>]`

use neptune_core::config::Config;
use neptune_core::params::Params;
use neptune_core::Model;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[path = "shared/args.rs"]
mod args;
use args::arg;

/// The largest `RssAnon` seen by the sampler, in KiB.
static PEAK_ANON_KB: AtomicU64 = AtomicU64::new(0);

fn status_kb(status: &str, name: &str) -> Option<u64> {
    status
        .lines()
        .find(|l| l.starts_with(name))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse().ok())
}

/// `VmRSS`, `RssAnon`, `RssFile`, `VmHWM` (peak) and the sampled peak of `RssAnon`, in MiB, as
/// table cells.
fn memory() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let mib =
        |kb: Option<u64>| kb.map_or("?".to_string(), |kb| format!("{:.0}", kb as f64 / 1024.0));
    format!(
        "{} | {} | {} | {} | {} |",
        mib(status_kb(&status, "VmRSS:")),
        mib(status_kb(&status, "RssAnon:")),
        mib(status_kb(&status, "RssFile:")),
        mib(status_kb(&status, "VmHWM:")),
        mib(Some(PEAK_ANON_KB.load(Ordering::Relaxed))),
    )
}

fn main() {
    if let Some(dir) = arg("--save") {
        let n: usize = arg("--entities").map_or(1_000_000, |v| v.parse().unwrap());
        let cfg = Config {
            d_e: arg("--d-e").map_or(200, |v| v.parse().unwrap()),
            d_r: 30,
            ..Config::default()
        };
        let params = Params::<f32>::init(&cfg, n, 20);
        let model = Model::new(
            cfg,
            params,
            (0..n).map(|i| format!("e{i}")).collect(),
            (0..10).map(|i| format!("r{i}")).collect(),
            0,
            None,
        );
        model.save(&dir).expect("saved");
        println!("saved {n} entities to {dir}");
        return;
    }
    let dir = arg("--load").expect("--load <dir> or --save <dir>");
    std::thread::spawn(|| loop {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let anon = status_kb(&status, "RssAnon:").unwrap_or(0);
        PEAK_ANON_KB.fetch_max(anon, Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(2));
    });
    println!("| step | seconds | RSS MiB | anonymous | file-backed | peak RSS | peak anonymous |");
    println!("|---|---|---|---|---|---|---|");
    println!("| start | | {}", memory());
    let t = Instant::now();
    let model = Model::load(&dir).expect("a saved model");
    println!("| load | {:.2} | {}", t.elapsed().as_secs_f64(), memory());
    let t = Instant::now();
    model.warm_up(usize::MAX);
    println!(
        "| warm up | {:.2} | {}",
        t.elapsed().as_secs_f64(),
        memory()
    );
    if let Some(second) = arg("--second") {
        let t = Instant::now();
        let next = Model::load(&second).expect("a saved model");
        next.warm_up(usize::MAX);
        println!(
            "| second version loaded and warmed up beside it | {:.2} | {}",
            t.elapsed().as_secs_f64(),
            memory()
        );
        drop(model);
        println!("| first dropped | | {}", memory());
        assert!(next.n_entities() > 0);
    }
}
