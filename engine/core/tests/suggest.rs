//! `suggest` (the best N missing edges of a relation over the whole graph) against a brute force:
//! every (query, candidate) pair's logit from `Model::scores`, filtered, sorted, cut at N.

use neptune_core::config::Config;
use neptune_core::dataset::Direction;
use neptune_core::params::Params;
use neptune_core::suggest::suggest_in_chunks;
use neptune_core::{pair_key, suggest, Model, SuggestScope, Suggestion};
use std::sync::atomic::AtomicBool;

const N: usize = 70;

fn model() -> Model {
    let cfg = Config {
        d_e: 12,
        d_r: 5,
        ..Config::default()
    };
    let mut p = Params::<f32>::init(&cfg, N, 6);
    p.bn1
        .running_mean
        .iter_mut()
        .enumerate()
        .for_each(|(i, v)| *v = 0.03 * i as f32);
    Model::new(
        cfg,
        p,
        (0..N).map(|i| format!("e{i}")).collect(),
        (0..3).map(|i| format!("r{i}")).collect(),
        0,
        None,
    )
}

fn brute_force(
    m: &Model,
    model_relation: u32,
    queries: &[u32],
    candidates: &[u32],
    exclude: &[u64],
    n: usize,
) -> Vec<Suggestion> {
    let pairs: Vec<(u32, u32)> = queries.iter().map(|&q| (q, model_relation)).collect();
    let scores = m.scores(&pairs).unwrap();
    let mut all = Vec::new();
    for (i, &q) in queries.iter().enumerate() {
        for &c in candidates {
            let logit = scores[i * N + c as usize];
            if c != q && !exclude.contains(&pair_key(q, c)) && !logit.is_nan() {
                all.push(Suggestion {
                    query: q,
                    candidate: c,
                    logit,
                });
            }
        }
    }
    all.sort_by(|a, b| {
        b.logit
            .total_cmp(&a.logit)
            .then(a.query.cmp(&b.query))
            .then(a.candidate.cmp(&b.candidate))
    });
    all.truncate(n);
    all
}

fn assert_same(got: &[Suggestion], want: &[Suggestion]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert_eq!(
            (g.query, g.candidate),
            (w.query, w.candidate),
            "{g:?} vs {w:?}"
        );
        assert!((g.logit - w.logit).abs() <= 1e-4 * w.logit.abs().max(1.0));
    }
}

#[test]
fn matches_the_brute_force_in_both_directions() {
    let m = model();
    let cancel = AtomicBool::new(false);
    let queries: Vec<u32> = (0..N as u32).filter(|e| e % 3 != 1).collect();
    let candidates: Vec<u32> = (0..N as u32).filter(|e| e % 4 != 2).collect();
    let mut exclude: Vec<u64> = (0..N as u32)
        .flat_map(|q| {
            (0..N as u32)
                .filter(move |c| (q * 7 + c) % 5 == 0)
                .map(move |c| pair_key(q, c))
        })
        .collect();
    exclude.sort_unstable();
    for (direction, model_relation) in [
        (Direction::Tail, 1u32),
        (Direction::Head, m.reverse_relation(1).unwrap()),
    ] {
        for n in [1usize, 17, 300, 10_000] {
            let scope = SuggestScope {
                relation: 1,
                direction,
                n,
                queries: Some(&queries),
                candidates: Some(&candidates),
                exclude: &exclude,
            };
            let got = suggest(&m, &scope, &cancel).unwrap().unwrap();
            let want = brute_force(&m, model_relation, &queries, &candidates, &exclude, n);
            assert_same(&got, &want);
            // Many chunks of a few queries: the relation's floor carries across them.
            for rows in [1, 3, 7] {
                let chunked = suggest_in_chunks(&m, &scope, &cancel, Some(rows));
                assert_same(&chunked.unwrap().unwrap(), &want);
            }
        }
    }
    // Every entity on both sides, nothing excluded.
    let all: Vec<u32> = (0..N as u32).collect();
    let scope = SuggestScope {
        relation: 2,
        direction: Direction::Tail,
        n: 50,
        queries: None,
        candidates: None,
        exclude: &[],
    };
    let got = suggest(&m, &scope, &cancel).unwrap().unwrap();
    assert_same(&got, &brute_force(&m, 2, &all, &all, &[], 50));
}

#[test]
fn refuses_bad_arguments_and_stops_when_cancelled() {
    let m = model();
    let cancel = AtomicBool::new(false);
    let base = SuggestScope {
        relation: 0,
        direction: Direction::Tail,
        n: 5,
        queries: None,
        candidates: None,
        exclude: &[],
    };
    let unsorted = [3u32, 2];
    let err = suggest(
        &m,
        &SuggestScope {
            queries: Some(&unsorted),
            ..base
        },
        &cancel,
    )
    .unwrap_err();
    assert!(err.to_string().contains("queries"), "{err}");
    let outside = [1u32, N as u32];
    let err = suggest(
        &m,
        &SuggestScope {
            candidates: Some(&outside),
            ..base
        },
        &cancel,
    )
    .unwrap_err();
    assert!(err.to_string().contains("candidates"), "{err}");
    let err = suggest(
        &m,
        &SuggestScope {
            relation: 3,
            ..base
        },
        &cancel,
    )
    .unwrap_err();
    assert!(err.to_string().contains("relation"), "{err}");
    let cancelled = AtomicBool::new(true);
    assert!(suggest(&m, &base, &cancelled).unwrap().is_none());
    assert!(suggest(&m, &SuggestScope { n: 0, ..base }, &cancel)
        .unwrap()
        .unwrap()
        .is_empty());
}
