// Adam (PyTorch semantics), one thread per element, as neptune_core::adam's fused pass:
// m = b1 m + c1 g; v = b2 v + c2 g g; p -= step_size m / (sqrt(v) inv_sqrt_bc2 + eps).
// The constants are computed on the host exactly as the CPU computes them (f64, rounded).
// `n` counts the elements (adam_step) or the listed rows (adam_rows, catch_up_rows), each
// `cols` wide.
struct P { n: u32, cols: u32, b1: f32, b2: f32, c1: f32, c2: f32, step_size: f32, inv_sqrt_bc2: f32, eps: f32 }
@group(0) @binding(0) var<uniform> ap: P;
@group(0) @binding(1) var<storage, read_write> param: array<f32>;
@group(0) @binding(2) var<storage, read_write> m1: array<f32>;
@group(0) @binding(3) var<storage, read_write> m2: array<f32>;
@group(0) @binding(4) var<storage, read> grad: array<f32>;

const WG: u32 = 64u;

// grid()'s 2-D split: E alone can exceed 65535 workgroups.
fn thread_id(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * WG;
}

// One Adam update of element j by gradient g.
fn update(j: u32, g: f32) {
    let m = ap.b1 * m1[j] + ap.c1 * g;
    let v = ap.b2 * m2[j] + ap.c2 * g * g;
    m1[j] = m;
    m2[j] = v;
    param[j] = param[j] - ap.step_size * m / (sqrt(v) * ap.inv_sqrt_bc2 + ap.eps);
}

@compute @workgroup_size(64)
fn adam_step(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let j = thread_id(gid, nwg);
    if (j >= ap.n) { return; }
    update(j, grad[j]);
}

// ---- Row-wise Adam for a sampled step (neptune_core::adam's update_rows / catch_up_rows):
// one thread per (k, j) of the n listed rows; the rows are distinct, so no two threads write
// one element. ----
@group(0) @binding(5) var<storage, read> row_ids: array<u32>;

// Row row_ids[k] moves by gradient row k of `grad` (n x cols).
@compute @workgroup_size(64)
fn adam_rows(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = thread_id(gid, nwg);
    if (t >= ap.n * ap.cols) { return; }
    update(row_ids[t / ap.cols] * ap.cols + t % ap.cols, grad[t]);
}

// Row row_ids[k] catches up the steps it sat out: with (moved, b1^s, b2^s) = catch_k[3k..3k+3],
// p -= moved m / (sqrt(v) inv_sqrt_bc2 + eps), then m *= b1^s, v *= b2^s. Reads ap's n, cols,
// inv_sqrt_bc2 and eps.
@group(0) @binding(4) var<storage, read> catch_k: array<f32>;

@compute @workgroup_size(64)
fn catch_up_rows(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = thread_id(gid, nwg);
    if (t >= ap.n * ap.cols) { return; }
    let k = t / ap.cols;
    let j = row_ids[k] * ap.cols + t % ap.cols;
    let m = m1[j];
    let v = m2[j];
    param[j] = param[j] - catch_k[3u * k] * m / (sqrt(v) * ap.inv_sqrt_bc2 + ap.eps);
    m1[j] = m * catch_k[3u * k + 1u];
    m2[j] = v * catch_k[3u * k + 2u];
}
