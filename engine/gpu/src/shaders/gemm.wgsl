// C (m x n) = op(A) · op(B) [+ C], row-major. op(A) is m x k: A stored m x k, or k x m when
// ta = 1; op(B) is k x n: B stored k x n, or n x k when tb = 1. 64 x 64 tiles of C per
// workgroup, 4 x 4 per thread, k in steps of 16 through workgroup memory.
// Split k (few tiles, long k): workgroup z sums k in [z * k_chunk, (z + 1) * k_chunk) into its
// own slice of `c` (split = 1: `c` is C itself), and `reduce` adds the slices in order. Every
// sum has a fixed order and no atomics: deterministic.
struct P { m: u32, n: u32, k: u32, ta: u32, tb: u32, accumulate: u32, k_chunk: u32, split: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

const TM: u32 = 64u;
const TN: u32 = 64u;
const TK: u32 = 16u;
var<workgroup> sa: array<f32, 1024>; // [TK][TM]
var<workgroup> sb: array<f32, 1024>; // [TK][TN]

fn load_a(row: u32, kk: u32, k_end: u32) -> f32 {
    if (row >= p.m || kk >= k_end) { return 0.0; }
    if (p.ta == 0u) { return a[row * p.k + kk]; }
    return a[kk * p.m + row];
}

fn load_b(kk: u32, col: u32, k_end: u32) -> f32 {
    if (kk >= k_end || col >= p.n) { return 0.0; }
    if (p.tb == 0u) { return b[kk * p.n + col]; }
    return b[col * p.k + kk];
}

@compute @workgroup_size(16, 16)
fn gemm(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let row0 = wg.y * TM;
    let col0 = wg.x * TN;
    let tid = lid.y * 16u + lid.x;
    let k_begin = wg.z * p.k_chunk;
    let k_end = min(p.k, k_begin + p.k_chunk);
    // Row i of the thread's 4 x 4 block is acc[i]; columns lid.x + 16 j are its lanes j.
    // Vectors with constant lanes, not an indexed array: drivers keep them in registers.
    var acc0 = vec4<f32>(0.0);
    var acc1 = vec4<f32>(0.0);
    var acc2 = vec4<f32>(0.0);
    var acc3 = vec4<f32>(0.0);
    for (var k0 = k_begin; k0 < k_end; k0 += TK) {
        for (var s = 0u; s < 4u; s++) {
            let e = tid + s * 256u;
            // A's tile is read along k when A is stored m x k, along m when transposed.
            if (p.ta == 0u) {
                sa[(e % TK) * TM + e / TK] = load_a(row0 + e / TK, k0 + e % TK, k_end);
            } else {
                sa[(e / TM) * TM + e % TM] = load_a(row0 + e % TM, k0 + e / TM, k_end);
            }
            if (p.tb == 0u) {
                sb[(e / TN) * TN + e % TN] = load_b(k0 + e / TN, col0 + e % TN, k_end);
            } else {
                sb[(e % TK) * TN + e / TK] = load_b(k0 + e % TK, col0 + e / TK, k_end);
            }
        }
        workgroupBarrier();
        for (var kk = 0u; kk < TK; kk++) {
            let ai = kk * TM + lid.y;
            let bi = kk * TN + lid.x;
            let bv = vec4<f32>(sb[bi], sb[bi + 16u], sb[bi + 32u], sb[bi + 48u]);
            acc0 = fma(vec4<f32>(sa[ai]), bv, acc0);
            acc1 = fma(vec4<f32>(sa[ai + 16u]), bv, acc1);
            acc2 = fma(vec4<f32>(sa[ai + 32u]), bv, acc2);
            acc3 = fma(vec4<f32>(sa[ai + 48u]), bv, acc3);
        }
        workgroupBarrier();
    }
    let slice = wg.z * p.m * p.n;
    store_row(slice, row0 + lid.y, col0 + lid.x, acc0);
    store_row(slice, row0 + lid.y + 16u, col0 + lid.x, acc1);
    store_row(slice, row0 + lid.y + 32u, col0 + lid.x, acc2);
    store_row(slice, row0 + lid.y + 48u, col0 + lid.x, acc3);
}

// Writes lanes j of `v` to (row, col + 16 j) of the slice, inside the matrix only.
fn store_row(slice: u32, row: u32, col: u32, v: vec4<f32>) {
    if (row >= p.m) { return; }
    for (var j = 0u; j < 4u; j++) {
        let cj = col + 16u * j;
        if (cj >= p.n) { return; }
        var x = v[j];
        if (p.split == 1u && p.accumulate != 0u) { x += c[row * p.n + cj]; }
        c[slice + row * p.n + cj] = x;
    }
}

struct R { len: u32, split: u32, accumulate: u32 }
@group(0) @binding(0) var<uniform> r: R;
@group(0) @binding(1) var<storage, read> parts: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

// out[i] (+)= sum over z in order of parts[z * len + i].
@compute @workgroup_size(64)
fn reduce(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * 64u;
    if (i >= r.len) { return; }
    var v = 0.0;
    for (var z = 0u; z < r.split; z++) { v += parts[z * r.len + i]; }
    if (r.accumulate != 0u) { v += out[i]; }
    out[i] = v;
}
