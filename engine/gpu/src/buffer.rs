//! Device tensors: flat f32 or u32 storage buffers, uploaded and read back whole.

use crate::device::{Gpu, GpuError};
use wgpu::util::DeviceExt;

/// A storage buffer of `len` 4-byte elements (f32 or u32; the kernel decides).
pub struct Tensor {
    pub(crate) buf: wgpu::Buffer,
    pub len: usize,
}

const USAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST);

impl Gpu {
    /// A zero-filled tensor of `len` elements (at least one: empty bindings are invalid).
    pub fn zeros(&self, len: usize) -> Tensor {
        let buf = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: (len.max(1) * 4) as u64,
            usage: USAGE,
            mapped_at_creation: false,
        });
        Tensor { buf, len }
    }

    /// A tensor holding `data`.
    pub fn upload<T: bytemuck::Pod>(&self, data: &[T]) -> Tensor {
        assert_eq!(std::mem::size_of::<T>(), 4, "tensors hold 4-byte elements");
        if data.is_empty() {
            return self.zeros(0);
        }
        let buf = self
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: None,
                contents: bytemuck::cast_slice(data),
                usage: USAGE,
            });
        Tensor {
            buf,
            len: data.len(),
        }
    }

    /// Grows `t` to at least `n` elements (contents lost when it grows): per-step buffers.
    pub(crate) fn ensure(&self, t: &mut Tensor, n: usize) {
        if t.len < n {
            *t = self.zeros(n);
        }
    }

    /// Overwrites the first `data.len()` elements of `t` (queued before the next submit).
    pub fn write<T: bytemuck::Pod>(&self, t: &Tensor, data: &[T]) {
        assert!(
            data.len() <= t.len,
            "write of {} into {}",
            data.len(),
            t.len
        );
        if !data.is_empty() {
            self.queue
                .write_buffer(&t.buf, 0, bytemuck::cast_slice(data));
        }
    }

    /// Reads back the first `len` elements of `t`, after all submitted work.
    pub fn read<T: bytemuck::Pod>(&self, t: &Tensor, len: usize) -> Result<Vec<T>, GpuError> {
        assert!(len <= t.len);
        if len == 0 {
            return Ok(Vec::new());
        }
        let bytes = (len * 4) as u64;
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = self.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(&t.buf, 0, &staging, 0, bytes);
        self.queue.submit([enc.finish()]);
        let (tx, rx) = std::sync::mpsc::channel();
        staging.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| GpuError::new(format!("device lost while reading back: {e}")))?;
        rx.recv()
            .map_err(|_| GpuError::new("readback never completed"))?
            .map_err(|e| GpuError::new(format!("readback failed: {e}")))?;
        let out = {
            let view = staging
                .get_mapped_range(..)
                .map_err(|e| GpuError::new(format!("readback failed: {e}")))?;
            bytemuck::cast_slice(&view).to_vec()
        };
        staging.unmap();
        Ok(out)
    }
}
