//! The summary's sink: per function, calls, errors and times; the calls
//! that had not returned; the HSA dispatches and their device time per
//! kernel. It writes no file: the summary is made from its results.

use super::printer::Timebase;
use super::sink::{End, InFlight, Kinds, Results, Sink};
use crate::trace::record::{View, FLAG_CMD, KIND_HSA_DISPATCH, KIND_WINDOW};
use std::collections::BTreeMap;

pub struct Tally {
    tb: Timebase,
    /// Per function (by `meta::global_index`: OpenCL's, then HSA's):
    /// calls, errors, total, min, max (ns).
    host: Vec<[u64; 5]>,
    in_flight: Vec<InFlight>,
    hsa_dispatches: u64,
    hsa_times: BTreeMap<u64, [u64; 4]>,
    /// Window records, times still the trace's clock.
    windows: crate::window::spans::Spans,
}

impl Tally {
    pub fn new(tb: Timebase) -> Tally {
        Tally {
            tb,
            host: Vec::new(),
            in_flight: Vec::new(),
            hsa_dispatches: 0,
            hsa_times: BTreeMap::new(),
            windows: Default::default(),
        }
    }

    /// One HSA dispatch's device time; a dispatch without times (`=1`, or
    /// one that could not be timed) is not counted.
    fn dispatch_time(&mut self, kernel_object: u64, begin: u64, end: u64) {
        if begin == 0 || end < begin {
            return;
        }
        let ns = end - begin;
        let r = self.hsa_times.entry(kernel_object).or_insert([0, 0, u64::MAX, 0]);
        r[0] += 1;
        r[1] += ns;
        r[2] = r[2].min(ns);
        r[3] = r[3].max(ns);
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

impl Sink for Tally {
    fn kinds(&self) -> Kinds {
        Kinds::ALL
    }

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
            self.windows.add(h.cmd_id, h.t0, &v.args);
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
            self.host.resize(id + 1, [0, 0, 0, u64::MAX, 0]);
        }
        let ns = (h.t1.saturating_sub(h.t0) as f64 * 1000.0 / self.tb.ticks_per_us) as u64;
        let failed = f.is_some_and(|f| !crate::trace::capture::succeeded(f, h.ret));
        let r = &mut self.host[id];
        r[0] += 1;
        r[1] += failed as u64;
        // Times come from the file: a damaged one must not wrap the total.
        r[2] = r[2].saturating_add(ns);
        r[3] = r[3].min(ns);
        r[4] = r[4].max(ns);
    }

    fn finish(self: Box<Self>, end: &End<'_>, results: &mut Results) {
        let since_start = |t: u64| end.clock.ns(t).saturating_sub(end.clock.mono0);
        results.windows = self
            .windows
            .0
            .iter()
            .map(|w| crate::window::spans::Span {
                open_ns: since_start(w.open_ns),
                close_ns: w.close_ns.map(since_start),
                ..w.clone()
            })
            .collect();
        results.host = self.rows();
        results.in_flight = self.in_flight;
        results.hsa_dispatches = self.hsa_dispatches;
        results.hsa_kernel_times = self.hsa_times;
    }
}
