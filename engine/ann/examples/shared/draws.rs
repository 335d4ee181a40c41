//! Seeded draws shared by the examples (included with `#[path]`): every example and run asks
//! the same queries.

/// A xorshift64 stream from a fixed seed.
pub struct Draws(u64);

impl Draws {
    pub fn new() -> Self {
        Draws(0x9e37_79b9_7f4a_7c15)
    }

    /// A number below `m`.
    pub fn below(&mut self, m: usize) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % m as u64) as u32
    }

    /// `count` (entity, relation) pairs over `entities` and `relations` (base and reverse ids).
    pub fn queries(&mut self, count: usize, entities: usize, relations: usize) -> Vec<(u32, u32)> {
        (0..count)
            .map(|_| (self.below(entities), self.below(relations)))
            .collect()
    }
}
