//! Results that are not calls, written into the trace so that every
//! rendering of it reproduces the process's own files: device timing's
//! commands (`KIND_CL_COMMAND`, `KIND_CL_UNTIMED`), and the facts of the
//! process's end the summary shows (`KIND_END`). Written whole on the
//! calling thread's chunk, as the HSA dispatch records are, so they are as
//! crash-safe as calls.

use super::local::{record_wide, Wide};
use super::record::{
    END_COUNTED, END_DUMPS, END_HSA, END_HSA_KERNEL, END_HSA_PACKETS, END_NOTE, END_PENDING, END_TALLY,
    KIND_CL_COMMAND, KIND_CL_UNTIMED, KIND_END,
};
use crate::devtime::{Command, CommandRef};
pub use crate::render::device::EndFacts;

/// An OpenCL function's index from its name, which device timing takes
/// from the metadata: the same pointer, found without comparing text. A
/// read completes many commands of one function in a row: the thread's
/// last answer is kept.
fn fn_id(api: &'static str) -> Option<usize> {
    thread_local! {
        static LAST: std::cell::Cell<(usize, usize)> = const { std::cell::Cell::new((0, 0)) };
    }
    let key = api.as_ptr() as usize;
    if let Ok((k, id)) = LAST.try_with(|l| l.get()) {
        if k == key {
            return Some(id);
        }
    }
    let id =
        crate::meta::FUNCTIONS.iter().position(|f| std::ptr::eq(f.name, api)).or_else(|| crate::meta::by_name(api))?;
    let _ = LAST.try_with(|l| l.set((key, id)));
    Some(id)
}

/// Writes `c` into the trace; false when no trace is running (then device
/// timing keeps it). A record the trace cannot take is counted as dropped.
pub fn command(c: &Command) -> bool {
    command_ref(&c.as_ref())
}

/// As [`command`], for a command a read completed, with no allocation:
/// the name is put together in the thread's own buffer.
pub fn command_ref(c: &CommandRef) -> bool {
    if !super::writer::running() {
        return false;
    }
    let Some(fn_id) = fn_id(c.api) else { return false };
    let words = crate::decode::command_ref_words(c);
    let w = Wide {
        kind: KIND_CL_COMMAND,
        fn_id: fn_id as u16,
        flags: 0,
        cmd_id: c.cmd_id,
        t0: c.enqueue_tsc,
        t1: c.enqueue_end_tsc,
        ret: c.status as i64 as u64,
    };
    thread_local! {
        static NAME: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let write = |name: &mut Vec<u8>| {
        name.clear();
        crate::decode::command_name_into(c.device, c.kernel, name);
        record_wide(&w, &words, Some(name));
    };
    if NAME.try_with(|n| n.try_borrow_mut().map(|mut n| write(&mut n)).is_ok()) != Ok(true) {
        write(&mut Vec::new());
    }
    true
}

/// Writes a command whose counters could not be read; false as [`command`].
pub fn untimed(cmd_id: u64, api: &'static str, why: &str) -> bool {
    if !super::writer::running() {
        return false;
    }
    let fn_id = fn_id(api).unwrap_or(u16::MAX as usize) as u16;
    let w = Wide { kind: KIND_CL_UNTIMED, fn_id, flags: 0, cmd_id, t0: 0, t1: 0, ret: 0 };
    record_wide(&w, &[], Some(why.as_bytes()));
    true
}

fn fact(what: u64, words: &[u64], name: Option<&str>) {
    let w = Wide { kind: KIND_END, fn_id: 0, flags: 0, cmd_id: what, t0: 0, t1: 0, ret: 0 };
    record_wide(&w, words, name.map(str::as_bytes));
}

/// Writes `f` into the trace, just before it ends.
pub fn end(f: &EndFacts) {
    if !super::writer::running() {
        return;
    }
    fact(END_PENDING, &[f.pending as u64], None);
    for n in &f.notes {
        fact(END_NOTE, &[], Some(n));
    }
    if let Some(h) = &f.hsa {
        fact(END_HSA, &[], None);
        for (kind, n) in &h.packets {
            fact(END_HSA_PACKETS, &[*n], Some(kind));
        }
        for (object, name, n) in &h.kernels {
            fact(END_HSA_KERNEL, &[*object, *n, name.is_some() as u64], name.as_deref());
        }
    }
    if f.counted {
        fact(END_COUNTED, &[], None);
    }
    for (name, calls, errors) in &f.tally {
        fact(END_TALLY, &[*calls, *errors], Some(name));
    }
    if let Some(d) = &f.dumps {
        let (words, text) = d.to_record();
        fact(END_DUMPS, &words, Some(&text));
    }
}
