//! Filtered ranks computed through the whole eval path on a model whose logits are known by
//! hand: d_e = d_r = 1, R = W = 1, identity BatchNorm (up to its eps) and activation, so
//! `logit(h, r, n) = c · E[h] · E[n]` with `c = 1 / (1 + 1e-5) > 0`.

use neptune_core::config::{Activation, Config};
use neptune_core::dataset::{with_reverse, InverseMode, PairIndex};
use neptune_core::eval::{evaluate_triples, Direction};
use neptune_core::params::Params;

fn model(e: &[f32]) -> Params<f32> {
    let cfg = Config {
        d_e: 1,
        d_r: 1,
        activation: Activation::LeakyRelu,
        ..Config::default()
    };
    let mut p = Params::<f32>::init(&cfg, e.len(), 1);
    p.e = e.to_vec().into();
    p.r = vec![1.0];
    p.w = vec![1.0];
    p.slope = vec![1.0];
    p
}

#[test]
fn hand_computed_ranks_with_ties_and_filter() {
    //            e0   e1   e2   e3   e4
    let p = model(&[1.0, 2.0, 2.0, 3.0, 0.5]);
    let test = [[0u32, 0, 1]];
    // Known: (0, r, 3) besides the test triple; shared relation ids, so reverses use r = 0 too.
    let known = [[0u32, 0, 3], [0, 0, 1]];
    let filter = PairIndex::build(&with_reverse(&known, 1, InverseMode::SameRelation));
    let m = evaluate_triples(&p, &test, 1, InverseMode::SameRelation, &filter, 8);
    // Tail query (0, 0, ?) answer e1: scores ∝ [1, 2, 2, 3, .5]; e3 filtered; e2 ties -> 1 + 0 + 1/2.
    // Head query (1, 0, ?) answer e0: scores ∝ 2·[1, 2, 2, 3, .5]; known tails of (1, 0) are {0}
    // only; greater: e1, e2, e3 -> rank 4.
    let tail = m
        .per_relation
        .iter()
        .find(|r| r.direction == Direction::Tail)
        .unwrap();
    let head = m
        .per_relation
        .iter()
        .find(|r| r.direction == Direction::Head)
        .unwrap();
    assert_eq!(tail.stats.mr, 1.5);
    assert_eq!(head.stats.mr, 4.0);
    assert_eq!(m.overall.count, 2);
    assert!((m.overall.mrr - (1.0 / 1.5 + 0.25) / 2.0).abs() < 1e-12);
    assert_eq!(m.overall.hits1, 0.0);
    assert_eq!(m.overall.hits3, 0.5);
    assert_eq!(m.overall.hits10, 1.0);
}
