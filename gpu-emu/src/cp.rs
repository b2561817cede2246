//! The command processor: one thread per queue that polls ROCr's write index and doorbell and runs packets in
//! order, one after another. Kernel dispatches run their kernel's code on the shader core
//! ([`crate::kernels`]; a fault halts the queue as on hardware), barrier-AND
//! and barrier-OR wait for their dependent signals, vendor (PM4) packets run the emulated
//! AQLprofile's counter commands ([`crate::pm4`]; ROCr's own PM4 is skipped); each then
//! its slot becomes INVALID again, `read_dispatch_id` advances (ROCr busy-waits on it), and only
//! then its signal completes ([`crate::signal`]): as on hardware, where the packet processor has
//! consumed a packet before it completes, an application that saw a completion reads a read index
//! past that packet. Nothing here depends on how fast that happens.

use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};
use std::time::Duration;

use cltap::hsa::packet::{Barrier, KernelDispatch, PacketType, PACKET_SIZE};

use crate::kernels::Origin;
use crate::queue::Queue;
use crate::signal::Signal;

/// How long an idle command processor sleeps between polls.
const IDLE: Duration = Duration::from_micros(200);
/// `HSA_PACKET_TYPE_INVALID` in a header's low byte.
const INVALID: u16 = 1;
/// `completion_signal` of a vendor (AMD PM4 IB) packet: its last 8 bytes.
const VENDOR_SIGNAL_OFFSET: usize = 56;

/// `GPU_EMU_LOG=1`: one stderr line per packet run (for tests and debugging; off by default).
pub const LOG_VARIABLE: &str = "GPU_EMU_LOG";

/// `GPU_EMU_PACKET_DELAY_US=N`: the command processor waits N microseconds before each packet,
/// as a slow device (or a long kernel) would, so that queues fill up behind it (for tests).
pub const DELAY_VARIABLE: &str = "GPU_EMU_PACKET_DELAY_US";
/// The longest delay accepted (one second).
const DELAY_MAX_US: u64 = 1_000_000;

fn delay() -> Option<Duration> {
    static DELAY: std::sync::OnceLock<Option<Duration>> = std::sync::OnceLock::new();
    *DELAY.get_or_init(|| {
        let v = std::env::var(DELAY_VARIABLE).ok()?;
        match v.parse::<u64>() {
            Ok(0) => None,
            Ok(us) if us <= DELAY_MAX_US => Some(Duration::from_micros(us)),
            _ => {
                crate::note(format_args!(
                    "{DELAY_VARIABLE}={v}: not a number of microseconds from 0 to {DELAY_MAX_US}; packets run undelayed"
                ));
                None
            }
        }
    })
}

pub(crate) fn logging() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var(LOG_VARIABLE).is_ok_and(|v| v == "1"))
}

/// Dispatches run so far over every queue (1-based numbering for faults on demand).
static DISPATCHES: AtomicU64 = AtomicU64::new(0);

pub fn run(q: &Queue) {
    while !q.stop.load(Ordering::Acquire) {
        if !step(q) {
            std::thread::sleep(IDLE);
        }
    }
}

fn header(slot: usize) -> &'static AtomicU16 {
    // SAFETY: a packet slot of ROCr's ring, which outlives the queue; the header is its first u16.
    unsafe { &*(slot as *const AtomicU16) }
}

/// Runs the next packet if there is one ready; false when idle.
pub fn step(q: &Queue) -> bool {
    if !q.active.load(Ordering::Acquire) || q.halted.load(Ordering::Acquire) {
        return false;
    }
    let read = q.read_index().load(Ordering::Acquire);
    if read >= q.write_index().load(Ordering::Acquire) {
        return false;
    }
    // A packet is read once its doorbell is rung, as the hardware's packet processor reads it, not
    // when its header looks written: ROCclr writes a vendor packet (AQLprofile's start and stop)
    // as one struct copy, header first, then rings, so a header could be seen before the body.
    let rung = q.doorbell.load(Ordering::Acquire);
    if rung == crate::queue::NOT_RUNG || read > rung {
        return false;
    }
    let slot = q.ring + (read % q.packets) as usize * PACKET_SIZE;
    let h = header(slot).load(Ordering::Acquire);
    if h & 0xff == INVALID {
        // Reserved but not yet written.
        return false;
    }
    // SAFETY: a whole 64-byte packet slot of the ring.
    let bytes: [u8; PACKET_SIZE] = unsafe { std::ptr::read_volatile(slot as *const [u8; PACKET_SIZE]) };
    let kind = PacketType::from_u8(h as u8);
    if let Some(d) = delay() {
        std::thread::sleep(d);
    }
    if logging() {
        log(q, read, kind, &bytes);
    }
    let done = match kind {
        PacketType::KernelDispatch => dispatch(q, &KernelDispatch::read(&bytes), slot, read),
        PacketType::BarrierAnd => barrier(q, &bytes, true),
        PacketType::BarrierOr => barrier(q, &bytes, false),
        PacketType::VendorSpecific => {
            let handle = u64::from_le_bytes(bytes[VENDOR_SIGNAL_OFFSET..].try_into().expect("8 bytes"));
            Some(timed(q, handle, || q.counters.lock().unwrap_or_else(|e| e.into_inner()).execute(&bytes)))
        }
        _ => {
            crate::faults::queue_error(q, crate::faults::QUEUE_ERROR_INVALID_PACKET);
            None
        }
    };
    let Some(done) = done else { return true };
    header(slot).store(INVALID, Ordering::Release);
    q.read_index().store(read + 1, Ordering::Release);
    done.signal();
    true
}

/// A packet's completion, signalled once the packet is retired.
struct Done {
    handle: u64,
    times: Option<(u64, u64)>,
}

impl Done {
    fn signal(self) {
        if let Some(s) = Signal::from_handle(self.handle) {
            s.complete(self.times);
        }
    }
}

fn log(q: &Queue, index: u64, kind: PacketType, bytes: &[u8; PACKET_SIZE]) {
    let what = match kind {
        PacketType::KernelDispatch => {
            let d = KernelDispatch::read(bytes);
            let k = crate::kernels::identify(d.kernel_object);
            format!("dispatch {} grid={:?}", k.kernel.label(), d.grid_size)
        }
        other => format!("{other:?}"),
    };
    crate::note(format_args!("queue {} packet {index}: {what}", q.id));
}

/// Runs `work`; its completion carries the timestamps when the queue profiles.
fn timed(q: &Queue, handle: u64, work: impl FnOnce()) -> Done {
    let start = crate::clocks::gpu_ticks();
    work();
    let end = crate::clocks::gpu_ticks();
    Done { handle, times: q.profiling().then_some((start, end)) }
}

fn dispatch(q: &Queue, d: &KernelDispatch, slot: usize, index: u64) -> Option<Done> {
    let number = DISPATCHES.fetch_add(1, Ordering::AcqRel) + 1;
    let loaded = crate::kernels::identify(d.kernel_object);
    if let Some(fault) = crate::faults::wanted(number, loaded.kernel.name()) {
        crate::faults::deliver(q, fault);
        return None;
    }
    let origin = Origin { packet_address: slot as u64, queue_address: q.amd_queue as u64, dispatch_id: index };
    let start = crate::clocks::gpu_ticks();
    let ran = crate::kernels::execute(&loaded, d, origin);
    let end = crate::clocks::gpu_ticks();
    match ran {
        Ok(outcome) => {
            let run = crate::pmc::Dispatched { shape: crate::pmc::Shape::of(d), engines: outcome.engines };
            q.counters.lock().unwrap_or_else(|e| e.into_inner()).on_dispatch(&run);
            Some(Done { handle: d.completion_signal, times: q.profiling().then_some((start, end)) })
        }
        Err(fault) => {
            crate::note(format_args!("queue {}: dispatch of {} faulted: {fault}", q.id, loaded.kernel.label()));
            match fault {
                // KFD's memory fault at the address, as a GPU's page fault reaches ROCr.
                gfx906::Fault::Memory { addr, .. } => {
                    q.halted.store(true, Ordering::Release);
                    crate::events::raise_memory_fault(addr);
                }
                _ => crate::faults::deliver(q, crate::faults::Fault::IllegalInstruction),
            }
            None
        }
    }
}

/// Waits until all (AND) or one (OR) of the dependent signals is 0; null handles are ignored.
fn barrier(q: &Queue, bytes: &[u8; PACKET_SIZE], all: bool) -> Option<Done> {
    // SAFETY: a plain repr(C) struct of integers read from its size.
    let b: Barrier = unsafe { std::ptr::read_unaligned(bytes.as_ptr() as *const Barrier) };
    let deps: Vec<Signal> = b.dep_signal.iter().filter_map(|&h| Signal::from_handle(h)).collect();
    loop {
        let zero = deps.iter().filter(|s| s.load() == 0).count();
        let met = if all { zero == deps.len() } else { deps.is_empty() || zero > 0 };
        if met {
            break;
        }
        if q.stop.load(Ordering::Acquire) {
            return None;
        }
        std::thread::sleep(IDLE);
    }
    Some(timed(q, b.completion_signal, || ()))
}

#[cfg(test)]
#[path = "cp_tests.rs"]
mod tests;

/// A counter the unit tests read to check that a queue ran a number of packets.
pub fn dispatches_so_far() -> u64 {
    DISPATCHES.load(Ordering::Acquire)
}
