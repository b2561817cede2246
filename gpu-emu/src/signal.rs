//! ROCr's signals as the command processor sees them: an `hsa_signal_t` handle is the address of an
//! `amd_signal_t` (`amd_hsa_signal.h`). Completing one writes the profiling timestamps (GPU ticks),
//! decrements `value` atomically, and, if the signal has an event mailbox, writes the event id there
//! and raises the event — what the real CP's end-of-pipe interrupt does.

use std::mem::offset_of;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use crate::sys::amd_signal_t;

/// A non-null `hsa_signal_t` handle.
#[derive(Debug, Clone, Copy)]
pub struct Signal(usize);

impl Signal {
    pub fn from_handle(handle: u64) -> Option<Signal> {
        (handle != 0).then_some(Signal(handle as usize))
    }

    fn value(&self) -> &AtomicI64 {
        // SAFETY: ROCr keeps the amd_signal_t alive while a packet names it; `value` is an aligned i64.
        unsafe { &*((self.0 + offset_of!(amd_signal_t, __bindgen_anon_1)) as *const AtomicI64) }
    }

    fn field_u64(&self, offset: usize) -> &AtomicU64 {
        // SAFETY: as above; the offsets are of aligned u64 fields.
        unsafe { &*((self.0 + offset) as *const AtomicU64) }
    }

    pub fn load(&self) -> i64 {
        self.value().load(Ordering::Acquire)
    }

    /// Stores `value` and raises the signal's event (a queue error reaching ROCr's handler).
    pub fn store_and_raise(&self, value: i64) {
        self.value().store(value, Ordering::Release);
        self.raise();
    }

    fn raise(&self) {
        let mailbox = self.field_u64(offset_of!(amd_signal_t, event_mailbox_ptr)).load(Ordering::Acquire);
        if mailbox != 0 {
            // SAFETY: the event_id field is an aligned u32 of the live signal.
            let id = unsafe { ((self.0 + offset_of!(amd_signal_t, event_id)) as *const u32).read_volatile() };
            // SAFETY: the mailbox is a slot of this crate's event page, handed out with the event.
            unsafe { (*(mailbox as *const AtomicU64)).store(id.into(), Ordering::Release) };
            crate::events::raise(id);
        }
    }

    /// The packet is done: timestamps (when the queue profiles), then the decrement, then the event.
    pub fn complete(&self, times: Option<(u64, u64)>) {
        if let Some((start, end)) = times {
            self.field_u64(offset_of!(amd_signal_t, start_ts)).store(start, Ordering::Relaxed);
            self.field_u64(offset_of!(amd_signal_t, end_ts)).store(end, Ordering::Relaxed);
        }
        self.value().fetch_sub(1, Ordering::AcqRel);
        self.raise();
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A signal laid out as ROCr's, for the unit tests.
    pub(crate) fn new_signal(value: i64) -> Box<amd_signal_t> {
        let mut s = Box::<amd_signal_t>::default();
        s.kind = 1;
        s.__bindgen_anon_1.value = value;
        s
    }

    #[test]
    fn complete_decrements_and_stamps() {
        let s = new_signal(2);
        let sig = Signal::from_handle(&*s as *const amd_signal_t as u64).unwrap();
        sig.complete(Some((10, 20)));
        assert_eq!(sig.load(), 1);
        assert_eq!((s.start_ts, s.end_ts), (10, 20));
        sig.complete(None);
        assert_eq!(sig.load(), 0);
    }
}
