//! `SESSION.csv`, RCP's performance counter file: the `#Key=Value` header,
//! the column line, one row per dispatch. Cells are separated by the
//! `ListSeparator` and a space, as `CSVFileWriter::Flush` does; the cell forms
//! are `CLGPAProfiler::DumpKernelStats` and `DumpSession`'s.

use std::fmt::Write as _;

use super::cells::{
    err, parse_opt_f64, parse_opt_u64, parse_u64, push_line, push_opt_u64, push_rcp_value, push_text, split_cells,
    Cell, ReadError, NA,
};
use super::header::{list_separator, read_header, write_header, Api, Lines};

/// The dispatch columns, in RCP's order; counters follow. RCP's HSA writer
/// leaves out `CallIndex`, `Time` and `ScratchRegs`: cltap writes all eleven
/// (`NA` where unknown) and reads either layout.
pub const STANDARD_COLUMNS: [&str; 11] = [
    "Method",
    "ExecutionOrder",
    "ThreadID",
    "CallIndex",
    "GlobalWorkSize",
    "WorkGroupSize",
    "Time",
    "LocalMemSize",
    "VGPRs",
    "SGPRs",
    "ScratchRegs",
];

/// What RCP writes for a work size it does not have.
const NULL_SIZE: &str = "NULL";

#[derive(Debug, Clone, PartialEq, Default)]
pub struct PerfCsv {
    /// `#Key=Value` lines, in file order (see [`super::CsvHeaderInfo`]).
    pub header: Vec<(String, String)>,
    /// The counter and metric columns after the eleven standard ones.
    pub counters: Vec<String>,
    pub rows: Vec<PerfRow>,
}

/// One dispatch.
#[derive(Debug, Clone, PartialEq)]
pub struct PerfRow {
    /// Kernel and device as RCP names them: see [`ocl_method`], [`hsa_method`]
    /// and [`split_method`].
    pub method: String,
    /// 1-based, in the order rows were written.
    pub execution_order: u64,
    pub thread_id: u64,
    /// The OpenCL call's sequence number; none for HSA.
    pub call_index: Option<u64>,
    /// Unused dimensions are 1. All zero is written `NULL`, as RCP does.
    pub global: [u64; 3],
    /// `None` (the application left it to the runtime) is written `NULL`.
    pub local: Option<[u64; 3]>,
    /// Device time in milliseconds; written with 5 decimals (`%15.5lf`).
    pub time_ms: Option<f64>,
    /// Group-segment (LDS) bytes.
    pub lds: Option<u64>,
    pub vgprs: Option<u64>,
    pub sgprs: Option<u64>,
    /// Private-segment (scratch) bytes per work-item.
    pub scratch: Option<u64>,
    /// One per [`PerfCsv::counters`] entry: a whole number is written as an
    /// integer, any other with 2 decimals (`%12.2f`); `None` and values that
    /// are not finite are written `NA`.
    pub values: Vec<Option<f64>>,
}

/// `KERNEL__k<ID>_<DEVICE><N>` (`GetKernelSuffix` in
/// `CLProfilerMineCLEntry.cpp`): `kernel_id` is unique per `cl_kernel` in the
/// session; GPU devices get a session-unique number after the name, CPU
/// devices are named `CPU` with no number (pass `device_number: None`).
pub fn ocl_method(kernel: &str, kernel_id: u32, device: &str, device_number: Option<u32>) -> String {
    let mut m = format!("{kernel}__k{kernel_id}_{device}");
    if let Some(n) = device_number {
        let _ = write!(m, "{n}");
    }
    m
}

/// `SYMBOL_AGENT` (`HSAGPAProfiler::PopulateKernelStatsFromDispatchPacket`):
/// the demangled symbol name and the agent's name, e.g. `add_one_gfx906`.
pub fn hsa_method(kernel: &str, agent: &str) -> String {
    format!("{kernel}_{agent}")
}

/// A [`PerfRow::method`] taken apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MethodParts<'a> {
    pub kernel: &'a str,
    /// OpenCL's `__k<ID>`.
    pub kernel_id: Option<u32>,
    /// OpenCL: the device name with its number appended (`gfx9061`, `CPU`);
    /// HSA: the agent name.
    pub device: &'a str,
}

/// Splits a method name written by [`ocl_method`] (at the last `__k<digits>_`)
/// or [`hsa_method`] (at the last `_`, agent names have none). `None` when
/// the name has no such suffix.
pub fn split_method(method: &str, api: Api) -> Option<MethodParts<'_>> {
    match api {
        Api::OpenCl => {
            let mut search = method.len();
            while let Some(at) = method[..search].rfind("__k") {
                let rest = &method[at + 3..];
                let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                if digits > 0 && rest[digits..].starts_with('_') && rest.len() > digits + 1 {
                    return Some(MethodParts {
                        kernel: &method[..at],
                        kernel_id: rest[..digits].parse().ok(),
                        device: &rest[digits + 1..],
                    });
                }
                search = at;
            }
            None
        }
        Api::Hsa => {
            let at = method.rfind('_')?;
            (at + 1 < method.len()).then(|| MethodParts {
                kernel: &method[..at],
                kernel_id: None,
                device: &method[at + 1..],
            })
        }
    }
}

/// The whole file: [`write_csv_head`], then [`write_csv_row`] for each row.
pub fn write_csv(csv: &PerfCsv) -> String {
    let mut out = String::new();
    write_csv_head(&mut out, &csv.header, &csv.counters);
    let sep = list_separator(&csv.header);
    for row in &csv.rows {
        write_csv_row(&mut out, sep, csv.counters.len(), row);
    }
    out
}

/// The header lines and the column line. Rows are to be written with
/// `list_separator(header)`.
pub fn write_csv_head(out: &mut String, header: &[(String, String)], counters: &[String]) {
    write_header(out, header, "#");
    let sep = list_separator(header);
    let mut cells: Vec<String> = STANDARD_COLUMNS.iter().map(|c| c.to_string()).collect();
    for c in counters {
        let mut s = String::new();
        push_text(&mut s, c, sep);
        cells.push(s);
    }
    push_line(out, &cells, sep, " ");
}

/// One row with `counters` value cells (missing values are `NA`, extra ones
/// are not written).
pub fn write_csv_row(out: &mut String, sep: char, counters: usize, row: &PerfRow) {
    let num = |v: Option<u64>| {
        let mut s = String::new();
        push_opt_u64(&mut s, v);
        s
    };
    let mut method = String::new();
    push_text(&mut method, &row.method, sep);
    let mut cells = vec![
        method,
        row.execution_order.to_string(),
        row.thread_id.to_string(),
        num(row.call_index),
        sizes(Some(row.global).filter(|g| *g != [0; 3]), 7),
        sizes(row.local, 5),
        match row.time_ms.filter(|t| t.is_finite()) {
            Some(t) => format!("{t:15.5}"),
            None => NA.to_string(),
        },
        num(row.lds),
        num(row.vgprs),
        num(row.sgprs),
        num(row.scratch),
    ];
    for i in 0..counters {
        let mut s = String::new();
        push_rcp_value(&mut s, row.values.get(i).copied().flatten());
        cells.push(s);
    }
    push_line(out, &cells, sep, " ");
}

/// `{%7lu %7lu %7lu}` (global) or `{%5lu %5lu %5lu}` (local), `NULL` for none.
fn sizes(s: Option<[u64; 3]>, width: usize) -> String {
    match s {
        Some([x, y, z]) => format!("{{{x:width$} {y:width$} {z:width$}}}"),
        None => NULL_SIZE.to_string(),
    }
}

fn parse_sizes(c: &Cell, what: &str) -> Result<Option<[u64; 3]>, String> {
    let t = c.text.trim();
    if t == NULL_SIZE || c.is_na() {
        return Ok(None);
    }
    let inner = t
        .strip_prefix('{')
        .and_then(|s| s.strip_suffix('}'))
        .ok_or_else(|| format!("{what}: expected {{x y z}} or NULL, found {t:?}"))?;
    let mut out = [1u64; 3];
    let parts: Vec<&str> = inner.split_whitespace().collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("{what}: expected 1 to 3 sizes, found {t:?}"));
    }
    for (slot, p) in out.iter_mut().zip(&parts) {
        *slot = p.parse().map_err(|_| format!("{what}: {p:?} is not a size"))?;
    }
    Ok(Some(out))
}

/// Where each standard column is in a file's column line.
#[derive(Default)]
struct Layout {
    standard: [Option<usize>; 11],
    /// Index in the line of each counter column.
    counters: Vec<usize>,
}

impl Layout {
    /// The first column of each standard name is that column; any other
    /// column (a repeated name included) is a counter.
    fn of(columns: &[Cell]) -> Layout {
        let mut l = Layout::default();
        for (i, c) in columns.iter().enumerate() {
            match STANDARD_COLUMNS.iter().position(|s| *s == c.text) {
                Some(k) if l.standard[k].is_none() && !c.quoted => l.standard[k] = Some(i),
                _ => l.counters.push(i),
            }
        }
        l
    }
}

/// Parses a whole file. Columns are found by name, so RCP's HSA layout (no
/// `CallIndex`, `Time`, `ScratchRegs`) reads too, with those cells `None`.
/// A row may have fewer cells than the column line (RCP's parser allows it):
/// the missing ones are unknown.
pub fn read_csv(text: &str) -> Result<PerfCsv, ReadError> {
    let mut lines = Lines::new(text);
    let header = read_header(&mut lines, "#")?;
    let sep = list_separator(&header);
    let Some((col_line, l)) = lines.take() else {
        return Ok(PerfCsv { header, ..PerfCsv::default() });
    };
    let columns = split_cells(l, sep).map_err(|r| err(col_line, r))?;
    let layout = Layout::of(&columns);
    if layout.standard[0].is_none() {
        return Err(err(col_line, "no Method column"));
    }
    let counters = layout.counters.iter().map(|&i| columns[i].text.clone()).collect();
    let mut rows = Vec::new();
    while let Some((no, l)) = lines.take() {
        let cells = split_cells(l, sep).map_err(|r| err(no, r))?;
        if cells.len() > columns.len() {
            return Err(err(no, format!("{} cells, but {} columns", cells.len(), columns.len())));
        }
        rows.push(parse_row(&cells, &layout).map_err(|r| err(no, r))?);
    }
    Ok(PerfCsv { header, counters, rows })
}

fn parse_row(cells: &[Cell], layout: &Layout) -> Result<PerfRow, String> {
    let na = Cell { text: NA.to_string(), quoted: false };
    let cell = |k: usize| layout.standard[k].and_then(|i| cells.get(i)).unwrap_or(&na);
    let method = cell(0);
    if method.is_na() {
        return Err("row without a method".into());
    }
    let values = layout
        .counters
        .iter()
        .map(|&i| match cells.get(i) {
            Some(c) => parse_opt_f64(c, "counter", NA),
            None => Ok(None),
        })
        .collect::<Result<_, _>>()?;
    Ok(PerfRow {
        method: method.text.clone(),
        execution_order: parse_u64(cell(1), "ExecutionOrder")?,
        thread_id: parse_u64(cell(2), "ThreadID")?,
        call_index: parse_opt_u64(cell(3), "CallIndex")?,
        global: parse_sizes(cell(4), "GlobalWorkSize")?.unwrap_or([0; 3]),
        local: parse_sizes(cell(5), "WorkGroupSize")?,
        time_ms: parse_opt_f64(cell(6), "Time", NA)?,
        lds: parse_opt_u64(cell(7), "LocalMemSize")?,
        vgprs: parse_opt_u64(cell(8), "VGPRs")?,
        sgprs: parse_opt_u64(cell(9), "SGPRs")?,
        scratch: parse_opt_u64(cell(10), "ScratchRegs")?,
        values,
    })
}
