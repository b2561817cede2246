//! The stream child: small kernels back to back, timed at the host, with
//! the events an application (or a device-timing tool) would ask for.

use super::{setup_queue, Cl, Fp, Setup};
use cltap::devtime::cl::{CL_EVENT_COMMAND_EXECUTION_STATUS, CL_EVENT_COMMAND_TYPE, CL_PROFILING_COMMAND_QUEUED};
use cltap::devtime::queues::CL_QUEUE_PROFILING_ENABLE;
use std::time::Instant;

/// Work-items of each kernel of the stream.
pub const STREAM_ITEMS: usize = 1024;

/// What the application of the stream asks of each command's event.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum StreamEvents {
    /// No event.
    None,
    /// An event on a plain queue, released after the clFinish, untimed.
    App,
    /// An event on a profiling queue, released untimed: what the driver
    /// itself charges for a command whose device times can be read, the
    /// floor of any tool that reads them from OpenCL events.
    Profiled,
    /// [`StreamEvents::Profiled`], each event then read after the clFinish
    /// as cltap's device timing reads it (status, command type, the four
    /// profiling times) and released, all timed.
    ProfiledRead,
}

/// The stream of small kernels: `n` NDRanges of [`STREAM_ITEMS`] enqueued
/// back to back with the device running, then one clFinish; host ns per
/// enqueue, clFinish included (what the application waits for), minimum
/// over repetitions after one untimed warm-up; then the enqueues alone
/// of that repetition (`stream-enqueues`).
///
/// # Safety
/// `p` is a platform of the driver `cl`'s entry points came from.
pub(super) unsafe fn stream(cl: &Cl, p: Fp, n: usize, events: StreamEvents) -> Result<(), String> {
    let profiling = matches!(events, StreamEvents::Profiled | StreamEvents::ProfiledRead);
    // SAFETY: `setup_queue`'s # Safety follows from this fn's.
    let Setup { q, k, .. } = unsafe { setup_queue(cl, p, if profiling { CL_QUEUE_PROFILING_ENABLE } else { 0 }) }?;
    let v: i32 = 1;
    // SAFETY: the entry called here gets arguments its C declaration accepts.
    unsafe { (cl.set_kernel_arg)(k, 1, 4, &v as *const i32 as *const std::ffi::c_void) };
    let g = STREAM_ITEMS;
    let mut evs: Vec<Fp> = vec![std::ptr::null(); n];
    let (mut best, mut best_enqueues) = (f64::INFINITY, 0.0);
    for rep in 0..8 {
        let t = Instant::now();
        for e in evs.iter_mut() {
            let out = if events == StreamEvents::None { std::ptr::null_mut() } else { e as *mut Fp };
            // SAFETY: the entry called here gets arguments its C declaration accepts.
            let r = unsafe {
                (cl.enqueue_ndrange)(q, k, 1, std::ptr::null(), &g, std::ptr::null(), 0, std::ptr::null(), out)
            };
            if r != 0 {
                return Err(format!("clEnqueueNDRangeKernel failed ({r})"));
            }
        }
        let enqueues = t.elapsed().as_nanos() as f64 / n.max(1) as f64;
        // SAFETY: the entry called here gets arguments its C declaration accepts.
        unsafe { (cl.finish)(q) };
        if events == StreamEvents::ProfiledRead {
            for e in evs.iter_mut() {
                // SAFETY: `read_profiled`'s # Safety follows from this fn's.
                unsafe { read_profiled(cl, *e)? };
                // SAFETY: the entry called here gets arguments its C declaration accepts.
                unsafe { (cl.release_event)(*e) };
                *e = std::ptr::null();
            }
        }
        let ns = t.elapsed().as_nanos() as f64 / n.max(1) as f64;
        if rep > 0 && ns < best {
            (best, best_enqueues) = (ns, enqueues);
        }
        for e in evs.iter_mut().filter(|e| !e.is_null()) {
            // SAFETY: the entry called here gets arguments its C declaration accepts.
            unsafe { (cl.release_event)(*e) };
            *e = std::ptr::null();
        }
    }
    // The enqueues' share of the best repetition: where the driver's
    // price is paid (at the enqueues, or in the clFinish and the reads).
    println!("stream {best}");
    println!("stream-enqueues {best_enqueues}");
    Ok(())
}

/// Reads what device timing reads of a completed command's event: its
/// status, its command type and its four profiling times.
///
/// # Safety
/// `ev` is a live event of `cl`'s driver, made on a queue with profiling on.
unsafe fn read_profiled(cl: &Cl, ev: Fp) -> Result<(), String> {
    let (mut status, mut kind) = (0i32, 0u32);
    let mut t = [0u64; 4];
    // SAFETY: the entry called here gets arguments its C declaration accepts.
    let mut r = unsafe {
        (cl.get_event_info)(
            ev,
            CL_EVENT_COMMAND_EXECUTION_STATUS,
            4,
            &mut status as *mut i32 as *mut u8,
            std::ptr::null_mut(),
        )
    };
    // SAFETY: the entry called here gets arguments its C declaration accepts.
    r |= unsafe {
        (cl.get_event_info)(ev, CL_EVENT_COMMAND_TYPE, 4, &mut kind as *mut u32 as *mut u8, std::ptr::null_mut())
    };
    for (i, v) in t.iter_mut().enumerate() {
        // SAFETY: the entry called here gets arguments its C declaration accepts.
        r |= unsafe {
            (cl.get_event_profiling_info)(
                ev,
                CL_PROFILING_COMMAND_QUEUED + i as u32,
                8,
                v as *mut u64 as *mut u8,
                std::ptr::null_mut(),
            )
        };
    }
    if r != 0 || status != 0 || t[3] < t[2] {
        return Err(format!("a profiled event read back {r}, status {status}, times {t:?}"));
    }
    Ok(())
}
