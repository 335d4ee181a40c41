//! Choosing and opening the device: a real GPU for `auto`, any Vulkan/Metal/DX12 adapter
//! (Mesa's software lavapipe included) for `gpu`.

use std::fmt;

/// Where training runs, as the user asks for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceChoice {
    /// A hardware GPU when one is present, else the CPU engine.
    Auto,
    /// The CPU engine.
    Cpu,
    /// Any GPU adapter, software ones included (tests run on lavapipe); an error when none.
    Gpu,
}

/// An error from the GPU backend: no adapter, a device that refused the limits, a failed
/// readback.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuError(pub String);

impl GpuError {
    pub fn new(msg: impl Into<String>) -> Self {
        GpuError(msg.into())
    }
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for GpuError {}

/// One opened device and its queue.
pub struct Gpu {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    pub(crate) pipelines: crate::pipelines::PipelineCache,
    pub(crate) kernel_times: crate::pipelines::KernelTimes,
}

/// Preference among adapters: hardware first; a CPU (software) adapter last.
fn rank(t: wgpu::DeviceType) -> u8 {
    match t {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    }
}

/// Whether the operating system shows a GPU device: on Linux a DRM render node, NVIDIA's or
/// AMD's compute device, or WSL's; elsewhere the adapters decide.
fn os_shows_a_gpu() -> bool {
    if !cfg!(target_os = "linux") {
        return true;
    }
    let render_node = std::fs::read_dir("/dev/dri").is_ok_and(|d| {
        d.flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
    });
    render_node
        || ["/dev/nvidia0", "/dev/kfd", "/dev/dxg"]
            .iter()
            .any(|p| std::path::Path::new(p).exists())
}

impl Gpu {
    /// Opens the best adapter `choice` allows: `Ok(None)` for `Cpu`, and for `Auto` when only
    /// software adapters (or none) exist.
    pub fn open(choice: DeviceChoice) -> Result<Option<Gpu>, GpuError> {
        // `auto` on a machine that shows no GPU does not start Vulkan at all: a software
        // driver would be passed over anyway, and Mesa's prints errors about the desktop
        // session on headless machines.
        if choice == DeviceChoice::Cpu || (choice == DeviceChoice::Auto && !os_shows_a_gpu()) {
            return Ok(None);
        }
        let instance = wgpu::Instance::default();
        let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::PRIMARY));
        let best = adapters
            .into_iter()
            .filter(|a| {
                choice == DeviceChoice::Gpu || a.get_info().device_type != wgpu::DeviceType::Cpu
            })
            .min_by_key(|a| rank(a.get_info().device_type));
        let Some(adapter) = best else {
            return match choice {
                DeviceChoice::Auto => Ok(None),
                _ => Err(GpuError::new(
                    "no GPU adapter found (Vulkan, Metal or DX12); on Linux without a GPU, \
                     install Mesa's software driver (mesa-vulkan-drivers) or use --device cpu",
                )),
            };
        };
        let info = adapter.get_info();
        let desc = wgpu::DeviceDescriptor {
            label: Some("neptune"),
            // The adapter's own limits: the defaults cap storage buffers at 128 MiB and 8 per
            // stage, too few for the entity matrix of a large graph.
            required_limits: adapter.limits(),
            ..Default::default()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&desc))
            .map_err(|e| GpuError::new(format!("could not open {}: {e}", info.name)))?;
        Ok(Some(Gpu {
            device,
            queue,
            info,
            pipelines: Default::default(),
            kernel_times: Default::default(),
        }))
    }

    /// The adapter's name and driver, e.g. `llvmpipe (LLVM 15.0.6) (Vulkan, lavapipe)`.
    pub fn description(&self) -> String {
        let i = &self.info;
        format!("{} ({:?}, {})", i.name, i.backend, i.driver_info)
    }

    /// Seconds per kernel entry point so far, when profiling (`NEPTUNE_GPU_PROFILE=1`).
    pub fn kernel_seconds(&self) -> Vec<(&'static str, f64)> {
        self.kernel_times
            .0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The largest storage buffer the device binds, in bytes.
    pub fn max_buffer_bytes(&self) -> u64 {
        let l = self.device.limits();
        l.max_storage_buffer_binding_size.min(l.max_buffer_size)
    }
}
