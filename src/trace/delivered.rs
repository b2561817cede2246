//! Results that are not calls, written into the trace so that every
//! rendering of it reproduces the process's own files: device timing's
//! commands (`KIND_CL_COMMAND`, `KIND_CL_UNTIMED`), and the facts of the
//! process's end the summary shows (`KIND_END`). Written whole on the
//! calling thread's chunk, as the HSA dispatch records are, so they are as
//! crash-safe as calls.

use super::local::{record_wide, Wide};
use super::record::{
    END_COUNTED, END_HSA, END_HSA_KERNEL, END_HSA_PACKETS, END_NOTE, END_PENDING, END_TALLY, KIND_CL_COMMAND,
    KIND_CL_UNTIMED, KIND_END,
};
use crate::decode::CommandFacts;
use crate::devtime::enqueue::Completed;
use crate::devtime::Command;
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

/// What the record of a command a read completed holds.
fn facts_of<'a>(c: &'a Completed, has_kernel: bool) -> CommandFacts<'a> {
    let e = c.cmd;
    CommandFacts {
        queue: e.queue,
        context: c.queue.context,
        times: c.times,
        tid: e.tid,
        cmd_type: c.cmd_type,
        to_host: c.queue.to_host,
        bytes: e.launch.bytes,
        global: e.launch.global.as_slice(),
        local: e.launch.local.as_ref().map(|l| l.as_slice()),
        has_kernel,
    }
}

/// Writes a command a read completed, as [`command`] writes a [`Command`]
/// of it, with no allocation: the name is put together in the thread's
/// own buffer.
pub fn completed(c: &Completed) -> bool {
    if !super::writer::running() {
        return false;
    }
    let Some(fn_id) = fn_id(c.cmd.api) else { return false };
    let e = c.cmd;
    let kernel = e.kernel.and_then(crate::devtime::kernels::name_of);
    let words = crate::decode::facts_words(&facts_of(c, kernel.is_some()));
    let w = Wide {
        kind: KIND_CL_COMMAND,
        fn_id: fn_id as u16,
        flags: 0,
        cmd_id: e.cmd_id,
        t0: e.enqueue_tsc,
        t1: e.enqueue_end_tsc,
        ret: c.status as i64 as u64,
    };
    thread_local! {
        static NAME: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let write = |name: &mut Vec<u8>| {
        name.clear();
        crate::decode::command_name_into(&c.queue.device, kernel.as_deref(), name);
        record_wide(&w, &words, Some(name));
    };
    if NAME.try_with(|n| n.try_borrow_mut().map(|mut n| write(&mut n)).is_ok()) != Ok(true) {
        write(&mut Vec::new());
    }
    true
}

/// Writes `c` into the trace; false when no trace is running (then device
/// timing keeps it). A record the trace cannot take is counted as dropped.
pub fn command(c: &Command) -> bool {
    if !super::writer::running() {
        return false;
    }
    let Some(fn_id) = fn_id(c.api) else { return false };
    let (words, name) = crate::decode::command_words(c);
    let w = Wide {
        kind: KIND_CL_COMMAND,
        fn_id: fn_id as u16,
        flags: 0,
        cmd_id: c.cmd_id,
        t0: c.enqueue_tsc,
        t1: c.enqueue_end_tsc,
        ret: c.status as i64 as u64,
    };
    record_wide(&w, &words, Some(name.as_bytes()));
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::devtime::enqueue::{outcome, Counters, Enqueued, Launch, Outcome, QueueDesc, Sizes};
    use std::sync::Arc;

    /// A command written from the read's borrowed parts is the very record
    /// a [`Command`] made of them gives.
    #[test]
    fn a_completed_command_is_recorded_as_its_command_would_be() {
        let q = QueueDesc { context: 0xC7, device: Arc::from("gpu0"), to_host: Some(-12) };
        let k = crate::devtime::kernels::id(0x5EED_4001, || Some("saxpy".into()));
        for (kernel, local, bytes) in [(k, Some(Sizes::of(&[64, 2])), None), (None, None, Some(4096))] {
            let l = Launch { kernel: kernel.map(|_| 0x5EED_4001), global: Sizes::of(&[1024, 8]), local, bytes };
            let e = Enqueued {
                tid: 7,
                enqueue_tsc: 11,
                enqueue_end_tsc: 13,
                ..Enqueued::new(42, "clEnqueueNDRangeKernel", 0xA1, kernel, l)
            };
            let c = Completed { cmd: &e, queue: &q, status: -5, cmd_type: 0x11F0, times: [1, 2, 3, 4] };
            let Outcome::Timed(cmd) =
                outcome(Command::enqueued(&e, &q), -5, Some(0x11F0), Counters::Read([1, 2, 3, 4]))
            else {
                panic!("not timed")
            };
            let (words, name) = crate::decode::command_words(&cmd);
            let kname = kernel.and_then(crate::devtime::kernels::name_of);
            assert_eq!(crate::decode::facts_words(&facts_of(&c, kname.is_some())), words);
            let mut mine = Vec::new();
            crate::decode::command_name_into(&q.device, kname.as_deref(), &mut mine);
            assert_eq!(String::from_utf8(mine).unwrap(), name);
        }
    }
}
