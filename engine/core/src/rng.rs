//! Counter-based random numbers. Every random draw is a pure function of
//! `(seed, step, stream, row, col)`, so dropout masks are regenerated in the backward pass instead
//! of being stored, and results do not depend on how rayon schedules work across threads.

/// Independent random streams; the discriminant is mixed into the key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum Stream {
    /// Input dropout on the head embeddings (B x d_e).
    InHead = 1,
    /// Hidden dropout 1 on the per-example core matrices (B x d_e x d_e).
    Hidden1 = 2,
    /// Hidden dropout 2 after BN1 (B x d_e).
    Hidden2 = 3,
    /// Input dropout on the whole entity matrix used for scoring (N x d_e).
    InEntity = 4,
    /// Per-epoch shuffling of the training pairs.
    Shuffle = 5,
    /// Parameter initialisation.
    Init = 6,
}

/// SplitMix64 finaliser: a good 64-bit mixing bijection.
#[inline(always)]
pub fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `lowbias32` (Chris Wellons): a cheap 32-bit mixing bijection that vectorises well.
#[inline(always)]
pub fn lowbias32(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^ (x >> 16)
}

/// The key for one stream at one optimisation step.
#[inline]
pub fn stream_key(seed: u64, step: u64, stream: Stream) -> u64 {
    splitmix64(seed ^ splitmix64(step ^ splitmix64(stream as u64)))
}

/// A Bernoulli keep-mask over a conceptual `rows x cols` matrix. `keep(row_key(r), c)` is true
/// with probability `1 - p`; the drop probability is quantised to 2^-32.
#[derive(Clone, Copy, Debug)]
pub struct Mask {
    key: u64,
    threshold: u32,
    /// Is the mask all-keep (p == 0)? Lets callers skip mask generation entirely.
    pub identity: bool,
}

impl Mask {
    pub fn new(seed: u64, step: u64, stream: Stream, p: f64) -> Self {
        let threshold = (p.clamp(0.0, 1.0) * 4294967296.0)
            .round()
            .min(u32::MAX as f64) as u32;
        Mask {
            key: stream_key(seed, step, stream),
            threshold,
            identity: threshold == 0,
        }
    }
    /// The drop threshold: `keep` is `lowbias32(row_key + col * 0x9E3779B9) >= threshold`
    /// (a GPU kernel regenerates the mask from it and the row keys).
    pub fn threshold(&self) -> u32 {
        self.threshold
    }
    /// Per-row sub-key; compute once per row, then call [`Mask::keep`] per column.
    #[inline(always)]
    pub fn row_key(&self, row: u64) -> u32 {
        splitmix64(self.key ^ row.wrapping_mul(0xD1B5_4A32_D192_ED03)) as u32
    }
    #[inline(always)]
    pub fn keep(&self, row_key: u32, col: u32) -> bool {
        lowbias32(row_key.wrapping_add(col.wrapping_mul(0x9E37_79B9))) >= self.threshold
    }
    /// Fills `out[c] = keep(row, c) ? scale : 0` — the multiplicative mask row.
    #[inline]
    pub fn fill_row<T: crate::real::Real>(&self, row: u64, scale: T, out: &mut [T]) {
        if self.identity {
            out.iter_mut().for_each(|o| *o = scale);
            return;
        }
        let rk = self.row_key(row);
        for (c, o) in out.iter_mut().enumerate() {
            *o = if self.keep(rk, c as u32) {
                scale
            } else {
                T::ZERO
            };
        }
    }
}

/// A sequential generator built on the same counter scheme (for init and shuffling).
#[derive(Clone, Debug)]
pub struct CounterRng {
    key: u64,
    counter: u64,
}

impl CounterRng {
    pub fn new(seed: u64, step: u64, stream: Stream) -> Self {
        CounterRng {
            key: stream_key(seed, step, stream),
            counter: 0,
        }
    }
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.counter += 1;
        splitmix64(self.key ^ splitmix64(self.counter))
    }
    /// Uniform in [0, 1) with 53 random bits.
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / 9007199254740992.0)
    }
    /// Standard normal (Box-Muller; one draw per call, simplicity over speed).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform(); // (0, 1]
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }
    /// Uniform integer in [0, n) (Lemire's multiply-shift; bias < 2^-32 for our sizes).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }
    /// Fisher-Yates shuffle.
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_rate_close_to_p() {
        let m = Mask::new(7, 3, Stream::Hidden1, 0.3);
        let mut kept = 0usize;
        for r in 0..200u64 {
            let rk = m.row_key(r);
            for c in 0..500u32 {
                kept += m.keep(rk, c) as usize;
            }
        }
        let rate = kept as f64 / 100_000.0;
        assert!((rate - 0.7).abs() < 0.01, "keep rate {rate}");
    }

    #[test]
    fn masks_differ_by_step_and_stream() {
        let a = Mask::new(1, 0, Stream::InHead, 0.5);
        let b = Mask::new(1, 1, Stream::InHead, 0.5);
        let c = Mask::new(1, 0, Stream::Hidden2, 0.5);
        let bits = |m: &Mask| {
            (0..64u32)
                .map(|i| m.keep(m.row_key(0), i) as u64)
                .fold(0, |a, x| a * 2 + x)
        };
        assert_ne!(bits(&a), bits(&b));
        assert_ne!(bits(&a), bits(&c));
    }
}
