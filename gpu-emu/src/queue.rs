//! One AQL queue as the command processor sees it: ROCr's ring and the
//! fields of ROCr's `amd_queue_t` it reads and writes. `queues` makes and
//! ends them; `cp` runs them; `faults` halts them.

use std::mem::offset_of;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use crate::sys::*;

/// A doorbell no packet index was stored to yet.
pub const NOT_RUNG: u64 = u64::MAX;

/// One AQL queue as the command processor sees it.
pub struct Queue {
    pub id: u64,
    /// The ring of 64-byte packets and its length in packets (a power of two).
    pub ring: usize,
    pub packets: u64,
    /// ROCr's `amd_queue_t` (the read pointer minus its offset).
    pub amd_queue: usize,
    /// Where ROCr stores the last packet index it wrote (gfx9: a 64-bit store); [`NOT_RUNG`]
    /// until the first.
    pub doorbell: Box<AtomicU64>,
    /// `hsaKmtUpdateQueue` with 0 percent suspends the queue.
    pub active: AtomicBool,
    pub stop: AtomicBool,
    /// Set by a queue error: the queue processes nothing more, as on hardware.
    pub halted: AtomicBool,
    /// The performance counters armed by AQLprofile's PM4 packets on this queue.
    pub counters: Mutex<crate::pm4::Counters>,
}

impl Queue {
    fn field(&self, offset: usize) -> &AtomicU64 {
        // SAFETY: ROCr's amd_queue_t lives as long as the KFD queue; the fields used are aligned u64s.
        unsafe { &*((self.amd_queue + offset) as *const AtomicU64) }
    }

    pub fn read_index(&self) -> &AtomicU64 {
        self.field(offset_of!(amd_queue_t, read_dispatch_id))
    }

    pub fn write_index(&self) -> &AtomicU64 {
        self.field(offset_of!(amd_queue_t, write_dispatch_id))
    }

    /// `AMD_QUEUE_PROPERTIES_ENABLE_PROFILING` (bit 3 of `queue_properties`), read per packet because
    /// ROCr turns it on and off while the queue runs.
    pub fn profiling(&self) -> bool {
        // SAFETY: as in `field`; queue_properties is an aligned u32.
        let props =
            unsafe { ((self.amd_queue + offset_of!(amd_queue_t, queue_properties)) as *const u32).read_volatile() };
        props & (1 << 3) != 0
    }

    /// ROCr's `queue_inactive_signal`, through which a queue error reaches its handler.
    pub fn inactive_signal(&self) -> u64 {
        self.field(offset_of!(amd_queue_t, queue_inactive_signal)).load(Ordering::Acquire)
    }
}
