//! Markers: packets of cltap's own whose completion shows how far the device
//! has read a hidden queue (see [`super::room`]). A marker is a barrier-AND
//! packet with no dependencies, no barrier bit and no fences, so it waits for
//! nothing and flushes nothing; only its completion signal is cltap's. It
//! goes into the hidden queue only, so the application's queue, indices and
//! signals are as they would be without cltap.

use super::room::Room;
use cltap::hsa::packet::{Barrier, Header, PacketType, PACKET_SIZE};
use std::ffi::c_void;

/// What the marker's completion handler needs.
struct Pending {
    room: &'static Room,
    at: u64,
    signal: u64,
}

/// A marker to hand over at hidden index `at`; None when the runtime gives
/// no signal or handler (the packets then go without it, as before).
pub fn marker(room: &'static Room, at: u64) -> Option<[u8; PACKET_SIZE]> {
    let signal = super::proxy::new_signal()?;
    let arg = Box::into_raw(Box::new(Pending { room, at, signal }));
    // SAFETY: `passed` takes back the `Pending` it is given.
    if !unsafe { super::proxy::when_done(signal, passed, arg as *mut c_void) } {
        // SAFETY: the runtime refused it, so `arg` is still ours.
        drop(unsafe { Box::from_raw(arg) });
        super::proxy::destroy(signal);
        return None;
    }
    let header = Header { kind: PacketType::BarrierAnd, barrier: false, acquire: 0, release: 0 };
    Some(Barrier { header: header.encode(), completion_signal: signal, ..Barrier::default() }.bytes())
}

/// The marker completed: the device has read past it.
///
/// # Safety
/// The runtime's async handler call: `arg` is the `Pending` that `marker`
/// handed over with this handler, or NULL.
unsafe extern "C" fn passed(_value: i64, arg: *mut c_void) -> bool {
    if arg.is_null() {
        return false;
    }
    // SAFETY: `marker` handed this box to the runtime for this one call.
    let p = unsafe { Box::from_raw(arg as *mut Pending) };
    // A handler is `extern "C"`: no panic leaves it (docs/architecture.md#panics).
    crate::guard::guard_at("a hidden queue's marker handler", (), || {
        super::room::on_signal_thread();
        p.room.passed(p.at);
        super::proxy::destroy(p.signal);
    });
    false
}
