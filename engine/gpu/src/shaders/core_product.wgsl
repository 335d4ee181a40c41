// The per-example core product y_b = x_b · dropout_h1(A_{group[b]}) and its two gradients
// (neptune_core::kernels::core_product). Compiled after mask.wgsl (`keep`).
// Shapes: A is U x D x D (one D x D matrix per distinct relation u of the batch), x, y, dy, dx
// are B x D. The h1 mask is per example: mask row id b * D + i, column j, so
// m(b, i, j) = keep(keys[b * D + i], j) ? scale : 0. As on the CPU, the kept factor is scaled
// first (x * scale, or the total times scale for dx) and a dropped term is an exact zero.
// Each entry point has its own buffers (bindings repeat across entry points; only one entry
// point's are bound per dispatch). No atomics: every output has one writer summing in a fixed
// order, so results are deterministic.

// rows: B (forward, backward_dx) or U (backward_da).
struct P { rows: u32, d: u32, threshold: u32, scale: f32 }
@group(0) @binding(0) var<uniform> p: P;

const WG: u32 = 256u;

fn thread_id(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * WG;
}

// ---- forward: y[b, j] = sum_i (x[b, i] * m(b, i, j)) * A[group[b], i, j], i in order ----
// One thread per (b, j); consecutive threads read consecutive elements of A's row i.
@group(0) @binding(1) var<storage, read> f_x: array<f32>;
@group(0) @binding(2) var<storage, read> f_a: array<f32>;
@group(0) @binding(3) var<storage, read> f_group: array<u32>;
@group(0) @binding(4) var<storage, read> f_keys: array<u32>;
@group(0) @binding(5) var<storage, read_write> f_y: array<f32>;

@compute @workgroup_size(256)
fn forward(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = thread_id(gid, nwg);
    if (t >= p.rows * p.d) { return; }
    let b = t / p.d;
    let j = t % p.d;
    let a0 = f_group[b] * p.d * p.d + j;
    var acc = 0.0;
    for (var i = 0u; i < p.d; i++) {
        let r = b * p.d + i;
        let m = select(0.0, f_x[r] * p.scale, keep(f_keys[r], j, p.threshold));
        acc += m * f_a[a0 + i * p.d];
    }
    f_y[t] = acc;
}

// ---- backward_da: da[u, i, j] = sum_b (x[b, i] * scale) * (m ? dy[b, j] : 0) over the
// members b of u in order. One thread per (u, i, j); threads along j read dy's row b
// contiguously. Every element of da[..U * D * D] is written.
@group(0) @binding(1) var<storage, read> a_dy: array<f32>;
@group(0) @binding(2) var<storage, read> a_x: array<f32>;
@group(0) @binding(3) var<storage, read> a_members: array<u32>;
@group(0) @binding(4) var<storage, read> a_member_off: array<u32>;
@group(0) @binding(5) var<storage, read> a_keys: array<u32>;
@group(0) @binding(6) var<storage, read_write> a_da: array<f32>;

@compute @workgroup_size(256)
fn backward_da(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = thread_id(gid, nwg);
    let dd = p.d * p.d;
    if (t >= p.rows * dd) { return; }
    let u = t / dd;
    let i = (t % dd) / p.d;
    let j = t % p.d;
    var acc = 0.0;
    for (var s = a_member_off[u]; s < a_member_off[u + 1u]; s++) {
        let b = a_members[s];
        let r = b * p.d + i;
        let g = select(0.0, a_dy[b * p.d + j], keep(a_keys[r], j, p.threshold));
        acc += (a_x[r] * p.scale) * g;
    }
    a_da[t] = acc;
}

// ---- backward_dx: dx[b, i] = scale * sum_j (m ? dy[b, j] : 0) * A[group[b], i, j] ----
// One workgroup per (b, block of DXR rows i): thread (lane, r) sums j = lane, lane + DXL, ...
// of row i = block * DXR + r (lanes read consecutive elements of A's row), then the DXL lane
// sums are added by a fixed tree.
const DXL: u32 = 16u; // lanes along j
const DXR: u32 = 16u; // rows i per workgroup
var<workgroup> dx_part: array<f32, 256>; // [DXR][DXL]

@group(0) @binding(1) var<storage, read> x_dy: array<f32>;
@group(0) @binding(2) var<storage, read> x_a: array<f32>;
@group(0) @binding(3) var<storage, read> x_group: array<u32>;
@group(0) @binding(4) var<storage, read> x_keys: array<u32>;
@group(0) @binding(5) var<storage, read_write> x_dx: array<f32>;

@compute @workgroup_size(16, 16)
fn backward_dx(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let nblk = (p.d + DXR - 1u) / DXR;
    let blk = wid.x + wid.y * nwg.x; // grid()'s 2-D split, in workgroups
    if (blk >= p.rows * nblk) { return; } // uniform: the whole workgroup leaves
    let b = blk / nblk;
    let i = (blk % nblk) * DXR + lid.y;
    let r = b * p.d + i;
    var acc = 0.0;
    if (i < p.d) {
        let rk = x_keys[r];
        let a0 = x_group[b] * p.d * p.d + i * p.d;
        for (var j = lid.x; j < p.d; j += DXL) {
            let g = select(0.0, x_dy[b * p.d + j], keep(rk, j, p.threshold));
            acc += g * x_a[a0 + j];
        }
    }
    let slot = lid.y * DXL + lid.x;
    dx_part[slot] = acc;
    workgroupBarrier();
    for (var w = DXL / 2u; w > 0u; w >>= 1u) {
        if (lid.x < w) { dx_part[slot] += dx_part[slot + w]; }
        workgroupBarrier();
    }
    if (lid.x == 0u && i < p.d) { x_dx[r] = dx_part[slot] * p.scale; }
}
