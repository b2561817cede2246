//! An emulated AMD gfx906 GPU behind the ROCT thunk's C API (`libhsakmt.so.1`): a GPU emulator for
//! tests, never a driver. Debian's real ROCr reaches the device only through the 42 `hsaKmt*`
//! functions it imports; this crate answers them from host memory and a command processor thread
//! per queue, so ROCr, `rocminfo` and HIP run unchanged. See `docs/gpu-emu.md`.
//!
//! One concern per module: [`topology`] (nodes, banks, caches, links), [`memory`] (allocations and
//! pointer information), [`events`] (KFD events and waits), [`clocks`], [`queues`] (queue creation),
//! [`cp`] (the command processor), [`sdma`] (the SDMA engine, on request), [`signal`] (ROCr's `amd_signal_t`), [`kernels`] (what a dispatch
//! runs), [`faults`] (faults on demand), [`kfd`] (opening, closing and the calls that only answer)
//! and [`watchdog`] (a report of a process that runs too long, for tests).
//! The same crate also builds the emulated AQLprofile library ([`aqlprofile`], with its PM4 format
//! [`pm4`] and counter model [`pmc`]).

// The exported `hsaKmt*` functions are C entry points taking the thunk's raw pointers: their
// contract is the thunk's (hsakmt.h), checked for null where the real thunk checks.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

pub mod aqlprofile;
pub mod clocks;
pub mod cp;
pub mod events;
pub mod faults;
pub mod kernels;
pub mod kfd;
pub mod memory;
pub mod pm4;
pub mod pmc;
pub mod queue;
pub mod queues;
pub mod sdma;
pub mod signal;
#[allow(clippy::all)]
pub mod sys;
pub mod topology;
pub mod watchdog;

use sys::{HSAKMT_STATUS, HSAKMT_STATUS_ERROR};

/// Runs an exported function's body; a panic becomes `HSAKMT_STATUS_ERROR` instead of unwinding
/// into ROCr's C++.
pub(crate) fn guard(body: impl FnOnce() -> HSAKMT_STATUS) -> HSAKMT_STATUS {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)).unwrap_or(HSAKMT_STATUS_ERROR)
}

/// One line on stderr, prefixed so it is never mistaken for ROCr's own output, written with one
/// `write` so that other threads' output (ROCr's, HIP's) cannot cut it.
pub(crate) fn note(msg: std::fmt::Arguments) {
    use std::io::Write;
    let line = format!("gpu-emu: {msg}\n");
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}
