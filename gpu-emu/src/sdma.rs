//! An SDMA engine, offered only with `GPU_EMU_SDMA=1` (without it SDMA queues are refused and ROCr
//! copies with its blit kernels). ROCr 5.2.3's `BlitSdma` for gfx9 writes SDMA v4 packets into a
//! 1 MiB ring, with 64-bit byte indices that only grow (`Queue_write_ptr`, then the doorbell); the
//! engine, one thread per queue, runs each packet in order and moves `Queue_read_ptr` past it. The
//! packets are those ROCr emits (`sdma_registers.h`, `amd_blit_sdma.cpp`): NOP padding, linear copy,
//! linear sub-window (rectangle) copy, constant fill, fence, trap, memory poll (the HDP flush's
//! register poll is skipped: there is no HDP), 64-bit atomic add and the global timestamp. Anything
//! else stops the queue with one line, as a hung engine would stop.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// `GPU_EMU_SDMA=1`: SDMA queues are emulated.
pub const VARIABLE: &str = "GPU_EMU_SDMA";

pub fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var(VARIABLE).is_ok_and(|v| v == "1"))
}

const IDLE: Duration = Duration::from_micros(200);

// SDMA v4 opcodes and sub-opcodes ROCr uses.
const OP_NOP: u32 = 0;
const OP_COPY: u32 = 1;
const OP_FENCE: u32 = 5;
const OP_TRAP: u32 = 6;
const OP_POLL_REGMEM: u32 = 8;
const OP_ATOMIC: u32 = 10;
const OP_CONST_FILL: u32 = 11;
const OP_TIMESTAMP: u32 = 13;
const SUB_COPY_LINEAR: u32 = 0;
const SUB_COPY_RECT: u32 = 4;
const SUB_TIMESTAMP_GLOBAL: u32 = 2;
const ATOMIC_ADD64: u32 = 47;

/// One SDMA queue: ROCr's ring and the read, write and doorbell words the thunk hands it.
pub struct SdmaQueue {
    pub id: u64,
    ring: usize,
    bytes: u64,
    pub rptr: Box<AtomicU64>,
    pub wptr: Box<AtomicU64>,
    pub doorbell: Box<AtomicU64>,
    stop: AtomicBool,
}

/// What one packet did, for the log and the tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Done {
    Nop,
    Copy { bytes: u64 },
    Rect { x_bytes: u64, y: u64, z: u64 },
    Fill { dwords: u64 },
    Fence,
    Trap { event: u32 },
    Poll,
    RegisterPoll,
    Atomic,
    Timestamp,
}

/// A packet the engine does not run: the queue stops.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("unknown SDMA packet (op {op}, sub-op {sub_op})")]
pub struct Unknown {
    op: u32,
    sub_op: u32,
}

fn addr(lo: u32, hi: u32) -> usize {
    (u64::from(hi) << 32 | u64::from(lo)) as usize
}

/// Runs the packet at `p` (its dwords); `stop` ends a memory poll that would otherwise wait for
/// ever. Returns its size in dwords and what it did.
///
/// # Safety
/// `p` points at a whole packet written by ROCr, and every address in it is live memory of the
/// process, as the engine's contract with ROCr has it.
pub unsafe fn execute(p: *const u32, stop: &AtomicBool) -> Result<(usize, Done), Unknown> {
    // SAFETY: `i).read_volatile(` is readable (# Safety).
    let dw = |i: usize| unsafe { p.add(i).read_volatile() };
    let header = dw(0);
    let (op, sub_op) = (header & 0xff, (header >> 8) & 0xff);
    Ok(match (op, sub_op) {
        (OP_NOP, _) => (1, Done::Nop),
        (OP_COPY, SUB_COPY_LINEAR) => {
            // count is the byte count minus one (gfx9).
            let bytes = u64::from(dw(1) & 0x3f_ffff) + 1;
            // SAFETY: the copy's source is readable and its destination writable for the count, as the caller
            // promises (# Safety).
            unsafe { std::ptr::copy(addr(dw(3), dw(4)) as *const u8, addr(dw(5), dw(6)) as *mut u8, bytes as usize) };
            (7, Done::Copy { bytes })
        }
        // SAFETY: `rect`'s # Safety follows from this fn's.
        (OP_COPY, SUB_COPY_RECT) => (13, unsafe { rect(p) }),
        (OP_CONST_FILL, _) => {
            // A dword fill: count is (dwords - 1) * 4.
            let dwords = u64::from(dw(4) & 0x3f_ffff) / 4 + 1;
            let dst = addr(dw(1), dw(2)) as *mut u32;
            for i in 0..dwords as usize {
                // SAFETY: the address written here is writable, as the caller promises (# Safety).
                unsafe { dst.add(i).write_unaligned(dw(3)) };
            }
            (5, Done::Fill { dwords })
        }
        (OP_FENCE, _) => {
            // SAFETY: the pointer dereferenced here is valid for this access, as the caller promises (# Safety).
            unsafe { (*(addr(dw(1), dw(2)) as *const AtomicU32)).store(dw(3), Ordering::Release) };
            (4, Done::Fence)
        }
        (OP_TRAP, _) => {
            let event = dw(1) & 0x0fff_ffff;
            crate::events::raise(event);
            (2, Done::Trap { event })
        }
        (OP_POLL_REGMEM, _) if header >> 31 == 0 => (6, Done::RegisterPoll),
        (OP_POLL_REGMEM, _) => {
            let (at, value, mask, func) = (addr(dw(1), dw(2)) as *const AtomicU32, dw(3), dw(4), (header >> 28) & 7);
            // SAFETY: the polled word's address is live memory of the process (# Safety).
            while !stop.load(Ordering::Acquire)
                && !compare(func, unsafe { (*at).load(Ordering::Acquire) } & mask, value)
            {
                std::thread::sleep(IDLE);
            }
            (6, Done::Poll)
        }
        (OP_ATOMIC, _) if (header >> 25) & 0x7f == ATOMIC_ADD64 => {
            let add = (u64::from(dw(4)) << 32 | u64::from(dw(3))) as i64;
            // SAFETY: the pointer dereferenced here is valid for this access, as the caller promises (# Safety).
            unsafe { (*(addr(dw(1), dw(2)) as *const AtomicI64)).fetch_add(add, Ordering::AcqRel) };
            (8, Done::Atomic)
        }
        (OP_TIMESTAMP, SUB_TIMESTAMP_GLOBAL) => {
            // SAFETY: the pointer dereferenced here is valid for this access, as the caller promises (# Safety).
            unsafe { (*(addr(dw(1), dw(2)) as *const AtomicU64)).store(crate::clocks::gpu_ticks(), Ordering::Release) };
            (3, Done::Timestamp)
        }
        _ => return Err(Unknown { op, sub_op }),
    })
}

/// The comparisons of POLL_REGMEM's `func` (0 always, then <, <=, ==, !=, >=, >).
fn compare(func: u32, got: u32, want: u32) -> bool {
    match func {
        0 => true,
        1 => got < want,
        2 => got <= want,
        3 => got == want,
        4 => got != want,
        5 => got >= want,
        6 => got > want,
        _ => false,
    }
}

/// A linear sub-window copy: elements of 2^element bytes, a dword-aligned base with an x offset in
/// elements, pitches and slices in elements minus one, and the rectangle's extent minus one.
///
/// # Safety
/// `p` points at a whole rectangle-copy packet, and its addresses are live memory of the process.
unsafe fn rect(p: *const u32) -> Done {
    // SAFETY: `i).read_volatile(` is readable (# Safety).
    let dw = |i: usize| unsafe { p.add(i).read_volatile() };
    let e = 1usize << (dw(0) >> 29);
    let side = |at: usize| {
        let base = addr(dw(at), dw(at + 1));
        let (x, y, z) =
            ((dw(at + 2) & 0x3fff) as usize, (dw(at + 2) >> 16 & 0x3fff) as usize, (dw(at + 3) & 0x7ff) as usize);
        let pitch = ((dw(at + 3) >> 13) as usize + 1) * e;
        let slice = ((dw(at + 4) & 0x0fff_ffff) as usize + 1) * e;
        move |row: usize, plane: usize| base + x * e + (y + row) * pitch + (z + plane) * slice
    };
    let (src, dst) = (side(1), side(6));
    let (w, h, d) =
        (((dw(11) & 0x3fff) as usize + 1) * e, (dw(11) >> 16 & 0x3fff) as usize + 1, (dw(12) & 0x7ff) as usize + 1);
    for plane in 0..d {
        for row in 0..h {
            // SAFETY: the copy's source is readable and its destination writable for the count, as the caller
            // promises (# Safety).
            unsafe { std::ptr::copy(src(row, plane) as *const u8, dst(row, plane) as *mut u8, w) };
        }
    }
    Done::Rect { x_bytes: w as u64, y: h as u64, z: d as u64 }
}

fn run(q: &SdmaQueue) {
    let log = crate::cp::logging();
    while !q.stop.load(Ordering::Acquire) {
        let (read, write) = (q.rptr.load(Ordering::Acquire), q.wptr.load(Ordering::Acquire));
        if read >= write {
            std::thread::sleep(IDLE);
            continue;
        }
        let at = (q.ring + (read % q.bytes) as usize) as *const u32;
        // SAFETY: ROCr wrote a whole packet there before moving the write pointer past it.
        match unsafe { execute(at, &q.stop) } {
            Ok((dwords, done)) => {
                if log && done != Done::Nop {
                    crate::note(format_args!("sdma {} packet {read:#x}: {done:?}", q.id));
                }
                q.rptr.store(read + 4 * dwords as u64, Ordering::Release);
            }
            Err(e) => {
                crate::note(format_args!("sdma {} packet {read:#x}: {e}; the queue stops", q.id));
                return;
            }
        }
    }
}

struct Running {
    queue: Arc<SdmaQueue>,
    thread: Option<JoinHandle<()>>,
}

static QUEUES: Mutex<Option<HashMap<u64, Running>>> = Mutex::new(None);

/// Starts an engine on ROCr's ring of `bytes` bytes (a power of two).
pub fn start(id: u64, ring: usize, bytes: u64) -> Arc<SdmaQueue> {
    let queue = Arc::new(SdmaQueue {
        id,
        ring,
        bytes,
        rptr: Box::new(AtomicU64::new(0)),
        wptr: Box::new(AtomicU64::new(0)),
        doorbell: Box::new(AtomicU64::new(0)),
        stop: AtomicBool::new(false),
    });
    let runner = queue.clone();
    let thread = std::thread::Builder::new()
        .name(format!("gpu-emu-sdma{id}"))
        .spawn(move || run(&runner))
        .expect("spawning an SDMA engine thread");
    QUEUES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(HashMap::new)
        .insert(id, Running { queue: queue.clone(), thread: Some(thread) });
    queue
}

/// Stops the engine of queue `id`; false when no SDMA queue has that id.
pub fn stop(id: u64) -> bool {
    let running = QUEUES.lock().unwrap_or_else(|e| e.into_inner()).as_mut().and_then(|q| q.remove(&id));
    let Some(mut r) = running else { return false };
    r.queue.stop.store(true, Ordering::Release);
    if let Some(t) = r.thread.take() {
        let _ = t.join();
    }
    true
}

#[cfg(test)]
#[path = "sdma_tests.rs"]
mod tests;
