//! Typed evaluation: the candidates each (relation, direction) may rank, as bits.

use crate::dataset::Direction;
use crate::error::{Error, Result};

/// What a typed evaluation does with a true answer outside its query's candidates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutsideAnswer {
    /// Ranked anyway, among the allowed candidates (the reported typed metrics).
    Ranked,
    /// A miss: ranked last (rank = number of entities); how a range's recall is judged.
    Missed,
}

/// Bit `e` of row `2r + d` (d = 0 tail, 1 head, r a base relation) is set when entity `e` is a
/// candidate for queries of relation r in direction d. Rows are `words()` u32 words long
/// (entity `e` is bit `e % 32` of word `e / 32`).
#[derive(Clone, Debug)]
pub struct CandidateMask {
    n_ent: usize,
    n_rel: usize,
    bits: Vec<u32>,
    pub outside: OutsideAnswer,
}

impl CandidateMask {
    pub fn new(n_ent: usize, n_rel: usize, bits: Vec<u32>, outside: OutsideAnswer) -> Result<Self> {
        let want = 2 * n_rel * n_ent.div_ceil(32);
        if bits.len() != want {
            return Err(Error::arg(
                "mask",
                format!(
                    "holds {} words; {} entities and {} relations need 2 x {} x {} = {want}",
                    bits.len(),
                    n_ent,
                    n_rel,
                    n_rel,
                    n_ent.div_ceil(32)
                ),
            ));
        }
        Ok(Self {
            n_ent,
            n_rel,
            bits,
            outside,
        })
    }

    pub fn n_ent(&self) -> usize {
        self.n_ent
    }

    pub fn n_rel(&self) -> usize {
        self.n_rel
    }

    pub fn words(&self) -> usize {
        self.n_ent.div_ceil(32)
    }

    /// The allowed-candidate bits of base relation `r` in direction `dir`.
    pub fn row(&self, r: u32, dir: Direction) -> &[u32] {
        let w = self.words();
        let at = (2 * r as usize + (dir == Direction::Head) as usize) * w;
        &self.bits[at..at + w]
    }

    pub fn allows(&self, r: u32, dir: Direction, e: u32) -> bool {
        self.row(r, dir)[e as usize / 32] >> (e % 32) & 1 == 1
    }

    /// Sets the bits of the entities (below `n_ent`) that `row` does not allow.
    pub(crate) fn exclude_outside(&self, r: u32, dir: Direction, excluded: &mut [u32]) {
        let row = self.row(r, dir);
        for (w, (x, &allowed)) in excluded.iter_mut().zip(row).enumerate() {
            let valid = if (w + 1) * 32 <= self.n_ent {
                u32::MAX
            } else {
                (1u32 << (self.n_ent - w * 32)) - 1
            };
            *x |= !allowed & valid;
        }
    }
}

/// Filtered rank of `t` among the entities whose bit in `excluded` is clear (`t` itself always
/// counts): the same tie rule as [`crate::eval::filtered_rank`].
pub(crate) fn rank_excluding(scores: &[f32], t: u32, excluded: &[u32]) -> f64 {
    let s = scores[t as usize];
    if s.is_nan() {
        return scores.len() as f64;
    }
    let (mut gt, mut eq) = (0usize, 0usize);
    for (e, &v) in scores.iter().enumerate() {
        if e == t as usize || excluded[e / 32] >> (e % 32) & 1 == 1 {
            continue;
        }
        gt += (v > s) as usize;
        eq += (v == s) as usize;
    }
    1.0 + gt as f64 + eq as f64 / 2.0
}
