//! The memory trace and the leak check (`CLTAP_MEMORY`, `CLTAP_LEAKS`;
//! docs/memory.md), made from the call records alone: `calls` says what
//! each function does to memory and objects, `step` reads it from a call's
//! record, `tracker` follows the calls in the order they returned. The render sink (`render::memory`) writes the
//! file and hands the [`Report`] to the summary and the other outputs.

pub mod calls;
pub mod step;
pub mod tracker;

pub use tracker::Tracker;

/// Memory in use on one device after an allocation or a release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    /// Host `CLOCK_MONOTONIC`, ns.
    pub time_ns: u64,
    pub device: String,
    pub bytes: u64,
}

/// Something the application made and never let go of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leak {
    /// The OpenCL handle type (`cl_mem`, …), `hsa_queue`, `hsa_signal`,
    /// `hsa_executable`, or an allocation's kind (`svm`, `hsa-pool`, …).
    pub ty: String,
    pub handle: u64,
    /// The application's references left (0 for what is not counted).
    pub references: u64,
    /// The record of the call that made it.
    pub record: u64,
    pub call: String,
    pub thread: u32,
    /// Its memory, where it holds some.
    pub bytes: Option<u64>,
}

/// What the memory sink learnt.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// What was asked for: the memory trace, the leak check.
    pub asked: crate::config::memory::Memory,
    /// Every allocation and release, in the order the calls returned.
    pub rows: Vec<cltap_formats::memory::Row>,
    /// The most each device held at once, by device label.
    pub peaks: Vec<(String, u64)>,
    pub samples: Vec<Sample>,
    /// What was left at the end, by the record that made it.
    pub leaks: Vec<Leak>,
}

impl Report {
    /// The summary's lines (without their `cltap: ` prefix).
    pub fn lines(&self) -> Vec<String> {
        let mut l = Vec::new();
        if self.asked.trace {
            l.push(format!("memory: {} allocations and releases; peak in use per device:", self.rows.len()));
            l.extend(self.peaks.iter().map(|(d, b)| format!("  {d}: {b} bytes")));
        }
        if self.asked.leaks {
            l.push(match self.leaks.len() {
                0 => "leaks: nothing the application made is left at exit".to_string(),
                n => format!("leaks: {n} left at exit (type, handle, references, bytes, the call that made it):"),
            });
            l.extend(self.leaks.iter().map(|k| {
                let refs = |r: u64| format!("{r} reference{}", if r == 1 { "" } else { "s" });
                let held = match (k.references, k.bytes) {
                    (0, Some(b)) => format!("{b} bytes"),
                    (r, Some(b)) => format!("{}, {b} bytes", refs(r)),
                    (r, None) => refs(r),
                };
                format!(
                    "  {} {:#x} ({held}) made by {} at record {} on thread {}",
                    k.ty, k.handle, k.call, k.record, k.thread
                )
            }));
        }
        l
    }

    /// The summary's JSON members: `"memory_peaks"` (memory trace) and
    /// `"leaks"` (leak check).
    pub fn json(&self) -> Vec<(&'static str, serde_json::Value)> {
        use serde_json::json;
        let mut v = Vec::new();
        if self.asked.trace {
            let peaks: Vec<_> = self.peaks.iter().map(|(d, b)| json!({"device": d, "bytes": b})).collect();
            v.push(("memory_peaks", json!(peaks)));
        }
        if self.asked.leaks {
            let leaks: Vec<_> = self
                .leaks
                .iter()
                .map(|k| {
                    json!({"type": k.ty, "handle": format!("{:#x}", k.handle), "references": k.references,
                    "bytes": k.bytes, "record": k.record, "call": k.call, "thread": k.thread})
                })
                .collect();
            v.push(("leaks", json!(leaks)));
        }
        v
    }
}
