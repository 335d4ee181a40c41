// Fused label-smoothed BCE with logits and its gradient (neptune_core::kernels::loss::bce_fused).
// Per row i of the B x N logits: row_loss[i] = sum_j (softplus(l_j) - base * l_j)
// - pos * sum_{t in tails(i)} l_t; then l_j = (sigmoid(l_j) - base) * scale and at each tail
// l_t -= pos * scale. softplus / sigmoid use the CPU's f32 Cephes polynomials (neptune_core::
// real::fast_f32), ported verbatim: WGSL's exp / log are only loosely bounded by the spec.
// One workgroup per row (grid()'s 2-D split over rows); threads take strided elements, then a
// fixed tree adds their partial sums: deterministic.

// softmax_fused reads the same fields as: base = eps / N, scale = 1 / B, pos = 1 - eps,
// pos_scale = eps.
//
// Sampled columns (neptune_core::kernels::sampled_loss): columns from `split` on are a uniform
// sample, each standing for `w` entities (`ln_w` = ln w): their loss terms count w times and
// their gradient's dense step is `sample_scale` (BCE: scale * w; softmax: w * eps / N / B), and
// softmax reads their logits corrected by ln w. Scoring every entity is split = n, w = 1,
// ln_w = 0: every per-column factor is then exactly 1 (or + 0), the same bits as without them.
// Here N of the formulas is the model's entities and n the columns scored.
struct P {
    b: u32, n: u32, base: f32, scale: f32, pos: f32, pos_scale: f32,
    split: u32, w: f32, ln_w: f32, sample_scale: f32,
}
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> logits: array<f32>; // B x n, becomes the gradient
@group(0) @binding(2) var<storage, read> tail_off: array<u32>; // B + 1
@group(0) @binding(3) var<storage, read> tails: array<u32>; // distinct within a row
@group(0) @binding(4) var<storage, read_write> row_loss: array<f32>; // B

const WG: u32 = 256u;
const CHUNK: u32 = 16u; // terms per thread per block of the dense sum
var<workgroup> dense_part: array<f32, 256>;
var<workgroup> pos_part: array<f32, 256>;
var<workgroup> sum_part: array<f32, 256>;

// exp(x) for x <= 0 (fast_f32::exp_neg); inputs below -87 give exp(-87).
fn exp_neg(x_in: f32) -> f32 {
    let x = clamp(x_in, -87.0f, 0.0f);
    let fx = floor(x * 1.44269504088896340736f + 0.5f);
    let r = x - fx * 0.6933594f - fx * -2.1219444e-4f;
    let z = r * r;
    let y = (((((1.9875691e-4f * r + 1.3981999e-3f) * r + 8.333452e-3f) * r
        + 4.1665796e-2f)
        * r
        + 1.6666665e-1f)
        * r
        + 5.0000001e-1f)
        * z
        + r
        + 1.0f;
    // 2^fx from its exponent bits: fx is a whole number in [-126, 0], so fx + 127 is a valid
    // biased exponent (the CPU builds the same bits with a float trick).
    return y * bitcast<f32>(u32(i32(fx) + 127) << 23u);
}

// ln(1 + e) for e in [0, 1] (fast_f32::ln_1p_unit).
fn ln_1p_unit(e: f32) -> f32 {
    // ln(1 + e) = ln(2) + ln(1 + f) with f = (e - 1) / 2 when 1 + e > sqrt(2); f = e otherwise.
    let big = e > 1.41421356237309504880f - 1.0f;
    let f = select(e, 0.5f * (e - 1.0f), big);
    let k = select(0.0f, 1.0f, big);
    let z = f * f;
    var q = 7.0376836e-2f;
    q = q * f - 1.151461e-1f;
    q = q * f + 1.1676999e-1f;
    q = q * f - 1.2420141e-1f;
    q = q * f + 1.4249323e-1f;
    q = q * f - 1.6668058e-1f;
    q = q * f + 2.0000714e-1f;
    q = q * f - 2.4999994e-1f;
    q = q * f + 3.3333331e-1f;
    return f + (q * f * z - 0.5f * z) + k * 0.693147180559945309f;
}

@compute @workgroup_size(256)
fn bce_fused(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let row = wid.x + wid.y * nwg.x;
    if (row >= p.b) { return; } // uniform: the whole workgroup leaves
    let r0 = row * p.n;
    let t0 = tail_off[row];
    let t1 = tail_off[row + 1u];

    // 1. The positive part reads the tail logits before any thread overwrites them.
    var pos_sum = 0.0f;
    for (var s = t0 + lid; s < t1; s += WG) {
        pos_sum += logits[r0 + tails[s]];
    }
    storageBarrier();

    // 2. Dense pass: loss terms and the 1/N part of the gradient (softplus_sigmoid of real.rs).
    // Each thread adds its terms in blocks of CHUNK before adding the block to its total: a
    // single running f32 sum over thousands of terms (rows of 1e6) would round away the small
    // terms of negative logits once it is large.
    var dense = 0.0f;
    for (var j0 = lid; j0 < p.n; j0 += WG * CHUNK) {
        let j1 = min(j0 + WG * CHUNK, p.n);
        var blk = 0.0f;
        for (var j = j0; j < j1; j += WG) {
            let x = logits[r0 + j];
            let e = exp_neg(-abs(x));
            let num = select(e, 1.0f, x >= 0.0f);
            let sp = max(x, 0.0f) + ln_1p_unit(e);
            let sg = num / (1.0f + e);
            let sampled = j >= p.split;
            blk += (sp - p.base * x) * select(1.0f, p.w, sampled);
            logits[r0 + j] = (sg - p.base) * select(p.scale, p.sample_scale, sampled);
        }
        dense += blk;
    }
    storageBarrier();

    // 3. The (1 - eps) part of the gradient at the tails (distinct: one writer each).
    for (var s = t0 + lid; s < t1; s += WG) {
        logits[r0 + tails[s]] -= p.pos_scale;
    }

    // 4. Fixed tree over the threads' partial sums.
    dense_part[lid] = dense;
    pos_part[lid] = pos_sum;
    workgroupBarrier();
    for (var w = WG / 2u; w > 0u; w >>= 1u) {
        if (lid < w) {
            dense_part[lid] += dense_part[lid + w];
            pos_part[lid] += pos_part[lid + w];
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        row_loss[row] = dense_part[0] - p.pos * pos_part[0];
    }
}

// Fused softmax cross-entropy over the row and its gradient (neptune_core::kernels::loss::
// softmax_fused). Per row with tails T: mass = 1 (eps without tails), pos_w = (1 - eps) / |T|,
// row_loss = mass * logsumexp(l) - pos_w * sum_T l_t - eps / N * sum_j l_j; then
// l_j = (mass * softmax(l)_j - eps / N) / B and at each listed tail l_t -= pos_w / B. Sampled
// columns enter the softmax by their corrected logits and the eps / N terms w times. The row's
// maximum is subtracted before exp_neg (stable for any finite logits); every reduction is a
// fixed tree over the threads' blocked partial sums (deterministic).
@compute @workgroup_size(256)
fn softmax_fused(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let row = wid.x + wid.y * nwg.x;
    if (row >= p.b) { return; } // uniform: the whole workgroup leaves
    let r0 = row * p.n;
    let t0 = tail_off[row];
    let t1 = tail_off[row + 1u];
    let eps_n = p.base;
    let inv_b = p.scale;
    let has_tails = t1 > t0;
    let mass = select(p.pos_scale, 1.0f, has_tails);
    let pos_w = select(0.0f, p.pos / f32(max(t1 - t0, 1u)), has_tails);

    // 1. The positive part reads the tail logits before any thread overwrites them.
    var pos_sum = 0.0f;
    for (var s = t0 + lid; s < t1; s += WG) {
        pos_sum += logits[r0 + tails[s]];
    }
    storageBarrier();

    // 2. Each thread's maximum of the corrected logits and (blocked, weighted) sum of its
    // logits; then the row maximum.
    var hi = logits[r0] + select(0.0f, p.ln_w, p.split == 0u);
    var sum_l = 0.0f;
    for (var j0 = lid; j0 < p.n; j0 += WG * CHUNK) {
        let j1 = min(j0 + WG * CHUNK, p.n);
        var blk = 0.0f;
        for (var j = j0; j < j1; j += WG) {
            let x = logits[r0 + j];
            let sampled = j >= p.split;
            hi = max(hi, x + select(0.0f, p.ln_w, sampled));
            blk += x * select(1.0f, p.w, sampled);
        }
        sum_l += blk;
    }
    dense_part[lid] = hi;
    workgroupBarrier();
    for (var k = WG / 2u; k > 0u; k >>= 1u) {
        if (lid < k) {
            dense_part[lid] = max(dense_part[lid], dense_part[lid + k]);
        }
        workgroupBarrier();
    }
    let m = dense_part[0];
    workgroupBarrier();

    // 3. l_j <- exp(corrected l_j - m) on the thread's own elements, and their (blocked) sum.
    var sum_e = 0.0f;
    for (var j0 = lid; j0 < p.n; j0 += WG * CHUNK) {
        let j1 = min(j0 + WG * CHUNK, p.n);
        var blk = 0.0f;
        for (var j = j0; j < j1; j += WG) {
            let e = exp_neg(logits[r0 + j] + select(0.0f, p.ln_w, j >= p.split) - m);
            logits[r0 + j] = e;
            blk += e;
        }
        sum_e += blk;
    }
    dense_part[lid] = sum_e;
    pos_part[lid] = pos_sum;
    sum_part[lid] = sum_l;
    workgroupBarrier();
    for (var k = WG / 2u; k > 0u; k >>= 1u) {
        if (lid < k) {
            dense_part[lid] += dense_part[lid + k];
            pos_part[lid] += pos_part[lid + k];
            sum_part[lid] += sum_part[lid + k];
        }
        workgroupBarrier();
    }
    let z = dense_part[0]; // >= 1: the maximum's own term

    // 4. The gradient's dense part on the thread's own elements, then (after every thread's
    // writes) the positive part at the tails, in list order (a tail listed twice counts twice).
    let a = mass / z * inv_b;
    let c = eps_n * inv_b;
    for (var j = lid; j < p.n; j += WG) {
        logits[r0 + j] = logits[r0 + j] * a - select(c, p.sample_scale, j >= p.split);
    }
    storageBarrier();
    if (lid == 0u) {
        for (var s = t0; s < t1; s += 1u) {
            logits[r0 + tails[s]] -= pos_w * inv_b;
        }
        row_loss[row] = mass * (m + log(z)) - pos_w * pos_part[0] - eps_n * sum_part[0];
    }
}
