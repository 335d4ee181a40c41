// Adam (PyTorch semantics), one thread per element, as neptune_core::adam's fused pass:
// m = b1 m + c1 g; v = b2 v + c2 g g; p -= step_size m / (sqrt(v) inv_sqrt_bc2 + eps).
// The constants are computed on the host exactly as the CPU computes them (f64, rounded).
struct P { n: u32, b1: f32, b2: f32, c1: f32, c2: f32, step_size: f32, inv_sqrt_bc2: f32, eps: f32 }
@group(0) @binding(0) var<uniform> ap: P;
@group(0) @binding(1) var<storage, read_write> param: array<f32>;
@group(0) @binding(2) var<storage, read_write> m1: array<f32>;
@group(0) @binding(3) var<storage, read_write> m2: array<f32>;
@group(0) @binding(4) var<storage, read> grad: array<f32>;

const WG: u32 = 64u;

@compute @workgroup_size(64)
fn adam_step(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    // grid()'s 2-D split: E alone can exceed 65535 workgroups.
    let j = gid.x + gid.y * nwg.x * WG;
    if (j >= ap.n) { return; }
    let g = grad[j];
    let m = ap.b1 * m1[j] + ap.c1 * g;
    let v = ap.b2 * m2[j] + ap.c2 * g * g;
    m1[j] = m;
    m2[j] = v;
    param[j] = param[j] - ap.step_size * m / (sqrt(v) * ap.inv_sqrt_bc2 + ap.eps);
}
