//! Follows the application's objects and allocations through its calls:
//! what is allocated and released (the memory trace), how much each device
//! holds, and what is left at the end (the leak check). It reads only
//! records; nothing of it runs on the hot path. The calls are taken in the
//! order they returned: the trace renders each thread's records in order,
//! but one thread's chunk may come before another's that holds an earlier
//! call (a buffer made on one thread and released on another).

use super::calls::{self, Action};
use super::step::{self, Allocation, Call, Step};
use super::{Leak, Report, Sample};
use crate::meta;
use crate::trace::record::{View, KIND_HSA_CALL, KIND_OPENCL_CALL};
use crate::trace::tsc::HostClock;
use cltap_formats::memory::{Op, Row};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// An allocation that is alive.
#[derive(Debug, Clone)]
struct Live {
    row: Row,
    /// Its context (OpenCL), for the sub-buffers made from it.
    context: Option<u64>,
}

/// An object the application holds references to.
#[derive(Debug, Clone)]
struct Object {
    ty: &'static str,
    refs: i64,
    record: u64,
    call: &'static str,
    thread: u32,
    /// Its memory, for a memory object.
    alloc: Option<Live>,
}

pub struct Tracker {
    asked: crate::config::memory::Memory,
    clock: HostClock,
    /// Per function (by `meta::global_index`), resolved on first use.
    actions: Vec<Option<Arc<Action>>>,
    /// Call records seen (OpenCL and HSA, returned or not): the next
    /// call's index, its line in the API log.
    next: u64,
    /// The calls that matter, as read; followed at the end.
    steps: Vec<Step>,
}

/// The state while the steps are followed.
#[derive(Default)]
struct State {
    /// OpenCL objects and HSA queues, signals and executables, by (type, handle).
    objects: HashMap<(&'static str, u64), Object>,
    /// SVM, USM and HSA allocations, by pointer.
    pointers: HashMap<u64, Live>,
    /// A context's devices, where its creation named them.
    contexts: HashMap<u64, Vec<u64>>,
    rows: Vec<Row>,
    in_use: BTreeMap<String, u64>,
    peak: BTreeMap<String, u64>,
    samples: Vec<Sample>,
}

fn hex(x: u64) -> String {
    format!("{x:#x}")
}

impl Tracker {
    pub fn new(asked: crate::config::memory::Memory, clock: HostClock) -> Tracker {
        Tracker { asked, clock, actions: Vec::new(), next: 0, steps: Vec::new() }
    }

    /// One call record (OpenCL or HSA), in render order.
    pub fn record(&mut self, v: &View<'_>) {
        let h = &v.header;
        if !(h.kind == KIND_OPENCL_CALL || h.kind == KIND_HSA_CALL) {
            return;
        }
        let index = self.next;
        self.next += 1;
        let Some(f) = meta::function(h.kind, h.fn_id) else { return };
        if !v.returned() || !crate::trace::capture::succeeded(f, h.ret) {
            return;
        }
        let Some(g) = meta::global_index(h.kind, h.fn_id) else { return };
        if self.actions.len() <= g {
            self.actions.resize(g + 1, None);
        }
        let a = self.actions[g].get_or_insert_with(|| Arc::new(calls::action(f, h.kind == KIND_HSA_CALL)));
        if a.is_none() {
            return;
        }
        let call = Call { index, t1: h.t1, time_ns: self.clock.ns(h.t1), thread: h.tid, name: f.name };
        let s = step::read(v, f, a, call);
        self.steps.push(s);
    }

    /// What it learnt, after the last record.
    pub fn report(mut self) -> Report {
        self.steps.sort_by_key(|s| (s.call.t1, s.call.index));
        let mut st = State::default();
        for s in self.steps {
            st.apply(s);
        }
        st.report(self.asked)
    }
}

impl State {
    fn apply(&mut self, s: Step) {
        let at = s.call;
        if let Some((c, devices)) = s.context {
            self.contexts.insert(c, devices);
        }
        for (ty, handle) in s.creates {
            let obj = Object { ty, refs: 1, record: at.index, call: at.name, thread: at.thread, alloc: None };
            self.objects.insert((ty, handle), obj);
        }
        if let Some(a) = s.alloc {
            let live = self.allocate(a.clone(), &at);
            match a.object {
                // A memory object's memory lives as long as the object.
                Some(key) => {
                    if let Some(o) = self.objects.get_mut(&key) {
                        o.alloc = Some(live);
                    }
                }
                None => {
                    self.pointers.insert(live.row.address, live);
                }
            }
        }
        if let Some((ty, handle, delta)) = s.count {
            self.count((ty, handle), delta, &at);
        }
        if let Some(key) = s.destroy {
            self.objects.remove(&key);
        }
        if let Some(live) = s.free.and_then(|p| self.pointers.remove(&p)) {
            self.free(live, &at);
        }
    }

    /// A retain or release of an object.
    fn count(&mut self, key: (&'static str, u64), delta: i64, at: &Call) {
        let Some(o) = self.objects.get_mut(&key) else { return };
        o.refs += delta;
        if o.refs > 0 {
            return;
        }
        if let Some(live) = self.objects.remove(&key).and_then(|o| o.alloc) {
            self.free(live, at);
        }
    }

    /// An allocation's row, put on its devices.
    fn allocate(&mut self, a: Allocation, at: &Call) -> Live {
        let context = match a.owner.0 {
            "context" => Some(a.owner.1),
            "buffer" => self.objects.get(&("cl_mem", a.owner.1)).and_then(|o| o.alloc.as_ref()).and_then(|l| l.context),
            _ => None,
        };
        let row = Row {
            record: at.index,
            time_ns: at.time_ns,
            thread: at.thread,
            call: at.name.to_string(),
            op: Op::Alloc,
            kind: a.kind.to_string(),
            address: a.address,
            bytes: a.bytes,
            flags: a.flags,
            owner: format!("{} {}", a.owner.0, hex(a.owner.1)),
            devices: self.devices(&a, context),
            alloc_record: at.index,
        };
        self.rows.push(row.clone());
        for d in &row.devices {
            let u = self.in_use.entry(d.clone()).or_default();
            *u = u.saturating_add(row.bytes);
            let now = *u;
            let p = self.peak.entry(d.clone()).or_default();
            *p = (*p).max(now);
            self.samples.push(Sample { time_ns: row.time_ns, device: d.clone(), bytes: now });
        }
        Live { row, context }
    }

    /// The devices an allocation counts against: the one it names (USM
    /// device and shared memory), else every device of its context (or its
    /// buffer's), else the context itself (one whose devices the trace does
    /// not say), else its owner (an HSA pool or region).
    fn devices(&self, a: &Allocation, context: Option<u64>) -> Vec<String> {
        if a.device != 0 {
            return vec![format!("device {}", hex(a.device))];
        }
        match context {
            Some(c) => match self.contexts.get(&c) {
                Some(d) if !d.is_empty() => d.iter().map(|d| format!("device {}", hex(*d))).collect(),
                _ => vec![format!("context {}", hex(c))],
            },
            None => vec![format!("{} {}", a.owner.0, hex(a.owner.1))],
        }
    }

    fn free(&mut self, live: Live, at: &Call) {
        let row = Row {
            record: at.index,
            time_ns: at.time_ns,
            thread: at.thread,
            call: at.name.to_string(),
            op: Op::Free,
            alloc_record: live.row.record,
            ..live.row
        };
        for d in &row.devices {
            let u = self.in_use.entry(d.clone()).or_default();
            *u = u.saturating_sub(row.bytes);
            self.samples.push(Sample { time_ns: row.time_ns, device: d.clone(), bytes: *u });
        }
        self.rows.push(row);
    }

    fn report(self, asked: crate::config::memory::Memory) -> Report {
        let mut leaks: Vec<Leak> = self
            .objects
            .iter()
            .map(|((_, handle), o)| Leak {
                ty: o.ty.to_string(),
                handle: *handle,
                references: o.refs as u64,
                record: o.record,
                call: o.call.to_string(),
                thread: o.thread,
                bytes: o.alloc.as_ref().map(|l| l.row.bytes),
            })
            .chain(self.pointers.values().map(|l| Leak {
                ty: l.row.kind.clone(),
                handle: l.row.address,
                references: 0,
                record: l.row.record,
                call: l.row.call.clone(),
                thread: l.row.thread,
                bytes: Some(l.row.bytes),
            }))
            .collect();
        leaks.sort_by(|a, b| (a.record, &a.ty, a.handle).cmp(&(b.record, &b.ty, b.handle)));
        Report { asked, rows: self.rows, peaks: self.peak.into_iter().collect(), samples: self.samples, leaks }
    }
}

#[cfg(test)]
#[path = "tracker_tests.rs"]
mod tests;
