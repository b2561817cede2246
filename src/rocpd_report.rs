//! `cltap report A.db B.db …`: one summary over many rocpd databases (one
//! per process, as a job's ranks leave them), per process (by rank, where
//! their names carry one) and in total:
//! the API calls per category and name, the kernels, the memory copies.

// Names as the file holds them, but for control characters, escaped: a
// database's line break or terminal escape must not make lines of its own.
use cltap_formats::escape_controls as shown;
use cltap_formats::rocpd::{Span, Totals, UnreadLog};
use std::fmt::Write;

fn us(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

fn add(to: &mut (u64, u64), by: (u64, u64)) {
    *to = (to.0.saturating_add(by.0), to.1.saturating_add(by.1));
}

/// rocprofiler-sdk's category of ROCTx ranges, where cltap puts its perf
/// markers: ranges the application named, not API calls.
const MARKERS: &str = "MARKER_CORE_API";

/// One table of regions: per (category, name), calls, total, % of the
/// table's total, average, minimum and maximum, in µs to the nanosecond
/// (what the database keeps), busiest first.
fn regions(out: &mut String, what: &str, rows: &[(&(String, String), &Span)]) {
    let total = rows.iter().fold(0u64, |t, (_, s)| t.saturating_add(s.total_ns));
    let _ = writeln!(
        out,
        "  {:<16} {:<44} {:>10} {:>14} {:>7} {:>12} {:>12} {:>12}",
        "category", what, "calls", "total µs", "%", "avg µs", "min µs", "max µs"
    );
    let mut rows = rows.to_vec();
    rows.sort_by(|a, b| b.1.total_ns.cmp(&a.1.total_ns).then(a.0.cmp(b.0)));
    for ((cat, name), s) in rows {
        let (cat, name) = (shown(cat), shown(name));
        let pct = if total == 0 { 0.0 } else { 100.0 * s.total_ns as f64 / total as f64 };
        let _ = writeln!(
            out,
            "  {cat:<16} {name:<44} {:>10} {:>14.3} {pct:>7.2} {:>12.3} {:>12.3} {:>12.3}",
            s.count,
            us(s.total_ns),
            us(s.total_ns) / s.count.max(1) as f64,
            us(s.min_ns),
            us(s.max_ns)
        );
    }
}

fn section(out: &mut String, t: &Totals) {
    let (markers, api): (Vec<_>, Vec<_>) = t.regions.iter().partition(|((cat, _), _)| cat == MARKERS);
    regions(out, "API", &api);
    if !markers.is_empty() {
        regions(out, "perf marker", &markers);
    }
    if !t.kernels.is_empty() {
        let _ = writeln!(out, "  {:<61} {:>10} {:>14}", "kernel", "launches", "total µs");
        let mut rows: Vec<_> = t.kernels.iter().collect();
        rows.sort_by(|a, b| b.1 .1.cmp(&a.1 .1).then(a.0.cmp(b.0)));
        for (name, (n, ns)) in rows {
            let _ = writeln!(out, "  {:<61} {n:>10} {:>14.1}", shown(name), us(*ns));
        }
    }
    if t.copies.0 > 0 {
        let _ = writeln!(out, "  memory copies: {} ({} bytes)", t.copies.0, t.copies.1);
    }
    if t.left_out > 0 {
        let _ = writeln!(
            out,
            "  left out: {} (calls, dispatches or copies whose name, times or size are missing)",
            t.left_out
        );
    }
    match t.unread_log {
        Some(UnreadLog::Wal) => {
            let _ = writeln!(out, "  note: its write-ahead log (-wal) was not read: totals as of its last checkpoint");
        }
        Some(UnreadLog::Journal) => {
            let _ = writeln!(out, "  note: a hot journal (-journal) beside it was not read: it may be mid-transaction");
        }
        None => {}
    }
}

/// The report of `dbs` (name, totals): each process, then all of them.
pub fn render(dbs: &[(String, Totals)]) -> String {
    let mut out = String::new();
    let mut all = Totals::default();
    // A job's databases by rank (their names' `.r<N>`), those with none last.
    let rank = |name: &str| crate::report_ranks::rank_in_name(std::path::Path::new(name));
    let mut order: Vec<&(String, Totals)> = dbs.iter().collect();
    order.sort_by_key(|(name, _)| (rank(name).is_none(), rank(name)));
    for (name, t) in order {
        match rank(name) {
            Some(r) => writeln!(out, "rank {r}: process {} ({name})", t.pid),
            None => writeln!(out, "process {} ({name})", t.pid),
        }
        .unwrap_or(());
        section(&mut out, t);
        for (k, v) in &t.regions {
            all.regions.entry(k.clone()).or_default().add(*v);
        }
        for (k, v) in &t.kernels {
            add(all.kernels.entry(k.clone()).or_default(), *v);
        }
        add(&mut all.copies, t.copies);
        all.left_out = all.left_out.saturating_add(t.left_out);
    }
    let _ = writeln!(out, "total ({} processes)", dbs.len());
    section(&mut out, &all);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn the_total_adds_every_process() {
        let one = |pid, calls| Totals {
            regions: BTreeMap::from([
                (
                    ("OPENCL_API".to_string(), "clFinish".to_string()),
                    Span { count: calls, total_ns: 1000 * calls, min_ns: 1000, max_ns: 1000 },
                ),
                (("MARKER_CORE_API".to_string(), "setup".to_string()), Span::of(7000 * calls)),
            ]),
            kernels: BTreeMap::from([("k".to_string(), (1, 500))]),
            copies: (1, 8),
            pid,
            ..Totals::default()
        };
        let text = render(&[("a.db".into(), one(1, 2)), ("b.db".into(), one(2, 3))]);
        let total = text.split("total (2 processes)").nth(1).unwrap();
        let finish = total.lines().find(|l| l.contains("clFinish")).unwrap();
        let cells: Vec<&str> = finish.split_whitespace().collect();
        // calls, total, %, avg, min, max: markers are not in the API's 100 %.
        assert_eq!(cells[2..], ["5", "5.000", "100.00", "1.000", "1.000", "1.000"], "{text}");
        let setup = total.lines().find(|l| l.contains("setup")).unwrap();
        let cells: Vec<&str> = setup.split_whitespace().collect();
        assert_eq!(cells[2..], ["2", "35.000", "100.00", "17.500", "14.000", "21.000"], "{text}");
        let heads: Vec<&str> = total.lines().filter(|l| l.contains("category")).collect();
        assert!(heads[0].contains(" API ") && heads[1].contains(" perf marker "), "{text}");
        assert!(total.contains("memory copies: 2 (16 bytes)"), "{text}");
        assert!(text.contains("process 1 (a.db)") && text.contains("process 2 (b.db)"));
    }
}
