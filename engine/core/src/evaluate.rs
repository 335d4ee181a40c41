//! Filtered evaluation of a trained [`Model`] on a split of a [`Dataset`] that shares its
//! vocabulary (the ranking itself is in [`crate::eval`]).

use crate::candidate_mask::CandidateMask;
use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::eval::{evaluate_triples, evaluate_triples_masked, Metrics};
use crate::model::Model;
use crate::scoring::queries_per_chunk;

/// Which split to evaluate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    Valid,
    Test,
}

/// Filtered metrics of `model` on `split` of `dataset`, on the current rayon pool.
pub fn evaluate_in_pool(model: &Model, dataset: &Dataset, split: Split) -> Result<Metrics> {
    dataset.validate()?;
    model.check_vocabulary(dataset)?;
    let filter = dataset.filter_index(model.config.inverse_mode);
    let triples = match split {
        Split::Valid => &dataset.valid,
        Split::Test => &dataset.test,
    };
    Ok(evaluate_triples(
        &model.params,
        triples,
        dataset.n_relations(),
        model.config.inverse_mode,
        &filter,
        queries_per_chunk(dataset.n_entities()),
    ))
}

/// Filtered metrics of `model` on `split` of `dataset`, on `threads` threads (0 = all cores).
pub fn evaluate(model: &Model, dataset: &Dataset, split: Split, threads: usize) -> Result<Metrics> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("neptune-eval-{i}"))
        .build()
        .map_err(|e| Error::ThreadPool(e.to_string()))?;
    pool.install(|| evaluate_in_pool(model, dataset, split))
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
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("neptune-eval-{i}"))
        .build()
        .map_err(|e| Error::ThreadPool(e.to_string()))?;
    let filter = dataset.filter_index(model.config.inverse_mode);
    let triples = match split {
        Split::Valid => &dataset.valid,
        Split::Test => &dataset.test,
    };
    Ok(pool.install(|| {
        evaluate_triples_masked(
            &model.params,
            triples,
            dataset.n_relations(),
            model.config.inverse_mode,
            &filter,
            queries_per_chunk(dataset.n_entities()),
            mask,
        )
    }))
}
