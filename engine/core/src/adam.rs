//! Adam (PyTorch semantics: beta 0.9 / 0.999, eps 1e-8 added after the bias-corrected square
//! root, no weight decay), fused into one parallel pass per tensor.

use crate::checkpoint::{OptimizerState, OptimizerStateRef};
use crate::kernels::{multiversion, SyncPtr};
use crate::params::{Grads, Params, N_TRAINABLE};
use crate::real::Real;
use rayon::prelude::*;

pub const BETA1: f64 = 0.9;
pub const BETA2: f64 = 0.999;
pub const EPS: f64 = 1e-8;

/// First and second moments for every trainable tensor, and the step count.
#[derive(Clone, Debug, PartialEq)]
pub struct Adam<T> {
    pub m: [Vec<T>; N_TRAINABLE],
    pub v: [Vec<T>; N_TRAINABLE],
    /// Steps taken so far (PyTorch's `state['step']`).
    pub step: u64,
}

const CHUNK: usize = 1 << 14;

/// `n` zeros written now, in parallel, rather than `vec![0; n]`'s lazily zeroed pages: a sampled
/// run updates rows of the moments in random order, and page faults scattered over its first
/// batches slowed them several-fold (and the time budget's probe times those batches;
/// bench/scale/RESULTS.md, session 36). Written in order, the pages cost a fraction of that.
fn written_zeros<T: Real>(n: usize) -> Vec<T> {
    let mut v = Vec::with_capacity(n);
    v.spare_capacity_mut()
        .par_chunks_mut(CHUNK)
        .for_each(|chunk| chunk.iter_mut().for_each(|x| _ = x.write(T::ZERO)));
    // SAFETY: every one of the `n` elements of the spare capacity was written above.
    unsafe { v.set_len(n) };
    v
}

impl<T: Real> Adam<T> {
    pub fn new(p: &Params<T>) -> Self {
        let lens = p.trainable_lens();
        Adam {
            m: lens.map(written_zeros),
            v: lens.map(written_zeros),
            step: 0,
        }
    }

    /// One update with learning rate `lr`. `frozen[i]` skips tensor i (e.g. a fixed slope).
    pub fn step(&mut self, p: &mut Params<T>, g: &Grads<T>, lr: f64, frozen: &[bool; N_TRAINABLE]) {
        self.step += 1;
        let k = self.constants(lr);
        for (i, param) in p.trainable_mut().into_iter().enumerate() {
            if frozen[i] {
                continue;
            }
            let (m, v, gr) = (&mut self.m[i], &mut self.v[i], &g.t[i]);
            param
                .par_chunks_mut(CHUNK)
                .zip(m.par_chunks_mut(CHUNK))
                .zip(v.par_chunks_mut(CHUNK))
                .zip(gr.par_chunks(CHUNK))
                .for_each(|(((pc, mc), vc), gc)| adam_chunk(pc, mc, vc, gc, k));
        }
    }

    /// Lazy Adam on some rows of tensor `tensor` (PyTorch's `SparseAdam`): only the rows `rows`
    /// (distinct) of `param` (`cols` wide) and of their moments move, by the gradient rows `g`
    /// (`rows.len() x cols`), at the bias correction of the current step. Call after
    /// [`Adam::step`] of the same step, which must have skipped that tensor (`frozen`). Touching
    /// every row equals the dense update.
    pub fn update_rows(
        &mut self,
        tensor: usize,
        param: &mut [T],
        cols: usize,
        rows: &[u32],
        g: &[T],
        lr: f64,
    ) {
        let k = self.constants(lr);
        let (m, v) = (&mut self.m[tensor], &mut self.v[tensor]);
        assert!(param.len() == m.len() && m.len() == v.len() && g.len() >= rows.len() * cols);
        let len = param.len();
        let ptrs = [param.as_mut_ptr(), m.as_mut_ptr(), v.as_mut_ptr()].map(SyncPtr);
        let rows_per_task = (CHUNK / cols.max(1)).max(1);
        rows.par_chunks(rows_per_task)
            .zip(g.par_chunks(rows_per_task * cols))
            .for_each(|(ids, gc)| {
                let [pp, mp, vp] = &ptrs;
                for (&r, gr) in ids.iter().zip(gc.chunks_exact(cols)) {
                    let at = r as usize * cols;
                    assert!(at + cols <= len);
                    // SAFETY: rows are distinct and in bounds (checked), so no two tasks touch
                    // the same elements, and the slices live as long as this call.
                    let (pr, mr, vr) = unsafe {
                        (
                            std::slice::from_raw_parts_mut(pp.0.add(at), cols),
                            std::slice::from_raw_parts_mut(mp.0.add(at), cols),
                            std::slice::from_raw_parts_mut(vp.0.add(at), cols),
                        )
                    };
                    adam_chunk(pr, mr, vr, gr, k);
                }
            });
    }

    /// Brings rows of tensor `tensor` up to date as if dense Adam had also run `skipped[i]`
    /// steps with a zero gradient on row `rows[i]` before the current one (lazy Adam otherwise
    /// loses the momentum an untouched row keeps moving by, and learns much more slowly): the
    /// moments decay by `beta^s`, and the parameter moves by the sum of those steps in closed
    /// form, `lr / bc1 * m / (sqrt(v) / sqrt(bc2) + eps) * sum_{i=1..s} (beta1 / sqrt(beta2))^i`,
    /// the bias corrections those of the current step and `eps` outside the sum (exact as the
    /// bias corrections tend to 1 and while `eps` is small against `sqrt(v)`). Rows with 0
    /// skipped steps are left alone. Call before the step that reads the rows (the bias
    /// corrections are then those of the last skipped step).
    pub fn catch_up_rows(
        &mut self,
        tensor: usize,
        param: &mut [T],
        cols: usize,
        rows: &[u32],
        skipped: &[u64],
        lr: f64,
    ) {
        if self.step == 0 {
            return; // nothing was skipped before the first step
        }
        let [_, _, _, _, step_size, inv_sqrt_bc2, eps] = self.constants(lr);
        let (m, v) = (&mut self.m[tensor], &mut self.v[tensor]);
        assert!(param.len() == m.len() && m.len() == v.len() && skipped.len() == rows.len());
        let len = param.len();
        let ptrs = [param.as_mut_ptr(), m.as_mut_ptr(), v.as_mut_ptr()].map(SyncPtr);
        let rows_per_task = (CHUNK / cols.max(1)).max(1);
        rows.par_chunks(rows_per_task)
            .zip(skipped.par_chunks(rows_per_task))
            .for_each(|(ids, skips)| {
                let [pp, mp, vp] = &ptrs;
                for (&r, &s) in ids.iter().zip(skips) {
                    if s == 0 {
                        continue;
                    }
                    let at = r as usize * cols;
                    assert!(at + cols <= len);
                    let [sum, b1s, b2s] = catch_up_factors(s);
                    let k = [
                        step_size * T::from_f64(sum),
                        inv_sqrt_bc2,
                        eps,
                        T::from_f64(b1s),
                        T::from_f64(b2s),
                    ];
                    // SAFETY: as in `update_rows`: distinct rows in bounds.
                    let (pr, mr, vr) = unsafe {
                        (
                            std::slice::from_raw_parts_mut(pp.0.add(at), cols),
                            std::slice::from_raw_parts_mut(mp.0.add(at), cols),
                            std::slice::from_raw_parts_mut(vp.0.add(at), cols),
                        )
                    };
                    catch_up_chunk(pr, mr, vr, k);
                }
            });
    }

    /// `[beta1, beta2, 1 - beta1, 1 - beta2, lr / bc1, 1 / sqrt(bc2), eps]` at the current step:
    /// `p -= (lr / bc1) * m / (sqrt(v) / sqrt(bc2) + eps)`, exactly PyTorch's formula.
    fn constants(&self, lr: f64) -> [T; 7] {
        let t = self.step as i32;
        let bc1 = 1.0 - BETA1.powi(t);
        let bc2 = 1.0 - BETA2.powi(t);
        let (b1, b2) = (T::from_f64(BETA1), T::from_f64(BETA2));
        [
            b1,
            b2,
            T::ONE - b1,
            T::ONE - b2,
            T::from_f64(lr / bc1),
            T::from_f64(1.0 / bc2.sqrt()),
            T::from_f64(EPS),
        ]
    }
}

/// For a row that sat out `skipped` steps ([`Adam::catch_up_rows`]): the sum of its momentum's
/// remaining steps, `sum_{i=1..s} (beta1 / sqrt(beta2))^i`, and its moments' decay, `beta1^s`
/// and `beta2^s`.
pub fn catch_up_factors(skipped: u64) -> [f64; 3] {
    let s = skipped.min(i32::MAX as u64) as i32;
    let ratio = BETA1 / BETA2.sqrt();
    let sum = ratio * (1.0 - ratio.powi(s)) / (1.0 - ratio);
    [sum, BETA1.powi(s), BETA2.powi(s)]
}

multiversion!(fn adam_chunk<T>(p: &mut [T], m: &mut [T], v: &mut [T], g: &[T], k: [T; 7]) => adam_chunk_body);

/// `k = [beta1, beta2, 1 - beta1, 1 - beta2, lr / bc1, 1 / sqrt(bc2), eps]`.
#[inline(always)]
fn adam_chunk_body<T: Real>(p: &mut [T], m: &mut [T], v: &mut [T], g: &[T], k: [T; 7]) {
    let [b1, b2, c1, c2, step_size, inv_sqrt_bc2, eps] = k;
    let n = p.len().min(m.len()).min(v.len()).min(g.len());
    for j in 0..n {
        let gj = g[j];
        let mj = b1 * m[j] + c1 * gj;
        let vj = b2 * v[j] + c2 * gj * gj;
        m[j] = mj;
        v[j] = vj;
        p[j] -= step_size * mj / (vj.sqrt() * inv_sqrt_bc2 + eps);
    }
}

multiversion!(fn catch_up_chunk<T>(p: &mut [T], m: &mut [T], v: &mut [T], k: [T; 5]) => catch_up_chunk_body);

/// `k = [lr / bc1 * sum, 1 / sqrt(bc2), eps, beta1^s, beta2^s]` (see [`Adam::catch_up_rows`]).
#[inline(always)]
fn catch_up_chunk_body<T: Real>(p: &mut [T], m: &mut [T], v: &mut [T], k: [T; 5]) {
    let [moved, inv_sqrt_bc2, eps, b1s, b2s] = k;
    let n = p.len().min(m.len()).min(v.len());
    for j in 0..n {
        p[j] -= moved * m[j] / (v[j].sqrt() * inv_sqrt_bc2 + eps);
        m[j] *= b1s;
        v[j] *= b2s;
    }
}

impl Adam<f32> {
    /// The moments and step count as a checkpoint saves them.
    pub fn saved(&self) -> OptimizerStateRef<'_> {
        OptimizerStateRef {
            m: &self.m,
            v: &self.v,
            step: self.step,
        }
    }

    /// The optimizer as a checkpoint saved it.
    pub fn from_saved(state: OptimizerState) -> Self {
        Adam {
            m: state.m,
            v: state.v,
            step: state.step,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{written_zeros, CHUNK};

    #[test]
    fn written_zeros_are_n_zeros_across_chunk_boundaries() {
        for n in [0, 1, CHUNK - 1, CHUNK, 3 * CHUNK + 5] {
            let v: Vec<f32> = written_zeros(n);
            assert_eq!(v.len(), n);
            assert!(v.iter().all(|&x| x.to_bits() == 0), "n = {n}");
        }
    }
}
