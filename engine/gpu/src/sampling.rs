//! The GPU engine's sampled steps (`Config::sampled_candidates` > 0), as
//! `neptune_core::sampled_steps` runs them on the CPU: each batch is scored against its own
//! tails and a shared uniform sample of the other entities (`neptune_core::column_sampler`, on
//! the host: the same draws as the CPU's), and E moves by lazy Adam on the rows the step
//! touched, each caught up first for the steps it sat out. This holds the host's bookkeeping
//! (when each row of E was last updated) and the step's row buffers on the device; the step
//! itself is `crate::step`'s, in "row space": the step gathers the rows of E it touches into
//! `e_rows` (R x D: the columns, then heads that are not columns), scores and differentiates
//! those, and `step_rows` applies their gradient to E.

use crate::buffer::Tensor;
use crate::device::Gpu;
use crate::kernel::Recorder;
use crate::ops::adam;
use crate::ops::elementwise;
use neptune_core::column_sampler::{ColumnSampler, Columns};
use neptune_core::net::Batch;

/// E, its first moment and its second moment on the device.
pub(crate) type RowsOfE<'a> = [&'a Tensor; 3];

pub(crate) struct Sampling {
    /// Entities sampled per batch besides its tails.
    sample: usize,
    sampler: ColumnSampler,
    /// Per row of E, the optimizer step after which it was last updated.
    updated_at: Vec<u64>,
    /// The learning rate of the last step (what `catch_up_all` catches up with).
    last_lr: f64,
    /// The step's columns, as drawn.
    pub columns: Columns,
    /// u32 rows of E the step touches (R: `columns.rows`).
    rows: Tensor,
    /// Rows of E to catch up before the step reads them, and their constants (3 per row).
    stale: Tensor,
    stale_k: Tensor,
    n_stale: usize,
    /// R x D: the step's rows of E, after their catch-up.
    pub e_rows: Tensor,
    /// R x D: E's gradient at those rows.
    pub row_grads: Tensor,
}

impl Sampling {
    /// The state of a run whose optimizer has taken `adam_step` steps (every row current).
    pub fn new(gpu: &Gpu, sample: usize, n_ent: usize, adam_step: u64, lr: f64) -> Self {
        Sampling {
            sample,
            sampler: ColumnSampler::new(n_ent),
            updated_at: vec![adam_step; n_ent],
            last_lr: lr,
            columns: Columns::default(),
            rows: gpu.zeros(0),
            stale: gpu.zeros(0),
            stale_k: gpu.zeros(0),
            n_stale: 0,
            e_rows: gpu.zeros(0),
            row_grads: gpu.zeros(0),
        }
    }

    /// Draws the columns of `batch` at optimizer step `step` (the CPU's draw), uploads the rows
    /// it touches and the catch-up of those that sat out steps, and returns the batch restated
    /// in row space: heads as rows of `e_rows`, tails as columns.
    pub fn draw(
        &mut self,
        gpu: &Gpu,
        batch: &Batch,
        seed: u64,
        step: u64,
        lr: f64,
        d: usize,
    ) -> Batch {
        self.last_lr = lr;
        self.columns
            .clone_from(self.sampler.draw(batch, self.sample, seed, step));
        let c = &self.columns;
        let n_rows = c.rows.len();
        gpu.ensure(&mut self.rows, n_rows);
        gpu.write(&self.rows, &c.rows);
        gpu.ensure(&mut self.e_rows, n_rows * d);
        gpu.ensure(&mut self.row_grads, n_rows * d);
        let (stale, skipped) = self.stale(c.rows.iter().copied(), step);
        let mut local = Batch::default();
        for (i, &h) in c.head_rows.iter().enumerate() {
            local.push(h, c.batch.rels[i], c.batch.tails_of(i));
        }
        self.upload_stale(gpu, &stale, &skipped, step);
        local
    }

    /// Of `rows`, those that sat out steps before optimizer step `now`, and how many each.
    fn stale(&self, rows: impl Iterator<Item = u32>, now: u64) -> (Vec<u32>, Vec<u64>) {
        rows.map(|r| (r, now - self.updated_at[r as usize]))
            .filter(|&(_, s)| s > 0)
            .unzip()
    }

    fn upload_stale(&mut self, gpu: &Gpu, stale: &[u32], skipped: &[u64], step: u64) {
        self.n_stale = stale.len();
        gpu.ensure(&mut self.stale, stale.len());
        gpu.ensure(&mut self.stale_k, 3 * stale.len());
        gpu.write(&self.stale, stale);
        let k = adam::catch_up_constants(skipped, self.last_lr, step);
        gpu.write(&self.stale_k, &k);
    }

    /// Records the catch-up of the drawn rows that sat out steps (at optimizer step `step`,
    /// before the update), then their gather into `e_rows`.
    pub fn record_gather(&self, rec: &mut Recorder, e: RowsOfE, d: usize, step: u64) {
        let n_rows = self.columns.rows.len();
        adam::catch_up_rows(rec, e, &self.stale_k, &self.stale, self.n_stale, d, step);
        elementwise::gather_rows(rec, e[0], &self.rows, n_rows, d, &self.e_rows);
    }

    /// Records lazy Adam on the step's rows of E by `row_grads`, at step `t` (after the
    /// increment), and notes them as current.
    pub fn record_update(&mut self, rec: &mut Recorder, e: RowsOfE, d: usize, lr: f64, t: u64) {
        let rows = &self.columns.rows;
        adam::step_rows(rec, e, &self.row_grads, &self.rows, rows.len(), d, lr, t);
        for &r in rows {
            self.updated_at[r as usize] = t;
        }
    }

    /// Catches up every row of E that sat out steps, up to optimizer step `now`, at the last
    /// step's learning rate (as the CPU's `SampledSteps::sync`): E is then dense Adam's.
    pub fn catch_up_all(&mut self, gpu: &Gpu, e: RowsOfE, d: usize, now: u64) {
        let (stale, skipped) = self.stale(0..self.updated_at.len() as u32, now);
        if stale.is_empty() {
            return;
        }
        self.upload_stale(gpu, &stale, &skipped, now);
        let mut rec = gpu.recorder();
        adam::catch_up_rows(&mut rec, e, &self.stale_k, &self.stale, stale.len(), d, now);
        rec.submit();
        self.updated_at.fill(now);
    }
}
