//! `filtered_ranks` (any edge's rank, as `edgeProbabilities` serves it) against a brute force
//! over `score_triples`: every entity's logit read one triple at a time, the excluded entities
//! (but never the tail) dropped, and the rank counted as the evaluation counts it
//! (`1 + #greater + #equal / 2`).

use neptune_core::config::Config;
use neptune_core::params::Params;
use neptune_core::{
    filtered_ranks, filtered_ranks_at, filtered_ranks_with, Error, Model, TopKScan,
};

const N: usize = 60;

fn model() -> Model {
    let cfg = Config {
        d_e: 10,
        d_r: 4,
        ..Config::default()
    };
    // 3 base relations and their reverses.
    let mut p = Params::<f32>::init(&cfg, N, 6);
    // Entities 11, 12 and 13 are copies of entity 10: their logits tie in every row.
    let d = p.d_e;
    let row: Vec<f32> = p.e[10 * d..11 * d].to_vec();
    for e in 11..14 {
        p.e[e * d..(e + 1) * d].copy_from_slice(&row);
    }
    p.bn1
        .running_mean
        .iter_mut()
        .enumerate()
        .for_each(|(i, v)| *v = 0.02 * i as f32);
    Model::new(
        cfg,
        p,
        (0..N).map(|i| format!("e{i}")).collect(),
        (0..3).map(|i| format!("r{i}")).collect(),
        0,
        None,
    )
}

/// The rank of `t` for `(h, r, ?)` from one `score_triples` call per entity.
fn brute_force(model: &Model, q: (u32, u32, u32), exclude: &[u32]) -> f64 {
    brute_force_at(model, q, f32::NEG_INFINITY, exclude)
}

/// [`brute_force`] with `t` scoring `raised` where that is above its own logit.
fn brute_force_at(model: &Model, (h, r, t): (u32, u32, u32), raised: f32, exclude: &[u32]) -> f64 {
    let triples: Vec<(u32, u32, u32)> = (0..N as u32).map(|e| (h, r, e)).collect();
    let scores = model.score_triples(&triples).unwrap();
    let s = scores[t as usize].max(raised);
    let (mut greater, mut equal) = (0usize, 0usize);
    for e in 0..N as u32 {
        if e == t || exclude.contains(&e) {
            continue;
        }
        let v = scores[e as usize];
        greater += (v > s) as usize;
        equal += (v == s) as usize;
    }
    1.0 + greater as f64 + equal as f64 / 2.0
}

#[test]
fn ranks_match_the_brute_force_over_score_triples() {
    let m = model();
    let triples: Vec<(u32, u32, u32)> = (0..40u32)
        .map(|i| ((i * 7) % N as u32, i % 6, (i * 13 + 5) % N as u32))
        .chain([(0, 1, 10), (5, 4, 12), (9, 2, 13)]) // tails that tie with their copies
        .collect();
    // Many exclusions, duplicates, the tail itself, and a tied copy of the tail.
    let excludes: Vec<Vec<u32>> = triples
        .iter()
        .enumerate()
        .map(|(i, &(_, _, t))| {
            let mut list: Vec<u32> = (0..N as u32)
                .filter(|e| (e + i as u32).is_multiple_of(5))
                .collect();
            list.extend([t, t, 11, 11]);
            list
        })
        .collect();
    let lists: Vec<&[u32]> = excludes.iter().map(Vec::as_slice).collect();
    let ranked = filtered_ranks(&m, &triples, &lists).unwrap();
    let got: Vec<f64> = ranked.iter().map(|r| r.rank).collect();
    let plain: Vec<f64> = (filtered_ranks(&m, &triples, &[]).unwrap())
        .iter()
        .map(|r| r.rank)
        .collect();
    let logits: Vec<f32> = ranked.iter().map(|r| r.logit).collect();
    assert_eq!(logits, m.score_triples(&triples).unwrap());
    let mut tied = 0;
    for (i, &q) in triples.iter().enumerate() {
        assert_eq!(got[i], brute_force(&m, q, &excludes[i]), "triple {i} {q:?}");
        assert_eq!(
            plain[i],
            brute_force(&m, q, &[]),
            "triple {i} {q:?} unfiltered"
        );
        tied += (plain[i].fract() != 0.0) as usize;
    }
    assert!(tied >= 3, "the copied entities make half ranks ({tied})");
    assert!(
        got.iter().zip(&plain).any(|(a, b)| a < b),
        "filtering moved some ranks up"
    );
}

#[test]
fn triples_sharing_one_list_rank_as_with_their_own_copies_both_scans() {
    // Each question's known answers, one slice for every triple that asks it (each answer is
    // in it: a rank never counts its own answer): ranked as with a copy each, and as the brute
    // force ranks them.
    let m = model();
    let answers: Vec<Vec<u32>> = (0..6u32)
        .map(|q| {
            (0..N as u32)
                .filter(|e| (e + q).is_multiple_of(4))
                .collect()
        })
        .collect();
    let mut triples = Vec::new();
    let mut lists: Vec<&[u32]> = Vec::new();
    for (q, known) in answers.iter().enumerate() {
        for &t in known.iter().step_by(3) {
            triples.push(((q as u32 * 5) % N as u32, q as u32 % 6, t));
            lists.push(known.as_slice());
        }
    }
    let copies: Vec<Vec<u32>> = lists.iter().map(|l| l.to_vec()).collect();
    let raised: Vec<f32> = (0..triples.len()).map(|i| (i % 5) as f32 - 2.0).collect();
    for scan in [TopKScan::F32, TopKScan::Int8] {
        let shared = filtered_ranks_at(&m, &triples, &lists, &raised, scan).unwrap();
        let own: Vec<&[u32]> = copies.iter().map(Vec::as_slice).collect();
        let apart = filtered_ranks_at(&m, &triples, &own, &raised, scan).unwrap();
        for (i, &q) in triples.iter().enumerate() {
            assert_eq!(shared[i], apart[i], "triple {i} {q:?} {scan:?}");
            let want = brute_force_at(&m, q, raised[i], lists[i]);
            assert_eq!(shared[i].rank, want, "triple {i} {q:?} {scan:?}");
        }
    }
}

#[test]
fn a_raised_score_ranks_as_the_brute_force_over_score_triples_both_scans() {
    let m = model();
    let triples: Vec<(u32, u32, u32)> = (0..40u32)
        .map(|i| ((i * 7) % N as u32, i % 6, (i * 13 + 5) % N as u32))
        .collect();
    let logits = m.score_triples(&triples).unwrap();
    // Raised by nothing, a little, a lot; some lowered (they rank as their own logit); one
    // raised to exactly the logit of another entity (a tie).
    let tie = m
        .score_triples(&[(triples[3].0, triples[3].1, 11)])
        .unwrap()[0];
    let ranked: Vec<f32> = logits
        .iter()
        .enumerate()
        .map(|(i, &l)| match i % 4 {
            0 => l,
            1 => l + 0.05,
            2 => l + 3.0,
            _ => l - 1.0,
        })
        .enumerate()
        .map(|(i, s)| if i == 3 { tie.max(logits[3]) } else { s })
        .collect();
    let excludes: Vec<Vec<u32>> = (0..triples.len())
        .map(|i| {
            (0..N as u32)
                .filter(|e| (e + i as u32).is_multiple_of(7))
                .collect()
        })
        .collect();
    let lists: Vec<&[u32]> = excludes.iter().map(Vec::as_slice).collect();
    for scan in [TopKScan::F32, TopKScan::Int8] {
        let got = filtered_ranks_at(&m, &triples, &lists, &ranked, scan).unwrap();
        for (i, &q) in triples.iter().enumerate() {
            let want = brute_force_at(&m, q, ranked[i], &excludes[i]);
            assert_eq!(got[i].rank, want, "{scan:?} triple {i} {q:?}");
            // The 8-bit pass scores the tail with its own kernel: equal up to rounding.
            assert!(
                (got[i].logit - logits[i]).abs() <= 1e-5 * logits[i].abs().max(1.0),
                "the model's own logit"
            );
        }
        let plain = filtered_ranks(&m, &triples, &lists).unwrap();
        assert!(
            got.iter().zip(&plain).any(|(a, b)| a.rank < b.rank),
            "raised scores rank higher"
        );
    }
    assert!(filtered_ranks_at(&m, &triples, &lists, &ranked[1..], TopKScan::Auto).is_err());
}

#[test]
fn logits_of_candidates_are_score_triples_logits() {
    let m = model();
    let candidates: Vec<u32> = (0..N as u32).rev().step_by(3).chain([10, 11, 10]).collect();
    for (h, r) in [(0u32, 0u32), (7, 4), (59, 5)] {
        let got = m.logits_of(h, r, &candidates).unwrap();
        let triples: Vec<(u32, u32, u32)> = candidates.iter().map(|&c| (h, r, c)).collect();
        // One query's product against many at once: equal up to the matmul's rounding.
        for (a, b) in got.iter().zip(m.score_triples(&triples).unwrap()) {
            assert!(
                (a - b).abs() <= 1e-5 * b.abs().max(1.0),
                "({h}, {r}): {a} vs {b}"
            );
        }
    }
    assert!(m.logits_of(0, 0, &[]).unwrap().is_empty());
    assert!(matches!(
        m.logits_of(0, 0, &[N as u32]),
        Err(Error::Argument { .. })
    ));
}

#[test]
fn bad_arguments_are_refused_by_name() {
    let m = model();
    let arg = |r: neptune_core::Result<Vec<neptune_core::RankedTail>>| match r {
        Err(Error::Argument { arg, .. }) => arg,
        other => panic!("expected an argument error, got {other:?}"),
    };
    assert_eq!(arg(filtered_ranks(&m, &[(0, 0, N as u32)], &[])), "tails");
    assert_eq!(
        arg(filtered_ranks(&m, &[(0, 0, 1)], &[&[], &[]])),
        "excludes"
    );
    assert_eq!(
        arg(filtered_ranks(&m, &[(0, 0, 1)], &[&[N as u32]])),
        "excludes"
    );
    assert_eq!(arg(filtered_ranks(&m, &[(N as u32, 0, 1)], &[])), "entity");
    assert_eq!(arg(filtered_ranks(&m, &[(0, 6, 1)], &[])), "relation");
    assert!(filtered_ranks(&m, &[], &[]).unwrap().is_empty());
}

#[test]
fn a_batch_at_scale_ranks_by_one_product_with_the_tails_own_logits() {
    // 100,000 entities (d_e 8): a batch of RANK_PRODUCT_MIN_QUERIES or more scores every entity
    // by the f32 product, fewer go through the 8-bit pass; both report score_triples' logits.
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
    let batch = neptune_core::RANK_PRODUCT_MIN_QUERIES + 44;
    let mut triples: Vec<(u32, u32, u32)> = (0..batch as u32 - 4)
        .map(|i| ((i * 7_919) % n as u32, i % 4, (i * 104_729 + 17) % n as u32))
        .collect();
    // Each query's best tail too: rank 1 whatever the scan.
    let firsts: Vec<(u32, u32)> = triples[..4].iter().map(|&(h, r, _)| (h, r)).collect();
    let tops = m.top_k_batch(&firsts, 1, &[]).unwrap();
    triples.extend(
        firsts
            .iter()
            .zip(&tops)
            .map(|(&(h, r), top)| (h, r, top[0].entity)),
    );
    let excludes: Vec<Vec<u32>> = triples
        .iter()
        .map(|&(h, _, t)| vec![t, (h + 1) % n as u32, (t + 3) % n as u32])
        .collect();
    let lists: Vec<&[u32]> = excludes.iter().map(Vec::as_slice).collect();
    let own = m.score_triples(&triples).unwrap();
    let product = filtered_ranks(&m, &triples, &lists).unwrap();
    let pass = filtered_ranks_with(&m, &triples, &lists, TopKScan::Int8).unwrap();
    let mut same = 0;
    for (i, (a, b)) in product.iter().zip(&pass).enumerate() {
        assert_eq!(
            a.logit, own[i],
            "triple {i}: score_triples' logit, to the bit"
        );
        // The product's rows and the tail's own row may round apart: a tie at most moves.
        assert!(
            (a.rank - b.rank).abs() <= 1.0,
            "triple {i}: {} vs {}",
            a.rank,
            b.rank
        );
        same += (a.rank == b.rank) as usize;
    }
    assert!(
        same * 100 >= 95 * batch,
        "{same} of {batch} ranks as the 8-bit pass"
    );
    assert!(product[batch - 4..].iter().all(|r| r.rank == 1.0));
    // Fewer triples than the threshold: the 8-bit pass's answer, exactly.
    let few = filtered_ranks(&m, &triples[..8], &lists[..8]).unwrap();
    assert_eq!(few, pass[..8].to_vec());
    // A raised score ranks as the 8-bit pass ranks it.
    let raised: Vec<f32> = own.iter().map(|l| l + 0.5).collect();
    let a = filtered_ranks_at(&m, &triples, &lists, &raised, TopKScan::Auto).unwrap();
    let b = filtered_ranks_at(&m, &triples, &lists, &raised, TopKScan::Int8).unwrap();
    for (i, (a, b)) in a.iter().zip(&b).enumerate() {
        assert!(
            (a.rank - b.rank).abs() <= 1.0,
            "raised {i}: {} vs {}",
            a.rank,
            b.rank
        );
        assert!(a.rank <= product[i].rank, "raised {i} ranks no lower");
    }
}
