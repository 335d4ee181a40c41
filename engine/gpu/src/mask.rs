//! Dropout masks on the device, bit-identical to the CPU's: the host computes each row's
//! 64-bit-mixed key (`neptune_core::rng::Mask::row_key`, cheap: one per row), the kernels hash
//! `(row key, column)` with 32-bit `lowbias32` exactly as `Mask::keep` does.
//!
//! In WGSL: `h = lowbias32(rk + ((col >> 6) * 32 + (col & 31)) * 0x9E3779B9u)`, and column `col`
//! is kept when the 16-bit half of `h` it takes (the high one when `col & 32`) is at least the
//! threshold (0 to 2^16); a zero threshold
//! keeps everything (p = 0), so kernels need no identity special case. Shaders that use masks
//! are compiled with it in front: `concat!(include_str!("../shaders/mask.wgsl"), include_str!(..))`.

use crate::buffer::Tensor;
use crate::device::Gpu;
use neptune_core::rng::Mask;

/// One step's mask over `rows` rows: their keys on the device, the threshold and the kept
/// values' scale `1 / (1 - p)`.
pub struct DeviceMask {
    pub row_keys: Tensor,
    pub threshold: u32,
    pub scale: f32,
    keys: Vec<u32>,
}

impl DeviceMask {
    /// A mask buffer for up to `rows` rows (filled by [`DeviceMask::set`]).
    pub fn new(gpu: &Gpu, rows: usize) -> Self {
        DeviceMask {
            row_keys: gpu.zeros(rows),
            threshold: 0,
            scale: 1.0,
            keys: Vec::with_capacity(rows),
        }
    }

    /// Loads `mask`'s keys for rows `0..rows` with drop probability `p` (queued write).
    pub fn set(&mut self, gpu: &Gpu, mask: &Mask, p: f64, rows: usize) {
        self.set_keys(gpu, mask, p, rows, 0..rows as u64);
    }

    /// Loads, as row `i`, `mask`'s keys of row `ids[i]`: a block of gathered rows (a sampled
    /// step's columns of E) is masked as those rows are in the whole matrix.
    pub fn set_rows(&mut self, gpu: &Gpu, mask: &Mask, p: f64, ids: &[u32]) {
        let keyed = ids.iter().map(|&r| r as u64);
        self.set_keys(gpu, mask, p, ids.len(), keyed);
    }

    fn set_keys(
        &mut self,
        gpu: &Gpu,
        mask: &Mask,
        p: f64,
        rows: usize,
        keyed: impl Iterator<Item = u64>,
    ) {
        assert!(
            rows <= self.row_keys.len,
            "mask of {rows} rows in {}",
            self.row_keys.len
        );
        self.threshold = mask.threshold();
        self.scale = (1.0 / (1.0 - p)) as f32;
        self.keys.clear();
        if !mask.identity {
            self.keys.extend(keyed.map(|r| mask.row_key(r)));
            gpu.write(&self.row_keys, &self.keys);
        }
    }
}
