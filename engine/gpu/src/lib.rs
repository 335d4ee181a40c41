//! NePTuNe training steps on a GPU: the forward, fused loss, backward and Adam of
//! `neptune_core`, as WGSL compute shaders dispatched through wgpu (Vulkan, Metal, DX12).
//! The same shaders run on Mesa's software Vulkan driver (lavapipe), which is how CI tests them.
//! Parameters stay on the device between steps and are read back for validation and checkpoints.

mod batch_layout;
mod buffer;
mod device;
mod kernel;
pub mod mask;
pub mod ops;
mod pipelines;
mod sampling;
mod step;

pub use buffer::Tensor;
pub use device::{DeviceChoice, Gpu, GpuError};
pub use kernel::{grid, Arg, Recorder};
pub use mask::DeviceMask;
pub use step::{factory, GpuSteps};
