//! What a device keeps per compiled kernel: its pipeline, compiled on first use, and its
//! seconds when profiling. Needs only wgpu, so the device can hold it without depending on
//! the dispatch code ([`crate::kernel`]) that uses it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Seconds per kernel entry point, when profiling (`NEPTUNE_GPU_PROFILE=1`): each dispatch is
/// then submitted and waited for alone, which is slower but attributes the time.
#[derive(Default)]
pub(crate) struct KernelTimes(pub Mutex<Vec<(&'static str, f64)>>);

impl KernelTimes {
    pub(crate) fn add(&self, entry: &'static str, secs: f64) {
        let mut v = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match v.iter_mut().find(|(e, _)| *e == entry) {
            Some((_, t)) => *t += secs,
            None => v.push((entry, secs)),
        }
    }
}

/// Whether kernels are timed one by one (`NEPTUNE_GPU_PROFILE=1`).
pub(crate) fn profiling() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("NEPTUNE_GPU_PROFILE").is_some_and(|v| v == "1"))
}

#[derive(Default)]
pub(crate) struct PipelineCache(Mutex<HashMap<(usize, &'static str), Arc<wgpu::ComputePipeline>>>);

impl PipelineCache {
    /// The pipeline of `entry` in the WGSL `src` (a `'static` shader, keyed by its address),
    /// compiled on `device` the first time it is asked for.
    pub(crate) fn get(
        &self,
        device: &wgpu::Device,
        src: &'static str,
        entry: &'static str,
    ) -> Arc<wgpu::ComputePipeline> {
        let key = (src.as_ptr() as usize, entry);
        let mut cache = self.0.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .entry(key)
            .or_insert_with(|| {
                let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some(entry),
                    source: wgpu::ShaderSource::Wgsl(src.into()),
                });
                Arc::new(
                    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                        label: Some(entry),
                        layout: None,
                        module: &module,
                        entry_point: Some(entry),
                        compilation_options: Default::default(),
                        cache: None,
                    }),
                )
            })
            .clone()
    }
}
