//! The `default` preset sized to the user's graph.
//!
//! The reference presets are fixed; `default` is for graphs we have not seen, so a few settings
//! follow the graph's size:
//! - `d_r`: 10 for small graphs (up to [`SMALL_RELATION_COUNT`] relations and under
//!   [`SMALL_GRAPH_TRIPLES`] training triples), 30 for larger graphs with few relations
//!   (WN18RR's reference value), 100 above [`SMALL_RELATION_COUNT`] relations.
//! - Batches grow with the graph: 32 under [`TINY_GRAPH_TRIPLES`] training triples, 128 up to
//!   40k, 256, then 512 from 160k (fewer steps, so per-step fixed costs are paid less often).
//! - Epochs: [`DEFAULT_MAX_EPOCHS`], or as many as [`training_budget`] affords, an epoch costing
//!   [`epoch_work`]: about 9 minutes on 2 cores whatever the graph's shape up to
//!   [`BUDGET_TRIPLES`] training triples, growing with the triples to about 40 minutes; the lr
//!   then annealed over them.
//! - The learning rate grows with the square root of the batch above 128. Graphs whose
//!   [`training_budget`] allows at most [`FAST_SCHEDULE_EPOCHS`] epochs, or whose budget gives
//!   each entity at most [`FAST_SCHEDULE_QUERIES_PER_ENTITY`] training queries (sparse graphs),
//!   get a short, fast schedule instead: lr x [`FAST_SCHEDULE_LR_FACTOR`] annealed to
//!   [`ANNEALED_LR_FRACTION`] of it over the budget's epochs, no dropout.
//! - Validation about every 100k training triples (every 10 epochs under 10k, every epoch from
//!   100k), so early stopping reacts within minutes on large graphs.
//! - Patience for [`PATIENT_SHARE`] of the planned validations (at least the preset's 5): a
//!   long run's slow rise under validation noise is not stopped with most of its epochs left.
//! - Reversed triples share their relation's id (`same_relation`) when relations have fewer
//!   than [`SPARSE_RELATION_TRIPLES`] training triples each on average.
//! - Input dropout [`HEAVY_INPUT_DROPOUT`] instead of the preset's on graphs of middling density
//!   ([`MIN_HEAVY_DROPOUT_DENSITY`] to [`MAX_HEAVY_DROPOUT_DENSITY`] training triples per entity)
//!   that train at least [`MIN_HEAVY_DROPOUT_EPOCHS`] epochs: many entities, each in a handful
//!   of triples, overfit the head's embedding.
//!
//! - Sampled scoring ([`SAMPLED_CANDIDATES`] entities per batch besides its tails) where the
//!   budget affords fewer than [`MIN_EPOCHS`] epochs of scoring every entity: past that size
//!   (about 50k entities at 10 training triples each) an epoch of exact 1-N scoring costs more
//!   than the whole budget's worth of training.
//! - The softmax loss where batches are scored against a sample (the sized one or the user's):
//!   BCE estimated from a few thousand sampled columns learns several times more slowly and
//!   ends the budget far below it.
//!
//! Evidence for each rule (paired runs, the graphs that chose it): bench/quality/RESULTS.md,
//! "Evidence for the default preset's rules".

use crate::config::{Config, Loss};
use crate::dataset::InverseMode;
use serde::{Deserialize, Serialize};

/// The most epochs the `default` preset trains (early stopping usually ends it sooner).
pub const DEFAULT_MAX_EPOCHS: usize = 500;

/// Relations up to which `d_r` stays small (10 or 30); above it, 100.
pub const SMALL_RELATION_COUNT: usize = 64;
/// Training triples below which a graph with few relations gets `d_r` 10 (and below which
/// batches hold at most 128 queries).
pub const SMALL_GRAPH_TRIPLES: usize = 40_000;
/// Training triples below which batches hold 32 queries.
pub const TINY_GRAPH_TRIPLES: usize = 10_000;
/// Mean training triples per relation below which reversed triples share the relation's id.
pub const SPARSE_RELATION_TRIPLES: usize = 50;
/// Input dropout (on the head's embedding) of graphs of middling density; the preset's is 0.3.
pub const HEAVY_INPUT_DROPOUT: f64 = 0.4;
/// Training triples per entity from which input dropout is heavy: sparser graphs (WN18RR's
/// samples, about 2) have too little signal per entity to drop more of it.
pub const MIN_HEAVY_DROPOUT_DENSITY: f64 = 5.0;
/// Training triples per entity up to which input dropout is heavy: denser graphs (UMLS 39,
/// Kinship 82) pin each entity's embedding down with their own data.
pub const MAX_HEAVY_DROPOUT_DENSITY: f64 = 30.0;
/// Epochs a run must plan for heavy input dropout: it learns more slowly, and on the graph that
/// chose it, runs with it early-stopped after 204 to 300 epochs (three seeds).
pub const MIN_HEAVY_DROPOUT_EPOCHS: usize = 300;

/// What the `default` preset scales with.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GraphSize {
    pub entities: usize,
    /// Base relations (before reverses).
    pub relations: usize,
    pub train_triples: usize,
    /// Training queries of one epoch: the unique `(head, relation)` pairs of train and reversed
    /// train, a reversed pair under its own relation id.
    pub queries: usize,
    /// `exp` of the entropy of the queries' relation ids: a batch meets about as many distinct
    /// relations as it would with this many equally frequent ones.
    pub effective_relations: f64,
}

impl GraphSize {
    /// The size of `train` (`[head, relation, tail]` ids, relations below `relations`).
    pub fn of(entities: usize, relations: usize, train: &[[u32; 3]]) -> GraphSize {
        let mut pairs: Vec<(u32, u32)> = train
            .iter()
            .flat_map(|&[h, r, t]| [(r, h), (r + relations as u32, t)])
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        let queries = pairs.len();
        let mut entropy = 0.0;
        for run in pairs.chunk_by(|a, b| a.0 == b.0) {
            let share = run.len() as f64 / queries as f64;
            entropy -= share * share.ln();
        }
        GraphSize {
            entities,
            relations,
            train_triples: train.len(),
            queries,
            effective_relations: entropy.exp(),
        }
    }
}

/// The user's value where they set one, else the sized one.
fn keep_or<T>(user_set: bool, given: T, sized: T) -> T {
    if user_set {
        given
    } else {
        sized
    }
}

/// Training work ([`epoch_work`], summed over epochs) the `default` preset spends at most on one
/// graph: 40 epochs of FB15k-237 at d_e 200, about 9 minutes on 2 cores with AVX-512 (an
/// interactive run), and about as long on graphs of other shapes. Small graphs never reach it
/// within [`DEFAULT_MAX_EPOCHS`].
pub const TRAINING_BUDGET: f64 = 2.75e13;
/// Training triples up to which a graph gets [`TRAINING_BUDGET`]; a larger graph's budget grows
/// with its triples (see [`training_budget`]).
pub const BUDGET_TRIPLES: usize = 60_000;
/// The most [`training_budget`] grows to, as a multiple of [`TRAINING_BUDGET`]: about half an hour
/// of FB15k-237 on 2 cores with AVX-512, 46 minutes of DebianPkg (whose sampled epochs cost more
/// than [`epoch_work`] counts: its hubs' queries bring thousands of tails into a batch).
pub const MAX_BUDGET_SCALE: f64 = 3.5;
/// Work of one query's own `d_e x d_e` matrix (its dropout mask, `x @ A` and their gradients) in
/// units of `d_e^2` multiply-adds of the entity scoring: memory-bound, so dearer per operation.
pub const PER_QUERY_MATRIX_WORK: f64 = 8.0;
/// Epochs trained however large the graph.
pub const MIN_EPOCHS: usize = 5;
/// Entities each batch is scored against besides its tails, where the `default` preset samples.
pub const SAMPLED_CANDIDATES: usize = 4096;
/// Where the budget binds, the lr decays per epoch so that it ends at this fraction of its start.
pub const ANNEALED_LR_FRACTION: f64 = 0.1;
/// Budgets of at most this many epochs get the fast schedule: lr x [`FAST_SCHEDULE_LR_FACTOR`], no
/// dropout (dropout slows the first epochs more than a short budget can repay).
pub const FAST_SCHEDULE_EPOCHS: usize = 30;
/// Budgets of at most this many training queries per entity (epochs x 2 x training triples /
/// entities) get the fast schedule too, however many epochs that is: on sparse graphs each
/// epoch shows an entity only a few times, so dropout needs more epochs to pay off there.
pub const FAST_SCHEDULE_QUERIES_PER_ENTITY: f64 = 400.0;
/// The fast schedule's lr as a multiple of the preset's (0.003 -> 0.012).
pub const FAST_SCHEDULE_LR_FACTOR: f64 = 4.0;
/// Patience as a share of the planned validations (`epochs / eval_every`), where that is more
/// than the preset's.
pub const PATIENT_SHARE: f64 = 0.1;

/// How many epochs the `default` preset may train: as many as [`training_budget`]'s scoring
/// work allows, or as many as fit in a wall-clock budget on this machine (measured by the
/// caller: see `Trainer::estimate_epoch`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EpochBudget {
    Work,
    Epochs(usize),
}

/// Work of one training epoch in multiply-adds, as the engine spends it (fitted to measured epoch
/// times across the quality family; bench/quality/RESULTS.md, session 20):
/// - scoring: queries x scored entities x `d_e` (every query against every entity, or against
///   its batch's columns when `sampled` > 0, and its gradients);
/// - each query's matrix: queries x [`PER_QUERY_MATRIX_WORK`] x `d_e^2`;
/// - the core: `R[r] @ W` (`d_r x d_e^2`) once per distinct relation of a batch, and its gradient.
pub fn epoch_work(
    size: GraphSize,
    d_e: usize,
    d_r: usize,
    batch_size: usize,
    sampled: usize,
) -> f64 {
    let queries = size.queries.max(1) as f64;
    let (d_e, d_r, batch) = (
        d_e.max(1) as f64,
        d_r.max(1) as f64,
        batch_size.max(1) as f64,
    );
    let relations = size.effective_relations.max(1.0);
    let distinct_per_batch = relations * (1.0 - (1.0 - 1.0 / relations).powf(batch));
    let scoring = queries * scored_entities(size, batch_size, sampled) * d_e;
    let matrices = queries * PER_QUERY_MATRIX_WORK * d_e * d_e;
    let core = queries / batch * distinct_per_batch * d_r * d_e * d_e;
    scoring + matrices + core
}

/// Entities a training query is scored against: all of them, or with `sampled` > 0 its batch's
/// tails (about a batch's worth of queries times their mean tails) and the sample.
pub fn scored_entities(size: GraphSize, batch_size: usize, sampled: usize) -> f64 {
    let n = size.entities.max(1) as f64;
    if sampled == 0 {
        return n;
    }
    let tails_per_query = 2.0 * size.train_triples as f64 / size.queries.max(1) as f64;
    (batch_size as f64 * tails_per_query + sampled as f64).min(n)
}

/// The training work the `default` preset may spend on a graph of `size`: [`TRAINING_BUDGET`]
/// (about 9 minutes on 2 cores) up to [`BUDGET_TRIPLES`] training triples, then in proportion to
/// them, up to [`MAX_BUDGET_SCALE`] times that from 210k triples. The product's time targets
/// set it, not a fit: a graph of tens of thousands of edges trains within about 10 minutes, one
/// of hundreds of thousands within 45 (a 745k-edge graph given 9 minutes stopped with its
/// validation MRR still rising by .003 an epoch: bench/scale/RESULTS.md, DebianPkg).
pub fn training_budget(size: GraphSize) -> f64 {
    let scale = size.train_triples as f64 / BUDGET_TRIPLES as f64;
    TRAINING_BUDGET * scale.clamp(1.0, MAX_BUDGET_SCALE)
}

/// Epochs that fit in [`training_budget`] for a graph of `size` at these widths, batch and
/// sample (0: scoring every entity).
pub fn budget_epochs(
    size: GraphSize,
    d_e: usize,
    d_r: usize,
    batch_size: usize,
    sampled: usize,
) -> usize {
    let work = epoch_work(size, d_e, d_r, batch_size, sampled);
    ((training_budget(size) / work).floor() as usize).max(MIN_EPOCHS)
}

/// Whether the base budget affords [`MIN_EPOCHS`] epochs of scoring every entity. Judged on
/// [`TRAINING_BUDGET`], not the graph's grown one: a large graph's longer budget buys more
/// epochs of what it would do anyway (DebianPkg: sampled, not 7 epochs of scoring every entity).
fn full_scoring_fits(size: GraphSize, d_e: usize, d_r: usize, batch_size: usize) -> bool {
    TRAINING_BUDGET / epoch_work(size, d_e, d_r, batch_size, 0) >= MIN_EPOCHS as f64
}

/// `base` (the `default` preset, with the user's overrides applied) with its size-dependent
/// settings picked for `size`. Fields for which `pinned(field)` is true were set by the user and
/// are kept; sized fields that depend on them are computed from the user's values.
pub fn size_default(
    base: Config,
    size: GraphSize,
    pinned: impl Fn(&str) -> bool,
    epoch_budget: EpochBudget,
) -> Config {
    let t = size.train_triples.max(1);
    let sized_batch = match t {
        0..TINY_GRAPH_TRIPLES => 32,
        TINY_GRAPH_TRIPLES..SMALL_GRAPH_TRIPLES => 128,
        SMALL_GRAPH_TRIPLES..160_000 => 256,
        _ => 512,
    };
    let batch_size = keep_or(pinned("batch_size"), base.batch_size, sized_batch);
    let few_relations = size.relations <= SMALL_RELATION_COUNT;
    let small = few_relations && t < SMALL_GRAPH_TRIPLES;
    let d_r = if small {
        10
    } else if few_relations {
        30
    } else {
        100
    };
    let d_r = keep_or(pinned("d_r"), base.d_r, d_r);
    let sized_sample = if full_scoring_fits(size, base.d_e, d_r, batch_size) {
        0
    } else {
        SAMPLED_CANDIDATES
    };
    let sampled = keep_or(
        pinned("sampled_candidates"),
        base.sampled_candidates,
        sized_sample,
    );
    let sampled_loss = if sampled > 0 {
        Loss::Softmax
    } else {
        base.loss
    };
    let sparse_relations = t < SPARSE_RELATION_TRIPLES * size.relations.max(1);
    let inverse_mode = if sparse_relations {
        InverseMode::SameRelation
    } else {
        base.inverse_mode
    };
    let eval_every = (100_000.0 / t as f64).round().clamp(1.0, 10.0) as usize;
    // Large graphs: train for the budget, annealing the lr over the epochs actually trained; where
    // the budget is short (in epochs, or in queries per entity on a sparse graph), fast: a higher
    // lr and no dropout (too little training to overfit).
    let budget = match epoch_budget {
        EpochBudget::Work => budget_epochs(size, base.d_e, d_r, batch_size, sampled),
        EpochBudget::Epochs(epochs) => epochs.max(1),
    };
    let budget_bound = budget < DEFAULT_MAX_EPOCHS;
    let triples_per_entity = t as f64 / size.entities.max(1) as f64;
    let queries_per_entity = 2.0 * triples_per_entity;
    let fast = budget <= FAST_SCHEDULE_EPOCHS
        || (budget_bound && budget as f64 * queries_per_entity <= FAST_SCHEDULE_QUERIES_PER_ENTITY);
    let epochs = keep_or(pinned("epochs"), base.epochs, base.epochs.min(budget));
    let decay = if budget_bound {
        ANNEALED_LR_FRACTION.powf(1.0 / epochs.max(1) as f64)
    } else {
        base.decay
    };
    let lr = if fast {
        base.lr * FAST_SCHEDULE_LR_FACTOR
    } else {
        base.lr * (batch_size.max(128) as f64 / 128.0).sqrt()
    };
    let eval_every = keep_or(pinned("eval_every"), base.eval_every, eval_every);
    let validations = epochs as f64 / eval_every.max(1) as f64;
    let patience = base
        .patience
        .max((validations * PATIENT_SHARE).round() as usize);
    let heavy_input = epochs >= MIN_HEAVY_DROPOUT_EPOCHS
        && (MIN_HEAVY_DROPOUT_DENSITY..=MAX_HEAVY_DROPOUT_DENSITY).contains(&triples_per_entity);
    let dropout = |field: &str, given: f64, sized: f64| {
        keep_or(pinned(field), given, if fast { 0.0 } else { sized })
    };
    let dropout_in = if heavy_input {
        HEAVY_INPUT_DROPOUT
    } else {
        base.dropout_in
    };
    Config {
        d_r,
        inverse_mode: keep_or(pinned("inverse_mode"), base.inverse_mode, inverse_mode),
        batch_size,
        sampled_candidates: sampled,
        loss: keep_or(pinned("loss"), base.loss, sampled_loss),
        lr: keep_or(pinned("lr"), base.lr, lr),
        eval_every,
        epochs,
        patience: keep_or(pinned("patience"), base.patience, patience),
        decay: keep_or(pinned("decay"), base.decay, decay),
        dropout_in: dropout("dropout_in", base.dropout_in, dropout_in),
        dropout_h1: dropout("dropout_h1", base.dropout_h1, base.dropout_h1),
        dropout_h2: dropout("dropout_h2", base.dropout_h2, base.dropout_h2),
        ..base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A graph of this shape with one training query per triple, its relations equally frequent.
    fn with_entities(entities: usize, relations: usize, train_triples: usize) -> GraphSize {
        GraphSize {
            entities,
            relations,
            train_triples,
            queries: train_triples,
            effective_relations: 2.0 * relations as f64,
        }
    }

    // The shared benchmarks as `GraphSize::of` counts them.
    const FB15K_237: GraphSize = GraphSize {
        entities: 14_541,
        relations: 237,
        train_triples: 272_115,
        queries: 149_689,
        effective_relations: 185.01,
    };
    const WN18RR: GraphSize = GraphSize {
        entities: 40_943,
        relations: 11,
        train_triples: 86_835,
        queries: 103_509,
        effective_relations: 8.47,
    };
    /// A 5,000-entity sample of FB15k-237 (bench/quality's FB15k-237-e5k).
    const FB15K_237_E5K: GraphSize = GraphSize {
        entities: 5_000,
        relations: 221,
        train_triples: 114_812,
        queries: 60_740,
        effective_relations: 145.52,
    };

    /// A 2,000-entity sample of FB15k-237 (bench/quality's FB15k-237-e2k).
    const FB15K_237_E2K: GraphSize = GraphSize {
        entities: 2_000,
        relations: 201,
        train_triples: 33_647,
        queries: 18_890,
        effective_relations: 163.69,
    };

    fn sized(relations: usize, train_triples: usize) -> Config {
        size_default(
            Config::preset("default").unwrap(),
            with_entities(1000, relations, train_triples),
            |_| false,
            EpochBudget::Work,
        )
    }

    #[test]
    fn a_graph_is_counted_in_training_queries_and_how_evenly_they_spread_over_relations() {
        // (0, r0, 1), (0, r0, 2): one query (0, r0), two reversed ones (1, r0'), (2, r0');
        // (1, r1, 2): one each way. Five queries over r0, r0', r1, r1' as 1, 2, 1, 1.
        let size = GraphSize::of(3, 2, &[[0, 0, 1], [0, 0, 2], [1, 1, 2]]);
        assert_eq!((size.queries, size.train_triples), (5, 3));
        let shares: [f64; 4] = [0.2, 0.4, 0.2, 0.2];
        let entropy: f64 = -shares.iter().map(|p| p * p.ln()).sum::<f64>();
        assert!((size.effective_relations - entropy.exp()).abs() < 1e-12);
        // Equally frequent relations: exactly their number.
        let even = GraphSize::of(2, 2, &[[0, 0, 1], [0, 1, 1]]);
        assert!((even.effective_relations - 4.0).abs() < 1e-12);
    }

    #[test]
    fn epoch_work_counts_scoring_each_querys_matrix_and_the_core_per_batch() {
        // One relation: every batch meets it once.
        let one = GraphSize {
            entities: 100,
            relations: 1,
            train_triples: 50,
            queries: 64,
            effective_relations: 1.0,
        };
        let (d_e, d_r) = (10.0, 3.0);
        let expected = 64.0 * 100.0 * d_e
            + 64.0 * PER_QUERY_MATRIX_WORK * d_e * d_e
            + 64.0 / 32.0 * 1.0 * d_r * d_e * d_e;
        assert!((epoch_work(one, 10, 3, 32, 0) - expected).abs() < 1e-6);
        // Many relations: a batch of 512 meets about 185 (1 - e^-2.77) = 173 of FB15k-237's 185.
        let batches = 149_689.0 / 512.0;
        let one_more_d_r =
            epoch_work(FB15K_237, 200, 101, 512, 0) - epoch_work(FB15K_237, 200, 100, 512, 0);
        let distinct = one_more_d_r / (batches * 200.0 * 200.0);
        assert!((distinct - 173.0).abs() < 1.0, "{distinct}");
    }

    #[test]
    fn settings_follow_the_graph() {
        // UMLS-like: 46 relations, 5,216 training triples.
        let small = sized(46, 5_216);
        assert_eq!(
            (small.d_r, small.batch_size, small.eval_every),
            (10, 32, 10)
        );
        // Label smoothing is the preset's on every graph.
        assert_eq!(
            (small.label_smoothing, small.inverse_mode),
            (0.1, InverseMode::NewRelation)
        );
        // Nations-like: 55 relations, 1,592 triples (29 per relation): reverses share the id.
        let sparse = sized(55, 1_592);
        assert_eq!(
            (sparse.d_r, sparse.inverse_mode),
            (10, InverseMode::SameRelation)
        );
        assert_eq!(sized(10, 499).inverse_mode, InverseMode::SameRelation);
        assert_eq!(sized(10, 500).inverse_mode, InverseMode::NewRelation);
        // 25 relations, 20,000 triples: still d_r 10, batch 128.
        let small_medium = sized(25, 20_000);
        assert_eq!(
            (
                small_medium.d_r,
                small_medium.batch_size,
                small_medium.eval_every
            ),
            (10, 128, 5)
        );
        // WN18RR-like: 11 relations, 86,835 triples.
        let medium = sized(11, 86_835);
        assert_eq!(
            (medium.d_r, medium.batch_size, medium.eval_every),
            (30, 256, 1)
        );
        // FB15k-237-like: 237 relations, 272,115 triples.
        let large = sized(237, 272_115);
        assert_eq!(
            (large.d_r, large.batch_size, large.eval_every),
            (100, 512, 1)
        );
        // The lr grows with the square root of the batch above 128 only ...
        assert_eq!(
            (small.lr, small_medium.lr, medium.lr),
            (0.003, 0.003, 0.003 * 2f64.sqrt())
        );
        // (272,115 triples over 1,000 entities: the core's work, once per relation in a batch
        // that meets most of the 474 relation ids, makes that 34 epochs of the base budget,
        // 119 of the 3.5 times a graph of this many triples gets, annealed, with dropout.)
        assert_eq!(
            (large.lr, large.dropout_in, large.dropout_h2, large.epochs),
            (0.003 * 2.0, 0.3, 0.4, 119)
        );
        // Everything else is the preset's.
        assert_eq!((large.d_e, large.label_smoothing), (200, 0.1));
        assert_eq!(
            (medium.dropout_in, medium.dropout_h1, medium.dropout_h2),
            (0.3, 0.2, 0.4)
        );
        assert_eq!(
            (medium.inverse_mode, large.inverse_mode),
            (InverseMode::NewRelation, InverseMode::NewRelation)
        );
        assert!(large.validate().is_ok() && sized(0, 0).validate().is_ok());
    }

    #[test]
    fn large_graphs_train_for_the_budget_with_the_lr_annealed_over_it() {
        let default = || Config::preset("default").unwrap();
        // The budget: the base one up to 60k training triples, then in proportion, at most 3.5x.
        assert_eq!(
            training_budget(with_entities(1_000, 10, 60_000)),
            TRAINING_BUDGET
        );
        assert_eq!(
            training_budget(with_entities(1_000, 10, 120_000)),
            2.0 * TRAINING_BUDGET
        );
        assert_eq!(
            training_budget(FB15K_237),
            MAX_BUDGET_SCALE * TRAINING_BUDGET
        );
        // FB15k-237 (d_r 100, batch 512): 6.8e11 per epoch, 40 epochs of the base budget, 140 of
        // its own.
        assert_eq!(budget_epochs(FB15K_237, 200, 100, 512, 0), 140);
        let sized = size_default(default(), FB15K_237, |_| false, EpochBudget::Work);
        assert_eq!(sized.epochs, 140);
        // The lr ends at a tenth of its start: decay^140 = 0.1.
        assert!((sized.decay.powi(140) - ANNEALED_LR_FRACTION).abs() < 1e-12);
        // WN18RR (d_r 30, batch 256, 1.45 times the base budget): its entities make most of the
        // work: 44 epochs, the fast schedule (187 training queries per entity).
        let wn = size_default(default(), WN18RR, |_| false, EpochBudget::Work);
        assert_eq!(
            (
                wn.epochs,
                wn.batch_size,
                wn.lr,
                wn.dropout_in + wn.dropout_h1 + wn.dropout_h2
            ),
            (44, 256, 0.012, 0.0)
        );
        // FB15k-237 (140 epochs, 5,240 queries per entity) keeps dropout, at the lr scaled to its
        // batch of 512; so does a 5,000-entity sample of it (270 epochs).
        assert_eq!((sized.lr, sized.dropout_h1), (0.006, 0.2));
        // Half the budget's epochs would be the fast schedule (20 epochs).
        let short = size_default(default(), FB15K_237, |_| false, EpochBudget::Epochs(20));
        assert_eq!((short.lr, short.dropout_h1), (0.012, 0.0));
        let e5k = size_default(default(), FB15K_237_E5K, |_| false, EpochBudget::Work);
        assert_eq!(
            (e5k.epochs, e5k.lr, e5k.dropout_in),
            (270, 0.003 * 2f64.sqrt(), 0.3)
        );
        assert!((e5k.decay.powi(270) - ANNEALED_LR_FRACTION).abs() < 1e-12);
        assert_eq!(e5k.dropout_h1, 0.2);
        // UMLS (135 entities, 5,216 triples) is nowhere near the budget: the preset's schedule.
        let umls = size_default(
            default(),
            with_entities(135, 46, 5_216),
            |_| false,
            EpochBudget::Work,
        );
        assert_eq!((umls.epochs, umls.decay), (DEFAULT_MAX_EPOCHS, 0.995));
        // However large the graph, a few epochs.
        assert_eq!(
            budget_epochs(with_entities(5_000_000, 500, 50_000_000), 200, 100, 512, 0),
            MIN_EPOCHS
        );
    }

    #[test]
    fn sampling_starts_where_the_budget_affords_too_few_epochs_of_scoring_every_entity() {
        let on = |size: GraphSize, pinned: bool, given: usize| {
            let base = Config {
                sampled_candidates: given,
                ..Config::preset("default").unwrap()
            };
            size_default(
                base,
                size,
                |f| pinned && f == "sampled_candidates",
                EpochBudget::Work,
            )
        };
        // The shared benchmarks and their samples score every entity.
        for size in [FB15K_237, WN18RR, FB15K_237_E5K, FB15K_237_E2K] {
            assert_eq!(on(size, false, 0).sampled_candidates, 0);
        }
        // 100k entities in a million triples: one exact epoch would cost about the whole base
        // budget (the choice is made on the base budget, not the graph's grown one).
        let big = with_entities(100_000, 200, 1_000_000);
        assert!(epoch_work(big, 200, 100, 512, 0) > TRAINING_BUDGET / MIN_EPOCHS as f64);
        let sized = on(big, false, 0);
        assert_eq!(sized.sampled_candidates, SAMPLED_CANDIDATES);
        // Its epochs are planned at the sampled cost: more than the exact cost would allow.
        assert!(sized.epochs > budget_epochs(big, 200, 100, 512, 0));
        assert_eq!(
            sized.epochs,
            budget_epochs(big, 200, 100, 512, SAMPLED_CANDIDATES)
        );
        // A sampled run learns with the softmax loss.
        assert_eq!(sized.loss, Loss::Softmax);
        assert_eq!(on(FB15K_237, false, 0).loss, Loss::Bce);
        // The user's choice stands either way, and the loss follows it.
        assert_eq!(on(big, true, 0).sampled_candidates, 0);
        assert_eq!(on(big, true, 0).loss, Loss::Bce);
        assert_eq!(on(FB15K_237, true, 1000).sampled_candidates, 1000);
        assert_eq!(on(FB15K_237, true, 1000).loss, Loss::Softmax);
        // A loss the user chose is kept where sampling would pick another.
        let bce = Config {
            loss: Loss::Bce,
            ..Config::preset("default").unwrap()
        };
        let kept = size_default(bce, big, |f| f == "loss", EpochBudget::Work);
        assert_eq!(
            (kept.sampled_candidates, kept.loss),
            (SAMPLED_CANDIDATES, Loss::Bce)
        );
        // A sample never counts more entities than the graph has.
        assert_eq!(scored_entities(FB15K_237_E2K, 512, 1_000_000), 2_000.0);
    }

    #[test]
    fn input_dropout_is_heavier_on_graphs_of_middling_density_that_train_long_enough() {
        let default = || Config::preset("default").unwrap();
        let on =
            |size: GraphSize, budget: EpochBudget| size_default(default(), size, |_| false, budget);
        // 2,000 entities in 33,000 triples (16.5 each), the whole 500 epochs: 0.4 on the input,
        // the rest as the preset's.
        let mid_size = with_entities(2_000, 40, 33_000);
        let mid = on(mid_size, EpochBudget::Work);
        assert_eq!(
            (mid.epochs, mid.dropout_in, mid.dropout_h1, mid.dropout_h2),
            (DEFAULT_MAX_EPOCHS, HEAVY_INPUT_DROPOUT, 0.2, 0.4)
        );
        // The bounds: 5 and 30 triples per entity are in, just outside them is not.
        let density = |triples| on(with_entities(1_000, 40, triples), EpochBudget::Work).dropout_in;
        assert_eq!(
            (
                density(4_999),
                density(5_000),
                density(30_000),
                density(30_001)
            ),
            (0.3, HEAVY_INPUT_DROPOUT, HEAVY_INPUT_DROPOUT, 0.3)
        );
        // UMLS (39 per entity) and a 5,000-entity sample of WN18RR (2.1) keep the preset's.
        assert_eq!(
            on(with_entities(135, 46, 5_216), EpochBudget::Work).dropout_in,
            0.3
        );
        assert_eq!(
            on(with_entities(5_000, 11, 10_613), EpochBudget::Work).dropout_in,
            0.3
        );
        // A graph of that density whose budget affords too few epochs (FB15k-237-e5k, 23 per
        // entity, 270 epochs) does too; one whose budget affords enough (FB15k-237-e2k, 17 per
        // entity, 415 epochs) does not. So does the middling graph under a wall-clock budget of
        // fewer epochs, or with fewer epochs set by the user.
        assert_eq!(on(FB15K_237_E5K, EpochBudget::Work).dropout_in, 0.3);
        let e2k = on(FB15K_237_E2K, EpochBudget::Work);
        assert_eq!((e2k.epochs, e2k.dropout_in), (415, HEAVY_INPUT_DROPOUT));
        assert_eq!(on(mid_size, EpochBudget::Epochs(299)).dropout_in, 0.3);
        assert_eq!(
            on(mid_size, EpochBudget::Epochs(300)).dropout_in,
            HEAVY_INPUT_DROPOUT
        );
        let short = Config {
            epochs: 200,
            ..default()
        };
        let pinned_epochs = size_default(short, mid_size, |f| f == "epochs", EpochBudget::Work);
        assert_eq!(pinned_epochs.dropout_in, 0.3);
        // The user's dropout is kept.
        let user = Config {
            dropout_in: 0.2,
            ..default()
        };
        let pinned = size_default(user, mid_size, |f| f == "dropout_in", EpochBudget::Work);
        assert_eq!(pinned.dropout_in, 0.2);
    }

    #[test]
    fn overrides_win_and_what_depends_on_them_follows() {
        let resolve_on = |size: GraphSize, pairs: &[(&str, serde_json::Value)]| {
            let overrides: crate::Overrides = pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect();
            Config::resolve("default", Some(size), &overrides).unwrap()
        };
        let resolve = |pairs: &[(&str, serde_json::Value)]| resolve_on(FB15K_237, pairs);
        // More epochs than the budget: the decay anneals over the user's 100.
        let long = resolve(&[("epochs", 100.into())]);
        assert_eq!(long.epochs, 100);
        assert!((long.decay.powi(100) - ANNEALED_LR_FRACTION).abs() < 1e-12);
        // Both set: both kept.
        let both = resolve(&[("epochs", 100.into()), ("decay", 1.0.into())]);
        assert_eq!((both.epochs, both.decay), (100, 1.0));
        // Overridden lr and dropout are kept as given; the rest of the fast schedule (WN18RR's
        // budget) stays.
        let lr = resolve_on(WN18RR, &[("lr", 0.01.into())]);
        assert_eq!((lr.lr, lr.dropout_h2), (0.01, 0.0));
        let dropout = resolve_on(WN18RR, &[("dropout_h2", 0.5.into())]);
        assert_eq!(
            (dropout.lr, dropout.dropout_in, dropout.dropout_h2),
            (0.012, 0.0, 0.5)
        );
        // Opt-in settings the sizing does not touch are kept as given.
        assert_eq!(
            resolve(&[("weight_average", 0.5.into())]).weight_average,
            0.5
        );
        // Under the budget the lr follows an overridden batch size.
        let under: crate::Overrides = [("batch_size".to_string(), 128.into())]
            .into_iter()
            .collect();
        assert_eq!(
            Config::resolve("default", Some(with_entities(1_000, 11, 86_835)), &under)
                .unwrap()
                .lr,
            0.003
        );
        // A wider model has fewer epochs in the same budget.
        assert_eq!(resolve(&[("d_e", 400.into())]).epochs, 51);
        // Reference presets take overrides but are never sized.
        let reference = Config::resolve(
            "fb15k-237",
            Some(FB15K_237),
            &[("epochs".to_string(), 3.into())].into_iter().collect(),
        )
        .unwrap();
        assert_eq!(
            (reference.epochs, reference.batch_size, reference.decay),
            (3, 128, 1.0)
        );
    }

    #[test]
    fn patience_is_a_tenth_of_the_planned_validations_and_at_least_the_presets() {
        let resolve = |size: GraphSize, pairs: &[(&str, serde_json::Value)]| {
            let overrides: crate::Overrides = pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect();
            Config::resolve("default", Some(size), &overrides).unwrap()
        };
        // 2,000 entities, 40 relations, 33,000 triples: 500 epochs, validated every 3 (166).
        let mid = resolve(with_entities(2_000, 40, 33_000), &[]);
        assert_eq!((mid.epochs, mid.eval_every, mid.patience), (500, 3, 17));
        // UMLS-sized: 50 validations, the preset's 5 is more.
        assert_eq!(resolve(with_entities(135, 46, 5_216), &[]).patience, 5);
        // FB15k-237: 140 budget epochs, validated every epoch: 14.
        assert_eq!(resolve(FB15K_237, &[]).patience, 14);
        // The planned validations follow the user's epochs and interval; their patience stays.
        let user = |key: &str, value: usize| {
            resolve(with_entities(2_000, 40, 33_000), &[(key, value.into())]).patience
        };
        assert_eq!(user("epochs", 1000), 33);
        assert_eq!(user("eval_every", 1), 50);
        assert_eq!(user("patience", 2), 2);
        assert_eq!(user("patience", 0), 0);
    }

    #[test]
    fn the_loss_is_a_setting_the_reference_presets_keep_at_bce() {
        use crate::config::Loss;
        let none = crate::Overrides::new();
        for preset in crate::PRESETS {
            for size in [None, Some(FB15K_237_E2K)] {
                assert_eq!(
                    Config::resolve(preset, size, &none).unwrap().loss,
                    Loss::Bce,
                    "{preset}"
                );
            }
        }
        // An override is kept through the sizing, and a wrong value names the field.
        let softmax: crate::Overrides = [("loss".to_string(), "softmax".into())]
            .into_iter()
            .collect();
        let sized = Config::resolve("default", Some(FB15K_237_E2K), &softmax).unwrap();
        assert_eq!(sized.loss, Loss::Softmax);
        assert_eq!(
            Config::resolve("wn18rr", None, &softmax).unwrap().loss,
            Loss::Softmax
        );
        let wrong: crate::Overrides = [("loss".to_string(), "hinge".into())].into_iter().collect();
        let err = Config::resolve("default", None, &wrong)
            .unwrap_err()
            .to_string();
        assert!(err.contains("`loss`") && err.contains("softmax"), "{err}");
        // Settings saved before the loss existed read as BCE.
        let mut old = serde_json::to_value(Config::preset("default").unwrap()).unwrap();
        old.as_object_mut().unwrap().remove("loss");
        let old: Config = serde_json::from_value(old).unwrap();
        assert_eq!(old.loss, Loss::Bce);
    }

    #[test]
    fn bad_overrides_name_their_field() {
        let bad = |k: &str, v: serde_json::Value| {
            let overrides: crate::Overrides = [(k.to_string(), v)].into_iter().collect();
            Config::resolve("default", None, &overrides)
                .unwrap_err()
                .to_string()
        };
        assert!(bad("batch", 4.into()).contains("unknown setting `batch`"));
        let wrong_type = bad("batch_size", "big".into());
        assert!(
            wrong_type.contains("`batch_size`") && wrong_type.contains("invalid type"),
            "{wrong_type}"
        );
        assert!(bad("epochs", 1.5.into()).contains("`epochs`"));
    }

    #[test]
    fn a_wall_clock_budget_schedules_the_epochs_that_fit() {
        let none = crate::Overrides::new();
        let fb = FB15K_237;
        let within = |epochs| {
            Config::resolve_within("default", Some(fb), &none, EpochBudget::Epochs(epochs)).unwrap()
        };
        // Few epochs: the fast schedule (no dropout, lr x 4), annealed to a tenth at the end.
        let short = within(12);
        assert_eq!((short.epochs, short.dropout_in), (12, 0.0));
        assert!((short.decay.powi(12) - ANNEALED_LR_FRACTION).abs() < 1e-9);
        assert!((short.lr - 0.003 * FAST_SCHEDULE_LR_FACTOR).abs() < 1e-12);
        // More epochs than the fast schedule's: dropout stays, the lr still anneals over them.
        let long = within(90);
        assert_eq!((long.epochs, long.dropout_in), (90, 0.3));
        assert!((long.decay.powi(90) - ANNEALED_LR_FRACTION).abs() < 1e-9);
        // A sparse graph (WN18RR: 4.2 training queries per entity and epoch) keeps the fast
        // schedule up to 400 queries per entity (94 epochs); FB15k-237 (37.4) does not.
        let wn = WN18RR;
        let wn_within = |epochs| {
            Config::resolve_within("default", Some(wn), &none, EpochBudget::Epochs(epochs)).unwrap()
        };
        assert_eq!(
            (
                wn_within(49).dropout_in,
                wn_within(49).lr,
                wn_within(94).dropout_h2
            ),
            (0.0, 0.003 * FAST_SCHEDULE_LR_FACTOR, 0.0)
        );
        assert_eq!(
            (wn_within(95).dropout_in, within(49).dropout_in),
            (0.3, 0.3)
        );
        // A reference preset only trains fewer epochs; an overridden epoch count stays.
        let reference =
            Config::resolve_within("fb15k-237", Some(fb), &none, EpochBudget::Epochs(7)).unwrap();
        assert_eq!((reference.epochs, reference.lr), (7, 0.0005));
        let pinned: crate::Overrides = [("epochs".to_string(), 3.into())].into_iter().collect();
        let kept =
            Config::resolve_within("fb15k-237", Some(fb), &pinned, EpochBudget::Epochs(7)).unwrap();
        assert_eq!(kept.epochs, 3);
    }
}
