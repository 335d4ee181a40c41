//! The `default` preset sized to the user's graph.
//!
//! The reference presets are fixed; `default` is for graphs we have not seen, so a few settings
//! follow the graph's size. Evidence (bench/quality/RESULTS.md, bench/train-speed):
//! - `d_r` follows the relation count and the data: 10 for small graphs (up to
//!   [`SMALL_RELATION_COUNT`] relations and under [`SMALL_GRAPH_TRIPLES`] training triples),
//!   30 for larger graphs with few relations (WN18RR's reference value), 100 above
//!   [`SMALL_RELATION_COUNT`] relations (the FB15k-237 reference uses 150 for 237). On the small
//!   graphs, with PReLU and batch 32: UMLS test MRR .942/.940/.934 (three seeds) at d_r 10
//!   against .928/.918/.925 at 30, .929 at 20 and .908 at 5; Nations .819 against .740.
//! - Label smoothing 0.05 instead of 0.1 on those small graphs: UMLS .945/.943/.938 against
//!   .942/.940/.934 (same seeds), Kinship and Nations within noise either way (±.005, ±.01).
//! - Batches grow with the graph (32 under [`TINY_GRAPH_TRIPLES`] training triples, 128 up to
//!   40k, 256, then 512 from 160k). Tiny graphs have only a few dozen batches of 128 per epoch;
//!   batch 32 gave UMLS .926 against .913 at 128 (one seed) and is what the d_r 10 runs used.
//!   On large graphs an epoch of a 300k-edge graph has ~600 steps instead of ~2,300, and each
//!   step's fixed costs (Adam over every parameter, one `R[r] · W` per distinct relation) are
//!   paid 4x less often.
//! - The learning rate grows with the square root of the batch above 128 (0.003 at 128 and
//!   below, 0.006 at 512): on FB15k-237 at batch 512, lr 0.006 reached validation MRR .185
//!   after 6 epochs against .064 for 0.003 (bench/quality/runs/).
//! - Validation about every 100k training triples (every 10 epochs for graphs under 10k triples,
//!   every epoch from 100k), so early stopping reacts within minutes on large graphs.
//! - Reversed triples share their relation's id (`same_relation`) when relations have fewer than
//!   [`SPARSE_RELATION_TRIPLES`] training triples each on average; a new `r_reverse` id would
//!   halve the data behind every relation embedding again. Nations (29 per relation): test MRR
//!   .861/.855/.858 against .838/.819/.807 with `r_reverse` (same seeds); UMLS (113 per
//!   relation) and Kinship (342) do better with `r_reverse` (+.02 to +.04, session 3). The
//!   threshold sits between 29 and 113; only Nations is below it among the graphs measured.

use crate::config::Config;
use crate::dataset::InverseMode;
use serde::{Deserialize, Serialize};

/// Relations up to which `d_r` stays small (10 or 30); above it, 100.
pub const SMALL_RELATION_COUNT: usize = 64;
/// Training triples below which a graph with few relations gets `d_r` 10 and label smoothing
/// 0.05 (and below which batches hold at most 128 queries).
pub const SMALL_GRAPH_TRIPLES: usize = 40_000;
/// Training triples below which batches hold 32 queries.
pub const TINY_GRAPH_TRIPLES: usize = 10_000;
/// Mean training triples per relation below which reversed triples share the relation's id.
pub const SPARSE_RELATION_TRIPLES: usize = 50;

/// What the `default` preset scales with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GraphSize {
    pub entities: usize,
    /// Base relations (before reverses).
    pub relations: usize,
    pub train_triples: usize,
}

/// `base` (the `default` preset) with its size-dependent settings picked for `size`.
pub fn size_default(base: Config, size: GraphSize) -> Config {
    let t = size.train_triples.max(1);
    let batch_size = match t {
        0..TINY_GRAPH_TRIPLES => 32,
        TINY_GRAPH_TRIPLES..SMALL_GRAPH_TRIPLES => 128,
        SMALL_GRAPH_TRIPLES..160_000 => 256,
        _ => 512,
    };
    let few_relations = size.relations <= SMALL_RELATION_COUNT;
    let small = few_relations && t < SMALL_GRAPH_TRIPLES;
    let d_r = if small { 10 } else if few_relations { 30 } else { 100 };
    let sparse_relations = t < SPARSE_RELATION_TRIPLES * size.relations.max(1);
    Config {
        d_r,
        inverse_mode: if sparse_relations { InverseMode::SameRelation } else { base.inverse_mode },
        label_smoothing: if small { 0.05 } else { base.label_smoothing },
        batch_size,
        lr: base.lr * (batch_size.max(128) as f64 / 128.0).sqrt(),
        eval_every: (100_000.0 / t as f64).round().clamp(1.0, 10.0) as usize,
        ..base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sized(relations: usize, train_triples: usize) -> Config {
        size_default(Config::preset("default").unwrap(), GraphSize { entities: 1000, relations, train_triples })
    }

    #[test]
    fn settings_follow_the_graph() {
        // UMLS-like: 46 relations, 5,216 training triples.
        let small = sized(46, 5_216);
        assert_eq!((small.d_r, small.batch_size, small.eval_every), (10, 32, 10));
        assert_eq!((small.label_smoothing, small.inverse_mode), (0.05, InverseMode::NewRelation));
        // Nations-like: 55 relations, 1,592 triples (29 per relation): reverses share the id.
        let sparse = sized(55, 1_592);
        assert_eq!((sparse.d_r, sparse.inverse_mode), (10, InverseMode::SameRelation));
        assert_eq!(sized(10, 499).inverse_mode, InverseMode::SameRelation);
        assert_eq!(sized(10, 500).inverse_mode, InverseMode::NewRelation);
        // 25 relations, 20,000 triples: still d_r 10, batch 128.
        let small_medium = sized(25, 20_000);
        assert_eq!((small_medium.d_r, small_medium.batch_size, small_medium.eval_every), (10, 128, 5));
        // WN18RR-like: 11 relations, 86,835 triples.
        let medium = sized(11, 86_835);
        assert_eq!((medium.d_r, medium.batch_size, medium.eval_every), (30, 256, 1));
        // FB15k-237-like: 237 relations, 272,115 triples.
        let large = sized(237, 272_115);
        assert_eq!((large.d_r, large.batch_size, large.eval_every), (100, 512, 1));
        // The lr grows with the batch above 128 only.
        assert_eq!((small.lr, small_medium.lr, large.lr), (0.003, 0.003, 0.006));
        // Everything else is the preset's.
        assert_eq!((large.d_e, large.patience, large.dropout_h2, large.label_smoothing), (200, 5, 0.4, 0.1));
        assert_eq!((medium.inverse_mode, large.inverse_mode), (InverseMode::NewRelation, InverseMode::NewRelation));
        assert!(large.validate().is_ok() && sized(0, 0).validate().is_ok());
    }
}
