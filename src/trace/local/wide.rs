//! Records that are not calls (HSA dispatches, counters, agents, notes):
//! written whole, in the wide layout behind a state byte, on the thread's
//! chunk. Rare, so nothing here is folded for speed.

use super::{with_local, Local, MAX_RECORD};
use crate::trace::record::HEADER;
use cltap_formats::cltrace::compact::STATE_WIDE;

/// Appends one complete record of kind `KIND` (not a call: nothing is
/// opened, so it never holds a chunk back): `fn_id` 0, `cmd_id`, `t0`/`t1`
/// and at most 255 argument words, on this thread's chunk. False when it
/// was not written (tracing off, the trace full, a re-entrant signal
/// handler). The OpenCL path does not use it.
pub fn record_kind<const KIND: u16>(cmd_id: u64, t0: u64, t1: u64, args: &[u64], name: Option<&str>) -> bool {
    record_kind_flagged::<KIND>(0, cmd_id, t0, t1, args, name)
}

/// [`record_kind`] with more header flags (`FLAG_FILTERED`).
pub fn record_kind_flagged<const KIND: u16>(
    flags: u8,
    cmd_id: u64,
    t0: u64,
    t1: u64,
    args: &[u64],
    name: Option<&str>,
) -> bool {
    let w = Wide { kind: KIND, fn_id: 0, flags, cmd_id, t0, t1, ret: 0 };
    record_wide(&w, args, name.map(|n| &n.as_bytes()[..n.len().min(256)]))
}

/// A record's header fields, for [`record_wide`].
pub struct Wide {
    pub kind: u16,
    pub fn_id: u16,
    /// Flags beyond `CMD`, `OK` and `DONE`, which every such record has.
    pub flags: u8,
    pub cmd_id: u64,
    pub t0: u64,
    pub t1: u64,
    pub ret: u64,
}

/// The longest name [`record_wide`] keeps.
pub const NAME_MAX: usize = 1024;

/// Appends one complete record with the header `w`, at most 255 argument
/// words and a name of at most [`NAME_MAX`] bytes (longer ones are cut), on
/// this thread's chunk; false when it was not written (as [`record_kind`]).
pub fn record_wide(w: &Wide, args: &[u64], name: Option<&[u8]>) -> bool {
    // SAFETY: this thread's own state, held while the record is written.
    unsafe { with_local(|l, _| write_in(l, w, args, name)).unwrap_or(false) }
}

/// [`record_wide`] on this thread's state `l`, which the caller holds.
pub(super) fn write_in(l: &mut Local, w: &Wide, args: &[u64], name: Option<&[u8]>) -> bool {
    use crate::trace::record::{Capture, Header, Tag, CAPTURE, FLAG_CMD, FLAG_DONE, FLAG_OK, NAME_PARAM};
    let nargs = args.len().min(255).min((MAX_RECORD - HEADER) / 8);
    let name = name.map(|n| &n[..n.len().min(NAME_MAX)]);
    let len = HEADER + 8 * nargs + name.map_or(0, |n| CAPTURE + crate::trace::record::pad8(n.len()));
    // SAFETY: the record is written inside the room `room()` guarantees
    // (MAX_RECORD, more than a header, 255 words and a name of NAME_MAX bytes).
    unsafe {
        {
            if !l.room() {
                l.drop_record();
                return false;
            }
            // A wide record: its state byte, then the version 1 layout.
            *l.pos = STATE_WIDE;
            let rec = l.pos.add(1);
            for (i, a) in args[..nargs].iter().enumerate() {
                std::ptr::write_unaligned(rec.add(HEADER + 8 * i) as *mut u64, *a);
            }
            if let Some(n) = name {
                let at = rec.add(HEADER + 8 * nargs);
                let c = Capture {
                    param: NAME_PARAM,
                    tag: Tag::Str as u8,
                    _pad: 0,
                    bytes: n.len() as u32,
                    total: n.len() as u64,
                };
                std::ptr::write_unaligned(at as *mut Capture, c);
                std::ptr::copy_nonoverlapping(n.as_ptr(), at.add(CAPTURE), n.len());
                std::ptr::write_bytes(at.add(CAPTURE + n.len()), 0, crate::trace::record::pad8(n.len()) - n.len());
            }
            let h = Header {
                len: len as u32,
                fn_id: w.fn_id,
                nargs: nargs as u8,
                flags: FLAG_CMD | FLAG_OK | FLAG_DONE | w.flags,
                tid: l.tid,
                kind: w.kind,
                _pad: 0,
                cmd_id: w.cmd_id,
                t0: w.t0,
                t1: w.t1,
                ret: w.ret,
            };
            std::ptr::write_unaligned(rec as *mut Header, h);
            l.pos = l.pos.add(1 + len);
            l.publish(l.pos);
            if l.depth == 0 && l.pos >= l.mark {
                l.settle();
            }
            true
        }
    }
}
