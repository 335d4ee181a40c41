//! Forward pass: `logits = act(dropout_h2(BN1(dropout_in(BN0(E[h])) · dropout_h1(R[r] · W))))
//! · dropout_in(E)^T`.

use super::{ensure, lap, Batch, Dropouts, Masks, Mode, Workspace};
use crate::kernels::{batchnorm, core_product, elementwise};
use crate::linalg::{matmul, matmul_oriented, Op};
use crate::params::Params;
use crate::real::Real;

/// Runs the forward pass; `ws.logits[..B * N]` holds the logits afterwards. In training mode the
/// batch statistics are left in the workspace; [`super::update_running_stats`] applies them, as
/// PyTorch does inside `forward`. Relation and entity ids must have been validated by the caller.
pub fn forward<T: Real>(
    p: &Params<T>,
    drop: &Dropouts,
    batch: &Batch,
    ws: &mut Workspace<T>,
    mode: Mode,
) {
    forward_hidden(p, drop, batch, ws, mode);
    score_all(p, drop, batch.len(), ws, mode);
}

/// Steps 1-3 of the forward pass: the queries' hidden vectors `x2` (B x D), before scoring.
pub(crate) fn forward_hidden<T: Real>(
    p: &Params<T>,
    drop: &Dropouts,
    batch: &Batch,
    ws: &mut Workspace<T>,
    mode: Mode,
) {
    let (b, d, dr) = (batch.len(), p.d_e, p.d_r);
    let train = matches!(mode, Mode::Train { .. });
    let masks = Masks::new(mode, drop);
    let keep_scale = |q: f64| T::from_f64(1.0 / (1.0 - q));
    let (s_in, s_h1, s_h2) = match mode {
        Mode::Train { .. } => (
            keep_scale(drop.input),
            keep_scale(drop.h1),
            keep_scale(drop.h2),
        ),
        Mode::Eval => (T::ONE, T::ONE, T::ONE),
    };
    for buf in [
        &mut ws.x0,
        &mut ws.xhat0,
        &mut ws.x1,
        &mut ws.y,
        &mut ws.xhat1,
        &mut ws.z2,
        &mut ws.x2,
    ] {
        ensure(buf, b * d);
    }
    for buf in [
        &mut ws.inv0,
        &mut ws.mean0,
        &mut ws.var0,
        &mut ws.inv1,
        &mut ws.mean1,
        &mut ws.var1,
    ] {
        ensure(buf, d);
    }

    let mut t = std::time::Instant::now();
    // 1. x1 = dropout_in(BN0(E[h]))                                   (B x D)
    for (row, &h) in ws.x0.chunks_exact_mut(d).zip(&batch.heads) {
        row.copy_from_slice(&p.e[h as usize * d..][..d]);
    }
    if train {
        batchnorm::forward_train(
            &p.bn0,
            &ws.x0,
            b,
            d,
            &mut ws.xhat0,
            &mut ws.inv0,
            &mut ws.x1,
            &mut ws.mean0,
            &mut ws.var0,
        );
        elementwise::dropout_inplace(&mut ws.x1[..b * d], d, &masks.in_head, s_in);
    } else {
        batchnorm::forward_eval(&p.bn0, &ws.x0, b, d, &mut ws.x1);
    }

    lap(&mut ws.timings, 0, &mut t);
    // 2. A_u = R[u] · W for each distinct relation u                   (U x D*D)
    ws.group_relations(&batch.rels, p.n_rel);
    let n_u = ws.uniq.len();
    ensure(&mut ws.ru, n_u * dr);
    ensure(&mut ws.a, n_u * d * d);
    for (row, &r) in ws.ru.chunks_exact_mut(dr).zip(&ws.uniq) {
        row.copy_from_slice(&p.r[r as usize * dr..][..dr]);
    }
    matmul(
        &mut ws.a[..n_u * d * d],
        Op::n(&ws.ru, n_u, dr),
        Op::n(&p.w, dr, d * d),
        false,
        true,
    );

    lap(&mut ws.timings, 1, &mut t);
    // 3. y_b = x1_b · dropout_h1(A_{r_b}); z2 = dropout_h2(BN1(y)); x2 = act(z2)   (B x D)
    core_product::forward(
        &ws.x1,
        &ws.a,
        &ws.members,
        &ws.member_off,
        d,
        &masks.h1,
        s_h1,
        &mut ws.y,
    );
    lap(&mut ws.timings, 2, &mut t);
    if train {
        batchnorm::forward_train(
            &p.bn1,
            &ws.y,
            b,
            d,
            &mut ws.xhat1,
            &mut ws.inv1,
            &mut ws.z2,
            &mut ws.mean1,
            &mut ws.var1,
        );
        elementwise::dropout_inplace(&mut ws.z2[..b * d], d, &masks.h2, s_h2);
    } else {
        batchnorm::forward_eval(&p.bn1, &ws.y, b, d, &mut ws.z2);
    }
    elementwise::act_forward(&ws.z2[..b * d], p.slope[0], &mut ws.x2[..b * d]);
    lap(&mut ws.timings, 3, &mut t);
}

/// Step 4 of the forward pass: `logits = x2 · dropout_in(E)^T` (B x N) for the `b` queries.
fn score_all<T: Real>(p: &Params<T>, drop: &Dropouts, b: usize, ws: &mut Workspace<T>, mode: Mode) {
    let (d, n) = (p.d_e, p.n_ent);
    let train = matches!(mode, Mode::Train { .. });
    let masks = Masks::new(mode, drop);
    let s_in = match mode {
        Mode::Train { .. } => T::from_f64(1.0 / (1.0 - drop.input)),
        Mode::Eval => T::ONE,
    };
    ensure(&mut ws.logits, b * n);
    let mut t = std::time::Instant::now();
    ws.used_e_drop = train && !masks.in_ent.identity;
    let e_score: &[T] = if ws.used_e_drop {
        ensure(&mut ws.e_drop, n * d);
        elementwise::dropout_copy(&p.e, &mut ws.e_drop[..n * d], d, &masks.in_ent, s_in);
        &ws.e_drop
    } else {
        &p.e
    };
    lap(&mut ws.timings, 4, &mut t);
    matmul_oriented(
        &mut ws.logits[..b * n],
        Op::n(&ws.x2, b, d),
        Op::t(e_score, n, d),
        &mut ws.product_scratch,
    );
    lap(&mut ws.timings, 5, &mut t);
}
