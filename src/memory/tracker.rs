//! Follows the application's objects and allocations through its call
//! records, in render order: what is allocated and released (the memory
//! trace), how much each device holds, and what is left at the end (the
//! leak check). It reads only records; nothing of it runs on the hot path.

use super::calls::{self, Action, Made, Resolved, Size};
use super::{Leak, Report, Sample};
use crate::meta::{self, FnMeta};
use crate::trace::record::{Tag, View, KIND_HSA_CALL, KIND_OPENCL_CALL};
use crate::trace::tsc::HostClock;
use cltap_formats::memory::{Op, Row};
use std::collections::{BTreeMap, HashMap};

/// An allocation that is alive.
#[derive(Debug, Clone)]
struct Live {
    row: Row,
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
    actions: Vec<Option<Action>>,
    /// Call records seen (OpenCL and HSA, returned or not): the next
    /// call's index, its line in the API log.
    next: u64,
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

fn word(v: &View<'_>, i: usize) -> u64 {
    v.args.get(i).copied().unwrap_or(0)
}

fn capture<'a>(v: &View<'a>, param: usize, tag: Tag) -> Option<&'a [u8]> {
    v.captures.iter().find(|(c, _)| c.param as usize == param && c.tag == tag as u8).map(|(_, d)| *d)
}

fn out_word(v: &View<'_>, param: usize) -> Option<u64> {
    capture(v, param, Tag::Out).and_then(|d| crate::decode::words(d, 8).first().copied())
}

fn hex(x: u64) -> String {
    format!("{x:#x}")
}

impl Tracker {
    pub fn new(asked: crate::config::memory::Memory, clock: HostClock) -> Tracker {
        Tracker {
            asked,
            clock,
            actions: Vec::new(),
            next: 0,
            objects: HashMap::new(),
            pointers: HashMap::new(),
            contexts: HashMap::new(),
            rows: Vec::new(),
            in_use: BTreeMap::new(),
            peak: BTreeMap::new(),
            samples: Vec::new(),
        }
    }

    fn action(&mut self, kind: u16, fn_id: u16, f: &FnMeta) -> Action {
        let Some(g) = meta::global_index(kind, fn_id) else { return Action::default() };
        if self.actions.len() <= g {
            self.actions.resize(g + 1, None);
        }
        self.actions[g].get_or_insert_with(|| calls::action(f, kind == KIND_HSA_CALL)).clone()
    }

    /// One call record (OpenCL or HSA), in render order.
    pub fn record(&mut self, v: &View<'_>) {
        let h = &v.header;
        if !(h.kind == KIND_OPENCL_CALL || h.kind == KIND_HSA_CALL) {
            return;
        }
        let index = self.next;
        self.next += 1;
        if !v.returned() {
            return;
        }
        let Some(f) = meta::function(h.kind, h.fn_id) else { return };
        if !crate::trace::capture::succeeded(f, h.ret) {
            return;
        }
        let a = self.action(h.kind, h.fn_id, f);
        if a.creates.is_empty()
            && a.counts.is_none()
            && a.destroys.is_none()
            && a.alloc.is_none()
            && a.frees.is_none()
            && a.context_devices.is_none()
        {
            return;
        }
        let at = Call { index, time_ns: self.clock.ns(h.t1), thread: h.tid, name: f.name };
        if let Some(p) = a.context_devices {
            let devices = capture(v, p, Tag::Array).map(|d| crate::decode::words(d, 8)).unwrap_or_default();
            self.contexts.insert(h.ret, devices);
        }
        let alloc = a.alloc.map(|r| self.allocation(v, &r, &at));
        for (ty, made) in &a.creates {
            let handles = match made {
                Made::Returned => vec![h.ret],
                Made::Out(p) => out_word(v, *p).into_iter().collect(),
                Made::OutArray(p) => {
                    capture(v, *p, Tag::OutArray).map(|d| crate::decode::words(d, 8)).unwrap_or_default()
                }
            };
            for handle in handles.into_iter().filter(|x| *x != 0) {
                let obj = Object { ty, refs: 1, record: index, call: f.name, thread: h.tid, alloc: None };
                self.objects.insert((ty, handle), obj);
            }
        }
        if let Some(row) = alloc {
            self.add(&row);
            let live = Live { row };
            match a.creates.first() {
                // A memory object's memory lives as long as the object.
                Some((ty, Made::Returned)) => {
                    if let Some(o) = self.objects.get_mut(&(*ty, h.ret)) {
                        o.alloc = Some(live);
                    }
                }
                _ => {
                    self.pointers.insert(live.row.address, live);
                }
            }
        }
        if let Some((p, delta)) = a.counts {
            self.count(f, word(v, p), delta, &at);
        }
        if let Some((ty, p)) = a.destroys {
            self.objects.remove(&(ty, word(v, p)));
        }
        if let Some(p) = a.frees {
            if let Some(live) = self.pointers.remove(&word(v, p)) {
                self.free(live, &at);
            }
        }
    }

    /// A retain or release of the handle `handle` by `f`.
    fn count(&mut self, f: &FnMeta, handle: u64, delta: i64, at: &Call) {
        let ty = f.params.first().map_or("", |p| p.c_type);
        let Some(key) = calls::CL_OBJECTS.iter().find(|t| **t == ty).map(|t| (*t, handle)) else { return };
        let Some(o) = self.objects.get_mut(&key) else { return };
        o.refs += delta;
        if o.refs > 0 {
            return;
        }
        if let Some(o) = self.objects.remove(&key) {
            if let Some(live) = o.alloc {
                self.free(live, at);
            }
        }
    }

    /// The row of an allocation `v` made.
    fn allocation(&self, v: &View<'_>, r: &Resolved, at: &Call) -> Row {
        let arg = |p: Option<usize>| p.map_or(0, |p| word(v, p));
        let bytes = match r.size {
            Size::Param(_) => arg(r.sizes[0]),
            Size::Product(..) => arg(r.sizes[0]).saturating_mul(arg(r.sizes[1])),
            Size::Image | Size::ImageDims => {
                let format = r.sizes[0].and_then(|p| capture(v, p, Tag::Array)).unwrap_or(&[]);
                let f = crate::decode::words(format, 4);
                let pixel =
                    calls::pixel_bytes(f.first().copied().unwrap_or(0) as u32, f.get(1).copied().unwrap_or(0) as u32)
                        .unwrap_or(0);
                let texels = if r.size == Size::Image {
                    r.sizes[1].and_then(|p| capture(v, p, Tag::Array)).map_or(0, calls::image_texels)
                } else {
                    arg(r.sizes[1]) * arg(r.sizes[2]).max(1) * arg(r.sizes[3]).max(1)
                };
                pixel.saturating_mul(texels)
            }
            Size::Aliased => 0,
        };
        let owner = arg(r.owner.1);
        let address = match r.from {
            Made::Returned => v.header.ret,
            Made::Out(p) | Made::OutArray(p) => out_word(v, p).unwrap_or(0),
        };
        Row {
            record: at.index,
            time_ns: at.time_ns,
            thread: at.thread,
            call: at.name.to_string(),
            op: Op::Alloc,
            kind: r.kind.to_string(),
            address,
            bytes,
            flags: arg(r.flags),
            owner: format!("{} {}", r.owner.0, hex(owner)),
            devices: self.devices(r, owner, arg(r.device)),
            alloc_record: at.index,
        }
    }

    /// The devices an allocation counts against: the one it names (USM
    /// device and shared memory), else every device of its context (or
    /// its parent buffer's context), else its owner itself (a context whose
    /// devices the trace does not say, an HSA pool or region).
    fn devices(&self, r: &Resolved, owner: u64, device: u64) -> Vec<String> {
        if device != 0 {
            return vec![format!("device {}", hex(device))];
        }
        let context = match r.owner.0 {
            "buffer" => {
                self.objects.get(&("cl_mem", owner)).and_then(|o| o.alloc.as_ref()).map(|l| l.row.owner.clone())
            }
            "context" => Some(format!("context {}", hex(owner))),
            _ => None,
        };
        if let Some(c) = context.as_deref().and_then(|c| c.strip_prefix("context 0x")) {
            let c = u64::from_str_radix(c, 16).unwrap_or(0);
            match self.contexts.get(&c) {
                Some(d) if !d.is_empty() => return d.iter().map(|d| format!("device {}", hex(*d))).collect(),
                _ => return vec![format!("context {}", hex(c))],
            }
        }
        vec![format!("{} {}", r.owner.0, hex(owner))]
    }

    fn add(&mut self, row: &Row) {
        self.rows.push(row.clone());
        for d in &row.devices {
            let u = self.in_use.entry(d.clone()).or_default();
            *u = u.saturating_add(row.bytes);
            let now = *u;
            let p = self.peak.entry(d.clone()).or_default();
            *p = (*p).max(now);
            self.samples.push(Sample { time_ns: row.time_ns, device: d.clone(), bytes: now });
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

    /// What it learnt, after the last record.
    pub fn report(self) -> Report {
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
        Report {
            asked: self.asked,
            rows: self.rows,
            peaks: self.peak.into_iter().collect(),
            samples: self.samples,
            leaks,
        }
    }
}

struct Call {
    index: u64,
    time_ns: u64,
    thread: u32,
    name: &'static str,
}

#[cfg(test)]
#[path = "tracker_tests.rs"]
mod tests;
