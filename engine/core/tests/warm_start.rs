//! Warm start through the trainer: a model trained on part of a graph starts the run on the
//! grown graph (a new relation, a renamed = new entity, folded in) and is ahead of a fresh init after the
//! same few epochs; incompatible settings are refused before training.

mod common;

use neptune_core::{Config, Dataset, Split, Trainer, WarmStartStats};
use std::sync::atomic::AtomicBool;

fn config(epochs: usize) -> Config {
    Config {
        d_e: 32,
        d_r: 16,
        dropout_in: 0.1,
        dropout_h1: 0.1,
        dropout_h2: 0.1,
        lr: 0.01,
        decay: 1.0,
        batch_size: 64,
        epochs,
        eval_every: epochs,
        patience: 0,
        threads: 2,
        ..Config::default()
    }
}

/// The 4-relation cluster graph with entity 47 renamed: the trained model never saw it.
fn grown() -> Dataset {
    let g = common::cluster_graph(6, 8, 4);
    let mut entities = g.entities.clone();
    entities[47] = "new-47".into();
    let relations = g.relations.clone();
    g.with_names(entities, relations).unwrap()
}

fn test_mrr(trainer: &Trainer, data: &Dataset) -> f64 {
    let out = trainer
        .train(data, |_| {}, &AtomicBool::new(false))
        .unwrap();
    trainer
        .evaluate(&out.model, data, Split::Test)
        .unwrap()
        .overall
        .mrr
}

#[test]
fn warm_start_maps_by_name_and_is_ahead_of_a_fresh_init() {
    let dir = common::temp_dir("warm-start-v1");
    let old = common::cluster_graph(6, 8, 3);
    let trainer = Trainer::new(config(40)).unwrap();
    let v1 = trainer
        .train(&old, |_| {}, &AtomicBool::new(false))
        .unwrap();
    v1.model.save(&dir).unwrap();

    let data = grown();
    let warm = Trainer::new(config(4)).unwrap().with_warm_start_from(&dir);
    let out = warm.train(&data, |_| {}, &AtomicBool::new(false)).unwrap();
    assert_eq!(
        out.warm_start,
        Some(WarmStartStats {
            copied_entities: 47,
            new_entities: 1,
            folded_in_entities: 1,
            copied_relations: 3,
            new_relations: 1,
            dropped_entities: 1,
        })
    );
    assert_eq!(out.epochs_run, 4);
    let warm_mrr = warm
        .evaluate(&out.model, &data, Split::Test)
        .unwrap()
        .overall
        .mrr;
    let fresh_mrr = test_mrr(&Trainer::new(config(4)).unwrap(), &data);
    eprintln!("after 4 epochs: warm {warm_mrr:.3}, fresh {fresh_mrr:.3}");
    assert!(
        warm_mrr > fresh_mrr + 0.1,
        "warm {warm_mrr} should be well ahead of fresh {fresh_mrr}"
    );
    let fresh_run = Trainer::new(config(4))
        .unwrap()
        .train(&data, |_| {}, &AtomicBool::new(false))
        .unwrap();
    assert_eq!(fresh_run.warm_start, None);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn incompatible_settings_are_refused_before_training() {
    let dir = common::temp_dir("warm-start-incompatible");
    let old = common::cluster_graph(4, 4, 2);
    let v1 = Trainer::new(config(2))
        .unwrap()
        .train(&old, |_| {}, &AtomicBool::new(false))
        .unwrap();
    v1.model.save(&dir).unwrap();
    let wider = Trainer::new(Config {
        d_e: 48,
        ..config(2)
    })
    .unwrap()
    .with_warm_start_from(&dir);
    let err = wider
        .train(&old, |_| panic!("no training"), &AtomicBool::new(false))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("cannot warm start") && err.contains("d_e 32 vs 48"),
        "{err}"
    );
    let missing = Trainer::new(config(2))
        .unwrap()
        .with_warm_start_from(dir.join("nowhere"));
    assert!(missing
        .train(&old, |_| {}, &AtomicBool::new(false))
        .is_err());
    let _ = std::fs::remove_dir_all(&dir);
}
