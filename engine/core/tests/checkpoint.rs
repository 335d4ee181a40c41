//! Checkpoint round trip, and refusal of corrupt, truncated and mismatched files.

mod common;

use neptune_core::adam::Adam;
use neptune_core::checkpoint::{self, TrainState, MANIFEST_FILE, TENSORS_FILE};
use neptune_core::params::Params;
use neptune_core::{Config, Error, Model};

fn model() -> Model {
    let cfg = Config {
        d_e: 6,
        d_r: 4,
        ..Config::default()
    };
    let mut params = Params::<f32>::init(&cfg, 5, 4);
    params.bn0.running_mean[1] = 0.5;
    params.bn1.running_var[2] = 2.5;
    let entities = ["a", "b", "c", "d", "e"].map(String::from).to_vec();
    Model::new(
        cfg,
        params,
        entities,
        ["likes", "knows"].map(String::from).to_vec(),
        7,
        None,
    )
}

fn expect_checkpoint_error(r: Result<Model, Error>, needle: &str) {
    match r {
        Err(Error::Checkpoint { message, .. }) => assert!(
            message.contains(needle),
            "message `{message}` lacks `{needle}`"
        ),
        other => panic!("expected a checkpoint error containing `{needle}`, got {other:?}"),
    }
}

#[test]
fn round_trip_with_optimizer_state() {
    let dir = common::temp_dir("ck-roundtrip");
    let m = model();
    let mut adam = Adam::new(&m.params);
    adam.step = 42;
    adam.m[0][3] = 0.25;
    adam.v[2][1] = 0.125;
    let state = TrainState {
        epoch: 7,
        best_mrr: Some(0.5),
        best_epoch: 5,
        evals_since_best: 1,
        valid_mrrs: vec![0.4, 0.5, 0.45],
    };
    checkpoint::save(
        &dir,
        m.as_saved().unwrap(),
        Some(adam.saved()),
        Some(&state),
    )
    .unwrap();
    let ck = checkpoint::load(&dir).unwrap();
    assert_eq!(ck.model.params, m.params);
    assert_eq!(ck.model.entities, m.entities);
    assert_eq!(ck.model.relations, m.relations);
    assert_eq!(ck.model.config, m.config);
    assert_eq!(ck.model.epoch, 7);
    assert_eq!(Adam::from_saved(ck.optimizer.unwrap()), adam);
    assert_eq!(ck.train_state.unwrap(), state);
    // Serving save/load: no optimizer state.
    m.save(dir.join("serve")).unwrap();
    let ck2 = checkpoint::load(&dir.join("serve")).unwrap();
    assert!(ck2.optimizer.is_none());
    assert_eq!(Model::load(dir.join("serve")).unwrap().params, m.params);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn serves_entity_rows_from_the_file_mapping_and_copies_them_before_any_write() {
    let dir = common::temp_dir("ck-mapped");
    let m = model();
    m.save(&dir).unwrap();
    let loaded = Model::load(&dir).unwrap();
    assert!(loaded.params.e.is_mapped(), "E is read in place");
    assert_eq!(loaded.params, m.params);
    assert_eq!(
        loaded.top_k(0, 0, 3, &[]).unwrap(),
        m.top_k(0, 0, 3, &[]).unwrap()
    );
    // Fold-in appends rows beside E: the grown model reads the file too, and is never saved.
    let grown = loaded.with_entities(vec!["f".into()], &[0.5; 6]).unwrap();
    assert!(grown.params.e.is_mapped());
    assert_eq!(grown.params.e.as_ptr(), loaded.params.e.as_ptr());
    assert_eq!(grown.entity_vectors(&[5]).unwrap(), vec![0.5; 6]);
    let refused = grown
        .save(std::env::temp_dir().join("never-written"))
        .unwrap_err();
    assert!(refused.to_string().contains("saving takes a trained model"));
    assert!(loaded.params.e.is_mapped());
    // Writing (training) makes the rows owned first: the file never changes.
    let mut trained = loaded.clone();
    trained.params.trainable_mut()[0][0] += 1.0;
    assert!(!trained.params.e.is_mapped());
    assert!(loaded.params.e.is_mapped());
    assert_eq!(loaded.params.e[0], m.params.e[0]);
    assert_eq!(Model::load(&dir).unwrap().params, m.params);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn refuses_corrupt_truncated_and_mismatched() {
    let dir = common::temp_dir("ck-bad");
    let m = model();
    m.save(&dir).unwrap();
    let tensors = dir.join(TENSORS_FILE);
    let good = std::fs::read(&tensors).unwrap();

    let mut flipped = good.clone();
    let k = flipped.len() - 3;
    flipped[k] ^= 0x40;
    std::fs::write(&tensors, &flipped).unwrap();
    expect_checkpoint_error(Model::load(&dir), "SHA-256");

    std::fs::write(&tensors, &good[..good.len() / 2]).unwrap();
    expect_checkpoint_error(Model::load(&dir), "truncated");
    // An empty file (which cannot be mapped) is refused the same way.
    std::fs::write(&tensors, b"").unwrap();
    expect_checkpoint_error(Model::load(&dir), "truncated");

    // A manifest whose config disagrees with the stored shapes.
    std::fs::write(&tensors, &good).unwrap();
    let manifest = std::fs::read_to_string(dir.join(MANIFEST_FILE)).unwrap();
    std::fs::write(
        dir.join(MANIFEST_FILE),
        manifest.replace("\"d_e\": 6", "\"d_e\": 7"),
    )
    .unwrap();
    expect_checkpoint_error(Model::load(&dir), "expected F32 [5, 7]");

    std::fs::write(dir.join(MANIFEST_FILE), "{ not json").unwrap();
    expect_checkpoint_error(Model::load(&dir), "not a valid manifest");

    std::fs::write(dir.join(MANIFEST_FILE), &manifest).unwrap();
    assert!(Model::load(&dir).is_ok(), "restored files load again");
    std::fs::remove_file(&tensors).unwrap();
    assert!(matches!(Model::load(&dir), Err(Error::Io { .. })));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn scoring_and_top_k() {
    let m = model();
    let scores = m.scores(&[(0, 1), (4, 3)]).unwrap();
    assert_eq!(scores.len(), 2 * 5);
    let top = m.top_k(0, 1, 3, &[2]).unwrap();
    assert_eq!(top.len(), 3);
    assert!(top.iter().all(|p| p.entity != 2));
    assert!(top.windows(2).all(|w| w[0].logit >= w[1].logit));
    for p in &top {
        assert_eq!(p.logit, scores[p.entity as usize]);
        assert!((p.probability - 1.0 / (1.0 + (-p.logit).exp())).abs() < 1e-6);
    }
    assert!(matches!(
        m.top_k(5, 0, 3, &[]),
        Err(Error::Argument { arg: "entity", .. })
    ));
    assert!(matches!(
        m.top_k(0, 4, 3, &[]),
        Err(Error::Argument {
            arg: "relation",
            ..
        })
    ));
    assert_eq!(m.reverse_relation(1).unwrap(), 3);
    assert_eq!(m.relation_name(3).unwrap(), "knows_reverse");
}
