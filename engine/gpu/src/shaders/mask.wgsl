// Dropout keep test, identical to neptune_core::rng::Mask::keep (u32 arithmetic wraps).
fn lowbias32(v: u32) -> u32 {
    var x = v;
    x ^= x >> 16u;
    x *= 0x7feb352du;
    x ^= x >> 15u;
    x *= 0x846ca68bu;
    return x ^ (x >> 16u);
}

// Two 16-bit draws per hash: hash k of a block of 64 columns decides column k with its low half
// and column k + 32 with its high half.
fn keep(row_key: u32, col: u32, threshold: u32) -> bool {
    let h = lowbias32(row_key + ((col >> 6u) * 32u + (col & 31u)) * 0x9E3779B9u);
    let draw = select(h & 0xffffu, h >> 16u, (col & 32u) != 0u);
    return draw >= threshold;
}
