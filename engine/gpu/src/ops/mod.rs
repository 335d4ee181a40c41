//! One file per kernel family; each records dispatches onto a [`crate::Recorder`].

pub mod gemm;
