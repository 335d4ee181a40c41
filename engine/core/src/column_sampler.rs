//! The entity columns a sampled training step scores: every tail of the batch, then a shared
//! uniform sample of the other entities (without replacement), drawn from the step's own
//! counter stream so a run is reproducible. See `crate::kernels::sampled_loss` for how the
//! sample stands for the rest.

use crate::kernels::sampled_loss::SampledColumns;
use crate::net::Batch;
use crate::rng::{CounterRng, Stream};

/// One step's columns and the batch restated over them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Columns {
    /// Entity of each column: the batch's distinct tails (first-seen order), then the sample.
    pub ids: Vec<u32>,
    /// How the columns stand for all entities.
    pub shape: Option<SampledColumns>,
    /// The batch with each tail replaced by its column (heads and relations unchanged).
    pub batch: Batch,
    /// Rows of E the step touches: `ids`, then the heads that are not columns.
    pub rows: Vec<u32>,
    /// Each example's head as a position in `rows`.
    pub head_rows: Vec<u32>,
}

impl Columns {
    /// How the columns stand for all entities (after a draw).
    pub fn shape(&self) -> SampledColumns {
        self.shape.expect("columns are drawn before they are read")
    }
}

/// Draws [`Columns`] for batches over `n_ent` entities, reusing its buffers.
#[derive(Clone, Debug)]
pub struct ColumnSampler {
    n_ent: usize,
    /// 1 + the position in `rows` of each entity marked this step, else 0 (reset after a draw).
    slot: Vec<u32>,
    /// The unmarked entities, when the sample is most of them.
    rest: Vec<u32>,
    columns: Columns,
}

impl ColumnSampler {
    pub fn new(n_ent: usize) -> Self {
        ColumnSampler {
            n_ent,
            slot: vec![0; n_ent],
            rest: Vec::new(),
            columns: Columns::default(),
        }
    }

    /// The columns of `batch` at training step `step`: its tails and `sample` other entities
    /// (all of them when there are no more than that).
    pub fn draw(&mut self, batch: &Batch, sample: usize, seed: u64, step: u64) -> &Columns {
        let c = &mut self.columns;
        c.ids.clear();
        c.batch.clear();
        for i in 0..batch.len() {
            let tails = batch.tails_of(i);
            c.batch.heads.push(batch.heads[i]);
            c.batch.rels.push(batch.rels[i]);
            for &t in tails {
                let s = &mut self.slot[t as usize];
                if *s == 0 {
                    c.ids.push(t);
                    *s = c.ids.len() as u32;
                }
                c.batch.tails.push(*s - 1);
            }
            c.batch.offsets.push(c.batch.tails.len());
        }
        let positives = c.ids.len();
        let others = self.n_ent - positives;
        let k = sample.min(others);
        let mut rng = CounterRng::new(seed, step, Stream::Candidates);
        if k == others {
            for e in 0..self.n_ent as u32 {
                if self.slot[e as usize] == 0 {
                    c.ids.push(e);
                }
            }
        } else if 2 * k <= others {
            // Rejection: at least half the draws land on an unmarked entity.
            while c.ids.len() < positives + k {
                let e = rng.below(self.n_ent);
                if self.slot[e] == 0 {
                    c.ids.push(e as u32);
                    self.slot[e] = c.ids.len() as u32;
                }
            }
        } else {
            // Most of the rest: the first k of a partial Fisher-Yates shuffle of it.
            self.rest.clear();
            self.rest
                .extend((0..self.n_ent as u32).filter(|&e| self.slot[e as usize] == 0));
            for i in 0..k {
                let j = i + rng.below(others - i);
                self.rest.swap(i, j);
            }
            c.ids.extend_from_slice(&self.rest[..k]);
        }
        for (i, &e) in c.ids.iter().enumerate().skip(positives) {
            self.slot[e as usize] = i as u32 + 1;
        }
        c.shape = Some(SampledColumns {
            total: c.ids.len(),
            positives,
            weight: if k == 0 {
                1.0
            } else {
                others as f64 / k as f64
            },
            entities: self.n_ent,
        });
        c.rows.clear();
        c.rows.extend_from_slice(&c.ids);
        c.head_rows.clear();
        for &h in &batch.heads {
            let s = &mut self.slot[h as usize];
            if *s == 0 {
                c.rows.push(h);
                *s = c.rows.len() as u32;
            }
            c.head_rows.push(*s - 1);
        }
        for &e in &c.rows {
            self.slot[e as usize] = 0;
        }
        &self.columns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch() -> Batch {
        let mut b = Batch::default();
        b.push(0, 0, &[3, 4]);
        b.push(5, 1, &[4]);
        b.push(3, 0, &[]);
        b
    }

    #[test]
    fn tails_come_first_and_the_sample_is_distinct_and_elsewhere() {
        let mut s = ColumnSampler::new(100);
        let c = s.draw(&batch(), 10, 7, 1).clone();
        assert_eq!(&c.ids[..2], &[3, 4]);
        assert_eq!(c.ids.len(), 12);
        let mut seen = c.ids.clone();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 12);
        assert_eq!(c.batch.tails, vec![0, 1, 1]);
        let shape = c.shape();
        assert_eq!((shape.positives, shape.total), (2, 12));
        assert!((shape.weight - 98.0 / 10.0).abs() < 1e-12);
        // Heads 0 and 5 are new rows; head 3 is column 0.
        assert_eq!(&c.rows[..12], &c.ids[..]);
        for (&h, &r) in [0u32, 5, 3].iter().zip(&c.head_rows) {
            assert_eq!(c.rows[r as usize], h);
        }
        assert!(s.slot.iter().all(|&v| v == 0), "marks are reset");
    }

    #[test]
    fn a_sample_of_everything_is_exact_and_draws_repeat_by_step() {
        let mut s = ColumnSampler::new(20);
        let all = s.draw(&batch(), 1000, 7, 1).clone();
        assert_eq!(all.ids.len(), 20);
        assert_eq!(all.shape().weight, 1.0);
        for big in [15, 17] {
            let c = s.draw(&batch(), big, 7, 1).clone();
            assert_eq!(c.ids.len(), 2 + big);
            assert_eq!(c, s.draw(&batch(), big, 7, 1).clone());
            assert_ne!(c.ids, s.draw(&batch(), big, 7, 2).ids);
        }
    }
}
