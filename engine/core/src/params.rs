//! Model parameters and their deterministic initialisation.

use crate::config::{Activation, Config, InitScheme};
use crate::real::Real;
use crate::rng::{CounterRng, Stream};
use crate::rows::Rows;

/// BatchNorm1d over `dim` features (eps 1e-5, momentum 0.1, as PyTorch).
#[derive(Clone, Debug, PartialEq)]
pub struct BatchNorm<T> {
    pub gamma: Vec<T>,
    pub beta: Vec<T>,
    pub running_mean: Vec<T>,
    pub running_var: Vec<T>,
}

pub const BN_EPS: f64 = 1e-5;
pub const BN_MOMENTUM: f64 = 0.1;

impl<T: Real> BatchNorm<T> {
    pub fn new(dim: usize) -> Self {
        BatchNorm {
            gamma: vec![T::ONE; dim],
            beta: vec![T::ZERO; dim],
            running_mean: vec![T::ZERO; dim],
            running_var: vec![T::ONE; dim],
        }
    }
}

/// All tensors of a NePTuNe model, row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Params<T> {
    /// Entities.
    pub n_ent: usize,
    /// Relations the model embeds (base relations, plus reverses in `NewRelation` mode).
    pub n_rel: usize,
    pub d_e: usize,
    pub d_r: usize,
    /// Entity embeddings, `n_ent x d_e` (a served model's are read from its file's mapping).
    pub e: Rows<T>,
    /// Relation embeddings, `n_rel x d_r`.
    pub r: Vec<T>,
    /// Core tensor, `d_r x d_e x d_e`; viewed as `d_r x (d_e * d_e)` for `R[r] · W`.
    pub w: Vec<T>,
    /// Normalises the head embeddings (d_e features).
    pub bn0: BatchNorm<T>,
    /// Normalises `x · A` (d_e features).
    pub bn1: BatchNorm<T>,
    /// Negative slope of the activation, length 1: learnable for PReLU (init 0.25), fixed 0.01
    /// for LeakyReLU, 0 for ReLU.
    pub slope: Vec<T>,
}

/// Number of trainable tensors, in the order of [`Params::trainable_mut`].
pub const N_TRAINABLE: usize = 8;
/// Names of the trainable tensors (checkpoint keys).
pub const TRAINABLE_NAMES: [&str; N_TRAINABLE] = [
    "E",
    "R",
    "W",
    "bn0.weight",
    "bn0.bias",
    "bn1.weight",
    "bn1.bias",
    "prelu.weight",
];

impl<T: Real> Params<T> {
    /// Allocates and initialises; each tensor draws from its own counter stream, so the result
    /// depends only on `(seed, shapes, scheme)`.
    pub fn init(cfg: &Config, n_ent: usize, n_rel: usize) -> Self {
        let (d_e, d_r) = (cfg.d_e, cfg.d_r);
        let rng = |k: u64| CounterRng::new(cfg.seed, k, Stream::Init);
        let emb = |rows: usize, cols: usize, rng: &mut CounterRng| -> Vec<T> {
            match cfg.init {
                // PyTorch's fan_in of a (rows, cols) weight is cols; gain for a=0 is sqrt(2),
                // so the bound is sqrt(6 / fan_in).
                InitScheme::KaimingUniform => {
                    let b = (6.0 / cols as f64).sqrt();
                    (0..rows * cols)
                        .map(|_| T::from_f64((2.0 * rng.uniform() - 1.0) * b))
                        .collect()
                }
                InitScheme::XavierNormal => {
                    let std = (2.0 / (rows + cols) as f64).sqrt();
                    (0..rows * cols)
                        .map(|_| T::from_f64(rng.normal() * std))
                        .collect()
                }
            }
        };
        let e = emb(n_ent, d_e, &mut rng(1));
        let r = emb(n_rel, d_r, &mut rng(2));
        let wb = cfg.init.w_bound();
        let mut wr = rng(3);
        let w = (0..d_r * d_e * d_e)
            .map(|_| T::from_f64((2.0 * wr.uniform() - 1.0) * wb))
            .collect();
        let slope = match cfg.activation {
            Activation::Prelu => 0.25,
            Activation::LeakyRelu => 0.01,
            Activation::Relu => 0.0,
        };
        Params {
            n_ent,
            n_rel,
            d_e,
            d_r,
            e: e.into(),
            r,
            w,
            bn0: BatchNorm::new(d_e),
            bn1: BatchNorm::new(d_e),
            slope: vec![T::from_f64(slope)],
        }
    }

    /// Trainable tensors in a fixed order (see [`TRAINABLE_NAMES`]).
    pub fn trainable_mut(&mut self) -> [&mut Vec<T>; N_TRAINABLE] {
        [
            self.e.make_owned(),
            &mut self.r,
            &mut self.w,
            &mut self.bn0.gamma,
            &mut self.bn0.beta,
            &mut self.bn1.gamma,
            &mut self.bn1.beta,
            &mut self.slope,
        ]
    }

    pub fn trainable(&self) -> [&[T]; N_TRAINABLE] {
        [
            &self.e,
            &self.r,
            &self.w,
            &self.bn0.gamma,
            &self.bn0.beta,
            &self.bn1.gamma,
            &self.bn1.beta,
            &self.slope,
        ]
    }

    /// Expected lengths of the trainable tensors.
    pub fn trainable_lens(&self) -> [usize; N_TRAINABLE] {
        let (e, r) = (self.d_e, self.d_r);
        [self.n_ent * e, self.n_rel * r, r * e * e, e, e, e, e, 1]
    }

    /// Converts between precisions (tests build f64 copies of f32 models).
    pub fn cast<U: Real>(&self) -> Params<U> {
        let c = |v: &[T]| {
            v.iter()
                .map(|x| U::from_f64(x.to_f64()))
                .collect::<Vec<U>>()
        };
        let bn = |b: &BatchNorm<T>| BatchNorm {
            gamma: c(&b.gamma),
            beta: c(&b.beta),
            running_mean: c(&b.running_mean),
            running_var: c(&b.running_var),
        };
        Params {
            n_ent: self.n_ent,
            n_rel: self.n_rel,
            d_e: self.d_e,
            d_r: self.d_r,
            e: c(&self.e).into(),
            r: c(&self.r),
            w: c(&self.w),
            bn0: bn(&self.bn0),
            bn1: bn(&self.bn1),
            slope: c(&self.slope),
        }
    }
}

/// Gradients of the trainable tensors, same order and shapes as [`Params::trainable`].
#[derive(Clone, Debug)]
pub struct Grads<T> {
    pub t: [Vec<T>; N_TRAINABLE],
}

impl<T: Real> Grads<T> {
    pub fn zeros_like(p: &Params<T>) -> Self {
        Grads {
            t: p.trainable_lens().map(|n| vec![T::ZERO; n]),
        }
    }
}
