// BatchNorm1d (PyTorch, training mode) over a B x D row-major batch, as
// neptune_core::kernels::batchnorm: one thread per column j, looping over the rows in order,
// so every column sum has the CPU's order. D is a few hundred: a few workgroups of 64.

// ---- forward_train ----
struct Fwd { b: u32, d: u32, eps: f32 }
@group(0) @binding(0) var<uniform> fp: Fwd;
@group(0) @binding(1) var<storage, read> f_gamma: array<f32>;
@group(0) @binding(2) var<storage, read> f_beta: array<f32>;
@group(0) @binding(3) var<storage, read> f_x: array<f32>;
@group(0) @binding(4) var<storage, read_write> f_xhat: array<f32>;
@group(0) @binding(5) var<storage, read_write> f_inv: array<f32>;
@group(0) @binding(6) var<storage, read_write> f_out: array<f32>;
@group(0) @binding(7) var<storage, read_write> f_mean: array<f32>;
@group(0) @binding(8) var<storage, read_write> f_var: array<f32>;

@compute @workgroup_size(64)
fn bn_forward_train(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = gid.x;
    let d = fp.d;
    if (j >= d) { return; }
    let bf = f32(fp.b);
    var s = 0.0;
    for (var i = 0u; i < fp.b; i++) { s += f_x[i * d + j]; }
    let mean = s / bf;
    var q = 0.0;
    for (var i = 0u; i < fp.b; i++) {
        let c = f_x[i * d + j] - mean;
        q += c * c;
    }
    let v = q / bf; // biased variance
    let inv = 1.0 / sqrt(v + fp.eps);
    let gamma = f_gamma[j];
    let beta = f_beta[j];
    for (var i = 0u; i < fp.b; i++) {
        let h = (f_x[i * d + j] - mean) * inv;
        f_xhat[i * d + j] = h;
        f_out[i * d + j] = gamma * h + beta;
    }
    f_mean[j] = mean;
    f_var[j] = v;
    f_inv[j] = inv;
}

// ---- update_running: momentum `mom`, unbiased variance (factor `unbias` = b / (b - 1)) ----
struct Run { d: u32, mom: f32, unbias: f32 }
@group(0) @binding(0) var<uniform> rp: Run;
@group(0) @binding(1) var<storage, read_write> r_mean_run: array<f32>;
@group(0) @binding(2) var<storage, read_write> r_var_run: array<f32>;
@group(0) @binding(3) var<storage, read> r_mean: array<f32>;
@group(0) @binding(4) var<storage, read> r_var: array<f32>;

@compute @workgroup_size(64)
fn bn_update_running(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = gid.x;
    if (j >= rp.d) { return; }
    let keep = 1.0 - rp.mom;
    r_mean_run[j] = keep * r_mean_run[j] + rp.mom * r_mean[j];
    r_var_run[j] = keep * r_var_run[j] + rp.mom * r_var[j] * rp.unbias;
}

// ---- backward: dgamma = sum_b dout * xhat, dbeta = sum_b dout, then
// dx = gamma * inv * (dout - dbeta / b - xhat * dgamma / b) (`inv_b` = 1 / b, from the host) ----
struct Bwd { b: u32, d: u32, inv_b: f32 }
@group(0) @binding(0) var<uniform> bp: Bwd;
@group(0) @binding(1) var<storage, read> b_gamma: array<f32>;
@group(0) @binding(2) var<storage, read> b_xhat: array<f32>;
@group(0) @binding(3) var<storage, read> b_inv: array<f32>;
@group(0) @binding(4) var<storage, read> b_dout: array<f32>;
@group(0) @binding(5) var<storage, read_write> b_dx: array<f32>;
@group(0) @binding(6) var<storage, read_write> b_dgamma: array<f32>;
@group(0) @binding(7) var<storage, read_write> b_dbeta: array<f32>;

@compute @workgroup_size(64)
fn bn_backward(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = gid.x;
    let d = bp.d;
    if (j >= d) { return; }
    var dg = 0.0;
    var db = 0.0;
    for (var i = 0u; i < bp.b; i++) {
        let g = b_dout[i * d + j];
        dg += g * b_xhat[i * d + j];
        db += g;
    }
    let gi = b_gamma[j] * b_inv[j];
    for (var i = 0u; i < bp.b; i++) {
        let k = i * d + j;
        b_dx[k] = gi * (b_dout[k] - db * bp.inv_b - b_xhat[k] * dg * bp.inv_b);
    }
    b_dgamma[j] = dg;
    b_dbeta[j] = db;
}
