//! Argument dumps, injection and capture around kernel enqueues
//! (`CLTAP_DUMP_*`, `CLTAP_INJECT`, `CLTAP_CAPTURE`; [debugging.md](../../docs/debugging.md)).
//! The layer tells this module what the application set
//! ([`args`]) and hands it each kernel enqueue ([`enqueue`]); this module
//! selects the enqueue, reads and writes the contents on the application's
//! queue, names and writes the files, and says what it did in the API log.
//!
//! With no control on, the layer's hooks cost one relaxed load ([`on`]),
//! and the wrappers that carry them keep their fast path.

#![deny(unsafe_op_in_unsafe_fn)]

pub mod args;
pub mod capture_program;
pub mod cl;
pub mod diff;
pub mod enqueue;
pub mod facts;
pub mod manifest;

use crate::config::dumps::Dumps;
use cltap_formats::cltrace::record::KIND_NOTE;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

static SETTINGS: crate::switched::Switched<Settings> = crate::switched::Switched::new();

/// What the controls asked for, compiled, and where the files go.
pub struct Settings {
    pub controls: Dumps,
    kernels: Option<regex::Regex>,
    /// `<output>/<stem>.dumps`.
    pub dumps_dir: PathBuf,
    /// `<output>/<stem>.capture`.
    pub capture_dir: PathBuf,
    /// The injection files: (enqueue, argument index, file).
    pub inject: Vec<(u64, u32, PathBuf)>,
}

/// What the run's dumps cost, for the summary.
#[derive(Debug, Default)]
pub struct Stats {
    pub enqueues: AtomicU64,
    pub files: AtomicU64,
    pub bytes: AtomicU64,
    /// Nanoseconds the application's thread waited for the dumps' reads
    /// and writes (and the finish before the reads after an enqueue).
    pub waited_ns: AtomicU64,
    pub injected: AtomicU64,
    pub captured: AtomicU64,
    /// Kernel enqueues seen, the numbering's counter.
    pub seen: AtomicU64,
    /// The run's limit was reached (said once).
    pub full: AtomicBool,
}

pub static STATS: Stats = Stats {
    enqueues: AtomicU64::new(0),
    files: AtomicU64::new(0),
    bytes: AtomicU64::new(0),
    waited_ns: AtomicU64::new(0),
    injected: AtomicU64::new(0),
    captured: AtomicU64::new(0),
    seen: AtomicU64::new(0),
    full: AtomicBool::new(false),
};

/// At start-up, once the process is known to be recorded.
pub fn configure(controls: &Dumps, output: &std::path::Path) {
    if !controls.any() {
        return;
    }
    let stem = crate::naming::stem();
    let s = Settings {
        controls: controls.clone(),
        kernels: controls.kernels.as_deref().and_then(|r| regex::Regex::new(r).ok()),
        dumps_dir: output.join(format!("{stem}.dumps")),
        capture_dir: output.join(format!("{stem}.capture")),
        inject: controls.inject.as_deref().map(injection_files).unwrap_or_default(),
    };
    SETTINGS.set(s);
}

/// Whether any dump control is on (the only cost to a hooked call when none is).
#[inline(always)]
pub fn on() -> bool {
    SETTINGS.on()
}

/// The settings, when on.
pub fn settings() -> Option<&'static Settings> {
    SETTINGS.get()
}

impl Settings {
    /// Whether kernel enqueue `n` of kernel `name` is selected.
    pub fn selects(&self, n: u64, name: &str) -> bool {
        self.kernels.as_ref().is_none_or(|r| r.is_match(name))
            && self.controls.enqueues.as_ref().is_none_or(|v| v.iter().any(|(a, b)| (*a..=*b).contains(&n)))
    }

    /// The injection files of enqueue `n`: (argument index, file).
    pub fn injections(&self, n: u64) -> Vec<(u32, PathBuf)> {
        self.inject.iter().filter(|(e, _, _)| *e == n).map(|(_, a, p)| (*a, p.clone())).collect()
    }

    /// Takes `bytes` of the run's budget; false (and the line, once) when
    /// the run's limit would be passed.
    pub fn take(&self, bytes: u64) -> bool {
        let before = STATS.bytes.fetch_add(bytes, Ordering::AcqRel);
        if before + bytes <= self.controls.total {
            return true;
        }
        STATS.bytes.fetch_sub(bytes, Ordering::AcqRel);
        if !STATS.full.swap(true, Ordering::AcqRel) {
            let t = format!(
                "dumps: CLTAP_DUMP_TOTAL={} reached ({} bytes written); no more argument contents are written",
                self.controls.total,
                STATS.bytes.load(Ordering::Acquire)
            );
            crate::warn!("{t}");
            note(&t);
        }
        false
    }
}

/// `e<N>[-<kernel>].a<I>[.<anything>]` (a dump's own name fits): the files
/// of the injection folder, read once at start-up.
fn injection_files(dir: &std::path::Path) -> Vec<(u64, u32, PathBuf)> {
    let Ok(rd) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut v: Vec<(u64, u32, PathBuf)> = rd
        .filter_map(|e| {
            let p = e.ok()?.path();
            let name = p.file_name()?.to_str()?.to_string();
            let (e, a) = parse_name(&name)?;
            p.is_file().then_some((e, a, p))
        })
        .collect();
    v.sort();
    v
}

/// The enqueue and argument numbers in a dump's file name.
pub fn parse_name(name: &str) -> Option<(u64, u32)> {
    let mut parts = name.split('.');
    let e = parts.next()?.strip_prefix('e')?.split('-').next()?.parse().ok()?;
    let a = parts.next()?.strip_prefix('a')?.parse().ok()?;
    Some((e, a))
}

/// One line of cltap's own in the API log, on this thread, after the
/// records before it.
pub fn note(text: &str) {
    let t = crate::trace::tsc::now();
    crate::trace::local::record_kind::<KIND_NOTE>(0, t, t, &[], Some(text));
}

/// What the dumps wrote and the wait they cost, for the summary (`None`:
/// no dump control was on).
pub fn facts() -> Option<facts::DumpFacts> {
    let s = settings()?;
    let l = |a: &AtomicU64| a.load(Ordering::Acquire);
    Some(facts::DumpFacts {
        enqueues: l(&STATS.enqueues),
        files: l(&STATS.files),
        bytes: l(&STATS.bytes),
        waited_ns: l(&STATS.waited_ns),
        folder: s.dumps_dir.display().to_string(),
        captured: s.controls.capture.then(|| (l(&STATS.captured), s.capture_dir.display().to_string())),
        injected: s.controls.inject.is_some().then(|| l(&STATS.injected)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_give_enqueue_and_argument() {
        assert_eq!(parse_name("e000003-vecadd.a1.m2.bin"), Some((3, 1)));
        assert_eq!(parse_name("e7.a0.bin"), Some((7, 0)));
        assert_eq!(parse_name("e7-a5.a0"), Some((7, 0)));
        assert_eq!(parse_name("x7.a0.bin"), None);
        assert_eq!(parse_name("e7-vecadd.bin"), None);
    }
}
