//! A sampled step's scoring and its backward: the queries are scored against some entities
//! only (`ids`, M of them), and E's gradient is kept for the rows the step touches, so neither
//! pass reads or writes the whole entity matrix.
//!
//! Shapes: B queries, M columns, D = d_e, R rows of E touched (the columns, then heads that are
//! not columns).

use super::backward::backward_hidden;
use super::forward::forward_hidden;
use super::{ensure, lap, Batch, Dropouts, Masks, Mode, Workspace};
use crate::kernels::elementwise;
use crate::linalg::{matmul, Op};
use crate::params::{Grads, Params};
use crate::real::Real;
use std::ops::Range;

/// The forward pass against the entities `ids` only, up to its product: every query's hidden
/// vector (`ws.x2`, B x D) and the columns `ws.e_drop[..M * D]` (`dropout_in(E[ids])`).
pub fn gather_sampled<T: Real>(
    p: &Params<T>,
    drop: &Dropouts,
    batch: &Batch,
    ids: &[u32],
    ws: &mut Workspace<T>,
    mode: Mode,
) {
    forward_hidden(p, drop, batch, ws, mode);
    let (d, m) = (p.d_e, ids.len());
    let masks = Masks::new(mode, drop);
    let s_in = match mode {
        Mode::Train { .. } => T::from_f64(1.0 / (1.0 - drop.input)),
        Mode::Eval => T::ONE,
    };
    let mut t = std::time::Instant::now();
    ensure(&mut ws.e_drop, m * d);
    elementwise::dropout_gather(&p.e, ids, &mut ws.e_drop, d, &masks.in_ent, s_in);
    lap(&mut ws.timings, 4, &mut t);
}

/// The logits of the queries `rows` (a range of the batch) against the gathered columns, into
/// `ws.logits[..rows.len() * M]`: `x2 · dropout_in(E[ids])^T`, each entity's dropout that of its
/// row of E, so the logits equal the matching columns of [`super::forward`]'s.
pub fn score_sampled_rows<T: Real>(ws: &mut Workspace<T>, rows: Range<usize>, m: usize, d: usize) {
    let s = rows.len();
    let mut t = std::time::Instant::now();
    ensure(&mut ws.logits, s * m);
    // Plain products: M changes every step, and `matmul_oriented` times each new shape.
    matmul(
        &mut ws.logits[..s * m],
        Op::n(&ws.x2[rows.start * d..rows.end * d], s, d),
        Op::t(&ws.e_drop[..m * d], m, d),
        false,
        true,
    );
    lap(&mut ws.timings, 5, &mut t);
}

/// The backward of [`score_sampled_rows`] for the queries `rows`, from their `d loss / d logits`
/// in `ws.logits[..rows.len() * M]`: `ws.dx2` at those rows (sized for the batch), and
/// `row_grads[..M * D]` set to (`accumulate`: increased by) their share of `d loss / d E'[ids]`.
pub fn backward_sampled_rows<T: Real>(
    ws: &mut Workspace<T>,
    rows: Range<usize>,
    m: usize,
    d: usize,
    row_grads: &mut [T],
    accumulate: bool,
) {
    let s = rows.len();
    let (x2, dx2) = (
        &ws.x2[rows.start * d..rows.end * d],
        &mut ws.dx2[rows.start * d..rows.end * d],
    );
    let dl = &ws.logits[..s * m];
    let mut t = std::time::Instant::now();
    // dx2 = dL · E'[ids]  (S x D);  dE'[ids] (+)= dL^T · x2  (M x D).
    matmul(
        dx2,
        Op::n(dl, s, m),
        Op::n(&ws.e_drop[..m * d], m, d),
        false,
        true,
    );
    matmul(
        &mut row_grads[..m * d],
        Op::t(dl, s, m),
        Op::n(x2, s, d),
        accumulate,
        true,
    );
    lap(&mut ws.timings, 7, &mut t);
}

/// The rest of the backward once `ws.dx2` and `row_grads[..M * D]` hold every query's share:
/// every gradient but E's into `g` (`g.t[0]` is not touched and may be empty), and E's gradient
/// at the rows the step touches into `row_grads` (`n_rows x D`: rows `0..M` are the columns
/// `ids`, example `i`'s head is row `head_rows[i]`), through the input dropout.
#[allow(clippy::too_many_arguments)]
pub fn finish_backward_sampled<T: Real>(
    p: &Params<T>,
    drop: &Dropouts,
    batch: &Batch,
    ids: &[u32],
    head_rows: &[u32],
    n_rows: usize,
    ws: &mut Workspace<T>,
    g: &mut Grads<T>,
    row_grads: &mut [T],
    seed: u64,
    step: u64,
) {
    let (d, m) = (p.d_e, ids.len());
    let masks = Masks::new(Mode::Train { seed, step }, drop);
    let s_in = T::from_f64(1.0 / (1.0 - drop.input));
    let mut t = std::time::Instant::now();
    if !masks.in_ent.identity {
        elementwise::dropout_rows_inplace(&mut row_grads[..m * d], ids, d, &masks.in_ent, s_in);
    }
    row_grads[m * d..n_rows * d].fill(T::ZERO);
    lap(&mut ws.timings, 7, &mut t);
    backward_hidden(p, drop, batch, ws, g, seed, step);
    let mut t = std::time::Instant::now();
    for (row, &r) in ws.dx0.chunks_exact(d).zip(head_rows) {
        for (gv, &v) in row_grads[r as usize * d..][..d].iter_mut().zip(row) {
            *gv += v;
        }
    }
    lap(&mut ws.timings, 11, &mut t);
}
