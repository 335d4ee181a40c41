//! Adam (PyTorch semantics: beta 0.9 / 0.999, eps 1e-8 added after the bias-corrected square
//! root, no weight decay), fused into one parallel pass per tensor.

use crate::checkpoint::{OptimizerState, OptimizerStateRef};
use crate::kernels::multiversion;
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

impl<T: Real> Adam<T> {
    pub fn new(p: &Params<T>) -> Self {
        let lens = p.trainable_lens();
        Adam {
            m: lens.map(|n| vec![T::ZERO; n]),
            v: lens.map(|n| vec![T::ZERO; n]),
            step: 0,
        }
    }

    /// One update with learning rate `lr`. `frozen[i]` skips tensor i (e.g. a fixed slope).
    pub fn step(&mut self, p: &mut Params<T>, g: &Grads<T>, lr: f64, frozen: &[bool; N_TRAINABLE]) {
        self.step += 1;
        let t = self.step as i32;
        let bc1 = 1.0 - BETA1.powi(t);
        let bc2 = 1.0 - BETA2.powi(t);
        // p -= (lr / bc1) * m / (sqrt(v) / sqrt(bc2) + eps), exactly PyTorch's formula.
        let step_size = T::from_f64(lr / bc1);
        let inv_sqrt_bc2 = T::from_f64(1.0 / bc2.sqrt());
        let (b1, b2, eps) = (T::from_f64(BETA1), T::from_f64(BETA2), T::from_f64(EPS));
        let (c1, c2) = (T::ONE - b1, T::ONE - b2);
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
                .for_each(|(((pc, mc), vc), gc)| {
                    adam_chunk(
                        pc,
                        mc,
                        vc,
                        gc,
                        [b1, b2, c1, c2, step_size, inv_sqrt_bc2, eps],
                    )
                });
        }
    }
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
