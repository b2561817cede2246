//! Event checks and execution controls (`CLTAP_EVENT_CHECKS`,
//! `CLTAP_FINISH_AFTER_ENQUEUE`, `CLTAP_FLUSH_AFTER_ENQUEUE`,
//! `CLTAP_SKIP_ENQUEUES`, `CLTAP_IN_ORDER_QUEUES`) and the device-time
//! histograms (`CLTAP_DEVICE_HISTOGRAM`): the state the layer's hooks read,
//! the words and texts of what they report, the queue properties they
//! rewrite, and the summary's part. The layer asks the driver; nothing here
//! calls one.
//!
//! With every control off, each hook in a wrapper is one relaxed load of
//! [`bits`], and the wrappers the controls hook keep their fast path
//! (`crate::fastpath`).

pub mod checks;
pub mod histogram;
pub mod queues;

use crate::config::controls::Controls;
use cltap_formats::cltrace::record::KIND_NOTE;
use std::sync::atomic::{AtomicU8, Ordering};

/// Check each event wait list before it is forwarded.
pub const CHECKS: u8 = 1;
/// `clFinish` on the queue after each enqueue.
pub const FINISH: u8 = 2;
/// `clFlush` on the queue after each enqueue (not with [`FINISH`]).
pub const FLUSH: u8 = 4;
/// Enqueues answered by cltap, not forwarded.
pub const SKIP: u8 = 8;
/// Queues created in order.
pub const IN_ORDER: u8 = 16;

static BITS: AtomicU8 = AtomicU8::new(0);

/// At start-up, once the process is known to be recorded (before the
/// wrappers' fast-path flags are computed).
pub fn configure(c: &Controls) {
    let mut b = 0;
    for (on, bit) in [
        (c.event_checks, CHECKS),
        (c.finish, FINISH),
        (c.flush && !c.finish, FLUSH),
        (c.skip, SKIP),
        (c.in_order, IN_ORDER),
    ] {
        if on {
            b |= bit;
        }
    }
    BITS.store(b, Ordering::Release);
}

/// The controls on, one bit each: a hook's only cost while none is.
#[inline(always)]
pub fn bits() -> u8 {
    BITS.load(Ordering::Relaxed)
}

/// Whether any control hooks the calls (the wrappers it hooks then leave
/// their fast path).
pub fn on() -> bool {
    BITS.load(Ordering::Acquire) != 0
}

/// What a note of the controls reports: word 0 of its `KIND_NOTE` record
/// (a note of another part of cltap has no words).
pub const NOTE_EVENT_CHECK: u64 = 1;
/// A command that failed, found by the finish after its enqueue.
pub const NOTE_FAILED_COMMAND: u64 = 2;

/// Writes a note of the controls into the trace, on this thread, after the
/// records before it: a line in the API log, and a line of the summary.
/// False when no trace takes it (the caller then says it on stderr).
pub fn note(what: u64, text: &str) -> bool {
    let t = crate::trace::tsc::now();
    crate::trace::local::record_kind::<KIND_NOTE>(0, t, t, &[what], Some(text))
}

/// What the summary shows of the controls, from the trace's records.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// The event checks' findings, in the order they were made.
    pub findings: Vec<String>,
    /// The commands finish-after-enqueue found failed.
    pub failed: Vec<String>,
    /// The trace asked for device-time histograms.
    pub histogram: bool,
}

impl Report {
    /// Takes a note's record, if it is one of the controls'.
    pub fn note(&mut self, words: &[u64], text: Option<String>) {
        match words.first() {
            Some(&NOTE_EVENT_CHECK) => self.findings.push(text.unwrap_or_default()),
            Some(&NOTE_FAILED_COMMAND) => self.failed.push(text.unwrap_or_default()),
            _ => {}
        }
    }

    /// The summary's lines (each to be prefixed with `cltap: `).
    pub fn lines(&self) -> Vec<String> {
        let mut v = Vec::new();
        if !self.findings.is_empty() {
            v.push(format!("event checks: {} finding(s)", self.findings.len()));
            v.extend(self.findings.iter().map(|f| format!("  {f}")));
        }
        if !self.failed.is_empty() {
            v.push(format!("finish after enqueue: {} command(s) failed", self.failed.len()));
            v.extend(self.failed.iter().map(|f| format!("  {f}")));
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_controls_notes_reach_the_report() {
        let mut r = Report::default();
        r.note(&[], Some("program 1: p.cl".into()));
        r.note(&[NOTE_EVENT_CHECK], Some("clWaitForEvents: event_list[0] is NULL".into()));
        r.note(&[NOTE_FAILED_COMMAND], Some("clEnqueueNDRangeKernel (CMD ID 4) failed".into()));
        r.note(&[99], Some("later".into()));
        assert_eq!(r.findings, ["clWaitForEvents: event_list[0] is NULL"]);
        assert_eq!(r.failed, ["clEnqueueNDRangeKernel (CMD ID 4) failed"]);
        assert_eq!(
            r.lines(),
            [
                "event checks: 1 finding(s)",
                "  clWaitForEvents: event_list[0] is NULL",
                "finish after enqueue: 1 command(s) failed",
                "  clEnqueueNDRangeKernel (CMD ID 4) failed"
            ]
        );
        assert!(Report::default().lines().is_empty());
    }

    #[test]
    fn flush_is_left_to_finish_when_both_are_asked() {
        configure(&Controls { finish: true, flush: true, ..Default::default() });
        assert_eq!(bits(), FINISH);
        configure(&Controls::default());
        assert!(!on());
    }
}
