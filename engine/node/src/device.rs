//! `device: 'auto' | 'cpu' | 'gpu'`: where a training run's steps execute. The GPU backend
//! (crate neptune_gpu) is compiled in only with this crate's `gpu` feature (`KGC_GPU=1 npm run
//! setup`); the model files are the same whichever device trained them.

use crate::errors::{EngineError, EngineErrorCode};
use napi_derive::napi;
use neptune_core::Trainer;

#[napi(string_enum = "lowercase")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrainingDevice {
    /// A hardware GPU when one is present (and the GPU backend is built), else the CPU.
    Auto,
    Cpu,
    /// Any GPU adapter, a software one (Mesa's lavapipe) included; an error when none.
    Gpu,
}

fn device_error(message: impl ToString) -> EngineError {
    napi::Error::new(EngineErrorCode::EngineDevice, message)
}

/// `trainer` set up to run on `choice` (CPU when `None`), and a description of the device.
#[cfg(feature = "gpu")]
pub fn on_device(
    trainer: Trainer,
    choice: Option<TrainingDevice>,
) -> Result<(Trainer, String), EngineError> {
    use neptune_gpu::{DeviceChoice, Gpu};
    let choice = match choice.unwrap_or(TrainingDevice::Cpu) {
        TrainingDevice::Auto => DeviceChoice::Auto,
        TrainingDevice::Cpu => DeviceChoice::Cpu,
        TrainingDevice::Gpu => DeviceChoice::Gpu,
    };
    match Gpu::open(choice).map_err(device_error)? {
        Some(gpu) => {
            let name = gpu.description();
            let gpu = std::sync::Arc::new(gpu);
            Ok((trainer.with_step_engine(neptune_gpu::factory(gpu)), name))
        }
        None => Ok(cpu(trainer)),
    }
}

/// Without the GPU backend: `auto` and `cpu` train on the CPU, `gpu` is an error that says how
/// to build it.
#[cfg(not(feature = "gpu"))]
pub fn on_device(
    trainer: Trainer,
    choice: Option<TrainingDevice>,
) -> Result<(Trainer, String), EngineError> {
    match choice {
        Some(TrainingDevice::Gpu) => Err(device_error(
            "this build of the engine has no GPU backend: rebuild it with `KGC_GPU=1 npm run setup`",
        )),
        _ => Ok(cpu(trainer)),
    }
}

fn cpu(trainer: Trainer) -> (Trainer, String) {
    let threads = match trainer.config.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    (trainer, format!("cpu ({threads} threads)"))
}
