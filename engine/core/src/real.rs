//! The scalar type the numeric kernels are generic over: `f32` for training and serving, `f64`
//! for the finite-difference gradient tests.

use std::fmt::Debug;
use std::ops::{Add, AddAssign, Div, Mul, MulAssign, Neg, Sub, SubAssign};

/// A real scalar usable by the kernels and by `gemm` (which dispatches on the concrete type).
pub trait Real:
    Copy
    + Send
    + Sync
    + Debug
    + Default
    + PartialOrd
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
{
    const ZERO: Self;
    const ONE: Self;
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
    fn exp(self) -> Self;
    fn ln_1p(self) -> Self;
    fn sqrt(self) -> Self;
    fn abs(self) -> Self;
    fn max(self, other: Self) -> Self;
    /// `(softplus(x), sigmoid(x))` from one exponential, branch-free so loops over it
    /// vectorise. f64 uses the standard library; f32 uses Cephes-style polynomials (relative
    /// error about 1e-7, see `fast_f32`).
    fn softplus_sigmoid(self) -> (Self, Self);
    /// `exp(x)` for `x <= 0`, branch-free so loops over it vectorise: f64 the standard
    /// library's, f32 `fast_f32::exp_neg` (inputs below -87 give `exp(-87)`).
    fn exp_nonpositive(self) -> Self;
}

macro_rules! impl_real {
    ($t:ident) => {
        impl Real for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            #[inline(always)]
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn exp(self) -> Self {
                <$t>::exp(self)
            }
            #[inline(always)]
            fn ln_1p(self) -> Self {
                <$t>::ln_1p(self)
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline(always)]
            fn max(self, other: Self) -> Self {
                <$t>::max(self, other)
            }
            #[inline(always)]
            fn softplus_sigmoid(self) -> (Self, Self) {
                softplus_sigmoid_impl!($t, self)
            }
            #[inline(always)]
            fn exp_nonpositive(self) -> Self {
                exp_nonpositive_impl!($t, self)
            }
        }
    };
}

macro_rules! softplus_sigmoid_impl {
    (f64, $x:expr) => {{
        let x: f64 = $x;
        let e = (-x.abs()).exp();
        let num = if x >= 0.0 { 1.0 } else { e };
        (x.max(0.0) + e.ln_1p(), num / (1.0 + e))
    }};
    (f32, $x:expr) => {{
        let x: f32 = $x;
        let e = fast_f32::exp_neg(-x.abs());
        let num = if x >= 0.0 { 1.0 } else { e };
        (x.max(0.0) + fast_f32::ln_1p_unit(e), num / (1.0 + e))
    }};
}
macro_rules! exp_nonpositive_impl {
    (f64, $x:expr) => {
        f64::exp($x)
    };
    (f32, $x:expr) => {
        fast_f32::exp_neg($x)
    };
}
impl_real!(f32);
impl_real!(f64);

/// Vectorisable f32 approximations (Cephes `expf` / `logf` polynomials).
// The coefficients are Cephes' as published (more digits than f32 holds, kept to match the source).
#[allow(clippy::excessive_precision)]
pub mod fast_f32 {
    /// `exp(x)` for `x <= 0`; inputs below -87 return `exp(-87)` (about 1.6e-38).
    #[inline(always)]
    pub fn exp_neg(x: f32) -> f32 {
        let x = x.clamp(-87.0, 0.0);
        let fx = (x * std::f32::consts::LOG2_E + 0.5).floor();
        let r = x - fx * 0.693_359_4 - fx * -2.121_944_4e-4;
        let z = r * r;
        let y = (((((1.987_569_1e-4 * r + 1.398_199_9e-3) * r + 8.333_452e-3) * r
            + 4.166_579_6e-2)
            * r
            + 1.666_666_5e-1)
            * r
            + 5.000_000_1e-1)
            * z
            + r
            + 1.0;
        // 2^fx from its exponent bits. `fx` is a whole number in [-126, 0]: adding 1.5 * 2^23
        // leaves fx + 127 in the low mantissa bits, which the shift moves into the exponent.
        // (A float-to-int `as` cast would saturate, which does not vectorise.)
        let biased = (fx + (127.0 + 12_582_912.0)).to_bits() << 23;
        y * f32::from_bits(biased)
    }

    /// `ln(1 + e)` for `e` in [0, 1].
    #[inline(always)]
    pub fn ln_1p_unit(e: f32) -> f32 {
        // ln(1 + e) = ln(2) + ln(1 + f) with f = (e - 1) / 2 when 1 + e > sqrt(2); f = e
        // otherwise. Both avoid forming 1 + e, which would lose the low bits of small e.
        let big = e > std::f32::consts::SQRT_2 - 1.0;
        let f = if big { 0.5 * (e - 1.0) } else { e };
        let k = if big { 1.0 } else { 0.0 };
        let z = f * f;
        let mut p = 7.037_683_6e-2f32;
        p = p * f - 1.151_461e-1;
        p = p * f + 1.167_699_9e-1;
        p = p * f - 1.242_014_1e-1;
        p = p * f + 1.424_932_3e-1;
        p = p * f - 1.666_805_8e-1;
        p = p * f + 2.000_071_4e-1;
        p = p * f - 2.499_999_4e-1;
        p = p * f + 3.333_333_1e-1;
        f + (p * f * z - 0.5 * z) + k * std::f32::consts::LN_2
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn accurate() {
            let mut x = -90.0f32;
            while x <= 0.0 {
                let (a, b) = (super::exp_neg(x) as f64, (x as f64).exp());
                assert!((a - b).abs() <= 3e-7 * b + 1e-37, "exp({x}) = {a} vs {b}");
                x += 0.01;
            }
            let mut e = 0.0f32;
            while e <= 1.0 {
                let (a, b) = (super::ln_1p_unit(e) as f64, (e as f64).ln_1p());
                assert!((a - b).abs() <= 3e-7 * b + 1e-12, "ln_1p({e}) = {a} vs {b}");
                e += 1e-4;
            }
        }
    }
}

/// Numerically stable `log(1 + exp(x))`.
#[inline(always)]
pub fn softplus<T: Real>(x: T) -> T {
    x.max(T::ZERO) + (-x.abs()).exp().ln_1p()
}

/// Numerically stable logistic sigmoid.
#[inline(always)]
pub fn sigmoid<T: Real>(x: T) -> T {
    if x >= T::ZERO {
        T::ONE / (T::ONE + (-x).exp())
    } else {
        let e = x.exp();
        e / (T::ONE + e)
    }
}
