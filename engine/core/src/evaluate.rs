//! Filtered evaluation of a trained [`Model`] on a split of a [`Dataset`] that shares its
//! vocabulary, and the filtered rank of given triples (the ranking itself is in
//! [`crate::eval`]).

use crate::candidate_mask::CandidateMask;
use crate::dataset::{Dataset, Triple};
use crate::error::{Error, Result};
use crate::eval::{evaluate_triples, evaluate_triples_masked, filtered_rank_at, Metrics};
use crate::exact_rank::exact_ranks;
use crate::model::{Model, TopKScan};
use crate::rng::{CounterRng, Stream};
use crate::scoring::queries_per_chunk;
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::HashMap;

/// Which split to evaluate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    Valid,
    Test,
}

/// Filtered metrics of `model` on `split` of `dataset`, on the current rayon pool.
pub fn evaluate_in_pool(model: &Model, dataset: &Dataset, split: Split) -> Result<Metrics> {
    evaluate_triples_of(model, dataset, split_triples(dataset, split))
}

/// Filtered metrics of `model` on `triples` (filtered by every split of `dataset`).
fn evaluate_triples_of(model: &Model, dataset: &Dataset, triples: &[Triple]) -> Result<Metrics> {
    dataset.validate()?;
    model.check_vocabulary(dataset)?;
    let filter = dataset.filter_index(model.config.inverse_mode);
    Ok(evaluate_triples(
        &model.params,
        triples,
        dataset.n_relations(),
        model.config.inverse_mode,
        &filter,
        queries_per_chunk(dataset.n_entities()),
    ))
}

/// At most `max` of `triples`: all of them, or a draw without replacement seeded by `seed`, in
/// their order (what a sampled run validates on, and `evaluate_sample` ranks).
pub fn seeded_sample(triples: &[Triple], max: usize, seed: u64) -> Cow<'_, [Triple]> {
    if triples.len() <= max {
        return Cow::Borrowed(triples);
    }
    let mut order: Vec<usize> = (0..triples.len()).collect();
    CounterRng::new(seed, 0, Stream::Validation).shuffle(&mut order);
    let mut kept = order[..max].to_vec();
    kept.sort_unstable();
    Cow::Owned(kept.into_iter().map(|i| triples[i]).collect())
}

/// [`evaluate`] on at most `max_triples` of the split ([`seeded_sample`] with the model's
/// seed): the cost of ranking a whole split grows with entities x triples, hours at a million
/// entities.
pub fn evaluate_sample(
    model: &Model,
    dataset: &Dataset,
    split: Split,
    max_triples: usize,
    threads: usize,
) -> Result<Metrics> {
    let triples = seeded_sample(
        split_triples(dataset, split),
        max_triples,
        model.config.seed,
    );
    eval_pool(threads)?.install(|| evaluate_triples_of(model, dataset, &triples))
}

fn split_triples(dataset: &Dataset, split: Split) -> &[Triple] {
    match split {
        Split::Valid => &dataset.valid,
        Split::Test => &dataset.test,
    }
}

/// The evaluation's own pool of `threads` threads (0 = all cores).
fn eval_pool(threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("neptune-eval-{i}"))
        .build()
        .map_err(|e| Error::ThreadPool(e.to_string()))
}

/// Filtered metrics of `model` on `split` of `dataset`, on `threads` threads (0 = all cores).
pub fn evaluate(model: &Model, dataset: &Dataset, split: Split, threads: usize) -> Result<Metrics> {
    eval_pool(threads)?.install(|| evaluate_in_pool(model, dataset, split))
}

/// Triples from which [`filtered_ranks`] (`Auto`) scores every entity by one f32 product per
/// chunk of queries rather than one 8-bit pass: a rank counts every entity above the answer,
/// which the 8-bit bounds cannot skip when the answer ranks deep; the product costs the same
/// whatever the ranks, and from this many queries a call no more than the 8-bit pass's best
/// (bench/scale/RESULTS.md, "Filtered ranks of many answers": `top_k_scan`).
pub const RANK_PRODUCT_MIN_QUERIES: usize = 256;

/// A given tail's filtered rank and its logit (the score it was ranked by).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RankedTail {
    pub rank: f64,
    pub logit: f32,
}

/// The filtered rank of each triple's tail `t` among all entities for `(h, r_model, ?)`, ranked
/// as the evaluation ranks (`1 + #greater + #equal / 2` over the entities other than `t`, NaN
/// last), after removing `excludes[i]` from query `i`'s candidates; `t` itself is never removed.
/// `excludes` is empty (nothing removed) or one list per triple; lists may hold duplicates.
/// Each tail's logit is the one `Model::score_triples` gives. Runs on the ambient rayon pool.
pub fn filtered_ranks(
    model: &Model,
    triples: &[(u32, u32, u32)],
    excludes: &[&[u32]],
) -> Result<Vec<RankedTail>> {
    filtered_ranks_with(model, triples, excludes, TopKScan::Auto)
}

/// [`filtered_ranks`] counted the way `scan` says: every entity scored from the f32 rows, or
/// one pass over the 8-bit rows with the undecided entities scored exactly
/// ([`crate::exact_rank`]). `Auto`: the 8-bit pass from
/// [`crate::model::INT8_SCAN_MIN_ENTITIES`] entities for fewer than [`RANK_PRODUCT_MIN_QUERIES`]
/// triples, the f32 product otherwise (see there).
pub fn filtered_ranks_with(
    model: &Model,
    triples: &[(u32, u32, u32)],
    excludes: &[&[u32]],
    scan: TopKScan,
) -> Result<Vec<RankedTail>> {
    ranks_of(model, triples, excludes, None, scan)
}

/// [`filtered_ranks`] with each tail ranked as if it scored `ranked[i]` where that is above its
/// own logit: the rank a served score that raises the model's logit (rules' evidence) gives it
/// among entities scored by the model alone. Each `RankedTail::logit` is still the model's.
/// Counted the way `scan` says, as [`filtered_ranks_with`].
pub fn filtered_ranks_at(
    model: &Model,
    triples: &[(u32, u32, u32)],
    excludes: &[&[u32]],
    ranked: &[f32],
    scan: TopKScan,
) -> Result<Vec<RankedTail>> {
    if ranked.len() != triples.len() {
        return Err(Error::arg(
            "ranked",
            format!("{} scores for {} triples", ranked.len(), triples.len()),
        ));
    }
    ranks_of(model, triples, excludes, Some(ranked), scan)
}

/// Each of `excludes` sorted and without duplicates, as `filtered_rank` takes them: the
/// distinct lists and, for each triple, which of them is its. Triples that pass one list (the
/// same slice: a question's known answers, shared by the triples that ask it) share one copy.
fn sorted_lists(excludes: &[&[u32]], n: usize) -> Result<(Vec<Vec<u32>>, Vec<usize>)> {
    let mut seen: HashMap<(*const u32, usize), usize> = HashMap::new();
    let (mut distinct, mut which) = (Vec::new(), Vec::with_capacity(excludes.len()));
    for (i, list) in excludes.iter().enumerate() {
        if let Some(&at) = seen.get(&(list.as_ptr(), list.len())) {
            which.push(at);
            continue;
        }
        if let Some(&e) = list.iter().find(|&&e| e as usize >= n) {
            return Err(Error::arg(
                "excludes",
                format!("excludes[{i}] holds {e}, out of range (model has {n} entities)"),
            ));
        }
        let mut own = list.to_vec();
        own.sort_unstable();
        own.dedup();
        seen.insert((list.as_ptr(), list.len()), distinct.len());
        which.push(distinct.len());
        distinct.push(own);
    }
    Ok((distinct, which))
}

fn ranks_of(
    model: &Model,
    triples: &[(u32, u32, u32)],
    excludes: &[&[u32]],
    ranked: Option<&[f32]>,
    scan: TopKScan,
) -> Result<Vec<RankedTail>> {
    let n = model.n_entities();
    if !excludes.is_empty() && excludes.len() != triples.len() {
        return Err(Error::arg(
            "excludes",
            format!("{} lists for {} triples", excludes.len(), triples.len()),
        ));
    }
    if let Some(&(_, _, t)) = triples.iter().find(|q| q.2 as usize >= n) {
        return Err(Error::arg(
            "tails",
            format!("{t} is out of range (model has {n} entities)"),
        ));
    }
    let (distinct, which) = sorted_lists(excludes, n)?;
    let lists: Vec<&[u32]> = which.iter().map(|&at| distinct[at].as_slice()).collect();
    let queries: Vec<(u32, u32)> = triples.iter().map(|&(h, r, _)| (h, r)).collect();
    let batch = matches!(scan, TopKScan::Auto) && triples.len() >= RANK_PRODUCT_MIN_QUERIES;
    if !batch && model.scans_int8(scan, 0) {
        let (rows, d) = (model.int8_rows(), model.params.d_e);
        let tails: Vec<u32> = triples.iter().map(|q| q.2).collect();
        let mut ranks = Vec::with_capacity(triples.len());
        model.hidden_chunks(&queries, |first, x| {
            let chunk = x.len() / d.max(1);
            let known: Vec<&[u32]> = (first..first + chunk)
                .map(|i| lists.get(i).copied().unwrap_or(&[]))
                .collect();
            let ranked = ranked.map(|r| &r[first..first + chunk]);
            let counted = exact_ranks(
                rows,
                model.entity_rows(),
                x,
                &tails[first..],
                &known,
                ranked,
            );
            ranks.extend(
                counted
                    .into_iter()
                    .map(|(rank, logit)| RankedTail { rank, logit }),
            );
        })?;
        return Ok(ranks);
    }
    let mut ranks = vec![
        RankedTail {
            rank: 0.0,
            logit: 0.0
        };
        triples.len()
    ];
    // Where score_triples scores a tail from its row alone (from INT8_SCAN_MIN_ENTITIES
    // entities), the tail ranks at that logit, and reports it, against the product's row.
    let own: Option<Vec<f32>> = if model.scans_int8(TopKScan::Auto, 0) {
        Some(model.score_triples(triples)?)
    } else {
        None
    };
    model.score_chunks(&queries, |start, logits| {
        logits
            .par_chunks(n.max(1))
            .zip(ranks[start..].par_iter_mut())
            .enumerate()
            .for_each(|(i, (row, rank))| {
                let known = lists.get(start + i).copied().unwrap_or(&[]);
                let t = triples[start + i].2;
                let logit = own.as_ref().map_or(row[t as usize], |own| own[start + i]);
                let at = ranked.map_or(logit, |ranked| ranked[start + i].max(logit));
                *rank = RankedTail {
                    rank: filtered_rank_at(row, t, at, known),
                    logit,
                };
            });
    })?;
    Ok(ranks)
}

/// [`evaluate`] with candidates restricted per (relation, direction) by `mask` (typed ranking).
pub fn evaluate_typed(
    model: &Model,
    dataset: &Dataset,
    split: Split,
    threads: usize,
    mask: &CandidateMask,
) -> Result<Metrics> {
    dataset.validate()?;
    model.check_vocabulary(dataset)?;
    if mask.n_ent() != dataset.n_entities() || mask.n_rel() != dataset.n_relations() {
        return Err(Error::Dataset(format!(
            "the candidate mask is for {} entities and {} relations, the dataset has {} and {}",
            mask.n_ent(),
            mask.n_rel(),
            dataset.n_entities(),
            dataset.n_relations()
        )));
    }
    let filter = dataset.filter_index(model.config.inverse_mode);
    Ok(eval_pool(threads)?.install(|| {
        evaluate_triples_masked(
            &model.params,
            split_triples(dataset, split),
            dataset.n_relations(),
            model.config.inverse_mode,
            &filter,
            queries_per_chunk(dataset.n_entities()),
            mask,
        )
    }))
}
