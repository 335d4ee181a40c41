//! Fold-in of new entities: the objective and its exact gradient against an independent f64
//! computation and finite differences; the loss falls; a folded-in entity ranks its edges'
//! other ends; bursts equal one-at-a-time; errors; `Model::with_entities`.

mod common;

use neptune_core::fold_in::fold_in_objective;
use neptune_core::params::Params;
use neptune_core::{
    fold_in, fold_in_with_pool, Activation, Config, FoldInEdge, FoldInSettings, InitScheme,
    InverseMode, Loss, Model, NegativePool, Trainer,
};
use std::sync::atomic::{AtomicBool, Ordering};

const N: usize = 23;

fn random_model(loss: Loss, inverse_mode: InverseMode) -> Model {
    let cfg = Config {
        d_e: 6,
        d_r: 4,
        loss,
        inverse_mode,
        label_smoothing: 0.1,
        init: InitScheme::XavierNormal,
        ..Config::default()
    };
    let n_rel = inverse_mode.model_relations(3);
    let mut p = Params::<f32>::init(&cfg, N, n_rel);
    // Non-trivial eval-mode BatchNorms and a negative slope that matters.
    for (i, v) in p.bn0.running_mean.iter_mut().enumerate() {
        *v = 0.05 * i as f32 - 0.1;
    }
    for (i, v) in p.bn0.running_var.iter_mut().enumerate() {
        *v = 0.5 + 0.1 * i as f32;
    }
    for (i, v) in p.bn1.running_mean.iter_mut().enumerate() {
        *v = -0.03 * i as f32;
    }
    for (i, v) in p.bn1.gamma.iter_mut().enumerate() {
        *v = 1.0 + 0.2 * i as f32;
    }
    for (i, v) in p.bn1.beta.iter_mut().enumerate() {
        *v = 0.1 - 0.04 * i as f32;
    }
    p.slope[0] = 0.25;
    Model::new(
        cfg,
        p,
        (0..N).map(|i| format!("e{i}")).collect(),
        (0..3).map(|i| format!("r{i}")).collect(),
        0,
        None,
    )
}

fn edges() -> Vec<FoldInEdge> {
    // Answers vary by edge, so the softmax tail side's shared targets are checked.
    let e = |relation, other: u32, outgoing| FoldInEdge {
        relation,
        other,
        outgoing,
        answers: other % 4 * 3,
    };
    vec![
        e(0, 3, true),
        e(0, 7, true),
        e(2, 3, false),
        e(1, 11, false),
        e(1, 12, false),
        e(0, 3, true), // a duplicate counts once
        e(1, 5, true),
    ]
}

/// The eval-mode hidden vector of head row `x0` under model relation `rel`, naively in f64.
fn hidden(m: &Model, x0: &[f64], rel: u32) -> Vec<f64> {
    let p = &m.params;
    let d = p.d_e;
    let bn = |bn: &neptune_core::params::BatchNorm<f32>, x: &[f64]| -> Vec<f64> {
        (0..d)
            .map(|j| {
                bn.gamma[j] as f64 * (x[j] - bn.running_mean[j] as f64)
                    / (bn.running_var[j] as f64 + 1e-5).sqrt()
                    + bn.beta[j] as f64
            })
            .collect()
    };
    let x1 = bn(&p.bn0, x0);
    let rr = &p.r[rel as usize * p.d_r..][..p.d_r];
    let y: Vec<f64> = (0..d)
        .map(|j| {
            (0..d)
                .map(|i| {
                    let a: f64 = (0..p.d_r)
                        .map(|k| rr[k] as f64 * p.w[k * d * d + i * d + j] as f64)
                        .sum();
                    x1[i] * a
                })
                .sum()
        })
        .collect();
    let slope = p.slope[0] as f64;
    bn(&p.bn1, &y)
        .iter()
        .map(|&v| if v > 0.0 { v } else { slope * v })
        .collect()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn known_row(m: &Model, e: u32) -> Vec<f64> {
    let d = m.params.d_e;
    m.params.e[e as usize * d..][..d]
        .iter()
        .map(|&v| v as f64)
        .collect()
}

/// The logits of `x2` over the known entities.
fn logits(m: &Model, x2: &[f64]) -> Vec<f64> {
    (0..m.params.n_ent as u32)
        .map(|t| dot(x2, &known_row(m, t)))
        .collect()
}

fn lse(l: &[f64]) -> f64 {
    let mx = l.iter().cloned().fold(f64::MIN, f64::max);
    mx + l.iter().map(|v| (v - mx).exp()).sum::<f64>().ln()
}

fn bce(l: f64, y: f64) -> f64 {
    (1.0 + l.exp()).ln() - y * l
}

/// The fold-in loss computed naively in f64 from the model's tensors (module docs of
/// `fold_in` and its `tail_side`).
fn reference_loss(
    m: &Model,
    edges: &[FoldInEdge],
    row: &[f64],
    s: &FoldInSettings,
    pool: Option<&NegativePool>,
) -> f64 {
    let n = m.params.n_ent;
    let nf = n as f64;
    let mut queries: Vec<(u32, Vec<u32>)> = Vec::new();
    let mut tail_of: Vec<((u32, u32), u32)> = Vec::new();
    for ed in edges {
        let rev = m.reverse_relation(ed.relation).unwrap();
        let (mine, theirs) = if ed.outgoing {
            (ed.relation, rev)
        } else {
            (rev, ed.relation)
        };
        if !tail_of.iter().any(|t| t.0 == (ed.other, theirs)) {
            tail_of.push(((ed.other, theirs), ed.answers));
        }
        match queries.iter_mut().find(|q| q.0 == mine) {
            Some(q) if q.1.contains(&ed.other) => {}
            Some(q) => q.1.push(ed.other),
            None => queries.push((mine, vec![ed.other])),
        }
    }
    let eps = m.config.label_smoothing;
    let mut total = 0.0;
    for (rel, tails) in &queries {
        let l = logits(m, &hidden(m, row, *rel));
        total += match m.config.loss {
            Loss::Bce => {
                let mut s = 0.0;
                for (t, &v) in l.iter().enumerate() {
                    let y = if tails.contains(&(t as u32)) {
                        1.0 - eps
                    } else {
                        0.0
                    } + 1.0 / nf;
                    s += bce(v, y);
                }
                s / nf
            }
            Loss::Softmax => {
                let z = lse(&l);
                let mut s = 0.0;
                for (t, &v) in l.iter().enumerate() {
                    let mut y = eps / nf;
                    if tails.contains(&(t as u32)) {
                        y += (1.0 - eps) / tails.len() as f64;
                    }
                    s += y * (z - v);
                }
                s
            }
        };
    }
    let q_u = queries.len() as f64;
    let mut loss = total / q_u;
    if s.tail_side {
        let (y_pos, y_neg, z) = match m.config.loss {
            Loss::Bce => (1.0 - eps + 1.0 / nf, 1.0 / nf, nf),
            Loss::Softmax => (1.0 - eps, 0.0, 1.0),
        };
        let cell = |(h, r): (u32, u32)| {
            let x2 = hidden(m, &known_row(m, h), r);
            let shift = match m.config.loss {
                Loss::Bce => 0.0,
                Loss::Softmax => lse(&logits(m, &x2)),
            };
            dot(&x2, row) - shift
        };
        for &(q, answers) in &tail_of {
            // Training's softmax target of a query with k answers: (1 - eps) / k each.
            let y = match m.config.loss {
                Loss::Bce => y_pos,
                Loss::Softmax => y_pos / (answers + 1) as f64,
            };
            loss += bce(cell(q), y) / (q_u * z);
        }
        match pool {
            // Each pooled query weighs as the known queries it stands for, each a cell of u's.
            Some(pool) => {
                for (&q, &t) in pool.queries.iter().zip(&pool.stands_for) {
                    loss += bce(cell(q), y_neg) * t / (q_u * z);
                }
            }
            None => {
                let negs = neptune_core::fold_in::negative_queries(m, s.seed);
                for &q in &negs {
                    loss += bce(cell(q), y_neg) * nf / (negs.len() as f64 * z);
                }
            }
        }
    }
    loss
}

/// A pool of known queries with uneven weights.
fn pool() -> NegativePool {
    NegativePool::new(
        vec![(1, 0), (4, 1), (9, 2), (15, 0), (20, 1)],
        vec![3.0, 1.0, 7.5, 2.0, 12.0],
    )
    .unwrap()
}

fn check_gradient(loss: Loss, mode: InverseMode, tail_side: bool, pool: Option<&NegativePool>) {
    let m = random_model(loss, mode);
    let s = FoldInSettings {
        tail_side,
        seed: 5,
        ..FoldInSettings::default()
    };
    let row: Vec<f32> = (0..6).map(|i| 0.3 * (i as f32 - 2.5)).collect();
    let (got_loss, got_grad) = fold_in_objective(&m, &edges(), &row, &s, pool).unwrap();
    let row64: Vec<f64> = row.iter().map(|&v| v as f64).collect();
    let want = reference_loss(&m, &edges(), &row64, &s, pool);
    assert!(
        (got_loss - want).abs() < 1e-5 * want.abs().max(1.0),
        "{loss:?} {mode:?} {tail_side}: loss {got_loss} vs {want}"
    );
    let h = 1e-6;
    for i in 0..row.len() {
        let (mut up, mut down) = (row64.clone(), row64.clone());
        up[i] += h;
        down[i] -= h;
        let fd = (reference_loss(&m, &edges(), &up, &s, pool)
            - reference_loss(&m, &edges(), &down, &s, pool))
            / (2.0 * h);
        let g = got_grad[i] as f64;
        assert!(
            (g - fd).abs() < 1e-4 * fd.abs().max(1e-3) + 1e-7,
            "{loss:?} {mode:?} {tail_side}: d/d row[{i}] = {g} but finite differences give {fd}"
        );
    }
}

#[test]
fn gradient_matches_finite_differences() {
    for loss in [Loss::Bce, Loss::Softmax] {
        for mode in [InverseMode::NewRelation, InverseMode::SameRelation] {
            check_gradient(loss, mode, false, None);
            check_gradient(loss, mode, true, None);
            check_gradient(loss, mode, true, Some(&pool()));
        }
    }
}

#[test]
fn the_loss_falls_and_the_seed_decides_the_start() {
    let m = random_model(Loss::Bce, InverseMode::NewRelation);
    let never = AtomicBool::new(false);
    let fit = |steps, seed| {
        let s = FoldInSettings {
            steps,
            seed,
            ..FoldInSettings::default()
        };
        fold_in(&m, &[edges()], &s, &never).unwrap().unwrap()
    };
    let start = fit(0, 1);
    let end = fit(40, 1);
    let (l0, _) =
        fold_in_objective(&m, &edges(), &start, &FoldInSettings::default(), None).unwrap();
    let (l1, _) = fold_in_objective(&m, &edges(), &end, &FoldInSettings::default(), None).unwrap();
    assert!(l1 < 0.9 * l0, "loss {l0} -> {l1}");
    assert_eq!(fit(40, 1), end, "deterministic for a seed");
    assert_ne!(fit(0, 2), start, "the seed moves the start");
}

#[test]
fn a_row_starts_among_its_neighbours_under_bce_and_at_the_centre_under_softmax() {
    let never = AtomicBool::new(false);
    let start = |m: &Model, edges: &[FoldInEdge]| -> Vec<f64> {
        let s = FoldInSettings {
            steps: 0,
            ..FoldInSettings::default()
        };
        let row = fold_in(m, &[edges.to_vec()], &s, &never).unwrap().unwrap();
        row.iter().map(|&v| v as f64).collect()
    };
    let mean = |m: &Model, ids: &[u32]| -> Vec<f64> {
        let rows: Vec<Vec<f64>> = ids.iter().map(|&i| known_row(m, i)).collect();
        (0..m.params.d_e)
            .map(|j| rows.iter().map(|r| r[j]).sum::<f64>() / ids.len() as f64)
            .collect()
    };
    let minus =
        |a: &[f64], b: &[f64]| -> Vec<f64> { a.iter().zip(b).map(|(x, y)| x - y).collect() };
    let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5);
    let bce = random_model(Loss::Bce, InverseMode::NewRelation);
    let softmax = random_model(Loss::Softmax, InverseMode::NewRelation);
    assert_eq!(bce.params.e, softmax.params.e, "the same known rows");
    let lone = [FoldInEdge {
        relation: 1,
        other: 20,
        outgoing: true,
        answers: 0,
    }];
    // Under BCE each entity starts at its neighbours' mean, plus the seed's noise.
    let noise = minus(&start(&bce, &edges()), &mean(&bce, &[3, 7, 11, 12, 5]));
    assert!(
        noise.iter().any(|&z| z.abs() > 1e-4),
        "the noise is not zero"
    );
    assert!(close(
        &minus(&start(&bce, &lone), &known_row(&bce, 20)),
        &noise
    ));
    // Under softmax every entity starts at the mean of all known rows, plus the same noise.
    let all: Vec<u32> = (0..N as u32).collect();
    let centre = mean(&softmax, &all);
    assert!(close(&minus(&start(&softmax, &edges()), &centre), &noise));
    assert!(close(&minus(&start(&softmax, &lone), &centre), &noise));
}

fn trained() -> (neptune_core::Dataset, Model) {
    let data = common::cluster_graph(6, 8, 4);
    let cfg = Config {
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
        eval_every: 0,
        patience: 0,
        threads: 2,
        ..Config::default()
    };
    let out = Trainer::new(cfg)
        .unwrap()
        .train(&data, |_| {}, &AtomicBool::new(false))
        .unwrap();
    (data, out.model)
}

/// Entity `u`'s training edges, as a new entity would bring them, each with the other answers
/// of its query seen from the other end.
fn edges_of(data: &neptune_core::Dataset, u: u32) -> Vec<FoldInEdge> {
    let others = |matches: &dyn Fn(&[u32; 3]) -> bool| {
        data.train.iter().filter(|e| matches(e)).count() as u32
    };
    let mut out = Vec::new();
    for &[h, r, t] in &data.train {
        if h == u && t != u {
            out.push(FoldInEdge {
                relation: r,
                other: t,
                outgoing: true,
                answers: others(&|e| e[1] == r && e[2] == t && e[0] != u),
            });
        } else if t == u && h != u {
            out.push(FoldInEdge {
                relation: r,
                other: h,
                outgoing: false,
                answers: others(&|e| e[0] == h && e[1] == r && e[2] != u),
            });
        }
    }
    out
}

#[test]
fn a_folded_in_entity_ranks_its_edges_other_ends() {
    check_ranks(&FoldInSettings::default());
}

#[test]
fn with_candidates_it_ranks_them_as_well() {
    // 48 entities: 16 candidates (targets, 8 hardest, 8 sampled) between full passes.
    check_ranks(&FoldInSettings {
        candidates: 16,
        ..FoldInSettings::default()
    });
}

fn check_ranks(settings: &FoldInSettings) {
    let (data, model) = trained();
    let never = AtomicBool::new(false);
    // A copy of entity 9 arrives under a new name with entity 9's edges.
    let (u, new) = (9u32, model.n_entities() as u32);
    let edges = edges_of(&data, u);
    let rows = fold_in(&model, std::slice::from_ref(&edges), settings, &never)
        .unwrap()
        .unwrap();
    let grown = model.with_entities(vec!["new".into()], &rows).unwrap();
    assert_eq!(grown.n_entities(), model.n_entities() + 1);
    // As head: every outgoing edge's tail is in the top 10 of (new, r) (its cluster holds 8).
    let (mut as_head, mut as_tail) = (Vec::new(), Vec::new());
    for e in &edges {
        if e.outgoing {
            let top = grown.top_k(new, e.relation, 10, &[]).unwrap();
            as_head.push(top.iter().any(|p| p.entity == e.other));
        } else {
            // As candidate tail of (other, r): within the top 10 (the 8 of its cluster, itself).
            let top = grown.top_k(e.other, e.relation, 10, &[]).unwrap();
            as_tail.push(top.iter().any(|p| p.entity == new));
        }
    }
    let share = |v: &[bool]| v.iter().filter(|&&b| b).count() as f64 / v.len() as f64;
    eprintln!(
        "{} edges: head side {:.2}, tail side {:.2}",
        edges.len(),
        share(&as_head),
        share(&as_tail)
    );
    assert!(share(&as_head) >= 0.9, "head side {}", share(&as_head));
    assert!(share(&as_tail) >= 0.9, "tail side {}", share(&as_tail));
    // And it does not crowd out the answers of queries it has nothing to do with: among the
    // queries of the known entities, it is the top answer about as rarely as entity 9 itself.
    let queries: Vec<(u32, u32)> = (0..model.n_entities() as u32)
        .flat_map(|h| (0..model.n_model_relations() as u32).map(move |r| (h, r)))
        .collect();
    let tops = |m: &Model, who: u32| {
        let top = m.top_k_batch(&queries, 1, &[]).unwrap();
        top.iter().filter(|t| t[0].entity == who).count()
    };
    let (folded, original) = (tops(&grown, new), tops(&model, u));
    eprintln!("top answer of {folded} known queries (entity {u}: {original})");
    assert!(folded <= 2 * original + 5, "{folded} vs {original}");
}

#[test]
fn a_burst_gives_the_rows_of_one_at_a_time() {
    check_burst(&FoldInSettings::default());
    check_burst(&FoldInSettings {
        candidates: 8,
        ..FoldInSettings::default()
    });
}

#[test]
fn candidates_start_from_an_exact_step_and_then_fit_nearby_under_either_loss() {
    let never = AtomicBool::new(false);
    let fit = |m: &Model, steps, candidates| {
        let s = FoldInSettings {
            steps,
            candidates,
            ..FoldInSettings::default()
        };
        fold_in(m, &[edges()], &s, &never).unwrap().unwrap()
    };
    let objective = |m: &Model, row: &[f32]| {
        fold_in_objective(m, &edges(), row, &FoldInSettings::default(), None)
            .unwrap()
            .0
    };
    for loss in [Loss::Bce, Loss::Softmax] {
        let model = random_model(loss, InverseMode::NewRelation);
        // The first step is a full pass: the same row.
        assert_eq!(fit(&model, 1, 8), fit(&model, 1, 0), "{loss:?}");
        // Later steps score the candidates only: a different fit that gets most of the exact
        // fit's fall in the exact loss.
        let (sampled, exact) = (fit(&model, 40, 8), fit(&model, 40, 0));
        assert_ne!(sampled, exact, "{loss:?}");
        let (l_s, l_e, l_0) = (
            objective(&model, &sampled),
            objective(&model, &exact),
            objective(&model, &fit(&model, 0, 0)),
        );
        assert!(
            l_s < l_0 - 0.8 * (l_0 - l_e),
            "{loss:?}: exact loss {l_0} -> {l_e}, sampled -> {l_s}"
        );
        // Half the entities or more: nothing to gain, exact.
        assert_eq!(fit(&model, 40, 12), exact, "{loss:?}");
    }
}

fn check_burst(s: &FoldInSettings) {
    let m = random_model(Loss::Bce, InverseMode::SameRelation);
    let never = AtomicBool::new(false);
    let many: Vec<Vec<FoldInEdge>> = (0..40)
        .map(|i| {
            edges()
                .into_iter()
                .map(|mut e| {
                    e.other = (e.other + i) % N as u32;
                    e
                })
                .collect()
        })
        .collect();
    let burst = fold_in(&m, &many, s, &never).unwrap().unwrap();
    assert_eq!(burst.len(), 40 * 6);
    for (i, edges) in many.iter().enumerate() {
        let one = fold_in(&m, std::slice::from_ref(edges), s, &never)
            .unwrap()
            .unwrap();
        for (a, b) in one.iter().zip(&burst[i * 6..]) {
            assert!(
                (a - b).abs() <= 1e-4 * a.abs().max(1.0),
                "entity {i}: {a} vs {b}"
            );
        }
    }
}

#[test]
fn bad_input_is_refused_naming_the_entity() {
    let m = random_model(Loss::Bce, InverseMode::NewRelation);
    let never = AtomicBool::new(false);
    let s = FoldInSettings::default();
    let err = |entities: &[Vec<FoldInEdge>], s: &FoldInSettings| {
        fold_in(&m, entities, s, &never).unwrap_err().to_string()
    };
    let ok = edges();
    let e = err(&[ok.clone(), vec![]], &s);
    assert!(e.contains("entity 1 has no edges"), "{e}");
    let bad_rel = vec![FoldInEdge {
        relation: 3,
        other: 0,
        outgoing: true,
        answers: 0,
    }];
    let e = err(&[ok.clone(), ok.clone(), bad_rel], &s);
    assert!(
        e.contains("entity 2, edge 0: relation 3 is not a base relation"),
        "{e}"
    );
    let bad_other = vec![FoldInEdge {
        relation: 0,
        other: N as u32,
        outgoing: false,
        answers: 0,
    }];
    let e = err(&[bad_other], &s);
    assert!(
        e.contains("entity 0, edge 0: other end 23 is out of range"),
        "{e}"
    );
    let e = err(std::slice::from_ref(&ok), &FoldInSettings { lr: 0.0, ..s });
    assert!(e.contains("`lr`"), "{e}");
    // Nothing to fold: an empty burst.
    assert!(fold_in(&m, &[], &s, &never).unwrap().unwrap().is_empty());
}

#[test]
fn a_set_cancel_flag_stops_the_fit() {
    let m = random_model(Loss::Bce, InverseMode::NewRelation);
    let stop = AtomicBool::new(false);
    stop.store(true, Ordering::SeqCst);
    assert!(fold_in(&m, &[edges()], &FoldInSettings::default(), &stop)
        .unwrap()
        .is_none());
}

#[test]
fn with_entities_appends_rows_and_checks_names() {
    let m = random_model(Loss::Bce, InverseMode::NewRelation);
    let rows: Vec<f32> = (0..12).map(|i| i as f32 * 0.1).collect();
    let g = m
        .with_entities(vec!["a".into(), "b".into()], &rows)
        .unwrap();
    assert_eq!(g.n_entities(), N + 2);
    assert_eq!(g.entity_id("b"), Some(N as u32 + 1));
    assert_eq!(g.entity_vectors(&[N as u32 + 1]).unwrap(), rows[6..]);
    // Old scores unchanged on old entities; the new ones are scored and score.
    let old = m.scores(&[(2, 1)]).unwrap();
    let new = g.scores(&[(2, 1)]).unwrap();
    assert_eq!(old[..], new[..N]);
    assert_eq!(g.scores(&[(N as u32, 0)]).unwrap().len(), N + 2);
    let msg = |r: neptune_core::Result<Model>| r.unwrap_err().to_string();
    assert!(msg(m.with_entities(vec!["e3".into()], &rows[..6]))
        .contains("\"e3\" is already in the model"));
    assert!(
        msg(m.with_entities(vec!["x".into(), "x".into()], &rows)).contains("\"x\" is given twice")
    );
    assert!(msg(m.with_entities(vec!["x".into()], &rows)).contains("expected 1 names x d_e = 6"));
    assert!(msg(m.with_entities(vec!["x".into()], &[f32::NAN; 6])).contains("not finite"));
    // Fold-in fits against the trained rows alone: a grown model is refused, not half-read.
    let never = AtomicBool::new(false);
    let refused = fold_in(&g, &[edges()], &FoldInSettings::default(), &never).unwrap_err();
    assert!(refused
        .to_string()
        .contains("fold-in takes a trained model"));
}

#[test]
fn a_pool_weighed_as_training_pushes_the_row_down_where_it_is_no_answer() {
    let m = random_model(Loss::Bce, InverseMode::NewRelation);
    let never = AtomicBool::new(false);
    let s = FoldInSettings {
        steps: 40,
        lr: 0.1,
        ..FoldInSettings::default()
    };
    // Every (head, model relation) pair of the small model, standing for many queries each: a
    // column as heavy as a graph whose entities have far more queries than this one.
    let queries: Vec<(u32, u32)> = (0..N as u32)
        .flat_map(|h| (0..m.n_model_relations() as u32).map(move |r| (h, r)))
        .collect();
    let heavy = NegativePool::new(queries.clone(), vec![50.0; queries.len()]).unwrap();
    let fit = |pool: Option<&NegativePool>| {
        let rows = fold_in_with_pool(&m, &[edges()], &s, pool, &never)
            .unwrap()
            .unwrap();
        let grown = m.with_entities(vec!["u".into()], &rows).unwrap();
        // u's mean logit as a candidate of every pooled query (u answers none of them).
        let scores = grown.scores(&queries).unwrap();
        let n = grown.n_entities();
        scores.chunks(n).map(|row| row[N] as f64).sum::<f64>() / queries.len() as f64
    };
    let (uniform, pooled) = (fit(None), fit(Some(&heavy)));
    assert!(
        pooled < uniform - 0.1,
        "the pool's pressure lowers u's logits in queries it does not answer: {pooled} vs {uniform}"
    );
}

#[test]
fn a_pool_is_checked() {
    let m = random_model(Loss::Bce, InverseMode::NewRelation);
    let never = AtomicBool::new(false);
    let err = |e: neptune_core::Error| e.to_string();
    assert!(err(NegativePool::new(vec![(0, 0)], vec![]).unwrap_err())
        .contains("1 queries but 0 weights"));
    assert!(err(NegativePool::new(vec![], vec![]).unwrap_err()).contains("empty"));
    assert!(
        err(NegativePool::new(vec![(0, 0)], vec![f64::NAN]).unwrap_err())
            .contains("query 0 stands for NaN")
    );
    let out_of_range = NegativePool::new(vec![(0, 0), (N as u32, 1)], vec![1.0, 1.0]).unwrap();
    let msg = err(fold_in_with_pool(
        &m,
        &[edges()],
        &FoldInSettings::default(),
        Some(&out_of_range),
        &never,
    )
    .unwrap_err());
    assert!(msg.contains("query 1 (23, 1) is out of range"), "{msg}");
}

#[test]
fn logits_against_rows_equal_the_appended_entities_scores() {
    let m = random_model(Loss::Bce, InverseMode::NewRelation);
    let rows: Vec<f32> = (0..18).map(|i| 0.07 * i as f32 - 0.5).collect();
    let queries = [(2u32, 1u32), (0, 4), (22, 3)];
    let got = m.logits_against(&queries, &rows).unwrap();
    let grown = m
        .with_entities(vec!["a".into(), "b".into(), "c".into()], &rows)
        .unwrap();
    let all = grown.scores(&queries).unwrap();
    for (q, _) in queries.iter().enumerate() {
        for b in 0..3 {
            let (want, have) = (all[q * (N + 3) + N + b], got[q * 3 + b]);
            assert!(
                (want - have).abs() < 1e-5,
                "query {q}, row {b}: {have} vs {want}"
            );
        }
    }
    let msg = m
        .logits_against(&queries, &rows[..5])
        .unwrap_err()
        .to_string();
    assert!(msg.contains("not a multiple of d_e = 6"), "{msg}");
}
