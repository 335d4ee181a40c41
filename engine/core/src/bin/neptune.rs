//! Command-line trainer for benchmarks and quick checks (`neptune --help`).
//!
//! `train --max-batches N` stops after N batches and prints the mean time per batch (first batch
//! excluded), the extrapolated epoch time and the time per phase, for timing large datasets
//! without a full epoch; bench/train-speed reads those lines.

use clap::{Args, Parser, Subcommand};
use neptune_core::{
    evaluate, evaluate_sample, Config, Dataset, Metrics, Model, Overrides, Progress, Split, Trainer,
};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

#[derive(Parser)]
#[command(name = "neptune", version, about = "NePTuNe training and evaluation")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Train on a folder of train.txt / valid.txt / test.txt.
    Train(TrainArgs),
    /// Filtered valid and test metrics of a saved model.
    Eval {
        #[arg(long)]
        model: PathBuf,
        #[arg(long)]
        dataset: PathBuf,
        /// Worker threads (0 = all cores).
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// Rank at most this many triples of each split (a seeded sample).
        #[arg(long)]
        max_triples: Option<usize>,
    },
}

#[derive(Args)]
struct TrainArgs {
    #[arg(long)]
    dataset: PathBuf,
    #[arg(long, default_value = "default", value_parser = clap::builder::PossibleValuesParser::new(neptune_core::PRESETS))]
    preset: String,
    #[arg(long)]
    epochs: Option<usize>,
    #[arg(long)]
    threads: Option<usize>,
    #[arg(long)]
    eval_every: Option<usize>,
    #[arg(long)]
    patience: Option<usize>,
    #[arg(long)]
    lr: Option<f64>,
    #[arg(long)]
    seed: Option<u64>,
    /// Write `last` and `best` checkpoints here.
    #[arg(long)]
    checkpoint: Option<PathBuf>,
    /// Stop after this many batches and print timings.
    #[arg(long)]
    max_batches: Option<usize>,
    /// Evaluate the kept model on the test split.
    #[arg(long)]
    test: bool,
    /// Save the kept model here.
    #[arg(long)]
    save: Option<PathBuf>,
    /// Any config field, `key=value,...` (values parsed as JSON, else taken as strings:
    /// `--set activation=prelu,d_e=100`).
    #[arg(long)]
    set: Option<String>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Train(args) => train(args),
        Command::Eval {
            model,
            dataset,
            threads,
            max_triples,
        } => eval(&model, &dataset, threads, max_triples),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

type CliResult = Result<(), Box<dyn std::error::Error>>;

fn load_dataset(dir: &PathBuf) -> neptune_core::Result<Dataset> {
    let t = Instant::now();
    let data = Dataset::from_dir(dir)?;
    eprintln!(
        "loaded {} entities, {} relations, {}/{}/{} triples in {:.2}s",
        data.n_entities(),
        data.n_relations(),
        data.train.len(),
        data.valid.len(),
        data.test.len(),
        t.elapsed().as_secs_f64()
    );
    Ok(data)
}

/// The process's resident and peak resident memory (Linux `/proc/self/status`; nothing
/// elsewhere), for the scale benchmark: `memory <when>: rss <MiB> MiB, peak <MiB> MiB`.
fn print_memory(when: &str) {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return;
    };
    let kib = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|rest| rest.split_whitespace().next()?.parse::<f64>().ok())
            .unwrap_or(f64::NAN)
    };
    println!(
        "memory {when}: rss {:.1} MiB, peak {:.1} MiB",
        kib("VmRSS:") / 1024.0,
        kib("VmHWM:") / 1024.0
    );
}

fn print_metrics(label: &str, m: &Metrics, seconds: f64) {
    let o = &m.overall;
    println!(
        "{label}: MRR {:.4}  MR {:.1}  H@1 {:.4}  H@3 {:.4}  H@10 {:.4}  ({} queries in {seconds:.3}s)",
        o.mrr, o.mr, o.hits1, o.hits3, o.hits10, o.count
    );
}

fn eval(
    model: &PathBuf,
    dataset: &PathBuf,
    threads: usize,
    max_triples: Option<usize>,
) -> CliResult {
    let data = load_dataset(dataset)?;
    let model = Model::load(model)?;
    // Seconds: filter index and ranking of the split, the model and data already loaded.
    for (label, split) in [("valid", Split::Valid), ("test", Split::Test)] {
        let t = Instant::now();
        let metrics = match max_triples {
            Some(max) => evaluate_sample(&model, &data, split, max, threads)?,
            None => evaluate(&model, &data, split, threads)?,
        };
        print_metrics(label, &metrics, t.elapsed().as_secs_f64());
    }
    Ok(())
}

/// The flags and `--set` pairs as config overrides; `default` is sized around them.
fn overrides(args: &TrainArgs) -> Result<Overrides, String> {
    let mut o = Overrides::new();
    let number = |v: f64| serde_json::Value::from(v);
    let count = |v: usize| serde_json::Value::from(v);
    for (field, value) in [
        ("epochs", args.epochs.map(count)),
        ("threads", args.threads.map(count)),
        ("eval_every", args.eval_every.map(count)),
        ("patience", args.patience.map(count)),
        ("lr", args.lr.map(number)),
        ("seed", args.seed.map(serde_json::Value::from)),
    ] {
        if let Some(v) = value {
            o.insert(field.into(), v);
        }
    }
    for pair in args.set.iter().flat_map(|s| s.split(',')) {
        let (k, v) = pair
            .split_once('=')
            .ok_or_else(|| format!("--set: `{pair}` is not key=value"))?;
        let value = serde_json::from_str(v).unwrap_or(serde_json::Value::String(v.to_string()));
        o.insert(k.into(), value);
    }
    Ok(o)
}

fn train(args: TrainArgs) -> CliResult {
    let data = load_dataset(&args.dataset)?;
    let _ = data.train_index(neptune_core::InverseMode::NewRelation);
    print_memory("after loading the data and its index");
    let size = neptune_core::GraphSize::of(data.n_entities(), data.n_relations(), &data.train);
    let cfg = Config::resolve(&args.preset, Some(size), &overrides(&args)?)?;
    eprintln!("config: {}", serde_json::to_string(&cfg)?);
    let mut trainer = Trainer::new(cfg)?;
    if let Some(dir) = &args.checkpoint {
        trainer = trainer.with_checkpoint_dir(dir);
    }
    let max_batches = args.max_batches;
    let cancel = AtomicBool::new(false);
    let (mut n_batches, mut batch_secs, mut batches_per_epoch) = (0usize, 0.0f64, 0usize);
    let mut last = Instant::now();
    let outcome = trainer.train(
        &data,
        |p| match p {
            Progress::Batch { batches, .. } => {
                let dt = last.elapsed().as_secs_f64();
                last = Instant::now();
                batches_per_epoch = *batches;
                n_batches += 1;
                // Skip the first (warm-up: buffer allocation) batch in the timing.
                if n_batches > 1 {
                    batch_secs += dt;
                }
                if max_batches.is_some_and(|mb| n_batches >= mb) {
                    cancel.store(true, Ordering::Relaxed);
                }
            }
            Progress::Epoch {
                epoch,
                loss,
                seconds,
                examples_per_sec,
                lr,
                ..
            } => {
                println!(
                    "epoch {epoch:5}  loss {loss:.6}  {seconds:8.3}s  {examples_per_sec:9.0} ex/s  lr {lr:.2e}"
                );
                last = Instant::now();
            }
            Progress::Validation {
                epoch,
                metrics,
                best_mrr,
                seconds,
                ..
            } => {
                let o = &metrics.overall;
                println!(
                    "  valid @{epoch}: MRR {:.4}  H@1 {:.4}  H@10 {:.4}  (best {best_mrr:.4}, {seconds:.2}s)",
                    o.mrr, o.hits1, o.hits10
                );
                last = Instant::now();
            }
        },
        &cancel,
    )?;
    if max_batches.is_some() && n_batches > 1 {
        let per = batch_secs / (n_batches - 1) as f64;
        println!(
            "timed {} batches: {:.1} ms/batch -> {:.1} s per epoch of {} batches",
            n_batches - 1,
            per * 1e3,
            per * batches_per_epoch as f64,
            batches_per_epoch
        );
        let total: f64 = outcome.phase_seconds.iter().map(|p| p.1).sum();
        for (name, secs) in &outcome.phase_seconds {
            println!(
                "  {name:18} {:8.2} ms/batch  {:5.1}%",
                secs * 1e3 / (n_batches - 1) as f64,
                100.0 * secs / total.max(1e-12)
            );
        }
    }
    println!(
        "stopped: {:?} after {} epochs; best epoch {}",
        outcome.stop, outcome.epochs_run, outcome.state.best_epoch
    );
    print_memory("after training");
    if args.test {
        let t = Instant::now();
        let test = trainer.evaluate(&outcome.model, &data, Split::Test)?;
        print_metrics("test", &test, t.elapsed().as_secs_f64());
    }
    if let Some(dir) = &args.save {
        outcome.model.save(dir)?;
    }
    Ok(())
}
