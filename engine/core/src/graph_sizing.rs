//! The `default` preset sized to the user's graph.
//!
//! The reference presets are fixed; `default` is for graphs we have not seen, so a few settings
//! follow the graph's size. Evidence (bench/quality/RESULTS.md, bench/train-speed):
//! - `d_r` 30 for up to [`SMALL_RELATION_COUNT`] relations: better than 100 on Nations (+.108 test
//!   MRR), UMLS (+.012) and Kinship with r_reverse; graphs with hundreds of relations keep 100
//!   (the FB15k-237 reference uses 150 for 237 relations).
//! - Batches grow with the graph (128 up to 40k training triples, 256, then 512 from 160k): an
//!   epoch of a 300k-edge graph then has ~600 steps instead of ~2,300, and each step's fixed
//!   costs (Adam over every parameter, one `R[r] · W` per distinct relation) are paid 4x less
//!   often.
//! - The learning rate grows with the square root of the batch (0.003 at 128, 0.006 at 512): on
//!   FB15k-237 at batch 512, lr 0.006 reached validation MRR .185 after 6 epochs against .064 for
//!   0.003 (bench/quality/runs/).
//! - Validation about every 100k training triples (every 10 epochs for graphs under 10k triples,
//!   every epoch from 100k), so early stopping reacts within minutes on large graphs.

use crate::config::Config;
use serde::{Deserialize, Serialize};

/// Relations up to which `d_r` is 30.
pub const SMALL_RELATION_COUNT: usize = 64;

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
        0..40_000 => 128,
        40_000..160_000 => 256,
        _ => 512,
    };
    Config {
        d_r: if size.relations <= SMALL_RELATION_COUNT { 30 } else { 100 },
        batch_size,
        lr: base.lr * (batch_size as f64 / 128.0).sqrt(),
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
        assert_eq!((small.d_r, small.batch_size, small.eval_every), (30, 128, 10));
        // WN18RR-like: 11 relations, 86,835 triples.
        let medium = sized(11, 86_835);
        assert_eq!((medium.d_r, medium.batch_size, medium.eval_every), (30, 256, 1));
        // FB15k-237-like: 237 relations, 272,115 triples.
        let large = sized(237, 272_115);
        assert_eq!((large.d_r, large.batch_size, large.eval_every), (100, 512, 1));
        assert_eq!((small.lr, large.lr), (0.003, 0.006));
        // Everything else is the preset's.
        assert_eq!((large.d_e, large.patience, large.dropout_h2), (200, 5, 0.4));
        assert!(large.validate().is_ok() && sized(0, 0).validate().is_ok());
    }
}
