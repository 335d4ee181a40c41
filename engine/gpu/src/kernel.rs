//! Compute kernels: WGSL entry points compiled once per device, and their dispatch.
//!
//! Convention for every shader: `@binding(0)` is a uniform struct of 4-byte scalars (passed
//! here as `u32`s, floats by their bits), `@binding(1..)` are the storage buffers in the order
//! the caller lists them. Linear thread ids over more than 65535 workgroups use
//! [`grid`]'s 2-D split: `id = gid.x + gid.y * nwg.x * WG`.

use crate::buffer::Tensor;
use crate::device::Gpu;
use crate::pipelines::profiling;
use wgpu::util::DeviceExt;

/// Workgroups for `n` threads of a 1-D kernel with workgroup size `wg`, split over x and y
/// when more than 65535 are needed.
pub fn grid(n: usize, wg: u32) -> [u32; 3] {
    let groups = n.div_ceil(wg as usize).max(1);
    if groups <= 65535 {
        [groups as u32, 1, 1]
    } else {
        let y = groups.div_ceil(65535);
        [groups.div_ceil(y) as u32, y as u32, 1]
    }
}

/// The uniform of one dispatch: 4-byte scalars, floats by their bits.
pub enum Arg {
    U(u32),
    F(f32),
}

/// A command encoder that records dispatches, then submits them together.
pub struct Recorder<'g> {
    gpu: &'g Gpu,
    enc: wgpu::CommandEncoder,
}

impl Gpu {
    /// Starts recording a sequence of dispatches.
    pub fn recorder(&self) -> Recorder<'_> {
        Recorder {
            gpu: self,
            enc: self.device.create_command_encoder(&Default::default()),
        }
    }
}

impl Recorder<'_> {
    /// Records `entry` of `src` over `groups` workgroups with the uniform `args` and the storage
    /// buffers `bufs` (bindings 1, 2, ...). Dispatches run in recording order, each seeing the
    /// writes of the ones before.
    pub fn dispatch(
        &mut self,
        src: &'static str,
        entry: &'static str,
        args: &[Arg],
        bufs: &[&Tensor],
        groups: [u32; 3],
    ) {
        let gpu = self.gpu;
        let pipe = gpu.pipelines.get(&gpu.device, src, entry);
        let mut words: Vec<u32> = args
            .iter()
            .map(|a| match *a {
                Arg::U(u) => u,
                Arg::F(f) => f.to_bits(),
            })
            .collect();
        // Uniform buffers are read in 16-byte rows.
        words.resize(words.len().div_ceil(4).max(1) * 4, 0);
        let uniform = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: None,
                contents: bytemuck::cast_slice(&words),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: uniform.as_entire_binding(),
        }];
        entries.extend(bufs.iter().enumerate().map(|(i, t)| wgpu::BindGroupEntry {
            binding: i as u32 + 1,
            resource: t.buf.as_entire_binding(),
        }));
        let bind = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipe.get_bind_group_layout(0),
            entries: &entries,
        });
        let started = profiling().then(std::time::Instant::now);
        {
            let mut pass = self.enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipe);
            pass.set_bind_group(0, &bind, &[]);
            pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
        }
        if let Some(t) = started {
            let enc = std::mem::replace(
                &mut self.enc,
                gpu.device.create_command_encoder(&Default::default()),
            );
            gpu.queue.submit([enc.finish()]);
            let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
            gpu.kernel_times.add(entry, t.elapsed().as_secs_f64());
        }
    }

    /// A temporary tensor of `len` elements for this recording (freed once its work is done).
    pub fn scratch(&mut self, len: usize) -> Tensor {
        self.gpu.zeros(len)
    }

    /// Submits everything recorded (does not wait).
    pub fn submit(self) {
        self.gpu.queue.submit([self.enc.finish()]);
    }
}
