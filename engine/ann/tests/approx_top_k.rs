//! The index against the exact scan on a seeded model: recall of the top 10, exact logits,
//! known edges never returned, the exact fallback, the stop flag and argument errors.

use anndists::dist::Distance;
use neptune_ann::inner_product_gap::{largest_norm_squared, scale_query, InnerProductGap};
use neptune_ann::{approx_top_k_batch, recall, ApproxIndex, BuildOptions, BuildStopped};
use neptune_core::config::Config;
use neptune_core::params::Params;
use neptune_core::{Error, Model};
use std::sync::atomic::AtomicBool;

fn model(n: usize, d_e: usize) -> Model {
    let cfg = Config {
        d_e,
        d_r: 8,
        seed: 7,
        ..Config::default()
    };
    let params = Params::<f32>::init(&cfg, n, 6);
    Model::new(
        cfg,
        params,
        (0..n).map(|i| format!("e{i}")).collect(),
        (0..3).map(|i| format!("r{i}")).collect(),
        0,
        None,
    )
}

fn index(m: &Model) -> ApproxIndex {
    ApproxIndex::build(
        &m.params.e,
        m.params.d_e,
        BuildOptions::default(),
        &AtomicBool::new(false),
        &mut |_, _| {},
    )
    .expect("valid arguments")
    .expect("not stopped")
}

fn queries(n: usize, count: usize) -> Vec<(u32, u32)> {
    (0..count)
        .map(|i| (((i * 7919) % n) as u32, (i % 6) as u32))
        .collect()
}

#[test]
fn the_gap_orders_rows_as_their_logit_and_is_never_negative() {
    let m = model(300, 16);
    let (e, d) = (&m.params.e, 16);
    let gap = InnerProductGap {
        norm_squared: largest_norm_squared(e, &[0.0; 16]),
    };
    let x: Vec<f32> = (0..d).map(|i| 3.0 * (i as f32 * 0.37).sin()).collect();
    let q = scale_query(&x, gap.norm_squared);
    let logit = |r: &[f32]| r.iter().zip(&x).map(|(a, b)| a * b).sum::<f32>();
    let mut rows: Vec<&[f32]> = e.chunks(d).collect();
    rows.sort_by(|a, b| logit(b).total_cmp(&logit(a)));
    let gaps: Vec<f32> = rows.iter().map(|r| gap.eval(&q, r)).collect();
    assert!(
        gaps.windows(2).all(|w| w[0] <= w[1] + 1e-5),
        "higher logit, smaller gap"
    );
    assert!(gaps.iter().all(|&g| g >= 0.0));
    for a in &rows {
        for b in &rows[..10] {
            assert!(gap.eval(a, b) >= 0.0);
        }
    }
}

#[test]
fn top_ten_recall_against_the_exact_scan() {
    let m = model(6000, 32);
    let idx = index(&m);
    let qs = queries(6000, 200);
    let exact = m.top_k_batch(&qs, 10, &[]).unwrap();
    let approx = approx_top_k_batch(&m, &idx, &qs, 10, &[], 64).unwrap();
    assert_eq!(approx.exact_fallbacks, 0);
    let mut hits = 0;
    for (a, x) in approx.top.iter().zip(&exact) {
        assert_eq!(a.len(), 10);
        for p in a {
            if let Some(q) = x.iter().find(|q| q.entity == p.entity) {
                hits += 1;
                assert!((p.logit - q.logit).abs() <= 1e-4 * (1.0 + q.logit.abs()));
            }
        }
        assert!(a.windows(2).all(|w| w[0].logit >= w[1].logit), "best first");
    }
    let recall = hits as f64 / (10.0 * qs.len() as f64);
    assert!(recall >= 0.99, "recall@10 {recall}");
}

#[test]
fn known_edges_are_never_returned() {
    let m = model(3000, 24);
    let idx = index(&m);
    let qs = queries(3000, 40);
    let exact = m.top_k_batch(&qs, 10, &[]).unwrap();
    // Exclude each query's exact best five: the answer must skip them all.
    let lists: Vec<Vec<u32>> = exact
        .iter()
        .map(|t| t[..5].iter().map(|p| p.entity).collect())
        .collect();
    let ex: Vec<&[u32]> = lists.iter().map(|l| l.as_slice()).collect();
    let approx = approx_top_k_batch(&m, &idx, &qs, 10, &ex, 64).unwrap();
    let filtered = m.top_k_batch(&qs, 10, &ex).unwrap();
    let mut hits = 0;
    for ((a, f), l) in approx.top.iter().zip(&filtered).zip(&lists) {
        assert!(a.iter().all(|p| !l.contains(&p.entity)));
        hits += a
            .iter()
            .filter(|p| f.iter().any(|q| q.entity == p.entity))
            .count();
    }
    assert!(
        hits as f64 >= 0.98 * 10.0 * qs.len() as f64,
        "{hits} of 400"
    );
}

#[test]
fn more_exclusions_than_the_search_width_fall_back_to_the_exact_scan() {
    let m = model(2000, 16);
    let idx = index(&m);
    let qs = queries(2000, 3);
    let long: Vec<u32> = (0..500).collect();
    let ex: Vec<&[u32]> = vec![&long, &[], &long];
    let approx = approx_top_k_batch(&m, &idx, &qs, 10, &ex, 64).unwrap();
    assert_eq!(approx.exact_fallbacks, 2);
    let exact = m.top_k_batch(&qs, 10, &ex).unwrap();
    assert_eq!(approx.top[0], exact[0]);
    assert_eq!(approx.top[2], exact[2]);
    assert!(approx.top[0].iter().all(|p| p.entity >= 500));
}

#[test]
fn a_set_stop_flag_stops_the_build() {
    let m = model(20000, 8);
    let mut reports = 0;
    let stopped = ApproxIndex::build(
        &m.params.e,
        8,
        BuildOptions::default(),
        &AtomicBool::new(true),
        &mut |_, _| reports += 1,
    )
    .unwrap();
    assert!(matches!(stopped, Err(BuildStopped)));
    assert_eq!(reports, 0);
}

#[test]
fn progress_reaches_every_row() {
    let m = model(10000, 8);
    let mut last = (0, 0);
    ApproxIndex::build(
        &m.params.e,
        8,
        BuildOptions::default(),
        &AtomicBool::new(false),
        &mut |done, n| last = (done, n),
    )
    .unwrap()
    .unwrap();
    assert_eq!(last, (10000, 10000));
}

#[test]
fn bad_arguments_name_themselves() {
    let m = model(100, 8);
    let stop = AtomicBool::new(false);
    let err = |r: neptune_core::Result<_>| match r {
        Err(Error::Argument { arg, .. }) => arg,
        _ => panic!("expected an argument error"),
    };
    let too_many = BuildOptions {
        connections: 300,
        ..BuildOptions::default()
    };
    assert_eq!(
        err(ApproxIndex::build(&m.params.e, 8, too_many, &stop, &mut |_, _| {}).map(|_| ())),
        "connections"
    );
    assert_eq!(
        err(ApproxIndex::build(
            &m.params.e[..12],
            8,
            BuildOptions::default(),
            &stop,
            &mut |_, _| {}
        )
        .map(|_| ())),
        "e"
    );
    let other = model(150, 8);
    let idx = index(&other);
    assert_eq!(
        err(approx_top_k_batch(&m, &idx, &[(0, 0)], 5, &[], 16).map(|_| ())),
        "index"
    );
}

#[test]
fn entities_appended_after_the_build_are_scored_beside_the_index() {
    let m = model(3000, 16);
    let idx = index(&m);
    // Five appended rows, each a copy of a strong row scaled up: they must top some queries.
    let qs = queries(3000, 20);
    let exact = m.top_k_batch(&qs, 10, &[]).unwrap();
    let best = exact[0][0].entity as usize;
    let row: Vec<f32> = m.params.e[best * 16..][..16]
        .iter()
        .map(|v| v * 3.0)
        .collect();
    let rows: Vec<f32> = (0..5).flat_map(|_| row.clone()).collect();
    let grown = m
        .with_entities((0..5).map(|i| format!("new{i}")).collect(), &rows)
        .unwrap();
    let approx = approx_top_k_batch(&grown, &idx, &qs, 10, &[], 64).unwrap();
    assert_eq!(
        approx.top[0][..5]
            .iter()
            .map(|p| p.entity)
            .collect::<Vec<_>>(),
        vec![3000, 3001, 3002, 3003, 3004]
    );
    let more = model(3001, 16);
    assert!(approx_top_k_batch(&m, &index(&more), &qs, 10, &[], 64).is_err());
}

#[test]
fn rows_sharing_one_large_direction_stay_reachable_and_found() {
    // A trained model's rows share one large direction (every query's logits carry it); the
    // index takes the rows' mean off, so the graph still reaches nearly every row.
    let (n, d) = (6000, 32);
    let mut m = model(n, d);
    let rms = (m.params.e.iter().map(|v| v * v).sum::<f32>() / m.params.e.len() as f32).sqrt();
    let offset: Vec<f32> = (0..d).map(|i| 3.0 * rms * (i as f32 * 0.9).cos()).collect();
    for row in m.params.e.make_owned().chunks_mut(d) {
        row.iter_mut().zip(&offset).for_each(|(v, o)| *v += o);
    }
    let idx = index(&m);
    let unreachable = idx.unreachable().len();
    assert!(
        unreachable <= n / 50,
        "{unreachable} of {n} rows unreachable"
    );
    let qs = queries(n, 200);
    let exact = m.top_k_batch(&qs, 10, &[]).unwrap();
    let approx = approx_top_k_batch(&m, &idx, &qs, 10, &[], 64).unwrap();
    let found = recall(&approx.top, &exact);
    assert!(found >= 0.99, "recall@10 {found}");
}
