// Dropout keep test, identical to neptune_core::rng::Mask::keep (u32 arithmetic wraps).
fn lowbias32(v: u32) -> u32 {
    var x = v;
    x ^= x >> 16u;
    x *= 0x7feb352du;
    x ^= x >> 15u;
    x *= 0x846ca68bu;
    return x ^ (x >> 16u);
}

fn keep(row_key: u32, col: u32, threshold: u32) -> bool {
    return lowbias32(row_key + col * 0x9E3779B9u) >= threshold;
}
