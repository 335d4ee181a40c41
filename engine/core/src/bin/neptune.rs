//! Command-line trainer for benchmarks and quick checks.
//!
//! ```text
//! neptune train --dataset DIR [--preset default|fb15k-237|wn18rr] [--epochs N] [--threads N]
//!               [--eval-every N] [--patience N] [--lr X] [--seed N] [--checkpoint DIR]
//!               [--max-batches N] [--test] [--save DIR] [--set key=value,...]
//! neptune eval  --model DIR --dataset DIR [--threads N]
//! ```
//! `--max-batches` stops after that many batches and prints the mean time per batch and the
//! extrapolated epoch time (for timing large datasets without a full epoch).

use neptune_core::{evaluate, Config, Dataset, Metrics, Model, Progress, Split, Trainer};
use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn parse(args: &[String]) -> Result<HashMap<String, String>, String> {
    let mut m = HashMap::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let key = a
            .strip_prefix("--")
            .ok_or_else(|| format!("unexpected argument `{a}`"))?;
        if key == "test" {
            m.insert(key.to_string(), "1".to_string());
            continue;
        }
        let v = it.next().ok_or_else(|| format!("--{key} needs a value"))?;
        m.insert(key.to_string(), v.clone());
    }
    Ok(m)
}

fn num<T: std::str::FromStr>(m: &HashMap<String, String>, k: &str) -> Result<Option<T>, String> {
    m.get(k)
        .map(|v| {
            v.parse::<T>()
                .map_err(|_| format!("--{k}: cannot parse `{v}`"))
        })
        .transpose()
}

fn print_metrics(label: &str, m: &Metrics, seconds: f64) {
    let o = &m.overall;
    println!("{label}: MRR {:.4}  MR {:.1}  H@1 {:.4}  H@3 {:.4}  H@10 {:.4}  ({} queries in {seconds:.3}s)", o.mrr, o.mr, o.hits1, o.hits3, o.hits10, o.count);
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (cmd, rest) = args
        .split_first()
        .ok_or("usage: neptune train|eval --dataset DIR ...")?;
    let m = parse(rest)?;
    let dataset_dir = m.get("dataset").ok_or("--dataset DIR is required")?;
    let t = Instant::now();
    let data = Dataset::from_dir(dataset_dir)?;
    eprintln!(
        "loaded {} entities, {} relations, {}/{}/{} triples in {:.2}s",
        data.n_entities(),
        data.n_relations(),
        data.train.len(),
        data.valid.len(),
        data.test.len(),
        t.elapsed().as_secs_f64()
    );
    match cmd.as_str() {
        "eval" => {
            let model = Model::load(m.get("model").ok_or("--model DIR is required")?)?;
            let threads = num(&m, "threads")?.unwrap_or(0);
            // Seconds: filter index and ranking of the split, the model and data already loaded.
            for (label, split) in [("valid", Split::Valid), ("test", Split::Test)] {
                let t = Instant::now();
                let metrics = evaluate(&model, &data, split, threads)?;
                print_metrics(label, &metrics, t.elapsed().as_secs_f64());
            }
        }
        "train" => {
            let size = neptune_core::GraphSize {
                entities: data.n_entities(),
                relations: data.n_relations(),
                train_triples: data.train.len(),
            };
            // Flags and --set key=value,key=value override any config field (values parsed as
            // JSON, falling back to strings: --set activation=prelu,d_e=100); `default` is sized
            // around them.
            let mut overrides = neptune_core::Overrides::new();
            for (flag, field) in [
                ("epochs", "epochs"),
                ("threads", "threads"),
                ("eval-every", "eval_every"),
                ("patience", "patience"),
                ("lr", "lr"),
                ("seed", "seed"),
            ] {
                if let Some(v) = m.get(flag) {
                    overrides.insert(
                        field.into(),
                        serde_json::from_str(v)
                            .map_err(|_| format!("--{flag}: `{v}` is not a number"))?,
                    );
                }
            }
            if let Some(sets) = m.get("set") {
                for kv in sets.split(',') {
                    let (k, val) = kv
                        .split_once('=')
                        .ok_or_else(|| format!("--set: `{kv}` is not key=value"))?;
                    overrides.insert(
                        k.into(),
                        serde_json::from_str(val)
                            .unwrap_or(serde_json::Value::String(val.to_string())),
                    );
                }
            }
            let cfg = Config::resolve(
                m.get("preset").map_or("default", |s| s.as_str()),
                Some(size),
                &overrides,
            )?;
            let max_batches: Option<usize> = num(&m, "max-batches")?;
            eprintln!("config: {}", serde_json::to_string(&cfg)?);
            let mut trainer = Trainer::new(cfg)?;
            if let Some(d) = m.get("checkpoint") {
                trainer = trainer.with_checkpoint_dir(d);
            }
            let cancel = AtomicBool::new(false);
            let (mut n_batches, mut batch_secs, mut batches_per_epoch) = (0usize, 0.0f64, 0usize);
            let mut last = Instant::now();
            let outcome = trainer.train(&data, |p| match p {
                Progress::Batch { batch, batches, .. } => {
                    let dt = last.elapsed().as_secs_f64();
                    last = Instant::now();
                    batches_per_epoch = *batches;
                    n_batches += 1;
                    // Skip the first (warm-up: buffer allocation) batch in the timing.
                    if n_batches > 1 { batch_secs += dt; }
                    if max_batches.is_some_and(|mb| n_batches >= mb) {
                        cancel.store(true, Ordering::Relaxed);
                    }
                    let _ = batch;
                }
                Progress::Epoch { epoch, loss, seconds, examples_per_sec, lr, .. } => {
                    println!("epoch {epoch:5}  loss {loss:.6}  {seconds:8.3}s  {examples_per_sec:9.0} ex/s  lr {lr:.2e}");
                    last = Instant::now();
                }
                Progress::Validation { epoch, metrics, best_mrr, seconds, .. } => {
                    let o = &metrics.overall;
                    println!("  valid @{epoch}: MRR {:.4}  H@1 {:.4}  H@10 {:.4}  (best {best_mrr:.4}, {seconds:.2}s)", o.mrr, o.hits1, o.hits10);
                    last = Instant::now();
                }
            }, &cancel)?;
            if max_batches.is_some() && n_batches > 1 {
                let per = batch_secs / (n_batches - 1) as f64;
                println!(
                    "timed {} batches: {:.1} ms/batch -> {:.1} s per epoch of {} batches",
                    n_batches - 1,
                    per * 1e3,
                    per * batches_per_epoch as f64,
                    batches_per_epoch
                );
            }
            if max_batches.is_some() {
                let total: f64 = outcome.phase_seconds.iter().map(|p| p.1).sum();
                for (name, secs) in &outcome.phase_seconds {
                    println!(
                        "  {name:18} {:8.2} ms/batch  {:5.1}%",
                        secs * 1e3 / n_batches as f64,
                        100.0 * secs / total.max(1e-12)
                    );
                }
            }
            println!(
                "stopped: {:?} after {} epochs; best epoch {}",
                outcome.stop, outcome.epochs_run, outcome.state.best_epoch
            );
            if m.contains_key("test") {
                let t = Instant::now();
                let test = trainer.evaluate(&outcome.model, &data, Split::Test)?;
                print_metrics("test", &test, t.elapsed().as_secs_f64());
            }
            if let Some(d) = m.get("save") {
                outcome.model.save(d)?;
            }
        }
        other => return Err(format!("unknown command `{other}` (train | eval)").into()),
    }
    Ok(())
}
