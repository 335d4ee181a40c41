//! Two exports that panic on purpose, so the test suite can check that a panic in a synchronous
//! export or in an async task's computation becomes a JS error (code `ENGINE_INTERNAL` or napi's
//! `GenericFailure`) and the process lives on. Nothing else calls them; compiled only with the
//! `test-exports` feature (the test build), so a production binding does not carry them.

use crate::errors::{guarded, reject, EngineResult};
use napi::bindgen_prelude::AsyncTask;
use napi::{Env, Task};
use napi_derive::napi;

/// Panics inside a synchronous export (test support).
#[napi(catch_unwind, js_name = "__panicForTests")]
pub fn panic_for_tests(message: String) {
    panic!("{message}");
}

pub struct PanicTask {
    message: String,
}

impl Task for PanicTask {
    type Output = EngineResult<()>;
    type JsValue = ();

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(guarded(|| panic!("{}", self.message)))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<()> {
        output.or_else(|e| reject(env, e))
    }
}

/// Panics inside an async task's computation, off the JS thread (test support).
#[napi(js_name = "__panicInTaskForTests", ts_return_type = "Promise<void>")]
pub fn panic_in_task_for_tests(message: String) -> AsyncTask<PanicTask> {
    AsyncTask::new(PanicTask { message })
}
