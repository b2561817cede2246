//! `results.csv` as rocprofiler v1's `rocprof` leaves it (ROCm 5.2.3): the
//! tool library (`test/tool/tool.cpp`) prints one `dispatch[N], gpu-id(..),
//! …, kernel-name("..")` line per dispatch and a `  NAME (value)` line per
//! counter; `bin/tblextr.py` turns that into an SQLite table and
//! `sqlitedb.py`'s `dump_csv` writes it out. Hence the form:
//!
//! - every column name in double quotes, cells separated by `,` alone;
//! - the fixed columns, then the counters in the order the tool printed
//!   them, then `DispatchNs,BeginNs,EndNs,CompleteNs` and the derived
//!   `DurationNs` (`EndNs - BeginNs`) when timestamps were collected;
//! - text cells in double quotes: the kernel name, and `sig` and `obj`, which
//!   the tool prints as `0x…` hex that SQLite keeps as text;
//! - numbers as SQLite hands them to Python: a whole number as an integer,
//!   any other as Python's `repr`; a missing value is Python's `None`, in
//!   every column that can lack one (never a 0 or `"0x0"` made up for it).

use std::fmt::Write as _;

use super::cells::{err, parse_opt_f64, parse_u64, push_py_number, push_quoted, split_cells, Cell, ReadError};
use super::header::Lines;

/// The columns before the counters, in rocprof's order.
pub const RESULTS_COLUMNS: [&str; 16] = [
    "Index",
    "KernelName",
    "gpu-id",
    "queue-id",
    "queue-index",
    "pid",
    "tid",
    "grd",
    "wgr",
    "lds",
    "scr",
    "vgpr",
    "sgpr",
    "fbar",
    "sig",
    "obj",
];

/// The columns after the counters, when timestamps were collected.
pub const TIME_COLUMNS: [&str; 5] = ["DispatchNs", "BeginNs", "EndNs", "CompleteNs", "DurationNs"];

/// What Python's `str(None)` writes for an SQL NULL.
pub const NONE: &str = "None";

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ResultsCsv {
    /// Counter and metric columns, in order.
    pub counters: Vec<String>,
    /// Whether the file has the [`TIME_COLUMNS`].
    pub timestamps: bool,
    pub rows: Vec<ResultsRow>,
}

/// One dispatch, with the tool's own units: `lds` rounded up to 512 bytes,
/// `vgpr`/`sgpr` from the kernel descriptor's granules (see
/// `docs/counter-files.md`). `None` is a value the run did not give (off
/// AMD, no HSA dispatch: no agent, queue, signal or kernel descriptor),
/// written `None` as rocprof writes an SQL NULL.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ResultsRow {
    /// 0-based dispatch number.
    pub index: u64,
    pub kernel_name: String,
    pub gpu_id: Option<u64>,
    pub queue_id: Option<u64>,
    pub queue_index: Option<u64>,
    pub pid: u64,
    pub tid: u64,
    /// Grid size (work-items, all dimensions multiplied).
    pub grd: u64,
    /// Work-group size (work-items, all dimensions multiplied).
    pub wgr: Option<u64>,
    pub lds: Option<u64>,
    /// Private-segment bytes per work-item.
    pub scr: Option<u64>,
    pub vgpr: Option<u64>,
    pub sgpr: Option<u64>,
    pub fbar: Option<u64>,
    /// The completion signal's handle.
    pub sig: Option<u64>,
    /// The packet's `kernel_object`.
    pub obj: Option<u64>,
    /// One per [`ResultsCsv::counters`] entry; `None` is written `None`.
    pub values: Vec<Option<f64>>,
    /// `None` is written as `None` cells when the file has timestamps.
    pub times: Option<DispatchTimes>,
}

/// rocprof's four timestamps of a dispatch (ns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DispatchTimes {
    pub dispatch: u64,
    pub begin: u64,
    pub end: u64,
    pub complete: u64,
}

/// The whole file: [`write_results_head`], then [`write_results_row`] for
/// each row.
pub fn write_results(r: &ResultsCsv) -> String {
    let mut out = String::new();
    write_results_head(&mut out, &r.counters, r.timestamps);
    for row in &r.rows {
        write_results_row(&mut out, r.counters.len(), r.timestamps, row);
    }
    out
}

pub fn write_results_head(out: &mut String, counters: &[String], timestamps: bool) {
    let times: &[&str] = if timestamps { &TIME_COLUMNS } else { &[] };
    let names = RESULTS_COLUMNS.iter().copied().chain(counters.iter().map(String::as_str)).chain(times.iter().copied());
    for (i, name) in names.enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_quoted(out, name);
    }
    out.push('\n');
}

/// One row with `counters` value cells (missing values are `None`, extra
/// ones are not written), and the five time cells when `timestamps`.
pub fn write_results_row(out: &mut String, counters: usize, timestamps: bool, row: &ResultsRow) {
    let _ = write!(out, "{},", row.index);
    push_quoted(out, &row.kernel_name);
    let _ = write!(out, ",{}", Opt(row.gpu_id));
    let _ = write!(out, ",{},{}", Opt(row.queue_id), Opt(row.queue_index));
    let _ = write!(out, ",{},{},{}", row.pid, row.tid, row.grd);
    for v in [row.wgr, row.lds, row.scr, row.vgpr, row.sgpr, row.fbar] {
        let _ = write!(out, ",{}", Opt(v));
    }
    for h in [row.sig, row.obj] {
        match h {
            Some(h) => {
                let _ = write!(out, ",\"0x{h:x}\"");
            }
            None => {
                out.push(',');
                out.push_str(NONE);
            }
        }
    }
    for i in 0..counters {
        out.push(',');
        match row.values.get(i).copied().flatten().filter(|v| v.is_finite()) {
            Some(v) => push_py_number(out, v),
            None => out.push_str(NONE),
        }
    }
    if timestamps {
        match row.times {
            Some(t) => {
                // SQLite computes DurationNs in signed 64-bit arithmetic.
                let duration = t.end as i128 - t.begin as i128;
                let _ = write!(out, ",{},{},{},{},{duration}", t.dispatch, t.begin, t.end, t.complete);
            }
            None => {
                for _ in 0..TIME_COLUMNS.len() {
                    out.push(',');
                    out.push_str(NONE);
                }
            }
        }
    }
    out.push('\n');
}

/// A number, or [`NONE`] when absent.
struct Opt(Option<u64>);

impl std::fmt::Display for Opt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(v) => write!(f, "{v}"),
            None => f.write_str(NONE),
        }
    }
}

/// Parses a whole file. The sixteen fixed columns must all be there;
/// `DurationNs` is derived and not read back.
pub fn read_results(text: &str) -> Result<ResultsCsv, ReadError> {
    let mut lines = Lines::new(text);
    let Some((col_line, l)) = lines.take() else {
        return Ok(ResultsCsv::default());
    };
    let columns = split_cells(l, ',').map_err(|r| err(col_line, r))?;
    let layout = Layout::of(&columns).map_err(|r| err(col_line, r))?;
    let counters = layout.counters.iter().map(|&i| columns[i].text.clone()).collect();
    let mut rows = Vec::new();
    while let Some((no, l)) = lines.take() {
        let cells = split_cells(l, ',').map_err(|r| err(no, r))?;
        if cells.len() != columns.len() {
            return Err(err(no, format!("{} cells, but {} columns", cells.len(), columns.len())));
        }
        rows.push(layout.row(&cells).map_err(|r| err(no, r))?);
    }
    Ok(ResultsCsv { counters, timestamps: layout.times.is_some(), rows })
}

/// Where the columns are in a file's column line.
struct Layout {
    fixed: [usize; 16],
    counters: Vec<usize>,
    /// `DispatchNs`, `BeginNs`, `EndNs`, `CompleteNs`.
    times: Option<[usize; 4]>,
}

impl Layout {
    fn of(columns: &[Cell]) -> Result<Layout, String> {
        let mut fixed = [None; 16];
        let mut times = [None; 4];
        let mut counters = Vec::new();
        for (i, c) in columns.iter().enumerate() {
            if let Some(k) = RESULTS_COLUMNS.iter().position(|n| *n == c.text) {
                if fixed[k].is_none() {
                    fixed[k] = Some(i);
                    continue;
                }
            }
            match TIME_COLUMNS.iter().position(|n| *n == c.text) {
                Some(k) if k < 4 && times[k].is_none() => times[k] = Some(i),
                Some(4) => {}
                _ => counters.push(i),
            }
        }
        let mut at = [0; 16];
        for (k, slot) in fixed.iter().enumerate() {
            at[k] = slot.ok_or_else(|| format!("no {:?} column", RESULTS_COLUMNS[k]))?;
        }
        let times = match times {
            [Some(a), Some(b), Some(c), Some(d)] => Some([a, b, c, d]),
            [None, None, None, None] => None,
            _ => return Err("some but not all of the timestamp columns".into()),
        };
        Ok(Layout { fixed: at, counters, times })
    }

    fn row(&self, cells: &[Cell]) -> Result<ResultsRow, String> {
        let num = |k: usize| parse_u64(&cells[self.fixed[k]], RESULTS_COLUMNS[k]);
        // A bare `None` is rocprof's SQL NULL: the value is absent.
        let absent = |k: usize| !cells[self.fixed[k]].quoted && cells[self.fixed[k]].text == NONE;
        let opt = |k: usize| if absent(k) { Ok(None) } else { num(k).map(Some) };
        let hex = |k: usize| {
            if absent(k) {
                Ok(None)
            } else {
                parse_handle(&cells[self.fixed[k]], RESULTS_COLUMNS[k]).map(Some)
            }
        };
        let values =
            self.counters.iter().map(|&i| parse_opt_f64(&cells[i], "counter", NONE)).collect::<Result<_, _>>()?;
        let times = match self.times {
            Some(at) => {
                let c = at.map(|i| &cells[i]);
                if c.iter().all(|c| !c.quoted && c.text == NONE) {
                    None
                } else {
                    Some(DispatchTimes {
                        dispatch: parse_u64(c[0], "DispatchNs")?,
                        begin: parse_u64(c[1], "BeginNs")?,
                        end: parse_u64(c[2], "EndNs")?,
                        complete: parse_u64(c[3], "CompleteNs")?,
                    })
                }
            }
            None => None,
        };
        Ok(ResultsRow {
            index: num(0)?,
            kernel_name: cells[self.fixed[1]].text.clone(),
            gpu_id: opt(2)?,
            queue_id: opt(3)?,
            queue_index: opt(4)?,
            pid: num(5)?,
            tid: num(6)?,
            grd: num(7)?,
            wgr: opt(8)?,
            lds: opt(9)?,
            scr: opt(10)?,
            vgpr: opt(11)?,
            sgpr: opt(12)?,
            fbar: opt(13)?,
            sig: hex(14)?,
            obj: hex(15)?,
            values,
            times,
        })
    }
}

/// `0x…` (rocprof's form) or a decimal number.
fn parse_handle(c: &Cell, what: &str) -> Result<u64, String> {
    let t = c.text.as_str();
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).map_err(|_| format!("{what}: {t:?} is not a hex number")),
        None => parse_u64(c, what),
    }
}
