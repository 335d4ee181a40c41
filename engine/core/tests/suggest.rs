//! `suggest` (the best N missing edges of a relation over the whole graph) against a brute force:
//! every (query, candidate) pair's logit from `Model::scores`, filtered, sorted, cut at N.

use neptune_core::config::Config;
use neptune_core::dataset::Direction;
use neptune_core::params::Params;
use neptune_core::suggest::suggest_in_chunks;
use neptune_core::{pair_key, suggest, ExcludedEdges, Model, SuggestScope, Suggestion};
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
    direction: Direction,
    model_relation: u32,
    queries: &[u32],
    candidates: &[u32],
    exclude: &[u64],
    n: usize,
) -> (Vec<Suggestion>, Vec<Suggestion>) {
    let pairs: Vec<(u32, u32)> = queries.iter().map(|&q| (q, model_relation)).collect();
    let scores = m.scores(&pairs).unwrap();
    let mut all = Vec::new();
    for (i, &q) in queries.iter().enumerate() {
        for &c in candidates {
            let logit = scores[i * N + c as usize];
            let key = match direction {
                Direction::Tail => pair_key(q, c),
                Direction::Head => pair_key(c, q),
            };
            if c != q && !exclude.contains(&key) && !logit.is_nan() {
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
    let mut want = all.clone();
    want.truncate(n);
    (want, all)
}

/// `got` is a best-`want.len()` list: the same logits position by position, and each entry a
/// real, distinct pair with its own logit (pairs whose logits differ only in the last bits, from
/// products cut in other shapes, may trade places).
fn assert_same(got: &[Suggestion], want: &[Suggestion], all: &[Suggestion]) {
    assert_eq!(got.len(), want.len());
    let close = |a: f32, b: f32| (a - b).abs() <= 1e-4 * b.abs().max(1.0);
    let mut seen = std::collections::HashSet::new();
    for (g, w) in got.iter().zip(want) {
        assert!(close(g.logit, w.logit), "{g:?} vs {w:?}");
        let real = all
            .iter()
            .find(|a| (a.query, a.candidate) == (g.query, g.candidate))
            .unwrap_or_else(|| panic!("{g:?} is excluded or not a pair"));
        assert!(close(g.logit, real.logit), "{g:?} vs {real:?}");
        assert!(seen.insert((g.query, g.candidate)), "{g:?} twice");
    }
}

#[test]
fn matches_the_brute_force_in_both_directions() {
    let m = model();
    let cancel = AtomicBool::new(false);
    let queries: Vec<u32> = (0..N as u32).filter(|e| e % 3 != 1).collect();
    let candidates: Vec<u32> = (0..N as u32).filter(|e| e % 4 != 2).collect();
    // Excluded edges of relation 1 (and some of relation 0, which must not matter), as a job holds
    // them: grouped by relation, (head, tail) keys for both directions.
    let (mut heads, mut rels, mut tails) = (Vec::new(), Vec::new(), Vec::new());
    for h in 0..N as u32 {
        for t in (0..N as u32).filter(|t| (h * 7 + t) % 5 == 0) {
            for r in [1u32, 1, 0] {
                heads.push(h);
                rels.push(r);
                tails.push(t);
            }
        }
    }
    let excluded = ExcludedEdges::new(3, N, &heads, &rels, &tails).unwrap();
    let exclude = excluded.of(1);
    assert_eq!(exclude.len(), excluded.of(0).len());
    assert_eq!(excluded.len(), 2 * exclude.len(), "repeats are kept once");
    assert!(exclude.windows(2).all(|w| w[0] < w[1]));
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
                exclude,
            };
            let got = suggest(&m, &scope, &cancel).unwrap().unwrap();
            let (want, all) = brute_force(
                &m,
                direction,
                model_relation,
                &queries,
                &candidates,
                exclude,
                n,
            );
            assert_same(&got, &want, &all);
            // Many tiles of a few queries and candidates: the relation's floor carries across.
            for tile in [(1, 1000), (3, 5), (7, 16), (100, 1)] {
                let chunked = suggest_in_chunks(&m, &scope, &cancel, Some(tile));
                assert_same(&chunked.unwrap().unwrap(), &want, &all);
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
    let (want, every) = brute_force(&m, Direction::Tail, 2, &all, &all, &[], 50);
    assert_same(&got, &want, &every);
    // Blocks of the model's own rows (no candidate list), several per chunk.
    let chunked = suggest_in_chunks(&m, &scope, &cancel, Some((9, 11)));
    assert_same(&chunked.unwrap().unwrap(), &want, &every);
}

#[test]
fn the_working_set_is_bounded_by_n() {
    use neptune_core::suggest::{tile_floats, ROWS};
    // 1 MiB at the default N, whatever the graph; more only when N x threads asks for it.
    assert_eq!(tile_floats(1000, 2) * 4, 1 << 20);
    assert_eq!(tile_floats(1000, 64) * 4, 1 << 20);
    assert_eq!(tile_floats(1_000_000, 2), 8_000_000);
    const { assert!(ROWS <= 512) };
}

#[test]
fn excluded_edges_refuse_ids_out_of_range_and_ragged_columns() {
    let err = ExcludedEdges::new(3, N, &[1], &[3], &[2]).unwrap_err();
    assert!(err.to_string().contains("edge 0"), "{err}");
    let err = ExcludedEdges::new(3, N, &[1], &[0], &[N as u32]).unwrap_err();
    assert!(err.to_string().contains("out of range"), "{err}");
    let err = ExcludedEdges::new(3, N, &[1, 2], &[0], &[2]).unwrap_err();
    assert!(err.to_string().contains("differ in length"), "{err}");
    let empty = ExcludedEdges::new(3, N, &[], &[], &[]).unwrap();
    assert!(empty.is_empty() && empty.of(2).is_empty() && empty.of(7).is_empty());
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
