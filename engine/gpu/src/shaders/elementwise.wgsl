// Elementwise and row kernels. Compiled after mask.wgsl (the dropout kernels call `keep`).
// Every 1-D kernel runs one thread per element, WG threads per workgroup, over `grid`'s
// 2-D split of the workgroups: id = gid.x + gid.y * nwg.x * WG. Each entry point has its own
// uniform and buffers (bindings repeat across entry points; only one entry point's are bound
// per dispatch). No atomics anywhere: every result is computed in a fixed order.

const WG: u32 = 64u;

fn thread_id(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * WG;
}

// ---- fill: t[0..n] = value ----
struct Fill { n: u32, value: f32 }
@group(0) @binding(0) var<uniform> fill_p: Fill;
@group(0) @binding(1) var<storage, read_write> fill_t: array<f32>;

@compute @workgroup_size(64)
fn fill(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = thread_id(gid, nwg);
    if (i >= fill_p.n) { return; }
    fill_t[i] = fill_p.value;
}

// ---- gather_rows / scatter_rows: one thread per element of the rows x cols moved block ----
struct Rows { rows: u32, cols: u32 }
@group(0) @binding(0) var<uniform> rows_p: Rows;
@group(0) @binding(1) var<storage, read> rows_src: array<f32>;
@group(0) @binding(2) var<storage, read> rows_idx: array<u32>;
@group(0) @binding(3) var<storage, read_write> rows_dst: array<f32>;

// dst[i, j] = src[idx[i], j]
@compute @workgroup_size(64)
fn gather_rows(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = thread_id(gid, nwg);
    if (t >= rows_p.rows * rows_p.cols) { return; }
    let i = t / rows_p.cols;
    let j = t % rows_p.cols;
    rows_dst[t] = rows_src[rows_idx[i] * rows_p.cols + j];
}

// dst[idx[i], j] = src[i, j] (idx distinct, so no two threads write one element)
@compute @workgroup_size(64)
fn scatter_rows(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = thread_id(gid, nwg);
    if (t >= rows_p.rows * rows_p.cols) { return; }
    let i = t / rows_p.cols;
    let j = t % rows_p.cols;
    rows_dst[rows_idx[i] * rows_p.cols + j] = rows_src[t];
}

// ---- scatter_add_rows: dst[targets[k], j] += sum of src[members[off[k]..off[k+1]], j] ----
// One thread per (k, j), adding the members in list order onto dst's old value: the same
// sequence of additions as the CPU's row-by-row accumulation into E's gradient.
struct ScatterAdd { h: u32, cols: u32 }
@group(0) @binding(0) var<uniform> sa_p: ScatterAdd;
@group(0) @binding(1) var<storage, read> sa_src: array<f32>;
@group(0) @binding(2) var<storage, read> sa_targets: array<u32>;
@group(0) @binding(3) var<storage, read> sa_off: array<u32>;
@group(0) @binding(4) var<storage, read> sa_members: array<u32>;
@group(0) @binding(5) var<storage, read_write> sa_dst: array<f32>;

@compute @workgroup_size(64)
fn scatter_add_rows(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = thread_id(gid, nwg);
    if (t >= sa_p.h * sa_p.cols) { return; }
    let k = t / sa_p.cols;
    let j = t % sa_p.cols;
    let at = sa_targets[k] * sa_p.cols + j;
    var acc = sa_dst[at];
    for (var m = sa_off[k]; m < sa_off[k + 1u]; m++) {
        acc += sa_src[sa_members[m] * sa_p.cols + j];
    }
    sa_dst[at] = acc;
}

// ---- dropout: x[i, j] * (keep(row_keys[i], j) ? scale : 0) over rows x cols ----
// A single rounded product per element, as on the CPU: bit-identical results.
struct Drop { rows: u32, cols: u32, threshold: u32, scale: f32 }
@group(0) @binding(0) var<uniform> drop_p: Drop;

fn drop_factor(t: u32) -> f32 {
    let i = t / drop_p.cols;
    let j = t % drop_p.cols;
    return select(0.0, drop_p.scale, keep(dc_keys[i], j, drop_p.threshold));
}

@group(0) @binding(1) var<storage, read> dc_src: array<f32>;
@group(0) @binding(2) var<storage, read> dc_keys: array<u32>;
@group(0) @binding(3) var<storage, read_write> dc_dst: array<f32>;

@compute @workgroup_size(64)
fn dropout_copy(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = thread_id(gid, nwg);
    if (t >= drop_p.rows * drop_p.cols) { return; }
    dc_dst[t] = dc_src[t] * drop_factor(t);
}

// In place: x at binding 1 (read_write), keys at binding 2 (shared with dropout_copy).
@group(0) @binding(1) var<storage, read_write> di_x: array<f32>;

@compute @workgroup_size(64)
fn dropout_inplace(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = thread_id(gid, nwg);
    if (t >= drop_p.rows * drop_p.cols) { return; }
    di_x[t] = di_x[t] * drop_factor(t);
}

// ---- activation: out = z > 0 ? z : slope * z; backward g *= (z > 0 ? 1 : slope) ----
struct Act { n: u32 }
@group(0) @binding(0) var<uniform> act_p: Act;
@group(0) @binding(1) var<storage, read> act_z: array<f32>;
@group(0) @binding(2) var<storage, read> act_slope: array<f32>;
@group(0) @binding(3) var<storage, read_write> act_out: array<f32>;

@compute @workgroup_size(64)
fn act_forward(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = thread_id(gid, nwg);
    if (i >= act_p.n) { return; }
    let v = act_z[i];
    act_out[i] = select(act_slope[0] * v, v, v > 0.0);
}

// In place on g (binding 3, the same slot as act_forward's out). The CPU leaves g alone where
// z > 0 and multiplies by slope elsewhere: same values.
@compute @workgroup_size(64)
fn act_grad(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = thread_id(gid, nwg);
    if (i >= act_p.n) { return; }
    if (act_z[i] <= 0.0) {
        act_out[i] = act_out[i] * act_slope[0];
    }
}

// dslope[0] = sum over z <= 0 of g * z, with g read before act_grad updates it (a separate,
// earlier dispatch). One workgroup of 256 threads: thread l sums elements l, l + 256, ... in
// order, then a fixed tree halves the 256 partial sums: deterministic, no atomics.
@group(0) @binding(1) var<storage, read> ds_z: array<f32>;
@group(0) @binding(2) var<storage, read> ds_g: array<f32>;
@group(0) @binding(3) var<storage, read_write> ds_out: array<f32>;
var<workgroup> ds_partial: array<f32, 256>;

@compute @workgroup_size(256)
fn act_dslope(@builtin(local_invocation_index) l: u32) {
    var s = 0.0;
    for (var i = l; i < act_p.n; i += 256u) {
        let v = ds_z[i];
        if (v <= 0.0) { s += ds_g[i] * v; }
    }
    ds_partial[l] = s;
    workgroupBarrier();
    for (var w = 128u; w > 0u; w >>= 1u) {
        if (l < w) { ds_partial[l] += ds_partial[l + w]; }
        workgroupBarrier();
    }
    if (l == 0u) { ds_out[0] = ds_partial[0]; }
}
