//! `cltap report FILE.csv` (an RCP counter file or cltap's `.results.csv`)
//! and `FILE.occupancy`: per kernel, how many launches and, for every
//! counter and metric column, its total and its average over the launches
//! that have a value (`NA` cells are left out, and a column no launch has
//! reads `NA`).

use cltap_formats::perf::{split_method, Api, OccupancyFile, PerfCsv, ResultsCsv};
use std::collections::BTreeMap;
use std::fmt::Write;

/// One kernel's line: launches, then `(total, launches with a value)` per column.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelCounters {
    pub kernel: String,
    pub launches: u64,
    pub sums: Vec<(f64, u64)>,
}

/// The kernels of `csv`, by name (the method without its RCP suffix).
pub fn per_kernel(csv: &PerfCsv) -> Vec<KernelCounters> {
    let api = Api::from_header(&csv.header).unwrap_or(Api::OpenCl);
    tally(
        csv.counters.len(),
        csv.rows.iter().map(|r| {
            (split_method(&r.method, api).map_or_else(|| r.method.clone(), |m| m.kernel.to_string()), &r.values[..])
        }),
    )
}

/// Launches and column sums per kernel name, from `(kernel, values)` rows.
fn tally<'a>(columns: usize, rows: impl Iterator<Item = (String, &'a [Option<f64>])>) -> Vec<KernelCounters> {
    let mut by: BTreeMap<String, KernelCounters> = BTreeMap::new();
    for (kernel, values) in rows {
        let k = by.entry(kernel.clone()).or_insert_with(|| KernelCounters {
            kernel,
            launches: 0,
            sums: vec![(0.0, 0); columns],
        });
        k.launches += 1;
        for (s, v) in k.sums.iter_mut().zip(values) {
            if let Some(v) = v.filter(|v| v.is_finite()) {
                s.0 += v;
                s.1 += 1;
            }
        }
    }
    by.into_values().collect()
}

/// The column of each launch's device time (RCP's `Time`, ms) in the
/// report of an RCP counter file, before its counters.
pub const TIME: &str = "Time (ms)";

/// The table `cltap report` prints for an RCP counter file: the device
/// time, then every counter column.
pub fn render(csv: &PerfCsv) -> String {
    let api = Api::from_header(&csv.header).unwrap_or(Api::OpenCl);
    let columns: Vec<String> = std::iter::once(TIME.to_string()).chain(csv.counters.iter().cloned()).collect();
    let values: Vec<Vec<Option<f64>>> =
        csv.rows.iter().map(|r| std::iter::once(r.time_ms).chain(r.values.iter().copied()).collect()).collect();
    let rows = csv.rows.iter().zip(&values).map(|(r, v)| {
        (split_method(&r.method, api).map_or_else(|| r.method.clone(), |m| m.kernel.to_string()), &v[..])
    });
    table(&columns, csv.rows.len(), tally(columns.len(), rows))
}

/// The same table for cltap's rocprof-style `.results.csv`.
pub fn render_results(r: &ResultsCsv) -> String {
    table(
        &r.counters,
        r.rows.len(),
        tally(r.counters.len(), r.rows.iter().map(|x| (x.kernel_name.clone(), &x.values[..]))),
    )
}

/// The same table for an occupancy file: the occupancy and the wave limits.
pub fn render_occupancy(o: &OccupancyFile) -> String {
    let columns: Vec<String> =
        ["Occupancy", "VGPR-limited waves", "SGPR-limited waves", "LDS-limited waves"].map(String::from).to_vec();
    let values: Vec<Vec<Option<f64>>> = o
        .rows
        .iter()
        .map(|r| {
            let n = |v: Option<u64>| v.map(|v| v as f64);
            vec![r.occupancy, n(r.vgpr_limited_waves), n(r.sgpr_limited_waves), n(r.lds_limited_waves)]
        })
        .collect();
    table(
        &columns,
        o.rows.len(),
        tally(columns.len(), o.rows.iter().zip(&values).map(|(r, v)| (r.kernel.clone(), &v[..]))),
    )
}

fn table(counters: &[String], launches: usize, rows: Vec<KernelCounters>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "counters per kernel ({launches} launches)");
    let _ = write!(out, "  {:<32} {:>9}", "kernel", "launches");
    for c in counters {
        let _ = write!(out, " {:>16} {:>14}", format!("{c} total"), "avg");
    }
    out.push('\n');
    let num = |v: f64| if v.fract() == 0.0 && v.abs() < 1e15 { format!("{v:.0}") } else { format!("{v:.2}") };
    for r in rows {
        let _ = write!(out, "  {:<32} {:>9}", r.kernel, r.launches);
        for ((total, n), c) in r.sums.iter().zip(counters) {
            if *n == 0 {
                let _ = write!(out, " {:>16} {:>14}", "NA", "NA");
            } else if c == crate::counters::files::PREFERRED_MULTIPLE {
                // A property of the kernel on its device, the same at every
                // launch: a sum of it means nothing.
                let _ = write!(out, " {:>16} {:>14}", "-", num(total / *n as f64));
            } else {
                let _ = write!(out, " {:>16} {:>14}", num(*total), num(total / *n as f64));
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cltap_formats::perf::PerfRow;

    fn row(method: &str, values: Vec<Option<f64>>) -> PerfRow {
        PerfRow {
            method: method.into(),
            execution_order: 1,
            thread_id: 1,
            call_index: None,
            global: [64, 1, 1],
            local: None,
            time_ms: None,
            lds: None,
            vgprs: None,
            sgprs: None,
            scratch: None,
            values,
        }
    }

    #[test]
    fn totals_and_averages_leave_na_out() {
        let csv = PerfCsv {
            header: vec![("API".into(), "HSA".into())],
            counters: vec!["SQ_WAVES".into(), "GPUBusy".into()],
            rows: vec![
                row("a_gfx906", vec![Some(4.0), Some(50.0)]),
                row("b_gfx906", vec![None, None]),
                row("a_gfx906", vec![Some(6.0), None]),
            ],
        };
        let k = per_kernel(&csv);
        assert_eq!(k[0], KernelCounters { kernel: "a".into(), launches: 2, sums: vec![(10.0, 2), (50.0, 1)] });
        assert_eq!(k[1].sums, vec![(0.0, 0), (0.0, 0)]);
        let mut csv = csv;
        csv.rows[0].time_ms = Some(1.5);
        csv.rows[2].time_ms = Some(0.25);
        let t = render(&csv);
        assert!(t.contains("Time (ms) total"), "{t}");
        let a = t.lines().find(|l| l.trim_start().starts_with("a ")).unwrap();
        assert_eq!(a.split_whitespace().collect::<Vec<_>>(), ["a", "2", "1.75", "0.88", "10", "5", "50", "50"]);
        assert!(
            t.lines()
                .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["b", "1", "NA", "NA", "NA", "NA", "NA", "NA"]),
            "{t}"
        );
        // A kernel's preferred multiple is averaged, never summed.
        csv.counters[1] = crate::counters::files::PREFERRED_MULTIPLE.into();
        csv.rows[2].values[1] = Some(50.0);
        let a = render(&csv);
        let a = a.lines().find(|l| l.trim_start().starts_with("a ")).unwrap();
        assert_eq!(a.split_whitespace().collect::<Vec<_>>()[6..], ["-", "50"]);
    }
}
