//! One function per reader of files cltap does not trust, taking any bytes:
//! the fuzz targets. `fuzz/` (cargo-fuzz, for long runs) and
//! `tests/fuzz.rs` (a bounded run of each, in the suite) call the same
//! functions; docs/fuzzing.md tells how to run them. A target may return an
//! error (that is the clean outcome of bad input); it must not panic, hang or
//! use memory out of proportion to its input.

pub mod mutate;

use crate::render::printer::{self, Options, Timebase};
use crate::render::reference;
use cltap_formats::cltrace::Reader;
use std::path::Path;

/// A fuzz target: any bytes in, no panic out.
pub type Target = fn(&[u8]);

/// The targets by name, for the harnesses.
pub const TARGETS: &[(&str, Target)] = &[
    ("trace", trace),
    ("apilog", apilog),
    ("atp", atp),
    ("counters", counters),
    ("metrics", metrics),
    ("rocp_input", rocp_input),
    ("memory", memory),
    ("rocpd", rocpd),
];

/// The binary trace: opened from a file (the reader works on files), its
/// chunks listed, read and walked, and every record printed as the API log
/// (plain and decoded, each call's line held to the reference's).
pub fn trace(data: &[u8]) {
    let Ok(dir) = tempdir() else { return };
    let path = dir.0.join("fuzz.cltrace");
    if std::fs::write(&path, data).is_err() {
        return;
    }
    if let Ok(r) = Reader::open(&path) {
        let tb = Timebase { ticks_per_us: r.header.ticks_per_us().filter(|t| *t > 0.0).unwrap_or(1000.0) };
        let (mut buf, mut wide) = (Vec::new(), Vec::new());
        for c in r.chunks().unwrap_or_default() {
            // A chunk cut short is walked too: its whole records are kept.
            let _ = r.chunk_bytes(&c, &mut buf);
            // The tools' buffers take the chunk widened.
            r.widen(&c, &buf, &mut wide);
            let mut text = String::new();
            let _ = r.walk(&c, &buf, |v| {
                // A call's line, plain and decoded, is the reference's: the
                // `apilog::Call` built field by field and written by the
                // format's own writer, whatever the record holds.
                for decode in [false, true] {
                    let at = text.len();
                    printer::print(&mut text, v, &tb, &Options { decode, kernels: None });
                    match reference::lines(v, &tb, decode) {
                        Some(want) => {
                            assert_eq!(text[at..], want, "the line writer and the reference differ (decode: {decode})")
                        }
                        None => assert!(text[at..].starts_with('#'), "not a call, yet: {}", &text[at..]),
                    }
                }
            });
            // What the printer wrote, the API-log reader reads.
            for l in text.lines() {
                cltap_formats::apilog::parse_line(l)
                    .unwrap_or_else(|e| panic!("the printer wrote a line its reader rejects ({e}): {l}"));
            }
        }
    }
}

/// The API log: parsed, normalized, diffed against itself and tallied.
pub fn apilog(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let entries: Vec<_> = text.lines().filter_map(|l| cltap_formats::apilog::parse_line(l).ok()).collect();
    let calls = crate::normalize::normalize(&entries, crate::normalize::Options::default());
    let _ = crate::normalize::render(&calls);
    assert!(crate::diff::diff(&calls, &calls).is_empty(), "a log differs from itself");
    let _ = crate::report::render(&crate::report::host_tally(&entries));
}

/// The `.atp`: read, normalized, tallied by API and by kernel.
pub fn atp(data: &[u8]) {
    let Ok(a) = cltap_formats::atp::read(&String::from_utf8_lossy(data)) else { return };
    let _ = crate::normalize::render(&crate::normalize::normalize_atp(&a, crate::normalize::Options::default()));
    let atps = [a];
    let _ = crate::report::render_ns(&crate::atp_input::host_tally(&atps));
    let cmds = crate::atp_input::commands(&atps);
    let _ = crate::devtime::render_kernels(&crate::devtime::kernel_table(&cmds));
    let _ = crate::devtime::render_transfers(&crate::devtime::transfer_table(&cmds));
}

/// The counter files: RCP's `.csv`, cltap's `.results.csv`, `.occupancy`,
/// each read and reported.
pub fn counters(data: &[u8]) {
    use cltap_formats::perf;
    let text = String::from_utf8_lossy(data);
    if let Ok(c) = perf::read_csv(&text) {
        let _ = crate::counters::report::render(&c);
    }
    if let Ok(r) = perf::read_results(&text) {
        let _ = crate::counters::report::render_results(&r);
    }
    if let Ok(o) = perf::read_occupancy(&text) {
        let _ = crate::counters::report::render_occupancy(&o);
    }
}

/// A metrics file (`ROCP_METRICS`): loaded for a gfx9 GPU, every metric
/// explained and planned (includes resolve in an empty folder).
pub fn metrics(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let blocks = crate::metrics::gfx9_defaults();
    let Ok(cat) = crate::metrics::Catalog::from_text("fuzz.xml", &text, Path::new("/nonexistent"), "gfx906", &blocks)
    else {
        return;
    };
    let names: Vec<String> = cat.iter().take(64).map(|m| m.name.clone()).collect();
    for n in &names {
        let _ = crate::metrics::explain(&cat, n);
    }
    if let Ok(plan) = cat.plan(&names.iter().map(String::as_str).collect::<Vec<_>>()) {
        let _ = crate::metrics::describe_plan(&plan);
    }
}

/// rocprofiler's input file (`ROCP_INPUT`).
pub fn rocp_input(data: &[u8]) {
    let _ = crate::metrics::parse_input("fuzz-input.xml", &String::from_utf8_lossy(data));
}

/// A fresh folder of this process's (the trace and database readers read
/// files), removed with all in it when dropped, on error or panic as well.
struct Scratch(std::path::PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tempdir() -> std::io::Result<Scratch> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let d =
        std::env::temp_dir().join(format!("cltap-fuzz-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
    std::fs::create_dir_all(&d)?;
    Ok(Scratch(d))
}

/// The memory trace (`.memory.csv`): what the reader accepts, written again,
/// reads back the same.
pub fn memory(data: &[u8]) {
    use cltap_formats::memory;
    let Ok(rows) = memory::read(&String::from_utf8_lossy(data)) else { return };
    let mut out = Vec::new();
    memory::write(&mut out, &rows).expect("writing to memory");
    let again = memory::read(&String::from_utf8_lossy(&out))
        .unwrap_or_else(|e| panic!("the writer wrote a memory trace its reader rejects ({e})"));
    assert_eq!(again, rows, "a memory trace read, written and read again differs");
}

/// A rocpd database (`cltap report A.db`): read from a file of its own as
/// the command reads it, and reported; the reader leaves nothing beside the
/// file (no journal, no `-wal` or `-shm`).
pub fn rocpd(data: &[u8]) {
    let Ok(dir) = tempdir() else { return };
    let path = dir.0.join("fuzz.db");
    if std::fs::write(&path, data).is_err() {
        return;
    }
    if let Ok(t) = cltap_formats::rocpd::Totals::read(&path) {
        let _ = crate::rocpd_report::render(&[("fuzz.db".to_string(), t)]);
    }
    let left: Vec<_> =
        std::fs::read_dir(&dir.0).map(|d| d.flatten().map(|e| e.file_name()).collect()).unwrap_or_default();
    assert_eq!(left, ["fuzz.db"], "the reader wrote beside the database");
}
