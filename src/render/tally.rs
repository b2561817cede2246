//! The summary's sink: per function, calls, errors and times; the calls
//! that had not returned; the HSA dispatches and their device time per
//! kernel. It writes no file: the summary is made from its results.

use super::printer::Timebase;
use super::sink::{End, InFlight, Kinds, NewPart, Part, Results, Sink};
use crate::trace::record::{View, FLAG_CMD, KIND_HSA_DISPATCH, KIND_WINDOW};
use std::collections::BTreeMap;

pub struct Tally {
    /// Every record rendered so far, parts merged in.
    all: TallyPart,
}

/// The tally of some records: one chunk's (on any thread), or every
/// chunk's so far.
pub struct TallyPart {
    tb: Timebase,
    /// Per function (by `meta::global_index`: OpenCL's, then HSA's):
    /// calls, errors, total, min, max (ns).
    host: Vec<[u64; 5]>,
    in_flight: Vec<InFlight>,
    hsa_dispatches: u64,
    hsa_times: BTreeMap<u64, [u64; 4]>,
    /// Window records (number, time on the trace's clock, words), paired
    /// at the end in the order they came: a closing may come before its
    /// opening, in another chunk.
    windows: Vec<(u64, u64, Vec<u64>)>,
}

const NO_CALLS: [u64; 5] = [0, 0, 0, u64::MAX, 0];
const NO_DISPATCHES: [u64; 4] = [0, 0, u64::MAX, 0];

impl Tally {
    pub fn new(tb: Timebase) -> Tally {
        Tally { all: TallyPart::new(tb) }
    }
}

impl TallyPart {
    fn new(tb: Timebase) -> TallyPart {
        TallyPart {
            tb,
            host: Vec::new(),
            in_flight: Vec::new(),
            hsa_dispatches: 0,
            hsa_times: BTreeMap::new(),
            windows: Vec::new(),
        }
    }

    /// One HSA dispatch's device time; a dispatch without times (`=1`, or
    /// one that could not be timed) is not counted.
    fn dispatch_time(&mut self, kernel_object: u64, begin: u64, end: u64) {
        if begin == 0 || end < begin {
            return;
        }
        let ns = end - begin;
        add_dispatches(self.hsa_times.entry(kernel_object).or_insert(NO_DISPATCHES), &[1, ns, ns, ns]);
    }

    /// `later`'s records after this one's.
    fn merge(&mut self, later: TallyPart) {
        if self.host.len() < later.host.len() {
            self.host.resize(later.host.len(), NO_CALLS);
        }
        for (r, l) in self.host.iter_mut().zip(&later.host) {
            add_calls(r, l);
        }
        self.in_flight.extend(later.in_flight);
        self.hsa_dispatches += later.hsa_dispatches;
        for (k, l) in &later.hsa_times {
            add_dispatches(self.hsa_times.entry(*k).or_insert(NO_DISPATCHES), l);
        }
        self.windows.extend(later.windows);
    }

    fn rows(&self) -> Vec<crate::report::Row> {
        let mut rows: Vec<crate::report::Row> = self
            .host
            .iter()
            .enumerate()
            .filter(|(_, r)| r[0] > 0)
            .map(|(i, r)| crate::report::Row {
                name: crate::meta::by_global_index(i).map_or_else(|| format!("function {i}"), |f| f.name.to_string()),
                calls: r[0],
                errors: r[1],
                total_us: r[2],
                min_us: r[3],
                max_us: r[4],
            })
            .collect();
        rows.sort_by(|a, b| b.total_us.cmp(&a.total_us).then(a.name.cmp(&b.name)));
        rows
    }
}

/// Calls, errors, total, min, max. Times come from the file: a damaged one
/// must not wrap the total (and a sum that saturates is the same whatever
/// the grouping, so parts merge to the one-thread figure).
fn add_calls(r: &mut [u64; 5], l: &[u64; 5]) {
    r[0] += l[0];
    r[1] += l[1];
    r[2] = r[2].saturating_add(l[2]);
    r[3] = r[3].min(l[3]);
    r[4] = r[4].max(l[4]);
}

/// Launches, total, min, max.
fn add_dispatches(r: &mut [u64; 4], l: &[u64; 4]) {
    r[0] += l[0];
    r[1] = r[1].wrapping_add(l[1]);
    r[2] = r[2].min(l[2]);
    r[3] = r[3].max(l[3]);
}

impl Part for TallyPart {
    fn record(&mut self, v: &View<'_>) {
        let h = &v.header;
        let f = crate::meta::function(h.kind, h.fn_id);
        if !v.returned() {
            self.in_flight.push(InFlight {
                api: f.map_or_else(|| format!("function {} (kind {})", h.fn_id, h.kind), |f| f.name.to_string()),
                tid: h.tid,
                cmd_id: (h.flags & FLAG_CMD != 0).then_some(h.cmd_id),
            });
            return;
        }
        if h.kind == KIND_WINDOW {
            self.windows.push((h.cmd_id, h.t0, v.args.to_vec()));
            return;
        }
        if h.kind == KIND_HSA_DISPATCH {
            self.hsa_dispatches += 1;
            self.dispatch_time(crate::decode::Dispatch::of(v).kernel_object, h.t0, h.t1);
            return;
        }
        // Records that are not calls have no row.
        let Some(id) = crate::meta::global_index(h.kind, h.fn_id) else { return };
        if self.host.len() <= id {
            self.host.resize(id + 1, NO_CALLS);
        }
        let ns = (h.t1.saturating_sub(h.t0) as f64 * 1000.0 / self.tb.ticks_per_us) as u64;
        let failed = f.is_some_and(|f| !crate::trace::capture::succeeded(f, h.ret));
        add_calls(&mut self.host[id], &[1, failed as u64, ns, ns, ns]);
    }

    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

impl Sink for Tally {
    fn kinds(&self) -> Kinds {
        Kinds::ALL
    }

    fn record(&mut self, v: &View<'_>) {
        self.all.record(v);
    }

    fn parts(&self) -> Option<NewPart> {
        let tb = self.all.tb;
        Some(std::sync::Arc::new(move || Box::new(TallyPart::new(tb)) as Box<dyn Part>))
    }

    fn merge(&mut self, part: Box<dyn Part>) {
        if let Ok(p) = part.into_any().downcast::<TallyPart>() {
            self.all.merge(*p);
        }
    }

    fn finish(self: Box<Self>, end: &End<'_>, results: &mut Results) {
        let all = self.all;
        let mut windows = crate::window::spans::Spans::default();
        for (number, t, words) in &all.windows {
            windows.add(*number, *t, words);
        }
        let since_start = |t: u64| end.clock.ns(t).saturating_sub(end.clock.mono0);
        results.windows = windows
            .0
            .iter()
            .map(|w| crate::window::spans::Span {
                open_ns: since_start(w.open_ns),
                close_ns: w.close_ns.map(since_start),
                ..w.clone()
            })
            .collect();
        results.host = all.rows();
        results.in_flight = all.in_flight;
        results.hsa_dispatches = all.hsa_dispatches;
        results.hsa_kernel_times = all.hsa_times;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::record::{FLAG_DONE, KIND_HSA_CALL, KIND_OPENCL_CALL, WINDOW_CLOSE, WINDOW_OPEN};

    fn rec(kind: u16, fn_id: u16, flags: u8, t: (u64, u64), ret: u64, args: &[u64]) -> View<'static> {
        let mut v = View::default();
        (v.header.kind, v.header.fn_id, v.header.flags, v.header.t0, v.header.t1, v.header.ret) =
            (kind, fn_id, flags, t.0, t.1, ret);
        v.header.tid = 7;
        v.args.extend_from_slice(args);
        v
    }

    /// Calls that succeed and fail, a time that would wrap the total, HSA
    /// calls and dispatches, windows whose closing comes first, and calls
    /// that did not return.
    fn records() -> Vec<View<'static>> {
        let mut v = Vec::new();
        for i in 0..40u64 {
            let done = FLAG_DONE | if i % 3 == 0 { FLAG_CMD } else { 0 };
            v.push(rec(KIND_OPENCL_CALL, (i % 5) as u16, done, (100 * i, 100 * i + 7 * i + 1), i % 4, &[]));
            if i % 7 == 0 {
                v.push(rec(KIND_HSA_CALL, (i % 3) as u16, FLAG_DONE, (i, i + 50), 0, &[]));
                let mut d = [0u64; 8];
                d[crate::trace::record::DISPATCH_KERNEL_OBJECT] = i % 2;
                v.push(rec(KIND_HSA_DISPATCH, 0, FLAG_DONE, (i + 1, i + 1 + 3 * i), 0, &d));
            }
            if i % 11 == 5 {
                v.push(rec(KIND_OPENCL_CALL, 2, FLAG_CMD, (i, 0), 0, &[]));
            }
        }
        v.push(rec(KIND_OPENCL_CALL, 1, FLAG_DONE, (0, u64::MAX), 0, &[]));
        v.push(rec(KIND_WINDOW, 0, FLAG_DONE, (90, 0), 0, &[WINDOW_CLOSE, 5]));
        v.push(rec(KIND_WINDOW, 0, FLAG_DONE, (10, 0), 0, &[WINDOW_OPEN, 0]));
        v.push(rec(KIND_WINDOW, 0, FLAG_DONE, (95, 0), 0, &[WINDOW_OPEN, 5]));
        v.push(rec(KIND_OPENCL_CALL, 0, FLAG_DONE, (5, 6), 1, &[]));
        v
    }

    type Seen = (Vec<crate::report::Row>, Vec<InFlight>, u64, BTreeMap<u64, [u64; 4]>, Vec<(u64, u64, Vec<u64>)>);

    fn seen(t: &TallyPart) -> Seen {
        (t.rows(), t.in_flight.clone(), t.hsa_dispatches, t.hsa_times.clone(), t.windows.clone())
    }

    #[test]
    fn parts_merged_in_order_tally_what_one_tally_of_every_record_does() {
        let tb = Timebase { ticks_per_us: 2.6 };
        let records = records();
        let mut one = Tally::new(tb);
        for r in &records {
            one.record(r);
        }
        let want = seen(&one.all);
        assert!(want.0.len() > 5 && want.1.len() == 4 && want.2 == 6 && want.3.len() == 2, "{want:?}");
        assert_eq!(want.0.iter().map(|r| r.total_us).max(), Some(u64::MAX), "a total that saturates");
        for size in [1, 2, 3, 7, 16, records.len()] {
            let mut merged = Tally::new(tb);
            let new = merged.parts().unwrap();
            for chunk in records.chunks(size) {
                let mut p = new();
                for r in chunk {
                    p.record(r);
                }
                merged.merge(p);
            }
            assert_eq!(seen(&merged.all), want, "chunks of {size} records");
        }
    }
}
