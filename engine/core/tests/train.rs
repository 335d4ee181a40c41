//! End-to-end training on a generated graph with known structure; determinism across thread
//! counts; resume reproduces an uninterrupted run; cancellation.

mod common;

use neptune_core::evaluate::seeded_sample;
use neptune_core::{
    evaluate, evaluate_sample, Activation, Config, InitScheme, InverseMode, Loss, Progress, Split,
    StopReason, Trainer,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

fn small_config() -> Config {
    Config {
        d_e: 32,
        d_r: 16,
        dropout_in: 0.1,
        dropout_h1: 0.1,
        dropout_h2: 0.1,
        activation: Activation::Prelu,
        inverse_mode: InverseMode::NewRelation,
        init: InitScheme::XavierNormal,
        lr: 0.01,
        decay: 1.0,
        batch_size: 64,
        epochs: 40,
        eval_every: 10,
        patience: 0,
        threads: 2,
        ..Config::default()
    }
}

#[test]
fn learns_cluster_structure() {
    let data = common::cluster_graph(6, 8, 4);
    let t = Instant::now();
    let trainer = Trainer::new(small_config()).unwrap();
    let mut epochs = 0;
    let out = trainer
        .train(
            &data,
            |p| {
                if let Progress::Epoch { .. } = p {
                    epochs += 1
                }
            },
            &AtomicBool::new(false),
        )
        .unwrap();
    let test = trainer.evaluate(&out.model, &data, Split::Test).unwrap();
    eprintln!(
        "test MRR {:.3} H@1 {:.3} after {epochs} epochs in {:.1}s",
        test.overall.mrr,
        test.overall.hits1,
        t.elapsed().as_secs_f64()
    );
    assert_eq!(out.stop, StopReason::Completed);
    assert_eq!(epochs, 40);
    assert!(test.overall.mrr > 0.9, "test MRR {}", test.overall.mrr);
    assert_eq!(test.overall.count, 2 * data.test.len());
    assert!(out.model.valid_metrics.is_some());
}

#[test]
fn a_sampled_evaluation_ranks_a_seeded_sample_filtered_by_every_split() {
    let data = common::cluster_graph(6, 8, 4);
    let trainer = Trainer::new(Config {
        epochs: 5,
        ..small_config()
    })
    .unwrap();
    let model = trainer
        .train(&data, |_| {}, &AtomicBool::new(false))
        .unwrap()
        .model;
    let whole = evaluate(&model, &data, Split::Test, 1).unwrap();
    let all = evaluate_sample(&model, &data, Split::Test, data.test.len(), 1).unwrap();
    assert_eq!(all.overall.mrr, whole.overall.mrr);
    assert_eq!(all.overall.count, whole.overall.count);

    let max = data.test.len() / 3;
    let sample = seeded_sample(&data.test, max, model.config.seed).into_owned();
    assert_eq!(sample.len(), max);
    assert!(sample.iter().all(|t| data.test.contains(t)));
    let metrics = evaluate_sample(&model, &data, Split::Test, max, 1).unwrap();
    assert_eq!(metrics.overall.count, 2 * max);
    // The same ranks as a dataset whose test split is the sample and whose other splits keep
    // the rest of the test triples as known answers.
    let mut narrowed = data.clone();
    narrowed
        .valid
        .extend(data.test.iter().filter(|t| !sample.contains(t)));
    narrowed.test = sample;
    let reference = evaluate(&model, &narrowed, Split::Test, 1).unwrap();
    assert_eq!(metrics.overall.mrr, reference.overall.mrr);
    assert_eq!(metrics.overall.hits10, reference.overall.hits10);
    assert_ne!(
        seeded_sample(&data.test, max, model.config.seed + 1).into_owned(),
        narrowed.test
    );
}

#[test]
fn softmax_loss_learns_cluster_structure() {
    // The same graph and budget as above with the softmax cross-entropy (with and without
    // label smoothing): random ranking of 48 entities gives an MRR near 0.09.
    let data = common::cluster_graph(6, 8, 4);
    for label_smoothing in [0.0, 0.1] {
        let t = Instant::now();
        let trainer = Trainer::new(Config {
            loss: Loss::Softmax,
            label_smoothing,
            ..small_config()
        })
        .unwrap();
        let out = trainer
            .train(&data, |_| {}, &AtomicBool::new(false))
            .unwrap();
        let test = trainer.evaluate(&out.model, &data, Split::Test).unwrap();
        eprintln!(
            "softmax eps {label_smoothing}: test MRR {:.3} in {:.1}s",
            test.overall.mrr,
            t.elapsed().as_secs_f64()
        );
        assert_eq!(out.model.config.loss, Loss::Softmax);
        assert!(test.overall.mrr > 0.9, "test MRR {}", test.overall.mrr);
    }
}

#[test]
fn resume_keeps_the_loss() {
    let data = common::cluster_graph(4, 6, 3);
    let cfg = Config {
        epochs: 4,
        eval_every: 2,
        loss: Loss::Softmax,
        ..small_config()
    };
    let straight = Trainer::new(cfg.clone())
        .unwrap()
        .train(&data, |_| {}, &AtomicBool::new(false))
        .unwrap();
    let dir = common::temp_dir("resume-loss");
    Trainer::new(Config {
        epochs: 2,
        ..cfg.clone()
    })
    .unwrap()
    .with_checkpoint_dir(&dir)
    .train(&data, |_| {}, &AtomicBool::new(false))
    .unwrap();
    let saved = neptune_core::checkpoint::load(&dir.join("last")).unwrap();
    assert_eq!(saved.model.config.loss, Loss::Softmax);
    // Another loss is refused, naming it; the same one resumes to the uninterrupted result.
    let err = Trainer::new(Config {
        loss: Loss::Bce,
        ..cfg.clone()
    })
    .unwrap()
    .with_checkpoint_dir(&dir)
    .with_resume_from(&dir)
    .train(&data, |_| {}, &AtomicBool::new(false))
    .unwrap_err();
    assert!(err.to_string().contains("loss Softmax"), "{err}");
    let resumed = Trainer::new(cfg)
        .unwrap()
        .with_checkpoint_dir(&dir)
        .with_resume_from(&dir)
        .train(&data, |_| {}, &AtomicBool::new(false))
        .unwrap();
    assert!(resumed.model.params == straight.model.params);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn deterministic_across_thread_counts() {
    let data = common::cluster_graph(4, 6, 3);
    let cfg = Config {
        epochs: 3,
        eval_every: 0,
        ..small_config()
    };
    let run = |threads| {
        let t = Trainer::new(Config {
            threads,
            ..cfg.clone()
        })
        .unwrap();
        t.train(&data, |_| {}, &AtomicBool::new(false))
            .unwrap()
            .model
            .params
    };
    assert!(
        run(1) == run(2),
        "parameters differ between 1 and 2 threads"
    );
}

#[test]
fn resume_matches_uninterrupted_run() {
    // With weight averaging the average is saved beside `last` and resumed too.
    for weight_average in [0.0, 0.3] {
        let data = common::cluster_graph(4, 6, 3);
        let cfg = Config {
            epochs: 6,
            eval_every: 3,
            weight_average,
            ..small_config()
        };
        let straight = Trainer::new(cfg.clone())
            .unwrap()
            .train(&data, |_| {}, &AtomicBool::new(false))
            .unwrap();

        let dir = common::temp_dir("resume");
        let first = Trainer::new(Config {
            epochs: 3,
            ..cfg.clone()
        })
        .unwrap()
        .with_checkpoint_dir(&dir);
        first.train(&data, |_| {}, &AtomicBool::new(false)).unwrap();
        let second = Trainer::new(cfg)
            .unwrap()
            .with_checkpoint_dir(&dir)
            .with_resume_from(&dir);
        let resumed = second
            .train(&data, |_| {}, &AtomicBool::new(false))
            .unwrap();
        assert_eq!(resumed.epochs_run, 6);
        let last = neptune_core::checkpoint::load(&dir.join("last")).unwrap();
        let straight_last = straight.state.clone();
        assert_eq!(
            last.train_state.unwrap(),
            straight_last,
            "weight average {weight_average}"
        );
        assert!(
            resumed.model.params == straight.model.params,
            "resumed run diverged (weight average {weight_average})"
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// With weight averaging, validation judges the average and the kept model is what it judged,
/// not the trained weights.
#[test]
fn weight_averaging_keeps_the_judged_average() {
    let data = common::cluster_graph(4, 6, 3);
    let dir = common::temp_dir("average");
    let trainer = Trainer::new(Config {
        epochs: 4,
        eval_every: 1,
        weight_average: 0.3,
        ..small_config()
    })
    .unwrap()
    .with_checkpoint_dir(&dir);
    let out = trainer
        .train(&data, |_| {}, &AtomicBool::new(false))
        .unwrap();
    let judged = out.model.valid_metrics.clone().unwrap().overall.mrr;
    let again = trainer.evaluate(&out.model, &data, Split::Valid).unwrap();
    assert_eq!(judged, again.overall.mrr);
    let trained = neptune_core::checkpoint::load(&dir.join("last")).unwrap();
    assert!(
        trained.model.params != out.model.params,
        "the kept model is the trained weights, not their average"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn cancellation_stops_between_batches() {
    let data = common::cluster_graph(4, 6, 3);
    let cancel = AtomicBool::new(false);
    let mut batches = 0;
    let out = Trainer::new(small_config())
        .unwrap()
        .train(
            &data,
            |p| {
                if let Progress::Batch { .. } = p {
                    batches += 1;
                    if batches == 2 {
                        cancel.store(true, Ordering::Relaxed);
                    }
                }
            },
            &cancel,
        )
        .unwrap();
    assert_eq!(out.stop, StopReason::Cancelled);
    assert_eq!(batches, 2);
}

#[test]
fn a_time_limit_stops_training_with_the_best_validated_weights() {
    let data = common::cluster_graph(6, 8, 4);
    let config = Config {
        epochs: 100_000,
        eval_every: 7,
        ..small_config()
    };
    let trainer = Trainer::new(config)
        .unwrap()
        .with_time_limit(std::time::Duration::from_millis(400));
    let (mut validated, mut last_epoch) = (Vec::new(), 0);
    let t = Instant::now();
    let out = trainer
        .train(
            &data,
            |p| match p {
                Progress::Validation { epoch, .. } => validated.push(*epoch),
                Progress::Epoch { epoch, .. } => last_epoch = *epoch,
                _ => {}
            },
            &AtomicBool::new(false),
        )
        .unwrap();
    let seconds = t.elapsed().as_secs_f64();
    assert_eq!(out.stop, StopReason::TimeLimit);
    assert!(seconds < 2.0, "stopped after {seconds:.2}s");
    assert!(out.epochs_run > 0 && out.epochs_run < 100_000);
    // The weights trained after the last scheduled validation were validated before stopping.
    assert_eq!(validated.last(), Some(&out.epochs_run));
    assert_eq!(last_epoch, out.epochs_run);
    assert!(out.model.valid_metrics.is_some());
    assert_eq!(out.model.epoch, out.state.best_epoch);
}

#[test]
fn time_annealing_ends_the_planned_decay_when_the_time_runs_out() {
    // Planned: 10 million epochs annealed from 0.01 to 0.001. Far fewer fit in the time limit
    // (epochs of this graph take a fraction of a millisecond: over 4,500 fit in 1.5 s on an
    // AVX-512 machine, which a plan of 100,000 did not allow for), so the planned schedule
    // would hardly have started to decay; stretched, the last epoch's lr is close to 0.001, and
    // the rate never rises.
    let data = common::cluster_graph(6, 8, 4);
    let epochs = 10_000_000;
    let config = Config {
        epochs,
        eval_every: 5,
        decay: 0.1f64.powf(1.0 / epochs as f64),
        ..small_config()
    };
    let run = |anneal: bool| {
        let mut trainer = Trainer::new(config.clone())
            .unwrap()
            .with_time_limit(std::time::Duration::from_millis(1500));
        if anneal {
            trainer = trainer.with_time_annealing();
        }
        let mut rates = Vec::new();
        let out = trainer
            .train(
                &data,
                |p| {
                    if let Progress::Epoch { lr, .. } = p {
                        rates.push(*lr)
                    }
                },
                &AtomicBool::new(false),
            )
            .unwrap();
        assert_eq!(out.stop, StopReason::TimeLimit);
        rates
    };
    let planned = run(false);
    let stretched = run(true);
    assert!(stretched.len() > 20, "{} epochs", stretched.len());
    assert_eq!(stretched[0], 0.01);
    let (last_planned, last) = (*planned.last().unwrap(), *stretched.last().unwrap());
    assert!(
        last_planned > 0.009,
        "planned schedule at its end: {last_planned}"
    );
    assert!(last < 0.0015, "stretched schedule at its end: {last}");
    for pair in stretched.windows(2) {
        assert!(pair[1] <= pair[0], "{pair:?}");
    }
}

#[test]
fn estimates_an_epoch_from_a_few_steps() {
    let data = common::cluster_graph(6, 8, 4);
    let trainer = Trainer::new(Config {
        batch_size: 16,
        ..small_config()
    })
    .unwrap();
    let estimate = trainer.estimate_epoch(&data, 5).unwrap();
    let pairs = data.train_index(InverseMode::NewRelation).len();
    assert_eq!(estimate.batches_per_epoch, pairs.div_ceil(16));
    assert!(estimate.epoch_seconds > 0.0 && estimate.epoch_seconds < 10.0);
    assert!(estimate.validation_seconds > 0.0);
    assert!(estimate.probe_seconds >= 0.0);
}

/// With a checkpoint directory the best validated weights live only in `<dir>/best` while
/// training runs; the model returned is read back from there and is the one a run without a
/// directory holds in memory: the best validation's epoch, weights and metrics.
#[test]
fn the_best_weights_kept_on_disk_are_those_kept_in_memory() {
    let data = common::cluster_graph(4, 6, 3);
    let cfg = Config {
        epochs: 12,
        eval_every: 2,
        lr: 0.05,
        ..small_config()
    };
    let run = |dir: Option<&std::path::Path>| {
        let mut trainer = Trainer::new(cfg.clone()).unwrap();
        if let Some(d) = dir {
            trainer = trainer.with_checkpoint_dir(d);
        }
        let mut mrrs = Vec::new();
        let out = trainer
            .train(
                &data,
                |p| {
                    if let Progress::Validation { epoch, metrics, .. } = p {
                        mrrs.push((*epoch, metrics.overall.mrr));
                    }
                },
                &AtomicBool::new(false),
            )
            .unwrap();
        (out, mrrs)
    };
    let (held, mrrs) = run(None);
    let dir = common::temp_dir("best-on-disk");
    let (saved, _) = run(Some(&dir));
    let best = mrrs
        .iter()
        .fold(mrrs[0], |b, &m| if m.1 > b.1 { m } else { b });
    assert_eq!(held.model.epoch, best.0);
    assert!(
        best.0 < cfg.epochs,
        "the best validation should not be the last one here"
    );
    assert_eq!(saved.model.epoch, best.0);
    assert!(saved.model.params == held.model.params);
    assert_eq!(saved.model.valid_metrics, held.model.valid_metrics);
    assert_eq!(
        saved.model.valid_metrics.as_ref().map(|m| m.overall.mrr),
        Some(best.1)
    );

    // Resumed into another directory after the best validation, that run's best travels with it.
    let other = common::temp_dir("best-on-disk-resumed");
    let first = Trainer::new(Config {
        epochs: best.0,
        ..cfg.clone()
    })
    .unwrap()
    .with_checkpoint_dir(&dir);
    first.train(&data, |_| {}, &AtomicBool::new(false)).unwrap();
    let resumed = Trainer::new(cfg.clone())
        .unwrap()
        .with_checkpoint_dir(&other)
        .with_resume_from(&dir)
        .train(&data, |_| {}, &AtomicBool::new(false))
        .unwrap();
    assert_eq!(resumed.model.epoch, best.0);
    assert!(resumed.model.params == held.model.params);
    assert!(other.join("best").exists());
    std::fs::remove_dir_all(&dir).ok();
    std::fs::remove_dir_all(&other).ok();
}
