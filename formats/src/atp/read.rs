//! The reader: header, then sections in any order, each at most once; every
//! error names its 1-based line.

use super::api::{parse_api_call, parse_hsa_api_call};
use super::header::read_header;
use super::hsa::parse_hsa_timestamp;
use super::kernels::parse_kernel_dispatch;
use super::markers::parse_marker;
use super::syntax::{err, starts_section, ReadError};
use super::timestamps::parse_timestamp;
use super::{Atp, Block, KernelDispatch};
use crate::text::Lines;

/// Parses a whole file. Blank lines and CRLF line ends are accepted anywhere;
/// fields may be padded or separated by single spaces.
pub fn read(text: &str) -> Result<Atp, ReadError> {
    let mut lines = Lines::new(text);
    let mut atp = Atp { header: read_header(&mut lines)?, ..Atp::default() };
    let mut seen: Vec<Section> = Vec::new();
    while let Some((no, l)) = lines.take() {
        let section = section_kind(l).map_err(|r| err(no, r))?;
        if seen.contains(&section) {
            return Err(err(no, format!("second {} section", section.label())));
        }
        seen.push(section);
        let lines = &mut lines;
        match section {
            Section::Api => atp.api = read_blocks(lines, parse_api_call)?,
            Section::Timestamps => atp.timestamps = read_blocks(lines, parse_timestamp)?,
            Section::HsaApi => atp.hsa_api = read_blocks(lines, parse_hsa_api_call)?,
            Section::HsaTimestamps => atp.hsa_timestamps = read_blocks(lines, parse_hsa_timestamp)?,
            Section::HsaKernels => atp.kernel_dispatches = read_dispatches(lines)?,
            Section::Markers => atp.markers = read_blocks(lines, parse_marker)?,
        }
    }
    Ok(atp)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Api,
    Timestamps,
    HsaApi,
    HsaTimestamps,
    HsaKernels,
    Markers,
}

impl Section {
    fn label(self) -> &'static str {
        match self {
            Section::Api => "API trace",
            Section::Timestamps => "timestamp",
            Section::HsaApi => "HSA API trace",
            Section::HsaTimestamps => "HSA timestamp",
            Section::HsaKernels => "HSA kernel timestamp",
            Section::Markers => "perf-marker",
        }
    }
}

/// A complete `=====…=====` line. Inside a block only this ends the entries:
/// an API line for a `void` function starts ` = ` and must not.
fn is_section_marker(l: &str) -> bool {
    let t = l.trim();
    t.len() >= 10 && t.starts_with("=====") && t.ends_with("=====")
}

/// Accepts RCP's names and the older CodeXL ones (`=====CodeXL ocl API Trace
/// Output=====`, an `AMD ` prefix, `OpenCL Perfmarker Output`), as RCP's own
/// parser does.
fn section_kind(l: &str) -> Result<Section, String> {
    let t = l.trim();
    let name = t
        .strip_prefix("=====")
        .and_then(|s| s.strip_suffix("====="))
        .ok_or_else(|| format!("malformed section line {t:?}"))?;
    let name = name.strip_prefix("AMD ").unwrap_or(name);
    let name = name.strip_prefix("CodeXL ").unwrap_or(name);
    match name {
        "ocl API Trace Output" => Ok(Section::Api),
        "ocl Timestamp Output" => Ok(Section::Timestamps),
        "hsa API Trace Output" => Ok(Section::HsaApi),
        "hsa Timestamp Output" => Ok(Section::HsaTimestamps),
        "hsa Kernel Timestamp Output" => Ok(Section::HsaKernels),
        "Perfmarker Output" | "OpenCL Perfmarker Output" => Ok(Section::Markers),
        _ => Err(format!("unknown section {name:?}")),
    }
}

fn is_bare_number(l: &str) -> bool {
    l.trim().parse::<u64>().is_ok()
}

/// The next entry of a counted list, or the error that blames the count line
/// when a section marker, a bare number or the end of the text comes first.
fn next_entry<'a>(
    lines: &mut Lines<'a>,
    count_line: usize,
    count: usize,
    found: usize,
) -> Result<(usize, &'a str), ReadError> {
    match lines.peek() {
        Some((n, e)) if !is_section_marker(e) && !is_bare_number(e) => {
            lines.take();
            Ok((n, e))
        }
        _ => Err(err(count_line, format!("count line says {count} entries, but {found} follow"))),
    }
}

fn too_many(count_line: usize, count: usize) -> ReadError {
    err(count_line, format!("count line says {count} entries, but more entries follow"))
}

/// Thread blocks up to the next section line or the end of the text.
fn read_blocks<T>(lines: &mut Lines, parse: fn(&str) -> Result<T, String>) -> Result<Vec<Block<T>>, ReadError> {
    let mut blocks = Vec::new();
    // (line of the previous block's count, its count), to blame it when
    // entries follow where a thread id should be.
    let mut last_count: Option<(usize, usize)> = None;
    while let Some((no, l)) = lines.peek() {
        if is_section_marker(l) {
            break;
        }
        lines.take();
        if l.trim().starts_with("ProfilerVersion=") {
            // Perf-marker files from RCP's compatibility mode carry this line.
            continue;
        }
        let tid = l.trim().parse::<u64>().map_err(|_| match last_count {
            Some((count_line, count)) if parse(l).is_ok() => too_many(count_line, count),
            _ if starts_section(l) => err(no, format!("malformed section line {:?}", l.trim())),
            _ => err(no, format!("expected a thread id, found {:?}", l.trim())),
        })?;
        let (count_line, cl) = match lines.take() {
            Some((n, c)) if !is_section_marker(c) => (n, c),
            _ => return Err(err(no, "thread id without a count line")),
        };
        let count = parse_count(count_line, cl, "an entry count")?;
        // The count comes from the file: do not let it size an allocation.
        let mut items = Vec::with_capacity(count.min(1024));
        for found in 0..count {
            let (entry_line, el) = next_entry(lines, count_line, count, found)?;
            items.push(parse(el).map_err(|r| err(entry_line, r))?);
        }
        last_count = Some((count_line, count));
        blocks.push(Block { tid, items });
    }
    Ok(blocks)
}

fn parse_count(no: usize, l: &str, what: &str) -> Result<usize, ReadError> {
    l.trim().parse::<usize>().map_err(|_| err(no, format!("expected {what}, found {:?}", l.trim())))
}

/// The kernel-timestamp section: one count line (none at all when the
/// section is empty, as RCP's parser allows), then that many dispatch lines.
fn read_dispatches(lines: &mut Lines) -> Result<Vec<KernelDispatch>, ReadError> {
    let (count_line, count) = match lines.peek() {
        Some((n, l)) if !is_section_marker(l) => {
            lines.take();
            (n, parse_count(n, l, "a dispatch count")?)
        }
        _ => return Ok(Vec::new()),
    };
    let mut items = Vec::with_capacity(count.min(1024));
    for found in 0..count {
        let (entry_line, el) = next_entry(lines, count_line, count, found)?;
        items.push(parse_kernel_dispatch(el).map_err(|r| err(entry_line, r))?);
    }
    match lines.peek() {
        Some((no, l)) if !is_section_marker(l) => Err(if parse_kernel_dispatch(l).is_ok() {
            too_many(count_line, count)
        } else if starts_section(l) {
            err(no, format!("malformed section line {:?}", l.trim()))
        } else {
            err(no, format!("expected a section line, found {:?}", l.trim()))
        }),
        _ => Ok(items),
    }
}
