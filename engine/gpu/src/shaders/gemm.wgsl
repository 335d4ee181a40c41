// C (m x n) = op(A) · op(B) [+ C], row-major. op(A) is m x k: A stored m x k, or k x m when
// ta = 1; op(B) is k x n: B stored k x n, or n x k when tb = 1. 64 x 64 tiles of C per
// workgroup, 4 x 4 per thread, k in steps of 16 through workgroup memory. Each element sums
// over k in order, without atomics: deterministic.
struct P { m: u32, n: u32, k: u32, ta: u32, tb: u32, accumulate: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

const TM: u32 = 64u;
const TN: u32 = 64u;
const TK: u32 = 16u;
var<workgroup> sa: array<f32, 1024>; // [TK][TM]
var<workgroup> sb: array<f32, 1024>; // [TK][TN]

fn load_a(row: u32, kk: u32) -> f32 {
    if (row >= p.m || kk >= p.k) { return 0.0; }
    if (p.ta == 0u) { return a[row * p.k + kk]; }
    return a[kk * p.m + row];
}

fn load_b(kk: u32, col: u32) -> f32 {
    if (kk >= p.k || col >= p.n) { return 0.0; }
    if (p.tb == 0u) { return b[kk * p.n + col]; }
    return b[col * p.k + kk];
}

@compute @workgroup_size(16, 16)
fn gemm(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let row0 = wg.y * TM;
    let col0 = wg.x * TN;
    let tid = lid.y * 16u + lid.x;
    var acc: array<f32, 16>;
    for (var k0 = 0u; k0 < p.k; k0 += TK) {
        for (var s = 0u; s < 4u; s++) {
            let e = tid + s * 256u;
            // A's tile is read along k when A is stored m x k, along m when transposed.
            if (p.ta == 0u) {
                sa[(e % TK) * TM + e / TK] = load_a(row0 + e / TK, k0 + e % TK);
            } else {
                sa[(e / TM) * TM + e % TM] = load_a(row0 + e % TM, k0 + e / TM);
            }
            if (p.tb == 0u) {
                sb[(e / TN) * TN + e % TN] = load_b(k0 + e / TN, col0 + e % TN);
            } else {
                sb[(e % TK) * TN + e / TK] = load_b(k0 + e % TK, col0 + e / TK);
            }
        }
        workgroupBarrier();
        for (var kk = 0u; kk < TK; kk++) {
            var av: array<f32, 4>;
            var bv: array<f32, 4>;
            for (var i = 0u; i < 4u; i++) { av[i] = sa[kk * TM + lid.y + 16u * i]; }
            for (var j = 0u; j < 4u; j++) { bv[j] = sb[kk * TN + lid.x + 16u * j]; }
            for (var i = 0u; i < 4u; i++) {
                for (var j = 0u; j < 4u; j++) {
                    acc[i * 4u + j] = fma(av[i], bv[j], acc[i * 4u + j]);
                }
            }
        }
        workgroupBarrier();
    }
    for (var i = 0u; i < 4u; i++) {
        let row = row0 + lid.y + 16u * i;
        if (row >= p.m) { continue; }
        for (var j = 0u; j < 4u; j++) {
            let col = col0 + lid.x + 16u * j;
            if (col >= p.n) { continue; }
            var v = acc[i * 4u + j];
            if (p.accumulate != 0u) { v += c[row * p.n + col]; }
            c[row * p.n + col] = v;
        }
    }
}
