//! The unique `(head, relation) -> sorted tails` index (CSR layout).

use super::Triple;
use rayon::prelude::*;

/// Unique `(h, r)` pairs in sorted order with the sorted, deduplicated tails of each. Training
/// targets are multi-hot over the tails; evaluation filters with them.
#[derive(Clone, Debug, Default)]
pub struct PairIndex {
    /// `pairs[i] = (h, r)`, sorted ascending.
    pub pairs: Vec<(u32, u32)>,
    /// Tails of pair `i` are `tails[offsets[i]..offsets[i + 1]]`; `offsets.len() == pairs.len() + 1`.
    pub offsets: Vec<usize>,
    pub tails: Vec<u32>,
}

impl PairIndex {
    pub fn build(triples: &[Triple]) -> PairIndex {
        // (h, r, t) packed into one integer in the same order: one comparison per step, and
        // the sort in parallel (an evaluation rebuilds this index over every split).
        let pack = |&[h, r, t]: &Triple| ((h as u128) << 64) | ((r as u128) << 32) | t as u128;
        let mut packed: Vec<u128> = triples.par_iter().map(pack).collect();
        packed.par_sort_unstable();
        packed.dedup();
        let v = packed
            .into_iter()
            .map(|x| ((x >> 64) as u32, (x >> 32) as u32, x as u32));
        let mut idx = PairIndex {
            offsets: vec![0],
            ..Default::default()
        };
        for (h, r, t) in v {
            if idx.pairs.last() != Some(&(h, r)) {
                if !idx.pairs.is_empty() {
                    idx.offsets.push(idx.tails.len());
                }
                idx.pairs.push((h, r));
            }
            idx.tails.push(t);
        }
        if !idx.pairs.is_empty() {
            idx.offsets.push(idx.tails.len());
        }
        idx
    }

    pub fn len(&self) -> usize {
        self.pairs.len()
    }
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }
    /// Tails of pair number `i`.
    pub fn tails_of(&self, i: usize) -> &[u32] {
        &self.tails[self.offsets[i]..self.offsets[i + 1]]
    }
    /// Tails known for `(h, r)`, empty if none.
    pub fn lookup(&self, h: u32, r: u32) -> &[u32] {
        match self.pairs.binary_search(&(h, r)) {
            Ok(i) => self.tails_of(i),
            Err(_) => &[],
        }
    }
}
