//! The GPU step engine: `neptune_core::net`'s forward, fused loss, backward and Adam, kernel for
//! kernel on the device. Parameters, moments and gradients live on the device; each step
//! uploads the batch's index lists and mask row keys and reads back B row losses. With
//! `sampled_candidates` > 0 a step scores a sample of the entities instead of all of them
//! (`crate::sampling`, as `neptune_core::sampled_steps` on the CPU).

use crate::batch_layout::BatchLayout;
use crate::buffer::Tensor;
use crate::device::Gpu;
use crate::mask::DeviceMask;
use crate::ops::gemm::{gemm, Operand};
use crate::ops::{adam, batchnorm, core_product, elementwise, loss};
use crate::sampling::Sampling;
use neptune_core::adam::Adam;
use neptune_core::config::Config;
use neptune_core::config::Loss;
use neptune_core::net::{Batch, Dropouts, Objective};
use neptune_core::params::{Params, N_TRAINABLE};
use neptune_core::rng::{Mask, Stream};
use neptune_core::step_engine::{dropouts, frozen, StepEngine, StepEngineFactory};
use neptune_core::{Error, Result};
use std::sync::Arc;
use std::time::Instant;

/// A GPU engine's factory for [`neptune_core::Trainer::with_step_engine`].
pub fn factory(gpu: Arc<Gpu>) -> StepEngineFactory {
    Arc::new(move |cfg, params, adam| {
        Ok(Box::new(GpuSteps::new(gpu.clone(), cfg, params, adam)?) as Box<dyn StepEngine>)
    })
}

/// A product operand, transposed or not.
fn n(t: &Tensor, transposed: bool) -> Operand<'_> {
    Operand { t, transposed }
}

/// Activations and gradients of one step (B x D unless noted); they grow with the batch.
struct Work {
    heads: Tensor,
    uniq: Tensor,
    group: Tensor,
    rel_members: Tensor,
    rel_off: Tensor,
    head_targets: Tensor,
    head_members: Tensor,
    head_off: Tensor,
    tail_off: Tensor,
    tails: Tensor,
    x0: Tensor,
    xhat0: Tensor,
    inv0: Tensor,
    mean0: Tensor,
    var0: Tensor,
    x1: Tensor,
    ru: Tensor,
    a: Tensor,
    y: Tensor,
    xhat1: Tensor,
    inv1: Tensor,
    mean1: Tensor,
    var1: Tensor,
    z2: Tensor,
    x2: Tensor,
    /// S x D: the scored rows of E (N, or a sampled step's columns) with the step's input
    /// dropout, when that is on.
    e_drop: Tensor,
    /// B x S logits, then their gradient.
    logits: Tensor,
    row_loss: Tensor,
    dx2: Tensor,
    dy: Tensor,
    da: Tensor,
    dx1: Tensor,
    dx0: Tensor,
    dru: Tensor,
}

/// Training steps on one device.
pub struct GpuSteps {
    gpu: Arc<Gpu>,
    n_ent: usize,
    n_rel: usize,
    d: usize,
    dr: usize,
    drop: Dropouts,
    objective: Objective,
    seed: u64,
    frozen: [bool; N_TRAINABLE],
    /// Trainable tensors in `Params::trainable` order, their Adam moments and gradients.
    p: Vec<Tensor>,
    m: Vec<Tensor>,
    v: Vec<Tensor>,
    g: Vec<Tensor>,
    /// BatchNorm running mean and variance: bn0, then bn1.
    running: [Tensor; 4],
    w: Work,
    in_head: DeviceMask,
    h1: DeviceMask,
    h2: DeviceMask,
    in_ent: DeviceMask,
    /// A sampled run's state; None when every step scores every entity.
    sampling: Option<Sampling>,
    step_secs: f64,
    readback_secs: f64,
}

impl GpuSteps {
    /// Uploads the starting parameters and optimizer state.
    pub fn new(
        gpu: Arc<Gpu>,
        cfg: &Config,
        params: &Params<f32>,
        adam: &Adam<f32>,
    ) -> Result<Self> {
        let (n_ent, d) = (params.n_ent, params.d_e);
        let sampled = cfg.sampled_candidates > 0;
        let biggest = (n_ent * d).max(params.d_r * d * d) as u64 * 4;
        if biggest > gpu.max_buffer_bytes() {
            return Err(Error::Device(format!(
                "{} binds buffers of at most {} MiB; this model needs {} MiB",
                gpu.description(),
                gpu.max_buffer_bytes() >> 20,
                biggest >> 20
            )));
        }
        let p: Vec<Tensor> = params.trainable().iter().map(|t| gpu.upload(t)).collect();
        let m = adam.m.iter().map(|t| gpu.upload(t)).collect();
        let v = adam.v.iter().map(|t| gpu.upload(t)).collect();
        // A sampled step keeps E's gradient at its rows only (`Sampling::row_grads`).
        let g = params
            .trainable_lens()
            .iter()
            .enumerate()
            .map(|(i, &l)| gpu.zeros(if sampled && i == 0 { 0 } else { l }))
            .collect();
        let running = [
            gpu.upload(&params.bn0.running_mean),
            gpu.upload(&params.bn0.running_var),
            gpu.upload(&params.bn1.running_mean),
            gpu.upload(&params.bn1.running_var),
        ];
        let z = || gpu.zeros(0);
        let w = Work {
            heads: z(),
            uniq: z(),
            group: z(),
            rel_members: z(),
            rel_off: z(),
            head_targets: z(),
            head_members: z(),
            head_off: z(),
            tail_off: z(),
            tails: z(),
            x0: z(),
            xhat0: z(),
            inv0: gpu.zeros(d),
            mean0: gpu.zeros(d),
            var0: gpu.zeros(d),
            x1: z(),
            ru: z(),
            a: z(),
            y: z(),
            xhat1: z(),
            inv1: gpu.zeros(d),
            mean1: gpu.zeros(d),
            var1: gpu.zeros(d),
            z2: z(),
            x2: z(),
            e_drop: z(),
            logits: z(),
            row_loss: z(),
            dx2: z(),
            dy: z(),
            da: z(),
            dx1: z(),
            dx0: z(),
            dru: z(),
        };
        let mut frozen = frozen(cfg);
        // A sampled run moves E by lazy Adam on its rows, not by the dense update.
        frozen[0] |= sampled;
        let sampling =
            sampled.then(|| Sampling::new(&gpu, cfg.sampled_candidates, n_ent, adam.step, cfg.lr));
        Ok(GpuSteps {
            n_ent,
            n_rel: params.n_rel,
            d,
            dr: params.d_r,
            drop: dropouts(cfg),
            objective: Objective::of(cfg),
            seed: cfg.seed,
            frozen,
            p,
            m,
            v,
            g,
            running,
            w,
            in_head: DeviceMask::new(&gpu, 0),
            h1: DeviceMask::new(&gpu, 0),
            h2: DeviceMask::new(&gpu, 0),
            in_ent: DeviceMask::new(&gpu, if sampled { 0 } else { n_ent }),
            sampling,
            gpu,
            step_secs: 0.0,
            readback_secs: 0.0,
        })
    }

    /// The gradients of the last step, in `Params::trainable` order (tests compare them); a
    /// sampled step's E gradient is empty (see [`GpuSteps::row_grads`]).
    pub fn grads(&self) -> Result<Vec<Vec<f32>>> {
        self.g
            .iter()
            .map(|t| self.gpu.read(t, t.len).map_err(|e| Error::Device(e.0)))
            .collect()
    }

    /// A sampled step's E gradient at the rows it touched (`Columns::rows` x D), as
    /// `neptune_core::net::finish_backward_sampled` writes it; None when steps score every entity.
    pub fn row_grads(&self) -> Result<Option<Vec<f32>>> {
        let Some(s) = &self.sampling else {
            return Ok(None);
        };
        let n = s.columns.rows.len() * self.d;
        let g = self.gpu.read(&s.row_grads, n);
        g.map(Some).map_err(|e| Error::Device(e.0))
    }

    /// Sizes the per-batch buffers and uploads the batch's index lists and masks; the step
    /// scores `scored` rows of E (all N, or a sampled step's columns).
    fn load_batch(&mut self, layout: &BatchLayout, step: u64, scored: usize) {
        let gpu = &*self.gpu;
        let (b, d, n_u, dr) = (layout.heads.len(), self.d, layout.uniq.len(), self.dr);
        let w = &mut self.w;
        for (t, data) in [
            (&mut w.heads, &layout.heads),
            (&mut w.uniq, &layout.uniq),
            (&mut w.group, &layout.group),
            (&mut w.rel_members, &layout.rel_members),
            (&mut w.rel_off, &layout.rel_off),
            (&mut w.head_targets, &layout.head_targets),
            (&mut w.head_members, &layout.head_members),
            (&mut w.head_off, &layout.head_off),
            (&mut w.tail_off, &layout.tail_off),
            (&mut w.tails, &layout.tails),
        ] {
            gpu.ensure(t, data.len());
            gpu.write(t, data);
        }
        for t in [
            &mut w.x0,
            &mut w.xhat0,
            &mut w.x1,
            &mut w.y,
            &mut w.xhat1,
            &mut w.z2,
            &mut w.x2,
            &mut w.dx2,
            &mut w.dy,
            &mut w.dx1,
            &mut w.dx0,
        ] {
            gpu.ensure(t, b * d);
        }
        gpu.ensure(&mut w.ru, n_u * dr);
        gpu.ensure(&mut w.dru, n_u * dr);
        gpu.ensure(&mut w.a, n_u * d * d);
        gpu.ensure(&mut w.da, n_u * d * d);
        gpu.ensure(&mut w.logits, b * scored);
        gpu.ensure(&mut w.row_loss, b);
        if self.drop.input > 0.0 {
            gpu.ensure(&mut w.e_drop, scored * d);
        }
        let (seed, p) = (self.seed, self.drop);
        for (mask, stream, prob, rows) in [
            (&mut self.in_head, Stream::InHead, p.input, b),
            (&mut self.h1, Stream::Hidden1, p.h1, b * d),
            (&mut self.h2, Stream::Hidden2, p.h2, b),
            (&mut self.in_ent, Stream::InEntity, p.input, scored),
        ] {
            if mask.row_keys.len < rows {
                *mask = DeviceMask::new(gpu, rows);
            }
            let m = Mask::new(seed, step, stream, prob);
            match &self.sampling {
                // The columns keep their entities' masks (the CPU's `dropout_gather`).
                Some(s) if stream == Stream::InEntity => {
                    mask.set_rows(gpu, &m, prob, &s.columns.ids)
                }
                _ => mask.set(gpu, &m, prob, rows),
            }
        }
    }
}

impl StepEngine for GpuSteps {
    fn step(
        &mut self,
        _: &mut Params<f32>,
        adam_state: &mut Adam<f32>,
        batch: &Batch,
        lr: f64,
    ) -> Result<f64> {
        let t0 = Instant::now();
        let (d, dr, step) = (self.d, self.dr, adam_state.step);
        // A sampled step works in row space: heads are rows of `e_rows`, tails its columns.
        let local = match &mut self.sampling {
            Some(s) => Some(s.draw(&self.gpu, batch, self.seed, step, lr, d)),
            None => None,
        };
        let batch = local.as_ref().unwrap_or(batch);
        let cols = match &self.sampling {
            Some(s) => s.columns.shape(),
            None => loss::every_entity(self.n_ent),
        };
        let layout = BatchLayout::new(batch);
        self.load_batch(&layout, step, cols.total);
        let (b, sc) = (batch.len(), cols.total);
        let n_u = layout.uniq.len();
        let gpu = &*self.gpu;
        let (w, p, g) = (&self.w, &self.p, &self.g);
        let [e, r, wt, g0, b0, g1, b1, slope] = [0, 1, 2, 3, 4, 5, 6, 7].map(|i| &p[i]);
        let [ge, gr, gw, gg0, gb0, gg1, gb1, gs] = [0, 1, 2, 3, 4, 5, 6, 7].map(|i| &g[i]);
        let e_moments = [e, &self.m[0], &self.v[0]];
        let mut rec = gpu.recorder();
        // The rows of E the step reads and its gradient there: all of E, or the sampled step's
        // rows (caught up for the steps they sat out, then gathered).
        let (e_step, ge_step) = match &self.sampling {
            Some(s) => {
                s.record_gather(&mut rec, e_moments, d, step);
                (&s.e_rows, &s.row_grads)
            }
            None => (e, ge),
        };
        // Forward (net/forward.rs): x1 = dropout_in(BN0(E[h])).
        elementwise::gather_rows(&mut rec, e_step, &w.heads, b, d, &w.x0);
        batchnorm::forward_train(
            &mut rec, g0, b0, &w.x0, b, d, &w.xhat0, &w.inv0, &w.x1, &w.mean0, &w.var0,
        );
        elementwise::dropout_inplace(&mut rec, &w.x1, b, d, &self.in_head);
        // A_u = R[u] · W (U x D*D).
        elementwise::gather_rows(&mut rec, r, &w.uniq, n_u, dr, &w.ru);
        gemm(
            &mut rec,
            &w.a,
            n(&w.ru, false),
            n(wt, false),
            n_u,
            d * d,
            dr,
            false,
        );
        // y_b = x1_b · dropout_h1(A_{r_b}); x2 = act(dropout_h2(BN1(y))).
        core_product::forward(&mut rec, &w.x1, &w.a, &w.group, b, d, &self.h1, &w.y);
        batchnorm::forward_train(
            &mut rec, g1, b1, &w.y, b, d, &w.xhat1, &w.inv1, &w.z2, &w.mean1, &w.var1,
        );
        elementwise::dropout_inplace(&mut rec, &w.z2, b, d, &self.h2);
        elementwise::act_forward(&mut rec, &w.z2, slope, &w.x2, b * d);
        // logits = x2 · dropout_in(E_S)^T (B x S), E_S the scored rows: all of E, or the
        // columns (the first S rows of `e_rows`).
        let used_e_drop = self.in_ent.threshold != 0;
        let e_score = if used_e_drop {
            elementwise::dropout_copy(&mut rec, e_step, &w.e_drop, sc, d, &self.in_ent);
            &w.e_drop
        } else {
            e_step
        };
        gemm(
            &mut rec,
            &w.logits,
            n(&w.x2, false),
            n(e_score, true),
            b,
            sc,
            d,
            false,
        );
        let [rm0, rv0, rm1, rv1] = &self.running;
        batchnorm::update_running(&mut rec, rm0, rv0, &w.mean0, &w.var0, b, d);
        batchnorm::update_running(&mut rec, rm1, rv1, &w.mean1, &w.var1, b, d);
        let fused = match self.objective.loss {
            Loss::Bce => loss::bce_fused,
            Loss::Softmax => loss::softmax_fused,
        };
        let eps = self.objective.eps;
        fused(
            &mut rec,
            &w.logits,
            b,
            cols,
            eps,
            &w.tail_off,
            &w.tails,
            &w.row_loss,
        );
        // Backward (net/backward.rs): dx2 = dL · E_S', dE_S' = dL^T · x2. A sampled step's
        // other rows (heads that are not columns) start at zero.
        gemm(
            &mut rec,
            &w.dx2,
            n(&w.logits, false),
            n(e_score, false),
            b,
            d,
            sc,
            false,
        );
        if let Some(s) = &self.sampling {
            let n_rows = s.columns.rows.len();
            elementwise::fill(&mut rec, ge_step, n_rows * d, 0.0);
        }
        gemm(
            &mut rec,
            ge_step,
            n(&w.logits, true),
            n(&w.x2, false),
            sc,
            d,
            b,
            false,
        );
        if used_e_drop {
            elementwise::dropout_inplace(&mut rec, ge_step, sc, d, &self.in_ent);
        }
        elementwise::act_backward(&mut rec, &w.z2, slope, &w.dx2, b * d, gs);
        elementwise::dropout_inplace(&mut rec, &w.dx2, b, d, &self.h2);
        batchnorm::backward(
            &mut rec, g1, &w.xhat1, &w.inv1, &w.dx2, b, d, &w.dy, gg1, gb1,
        );
        core_product::backward_da(
            &mut rec,
            &w.dy,
            &w.x1,
            &w.rel_members,
            &w.rel_off,
            n_u,
            d,
            &self.h1,
            &w.da,
        );
        core_product::backward_dx(&mut rec, &w.dy, &w.a, &w.group, b, d, &self.h1, &w.dx1);
        // dR_u = dA_u · W^T; dW = R_U^T · dA.
        gemm(
            &mut rec,
            &w.dru,
            n(&w.da, false),
            n(wt, true),
            n_u,
            dr,
            d * d,
            false,
        );
        gemm(
            &mut rec,
            gw,
            n(&w.ru, true),
            n(&w.da, false),
            dr,
            d * d,
            n_u,
            false,
        );
        elementwise::fill(&mut rec, gr, self.n_rel * dr, 0.0);
        elementwise::scatter_rows(&mut rec, &w.dru, &w.uniq, n_u, dr, gr);
        elementwise::dropout_inplace(&mut rec, &w.dx1, b, d, &self.in_head);
        batchnorm::backward(
            &mut rec, g0, &w.xhat0, &w.inv0, &w.dx1, b, d, &w.dx0, gg0, gb0,
        );
        let heads = layout.head_targets.len();
        elementwise::scatter_add_rows(
            &mut rec,
            &w.dx0,
            &w.head_targets,
            &w.head_off,
            &w.head_members,
            heads,
            d,
            ge_step,
        );
        // Adam (adam.rs), step number t; a sampled step's E by lazy Adam on its rows.
        let t = step + 1;
        for i in (0..N_TRAINABLE).filter(|&i| !self.frozen[i]) {
            adam::step(
                &mut rec, &p[i], &self.m[i], &self.v[i], &g[i], p[i].len, lr, t,
            );
        }
        if let Some(s) = &mut self.sampling {
            s.record_update(&mut rec, e_moments, d, lr, t);
        }
        rec.submit();
        let t1 = Instant::now();
        let rows: Vec<f32> = gpu.read(&w.row_loss, b).map_err(|e| Error::Device(e.0))?;
        adam_state.step = t;
        self.readback_secs += t1.elapsed().as_secs_f64();
        self.step_secs += t0.elapsed().as_secs_f64();
        Ok(match self.objective.loss {
            Loss::Bce => loss::mean_loss(&rows, b, self.n_ent),
            Loss::Softmax => loss::softmax_mean_loss(&rows, b),
        })
    }

    fn sync(&mut self, params: &mut Params<f32>, adam: &mut Adam<f32>) -> Result<()> {
        let gpu = &*self.gpu;
        if let Some(s) = &mut self.sampling {
            let e = [&self.p[0], &self.m[0], &self.v[0]];
            s.catch_up_all(gpu, e, self.d, adam.step);
        }
        let read = |t: &Tensor, out: &mut Vec<f32>| -> Result<()> {
            *out = gpu.read(t, out.len()).map_err(|e| Error::Device(e.0))?;
            Ok(())
        };
        for (i, host) in params.trainable_mut().into_iter().enumerate() {
            read(&self.p[i], host)?;
        }
        for i in 0..N_TRAINABLE {
            read(&self.m[i], &mut adam.m[i])?;
            read(&self.v[i], &mut adam.v[i])?;
        }
        read(&self.running[0], &mut params.bn0.running_mean)?;
        read(&self.running[1], &mut params.bn0.running_var)?;
        read(&self.running[2], &mut params.bn1.running_mean)?;
        read(&self.running[3], &mut params.bn1.running_var)?;
        Ok(())
    }

    fn phase_seconds(&self) -> Vec<(String, f64)> {
        let mut v = vec![
            ("gpu step".into(), self.step_secs - self.readback_secs),
            ("gpu wait and readback".into(), self.readback_secs),
        ];
        v.extend(
            self.gpu
                .kernel_seconds()
                .into_iter()
                .map(|(entry, s)| (format!("kernel {entry}"), s)),
        );
        v
    }
}
