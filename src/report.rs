//! The host-API tally of a captured log: calls, errors and time per API,
//! busiest first, aligned for a terminal.

use cltap_formats::apilog::{Call, Entry};
use std::collections::HashMap;

/// The widest a table's name column grows. A longer name (any length a file
/// can hold) is printed whole and pushes its own row right; the column width
/// is a formatting parameter, which cannot exceed 65,535.
pub const MAX_NAME_WIDTH: usize = 80;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Row {
    pub name: String,
    pub calls: u64,
    pub errors: u64,
    pub total_us: u64,
    pub min_us: u64,
    pub max_us: u64,
}

fn failed(c: &Call) -> bool {
    let bad = |v: &str| v.starts_with("CL_") && v != "CL_SUCCESS";
    c.result.as_deref().is_some_and(bad) || c.outs.iter().any(|(n, v)| n == "errcode_ret" && bad(v))
}

pub fn host_tally(entries: &[Entry]) -> Vec<Row> {
    let mut m: HashMap<&str, Row> = HashMap::new();
    for e in entries {
        let Entry::Call(c) = e else { continue };
        let r =
            m.entry(&c.name).or_insert_with(|| Row { name: c.name.to_string(), min_us: u64::MAX, ..Row::default() });
        r.calls += 1;
        r.errors += failed(c) as u64;
        // Durations come from the file: a sum past u64 stays at the maximum.
        r.total_us = r.total_us.saturating_add(c.duration_us);
        r.min_us = r.min_us.min(c.duration_us);
        r.max_us = r.max_us.max(c.duration_us);
    }
    let mut v: Vec<Row> = m.into_values().collect();
    v.sort_by(|a, b| b.total_us.cmp(&a.total_us).then(b.calls.cmp(&a.calls)).then(a.name.cmp(&b.name)));
    v
}

/// How a table's times are kept and shown.
struct Units {
    /// Stored units per microsecond.
    per_us: f64,
    /// Decimals for the total, and for average, minimum and maximum.
    total_prec: usize,
    point_prec: usize,
}

fn render_in(rows: &[Row], u: Units) -> String {
    render_titled(rows, u, "API")
}

/// [`render_report_ns`] of rows that are not API calls, `title` naming
/// what they are.
pub fn render_titled_ns(rows: &[Row], title: &str) -> String {
    render_titled(rows, Units { per_us: 1000.0, total_prec: 3, point_prec: 3 }, title)
}

fn render_titled(rows: &[Row], u: Units, title: &str) -> String {
    let total = rows.iter().fold(0u64, |t, r| t.saturating_add(r.total_us));
    let w = rows.iter().map(|r| r.name.len()).max().unwrap_or(3).clamp(3, MAX_NAME_WIDTH);
    let us = |t: u64| t as f64 / u.per_us;
    let (tp, pp) = (u.total_prec, u.point_prec);
    let mut s = format!(
        "{:<w$}  {:>9}  {:>7}  {:>12}  {:>6}  {:>10}  {:>10}  {:>10}\n",
        title, "calls", "errors", "total µs", "%", "avg µs", "min µs", "max µs"
    );
    for r in rows {
        let pct = if total == 0 { 0.0 } else { 100.0 * r.total_us as f64 / total as f64 };
        s += &format!(
            "{:<w$}  {:>9}  {:>7}  {:>12.tp$}  {:>6.2}  {:>10.ap$}  {:>10.pp$}  {:>10.pp$}\n",
            r.name,
            r.calls,
            r.errors,
            us(r.total_us),
            pct,
            us(r.total_us) / r.calls.max(1) as f64,
            us(r.min_us),
            us(r.max_us),
            ap = pp.max(2)
        );
    }
    s
}

/// The table of a log's tally, times in microseconds (an API log keeps
/// whole ones), shown with three decimals as every report shows them, so
/// that reports of one run's files read alike.
pub fn render(rows: &[Row]) -> String {
    render_in(rows, Units { per_us: 1.0, total_prec: 3, point_prec: 3 })
}

/// [`render`] of times given in nanoseconds (an `.atp`, a binary trace).
pub fn render_report_ns(rows: &[Row]) -> String {
    render_in(rows, Units { per_us: 1000.0, total_prec: 3, point_prec: 3 })
}

/// The same table with times given in nanoseconds (the layer's own tally),
/// shown in microseconds.
pub fn render_ns(rows: &[Row]) -> String {
    render_in(rows, Units { per_us: 1000.0, total_prec: 1, point_prec: 3 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cltap_formats::apilog;

    #[test]
    fn tally_counts_errors_and_times() {
        let text = "\
TID         1    START TIME 0x0000000000000001    DURATION 0x0000000000000010                         clFinish(cl_command_queue q = 0000000000000001) = CL_SUCCESS
TID         1    START TIME 0x0000000000000002    DURATION 0x0000000000000020                         clFinish(cl_command_queue q = 0000000000000001) = CL_INVALID_COMMAND_QUEUE
TID         1    START TIME 0x0000000000000003    DURATION 0x0000000000000001                         clCreateBuffer(cl_context c = 0000000000000001) = 0000000000000000, *errcode_ret = CL_INVALID_VALUE
";
        let rows = host_tally(&apilog::read(text).unwrap());
        assert_eq!(rows[0], Row { name: "clFinish".into(), calls: 2, errors: 1, total_us: 48, min_us: 16, max_us: 32 });
        assert_eq!(rows[1].errors, 1);
        let t = render(&rows);
        assert!(t.lines().nth(1).unwrap().starts_with("clFinish"), "{t}");
        // Three decimals, as the reports of an .atp or a trace have them.
        let cells: Vec<&str> = t.lines().nth(1).unwrap().split_whitespace().collect();
        assert_eq!(cells[1..], ["2", "1", "48.000", "97.96", "24.000", "16.000", "32.000"], "{t}");
    }
}
