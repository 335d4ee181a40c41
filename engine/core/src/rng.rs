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
    /// A sampled step's shared sample of candidate entities.
    Candidates = 7,
    /// The validation triples a sampled run ranks ([`crate::train`]).
    Validation = 8,
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

/// Columns per mask block. Each 32-bit hash gives two 16-bit draws: hash `k` of block `b`
/// decides column `64 b + k` with its low half and column `64 b + 32 + k` with its high half, so a
/// block of 64 columns takes 32 hashes (vectorised as whole registers).
pub const MASK_BLOCK: usize = 64;
const HALF_BLOCK: usize = MASK_BLOCK / 2;
/// What [`Mask`] multiplies a hash's index by before adding the row key (vector versions of the
/// hash must use the same).
pub const HASH_INDEX_MULTIPLIER: u32 = 0x9E37_79B9;
/// Draws are 16-bit: the drop probability is quantised to 2^-16.
const DRAW_RANGE: f64 = 65536.0;

/// A Bernoulli keep-mask over a conceptual `rows x cols` matrix. `keep(row_key(r), c)` is true
/// with probability `1 - p`; the drop probability is quantised to 2^-16.
#[derive(Clone, Copy, Debug)]
pub struct Mask {
    key: u64,
    threshold: u32,
    /// Is the mask all-keep (p == 0)? Lets callers skip mask generation entirely.
    pub identity: bool,
}

impl Mask {
    pub fn new(seed: u64, step: u64, stream: Stream, p: f64) -> Self {
        let threshold = (p.clamp(0.0, 1.0) * DRAW_RANGE).round() as u32;
        Mask {
            key: stream_key(seed, step, stream),
            threshold,
            identity: threshold == 0,
        }
    }
    /// The drop threshold (0 to 2^16): a column is kept when its 16-bit draw is at least this
    /// (a GPU kernel regenerates the mask from it and the row keys).
    pub fn threshold(&self) -> u32 {
        self.threshold
    }
    /// Per-row sub-key; compute once per row, then call [`Mask::keep`] per column.
    #[inline(always)]
    pub fn row_key(&self, row: u64) -> u32 {
        splitmix64(self.key ^ row.wrapping_mul(0xD1B5_4A32_D192_ED03)) as u32
    }
    /// Hash `index` of a row: the draws of two columns (see [`MASK_BLOCK`]).
    #[inline(always)]
    fn hash(row_key: u32, index: u32) -> u32 {
        lowbias32(row_key.wrapping_add(index.wrapping_mul(HASH_INDEX_MULTIPLIER)))
    }
    #[inline(always)]
    pub fn keep(&self, row_key: u32, col: u32) -> bool {
        let (low, high) = self.keep_pair(row_key, col / 64, col % 32);
        if col % 64 < 32 {
            low
        } else {
            high
        }
    }
    /// `(keep(row_key, 64 * block + k), keep(row_key, 64 * block + 32 + k))` for `k < 32`: the
    /// two decisions one hash gives.
    #[inline(always)]
    pub fn keep_pair(&self, row_key: u32, block: u32, k: u32) -> (bool, bool) {
        let h = Self::hash(row_key, block.wrapping_mul(HALF_BLOCK as u32) + k);
        (h & 0xFFFF >= self.threshold, h >> 16 >= self.threshold)
    }
    /// `out[k] = keep(row_key, 64 * block + k) ? on : 0` for the whole block (a row's shorter
    /// last block uses the first columns).
    #[inline(always)]
    pub fn factor_block<T: crate::real::Real>(
        &self,
        row_key: u32,
        block: u32,
        on: T,
        out: &mut [T; MASK_BLOCK],
    ) {
        for k in 0..HALF_BLOCK {
            let (lo, hi) = self.keep_pair(row_key, block, k as u32);
            out[k] = if lo { on } else { T::ZERO };
            out[k + HALF_BLOCK] = if hi { on } else { T::ZERO };
        }
    }
    /// `out[k] = keep(row_key, 64 * block + k) ? src[k] : 0` for `k < src.len()` (at most 64):
    /// the masked values of one block of a row, two columns per hash.
    #[inline(always)]
    pub fn select_block<T: crate::real::Real>(
        &self,
        row_key: u32,
        block: u32,
        src: &[T],
        out: &mut [T; MASK_BLOCK],
    ) {
        if let Ok(src) = <&[T; MASK_BLOCK]>::try_from(src) {
            for k in 0..HALF_BLOCK {
                let (lo, hi) = self.keep_pair(row_key, block, k as u32);
                out[k] = if lo { src[k] } else { T::ZERO };
                out[k + HALF_BLOCK] = if hi { src[k + HALF_BLOCK] } else { T::ZERO };
            }
            return;
        }
        // A row's last, shorter block.
        let n = src.len().min(MASK_BLOCK);
        for k in 0..n.min(HALF_BLOCK) {
            let (lo, hi) = self.keep_pair(row_key, block, k as u32);
            out[k] = if lo { src[k] } else { T::ZERO };
            if k + HALF_BLOCK < n {
                out[k + HALF_BLOCK] = if hi { src[k + HALF_BLOCK] } else { T::ZERO };
            }
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
    fn factor_block_agrees_with_keep() {
        let m = Mask::new(5, 1, Stream::InEntity, 0.2);
        for row in 0..50u64 {
            let rk = m.row_key(row);
            for block in 0..4u32 {
                let mut f = [f64::NAN; MASK_BLOCK];
                m.factor_block(rk, block, 1.25, &mut f);
                for (k, &v) in f.iter().enumerate() {
                    let want = if m.keep(rk, block * 64 + k as u32) {
                        1.25
                    } else {
                        0.0
                    };
                    assert_eq!(v, want, "row {row} block {block} col {k}");
                }
            }
        }
    }

    #[test]
    fn select_block_keeps_exactly_the_columns_keep_keeps() {
        let m = Mask::new(3, 9, Stream::Hidden1, 0.4);
        let src: Vec<f32> = (0..200).map(|i| i as f32 + 1.0).collect();
        for row in 0..20u64 {
            let rk = m.row_key(row);
            // Full blocks and every length of a last block.
            for len in [64usize, 1, 8, 31, 32, 33, 52, 63] {
                for block in 0..3u32 {
                    let s = &src[block as usize * 64..][..len];
                    let mut out = [f32::NAN; MASK_BLOCK];
                    m.select_block(rk, block, s, &mut out);
                    for k in 0..len {
                        let want = if m.keep(rk, block * 64 + k as u32) {
                            s[k]
                        } else {
                            0.0
                        };
                        assert_eq!(out[k], want, "row {row} block {block} len {len} col {k}");
                    }
                }
            }
        }
    }

    #[test]
    fn both_halves_of_a_hash_drop_at_rate_p_and_independently() {
        let m = Mask::new(11, 2, Stream::Hidden1, 0.3);
        let (mut low, mut high, mut both) = (0usize, 0usize, 0usize);
        let rows = 2000u64;
        for r in 0..rows {
            let rk = m.row_key(r);
            for k in 0..32u32 {
                let (a, b) = (!m.keep(rk, k), !m.keep(rk, k + 32));
                low += a as usize;
                high += b as usize;
                both += (a && b) as usize;
            }
        }
        let n = (rows * 32) as f64;
        let (pl, ph, pb) = (low as f64 / n, high as f64 / n, both as f64 / n);
        assert!(
            (pl - 0.3).abs() < 0.01 && (ph - 0.3).abs() < 0.01,
            "{pl} {ph}"
        );
        // Independent halves: P(both dropped) = p^2.
        assert!((pb - 0.09).abs() < 0.006, "{pb}");
    }

    #[test]
    fn drop_probability_is_quantised_to_16_bits() {
        assert_eq!(Mask::new(1, 0, Stream::InHead, 0.3).threshold(), 19661);
        assert!(Mask::new(1, 0, Stream::InHead, 0.0).identity);
        let all = Mask::new(1, 0, Stream::InHead, 1.0);
        assert!((0..64).all(|c| !all.keep(all.row_key(0), c)));
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
