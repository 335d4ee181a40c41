//! The cached-core scoring path (serving and evaluation) against the training code's own
//! eval-mode forward pass, which computes `R[r] · W` per batch: same logits, same top-k.

use neptune_core::config::Config;
use neptune_core::net::{forward, Batch, Dropouts, Mode, Workspace};
use neptune_core::params::Params;
use neptune_core::scoring::{logits_into, CoreCache, ScoreBuffers};
use neptune_core::Model;

fn params() -> Params<f32> {
    let cfg = Config {
        d_e: 12,
        d_r: 5,
        ..Config::default()
    };
    let mut p = Params::<f32>::init(&cfg, 40, 6);
    // Non-trivial BatchNorm statistics, so the eval-mode normalisation is exercised.
    p.bn0
        .running_mean
        .iter_mut()
        .enumerate()
        .for_each(|(i, v)| *v = 0.01 * i as f32);
    p.bn1
        .running_var
        .iter_mut()
        .enumerate()
        .for_each(|(i, v)| *v = 0.5 + 0.1 * i as f32);
    p
}

fn reference_logits(p: &Params<f32>, queries: &[(u32, u32)]) -> Vec<f32> {
    let mut batch = Batch::default();
    queries.iter().for_each(|&(h, r)| batch.push(h, r, &[]));
    let mut ws = Workspace::<f32>::new();
    forward(p, &Dropouts::default(), &batch, &mut ws, Mode::Eval);
    ws.logits[..queries.len() * p.n_ent].to_vec()
}

#[test]
fn cached_cores_give_the_forward_pass_logits() {
    let p = params();
    let queries: Vec<(u32, u32)> = (0..25).map(|i| ((i * 7) % 40, (i * 5) % 6)).collect();
    let want = reference_logits(&p, &queries);
    let cache = CoreCache::new(p.n_rel);
    cache.prepare(&p, &[1, 3]);
    assert_eq!(cache.len(), 2, "only the requested relations are computed");
    cache.prepare(&p, &queries.iter().map(|q| q.1).collect::<Vec<_>>());
    assert_eq!(cache.len(), 6);
    let mut got = vec![0.0f32; want.len()];
    logits_into(&p, &cache, &queries, &mut ScoreBuffers::default(), &mut got);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-5 * (1.0 + w.abs()),
            "logit {i}: cached {g} vs forward {w}"
        );
    }
}

#[test]
fn top_k_is_the_best_of_the_scores_with_exclusions() {
    // Default inverse mode `r_reverse`: 3 base relations, 6 model relations.
    let p = params();
    let model = Model::new(
        Config {
            d_e: 12,
            d_r: 5,
            ..Config::default()
        },
        p,
        (0..40).map(|i| format!("e{i}")).collect(),
        (0..3).map(|i| format!("r{i}")).collect(),
        0,
        None,
    );
    let queries = [(3u32, 2u32), (17, 5), (3, 2)];
    let scores = model.scores(&queries).unwrap();
    let exclude: Vec<u32> = vec![0, 1, 2, 39];
    let tops = model
        .top_k_batch(&queries, 5, &[&exclude, &[], &[]])
        .unwrap();
    for (q, top) in tops.iter().enumerate() {
        let row = &scores[q * 40..][..40];
        let ex: &[u32] = if q == 0 { &exclude } else { &[] };
        let mut want: Vec<u32> = (0..40).filter(|e| !ex.contains(e)).collect();
        want.sort_by(|a, b| row[*b as usize].total_cmp(&row[*a as usize]).then(a.cmp(b)));
        assert_eq!(
            top.iter().map(|t| t.entity).collect::<Vec<_>>(),
            want[..5].to_vec(),
            "query {q}"
        );
        assert!(top
            .iter()
            .all(|t| (t.logit - row[t.entity as usize]).abs() == 0.0));
    }
    // Warming computes the rest of the cores; answers do not change.
    assert!(
        !model.warm_up(10),
        "6 cores of 12² floats do not fit in 10 bytes"
    );
    assert!(model.warm_up(1 << 20));
    // Repeated queries (now served from the cache) give the same answers.
    assert_eq!(model.top_k(3, 2, 5, &exclude).unwrap(), tops[0]);
    assert_eq!(model.top_k(3, 2, 5, &[]).unwrap(), tops[2]);
    assert_ne!(tops[0], tops[2], "the exclusions changed the answer");
}

#[test]
fn score_triples_reads_each_triples_row_at_its_tail() {
    let model = Model::new(
        Config {
            d_e: 12,
            d_r: 5,
            ..Config::default()
        },
        params(),
        (0..40).map(|i| format!("e{i}")).collect(),
        (0..3).map(|i| format!("r{i}")).collect(),
        0,
        None,
    );
    let triples = [(3u32, 2u32, 7u32), (17, 5, 0), (3, 2, 39)];
    let got = model.score_triples(&triples).unwrap();
    let scores = model.scores(&[(3, 2), (17, 5), (3, 2)]).unwrap();
    assert_eq!(got, vec![scores[7], scores[40], scores[2 * 40 + 39]]);
    assert!(
        model.score_triples(&[(3, 2, 40)]).is_err(),
        "a tail outside the vocabulary is refused"
    );
}
