//! Top-k and filtered ranks over 8-bit rows with an exact re-score ([`TopKScan::Int8`]) against a
//! brute force: every entity's logit `x2 · E[e]` summed in f64, sorted best first (ties to the
//! lower id), excluded entities and NaN dropped; ranks counted as the evaluation counts them.
//! The scans must give exactly the brute force's lists and ranks, including where many entities
//! sit just below the k-th or beside the tail (where the 8-bit scores cannot tell them apart),
//! and a model large enough for `Auto` to scan must score, rank and list its entities alike.

use neptune_core::config::Config;
use neptune_core::params::Params;
use neptune_core::rng::splitmix64;
use neptune_core::scoring::{hidden_into, CoreCache, ScoreBuffers};
use neptune_core::{filtered_ranks, filtered_ranks_with, Model, TopKScan};

const N: usize = 3000;

fn model(tweak: impl FnOnce(&mut Params<f32>)) -> Model {
    let cfg = Config {
        d_e: 24,
        d_r: 6,
        ..Config::default()
    };
    // 2 base relations and their reverses.
    let mut p = Params::<f32>::init(&cfg, N, 4);
    // Rows of varied length (trained rows are not of one norm), so scales differ per row.
    let d = p.d_e;
    for e in 0..N {
        let f = 0.2 + (splitmix64(e as u64) % 1000) as f32 / 250.0;
        p.e[e * d..(e + 1) * d].iter_mut().for_each(|v| *v *= f);
    }
    tweak(&mut p);
    Model::new(
        cfg,
        p,
        (0..N).map(|i| format!("e{i}")).collect(),
        vec!["r0".into(), "r1".into()],
        0,
        None,
    )
}

/// The eval-mode hidden vector of `(h, r)` (the scans' query).
fn hidden(model: &Model, (h, r): (u32, u32)) -> Vec<f32> {
    let p = &model.params;
    let cache = CoreCache::new(p.n_rel);
    cache.prepare(p, &[r]);
    hidden_into(p, &cache, &[(h, r)], &mut ScoreBuffers::default()).to_vec()
}

/// Entities 100..120 copy entity 7 exactly (they tie); 120..520 are within an 8-bit step of it.
fn near_copies_of_7(p: &mut Params<f32>) {
    let d = p.d_e;
    let row: Vec<f32> = p.e[7 * d..8 * d].to_vec();
    for e in 100..520 {
        for (j, v) in p.e[e * d..(e + 1) * d].iter_mut().enumerate() {
            let jitter = if e < 120 {
                0.0
            } else {
                ((splitmix64((e * d + j) as u64) % 2001) as f32 - 1000.0) * 1e-6
            };
            *v = row[j] + jitter;
        }
    }
}

/// The brute force's top `k` of `(h, r)` as `(entity, logit)`.
fn brute_force(model: &Model, (h, r): (u32, u32), k: usize, exclude: &[u32]) -> Vec<(u32, f32)> {
    let (p, x) = (&model.params, hidden(model, (h, r)));
    let d = p.d_e;
    let mut all: Vec<(u32, f32)> = (0..p.n_ent as u32)
        .filter(|e| !exclude.contains(e))
        .map(|e| {
            let row = &p.e[e as usize * d..][..d];
            let s: f64 = row.iter().zip(&x).map(|(&a, &b)| a as f64 * b as f64).sum();
            (e, s as f32)
        })
        .filter(|(_, s)| !s.is_nan())
        .collect();
    all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    all.truncate(k);
    all
}

fn queries() -> Vec<(u32, u32)> {
    // More than one pass of queries (16), every model relation.
    (0..37u32).map(|i| ((i * 83) % N as u32, i % 4)).collect()
}

fn assert_matches_brute_force(model: &Model, k: usize, excludes: &[Vec<u32>]) {
    let qs = queries();
    let lists: Vec<&[u32]> = excludes.iter().map(Vec::as_slice).collect();
    let got = model
        .top_k_batch_with(&qs, k, &lists, TopKScan::Int8)
        .unwrap();
    let f32_path = model
        .top_k_batch_with(&qs, k, &lists, TopKScan::F32)
        .unwrap();
    assert_eq!(got.len(), qs.len());
    for (i, &q) in qs.iter().enumerate() {
        let want = brute_force(model, q, k, lists.get(i).copied().unwrap_or(&[]));
        let have: Vec<(u32, f32)> = got[i].iter().map(|p| (p.entity, p.logit)).collect();
        assert_eq!(have, want, "query {i} {q:?}");
        // The f32 product's logits agree up to rounding, rank by rank.
        assert_eq!(f32_path[i].len(), want.len());
        for (a, b) in f32_path[i].iter().zip(&want) {
            assert!(
                a.logit == b.1 || (a.logit - b.1).abs() <= 1e-4 * (1.0 + b.1.abs()),
                "query {i}"
            );
        }
        for p in &got[i] {
            assert!((p.probability - 1.0 / (1.0 + (-p.logit).exp())).abs() < 1e-6);
        }
    }
}

#[test]
fn the_scan_returns_the_exact_top_k() {
    let m = model(|_| {});
    for k in [1, 10, 100] {
        assert_matches_brute_force(&m, k, &[]);
    }
}

#[test]
fn excluded_entities_never_return_and_others_take_their_place() {
    let m = model(|_| {});
    let qs = queries();
    // Exclude each query's own brute-force top 5 (unsorted), and its head.
    let excludes: Vec<Vec<u32>> = qs
        .iter()
        .map(|&q| {
            let mut ex: Vec<u32> = brute_force(&m, q, 5, &[]).iter().map(|e| e.0).collect();
            ex.reverse();
            ex.push(q.0);
            ex
        })
        .collect();
    assert_matches_brute_force(&m, 10, &excludes);
}

#[test]
fn near_ties_below_the_kth_are_decided_exactly() {
    // The scan cannot order the near-copies of entity 7; the re-rank must (copies tie and go to
    // the lower id).
    let m = model(near_copies_of_7);
    for k in [5, 50] {
        assert_matches_brute_force(&m, k, &[]);
    }
}

#[test]
fn non_finite_rows_and_small_graphs() {
    // A NaN row is never returned; an infinite row scores +-inf exactly.
    let m = model(|p| {
        let d = p.d_e;
        p.e[3 * d + 1] = f32::NAN;
        p.e[9 * d] = f32::INFINITY;
    });
    assert_matches_brute_force(&m, 10, &[]);
    // k 0: nothing; k beyond the entities: every admissible entity, in order.
    let none = m
        .top_k_batch_with(&[(0, 1)], 0, &[], TopKScan::Int8)
        .unwrap();
    assert_eq!(none, vec![vec![]]);
    let got = m
        .top_k_batch_with(&[(0, 1)], N + 10, &[&[0]], TopKScan::Int8)
        .unwrap();
    assert_eq!(got[0].len(), N - 2);
    assert_eq!(
        got[0]
            .iter()
            .map(|p| (p.entity, p.logit))
            .collect::<Vec<_>>(),
        brute_force(&m, (0, 1), N + 10, &[0])
    );
}

/// `m` with `rows` inside E, as if trained with them: what `with_entities` must answer as.
fn concatenated(m: &Model, names: &[&str], rows: &[f32]) -> Model {
    let mut p = m.params.clone();
    p.e.extend_from_slice(rows);
    p.n_ent += names.len();
    let mut entities = m.entities.to_vec();
    entities.extend(names.iter().map(|s| s.to_string()));
    Model::new(m.config.clone(), p, entities, m.relations.clone(), 0, None)
}

#[test]
fn appended_entities_answer_as_rows_of_e_would() {
    let mut m = model(near_copies_of_7);
    // As the binding holds a model: clones share E.
    m.params.e.share();
    m.int8_rows();
    let d = m.params.d_e;
    let row = |e: usize, f: f32| m.params.e[e * d..][..d].iter().map(move |v| v * f);
    // One row far above the rest, one among 7 and its near-copies (no exact tie: the f32
    // products may round a tie either way), one small.
    let rows: Vec<f32> = row(5, 3.0)
        .chain(row(7, 1.001))
        .chain(row(11, 0.5))
        .collect();
    let names = ["a", "b", "c"];
    let grown = m
        .with_entities(names.iter().map(|s| s.to_string()).collect(), &rows)
        .unwrap();
    assert!(
        std::ptr::eq(grown.int8_rows(), m.int8_rows()),
        "the 8-bit rows are shared, not extended"
    );
    assert_eq!(grown.params.e.as_ptr(), m.params.e.as_ptr(), "E is shared");
    let want = concatenated(&m, &names, &rows);
    let (a, b, c) = (N as u32, N as u32 + 1, N as u32 + 2);
    assert_eq!((grown.n_entities(), grown.entity_id("c")), (N + 3, Some(c)));
    assert_eq!(grown.entity_name(b), Some("b"));
    // Trained and appended heads; excludes that name appended entities.
    let qs: Vec<(u32, u32)> = vec![(0, 0), (7, 1), (a, 2), (c, 3), (500, 0), (b, 1)];
    let excludes: Vec<Vec<u32>> = vec![vec![], vec![a, 7], vec![], vec![b, c, 3], vec![a], vec![]];
    let lists: Vec<&[u32]> = excludes.iter().map(Vec::as_slice).collect();
    for k in [1, 5, 40] {
        let got = grown
            .top_k_batch_with(&qs, k, &lists, TopKScan::Int8)
            .unwrap();
        assert_eq!(
            got,
            want.top_k_batch_with(&qs, k, &lists, TopKScan::Int8)
                .unwrap()
        );
        let f32_path = grown
            .top_k_batch_with(&qs, k, &lists, TopKScan::F32)
            .unwrap();
        let f32_want = want
            .top_k_batch_with(&qs, k, &lists, TopKScan::F32)
            .unwrap();
        // The f32 products agree up to rounding, rank by rank (near-copies of 7 may swap).
        for (g, w) in f32_path.iter().zip(&f32_want) {
            assert_eq!(g.len(), w.len());
            for (p, q) in g.iter().zip(w) {
                assert!(
                    (p.logit - q.logit).abs() <= 1e-5 * (1.0 + q.logit.abs()),
                    "{p:?} {q:?}"
                );
            }
        }
    }
    // Ranks of appended and trained tails, appended entities among the known answers.
    let triples: Vec<(u32, u32, u32)> =
        vec![(0, 0, a), (7, 1, b), (a, 2, 7), (c, 3, c), (9, 0, 100)];
    let known: Vec<Vec<u32>> = vec![vec![b], vec![7, 101, b], vec![a], vec![], vec![b, c]];
    let known: Vec<&[u32]> = known.iter().map(Vec::as_slice).collect();
    for scan in [TopKScan::Int8, TopKScan::F32] {
        let got = filtered_ranks_with(&grown, &triples, &known, scan).unwrap();
        let expected = filtered_ranks_with(&want, &triples, &known, scan).unwrap();
        for (g, w) in got.iter().zip(&expected) {
            assert_eq!(g.rank, w.rank, "{scan:?}");
            assert!((g.logit - w.logit).abs() <= 1e-5 * (1.0 + w.logit.abs()));
        }
    }
    let (got, expected) = (
        grown.score_triples(&triples).unwrap(),
        want.score_triples(&triples).unwrap(),
    );
    for (g, w) in got.iter().zip(&expected) {
        assert!((g - w).abs() <= 1e-5 * (1.0 + w.abs()));
    }
    assert_eq!(
        grown.entity_vectors(&[3, b]).unwrap(),
        want.entity_vectors(&[3, b]).unwrap()
    );
    assert_eq!(
        grown.hidden_vectors(&qs).unwrap(),
        want.hidden_vectors(&qs).unwrap()
    );
    // Growing again keeps the earlier rows: ids stay put.
    let again = grown.with_entities(vec!["d".into()], &rows[..d]).unwrap();
    assert_eq!((again.n_entities(), again.entity_id("b")), (N + 4, Some(b)));
    assert_eq!(again.entity_vectors(&[b]).unwrap(), &rows[d..2 * d]);
}

/// The brute force's filtered rank of `t` for `(h, r)` and its logit (f64 sums rounded to f32;
/// ties count half; `known` other than `t` removed; a NaN tail last).
fn brute_force_rank(model: &Model, (h, r, t): (u32, u32, u32), known: &[u32]) -> (f64, f32) {
    let (p, x) = (&model.params, hidden(model, (h, r)));
    let d = p.d_e;
    let score = |e: u32| {
        let row = &p.e[e as usize * d..][..d];
        row.iter()
            .zip(&x)
            .map(|(&a, &b)| a as f64 * b as f64)
            .sum::<f64>() as f32
    };
    let s = score(t);
    if s.is_nan() {
        return (p.n_ent as f64, s);
    }
    let (mut above, mut equal) = (0usize, 0usize);
    for e in (0..p.n_ent as u32).filter(|&e| e != t && !known.contains(&e)) {
        let v = score(e);
        above += usize::from(v > s);
        equal += usize::from(v == s);
    }
    (1.0 + above as f64 + equal as f64 / 2.0, s)
}

#[test]
fn ranks_over_8_bit_rows_are_the_brute_force_ranks() {
    let m = model(|p| {
        near_copies_of_7(p);
        p.e[9 * p.d_e + 2] = f32::NAN;
    });
    // Tails of every kind: the copies and near-copies, a NaN row, ordinary entities.
    let triples: Vec<(u32, u32, u32)> = (0..40u32)
        .map(|i| {
            (
                (i * 131) % N as u32,
                i % 4,
                [7, 105, 300, 9, 2000][i as usize % 5] + i,
            )
        })
        .collect();
    // Known answers: some copies, the tail itself, repeats, unsorted.
    let known: Vec<Vec<u32>> = triples
        .iter()
        .map(|&(_, _, t)| vec![110, t, 101, 110, 2500, 7])
        .collect();
    let lists: Vec<&[u32]> = known.iter().map(Vec::as_slice).collect();
    let got = filtered_ranks_with(&m, &triples, &lists, TopKScan::Int8).unwrap();
    for (i, &q) in triples.iter().enumerate() {
        let (rank, logit) = brute_force_rank(&m, q, &known[i]);
        assert_eq!(got[i].rank, rank, "triple {i} {q:?}");
        assert!(got[i].logit == logit || (got[i].logit.is_nan() && logit.is_nan()));
    }
    // Without known answers; against the f32 product where no near-tie can flip a rank.
    let plain = model(|_| {});
    let triples: Vec<(u32, u32, u32)> = (0..20u32).map(|i| (i, i % 4, i * 97 + 5)).collect();
    let int8 = filtered_ranks_with(&plain, &triples, &[], TopKScan::Int8).unwrap();
    let f32_path = filtered_ranks_with(&plain, &triples, &[], TopKScan::F32).unwrap();
    for (i, &q) in triples.iter().enumerate() {
        assert_eq!(int8[i].rank, brute_force_rank(&plain, q, &[]).0);
        assert_eq!(int8[i].rank, f32_path[i].rank, "triple {i}");
    }
}

#[test]
fn a_large_model_scores_ranks_and_top_k_alike() {
    // 100,000 entities (d_e 8): every read goes through the 8-bit scans or the tail's row.
    let cfg = Config {
        d_e: 8,
        d_r: 4,
        ..Config::default()
    };
    let n = neptune_core::model::INT8_SCAN_MIN_ENTITIES;
    let m = Model::new(
        cfg.clone(),
        Params::<f32>::init(&cfg, n, 4),
        (0..n).map(|i| format!("e{i}")).collect(),
        vec!["r0".into(), "r1".into()],
        0,
        None,
    );
    assert!(m.warm_up(usize::MAX));
    let queries: Vec<(u32, u32)> = (0..5u32).map(|i| (i * 7919, i % 4)).collect();
    let tops = m.top_k_batch(&queries, 3, &[]).unwrap();
    for (q, top) in queries.iter().zip(&tops) {
        let brute = brute_force(&m, *q, 3, &[]);
        assert_eq!(
            top.iter().map(|p| (p.entity, p.logit)).collect::<Vec<_>>(),
            brute
        );
        // The best entity's own score and rank agree with the list, to the bit.
        let best = (q.0, q.1, top[0].entity);
        assert_eq!(m.score_triples(&[best]).unwrap(), vec![top[0].logit]);
        let ranked = filtered_ranks(&m, &[best], &[]).unwrap();
        assert_eq!((ranked[0].rank, ranked[0].logit), (1.0, top[0].logit));
        let second = (q.0, q.1, top[1].entity);
        assert_eq!(
            filtered_ranks(&m, &[second], &[&[top[0].entity]]).unwrap()[0].rank,
            1.0
        );
    }
}
