//! Radeon Compute Profiler's application trace (`.atp`), OpenCL part: a
//! `Key=Value` header, then up to three sections (API trace, timestamps, perf
//! markers), each a list of per-thread blocks. `docs/atp-format.md` describes
//! the file and every place where cltap knowingly differs from RCP.
//!
//! The layout follows RCP's writers (GPUOpen-Tools/radeon_compute_profiler and
//! its CodeXL predecessor): `sprofile/AtpFile.cpp` (header), `Common/
//! APIInfoManagerBase.cpp` (sections, blocks, API lines), `CLTraceAgent/
//! CLAPIDefBase.cpp` and `CLEnqueueAPIDefs.cpp` (timestamp lines),
//! `AMDTActivityLogger.cpp` (perf-marker lines).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::OnceLock;

use crate::atp_api_types::{CLTAP_FIRST, CLTAP_FUNCTIONS, RCP_FUNCTIONS};

pub const API_SECTION: &str = "=====ocl API Trace Output=====";
pub const TIMESTAMP_SECTION: &str = "=====ocl Timestamp Output=====";
pub const MARKER_SECTION: &str = "=====Perfmarker Output=====";

/// The `TraceFileVersion` RCP's last releases write (`AtpFileWriter`'s 3.2).
pub const TRACE_FILE_VERSION: &str = "3.2";

/// Written for a whitespace-delimited field that would otherwise be empty: an
/// empty field would shift every field after it. RCP uses `NA` for unknown
/// values in its other files.
pub const EMPTY_FIELD: &str = "NA";

/// RCP's stand-in for a space inside perf-marker names and groups.
const MARKER_SPACE: &str = "&nbsp;";

/// RCP's group for markers begun without one.
const DEFAULT_MARKER_GROUP: &str = "Default";

/// Marker names this long or longer leave RCP's 50-column field.
const MARKER_NAME_WIDTH: usize = 50;

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Atp {
    /// `Key=Value` lines, in file order.
    pub header: Vec<(String, String)>,
    pub api: Vec<Block<ApiCall>>,
    pub timestamps: Vec<Block<Timestamp>>,
    pub markers: Vec<Block<Marker>>,
}

/// One thread's entries within a section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block<T> {
    pub tid: u64,
    pub items: Vec<T>,
}

/// `Ret = Name ( a;b;c )`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiCall {
    pub ret: String,
    pub name: String,
    /// Each argument already formatted (`0x7f…`, `NULL`, `[4]`, `[1024,1,1]`,
    /// `["text"]`, `CL_MEM_READ_WRITE|CL_MEM_COPY_HOST_PTR`, …).
    pub args: Vec<String>,
}

/// One timestamp line; times are host-CPU nanoseconds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timestamp {
    /// RCP's API-type number, see [`api_type`].
    pub api_type: u32,
    pub name: String,
    pub start: u64,
    pub end: u64,
    /// Present for enqueue calls that succeeded (RCP writes none otherwise).
    pub enqueue: Option<Enqueue>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enqueue {
    /// `CL_COMMAND_*` value and name, e.g. 4592, `CL_COMMAND_NDRANGE_KERNEL`.
    pub cmd_type: u32,
    pub cmd_name: String,
    pub queued: u64,
    pub submit: u64,
    pub start: u64,
    pub end: u64,
    pub queue_id: u32,
    pub queue: u64,
    pub context_id: u32,
    pub context: u64,
    /// As given; the writer turns spaces (any whitespace) into `_`, the reader
    /// returns what the file holds.
    pub device: String,
    pub detail: Detail,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Detail {
    /// Markers, barriers, unmaps, migrations, …: nothing after the device.
    None,
    /// NDRange and task dispatches. `local: None` is written `{NULL}`. A kernel
    /// with an empty name, no global size and no local size is RCP's
    /// native-kernel form: the handle alone (the function's address).
    Kernel {
        handle: u64,
        name: String,
        global: Vec<u64>,
        local: Option<Vec<u64>>,
    },
    /// Data transfers and fills: bytes moved.
    Transfer { bytes: u64 },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Marker {
    /// Name and group are kept with spaces; the writer stores them as
    /// `&nbsp;` (RCP's convention) and the reader turns them back.
    Begin {
        name: String,
        time: u64,
        group: String,
    },
    End {
        time: u64,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct ReadError {
    /// 1-based.
    pub line: usize,
    pub reason: String,
}

/// The fields RCP's profiler puts in the header, in the order it writes them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HeaderInfo {
    pub profiler_version: String,
    pub application: String,
    pub application_args: String,
    pub working_directory: String,
    /// Written (as RCP does, `1`/`0`) only when `env_vars` is not empty.
    pub full_environment: bool,
    pub env_vars: Vec<(String, String)>,
    pub user_timer: bool,
    pub os_version: String,
    pub display_name: String,
}

impl HeaderInfo {
    /// Header lines as `AtpFileWriter::SaveToAtpFile` orders them,
    /// `TraceFileVersion=3.2` first.
    pub fn to_header(&self) -> Vec<(String, String)> {
        let kv = |k: &str, v: &str| (k.to_string(), v.to_string());
        let mut h = vec![
            kv("TraceFileVersion", TRACE_FILE_VERSION),
            kv("ProfilerVersion", &self.profiler_version),
            kv("Application", &self.application),
            kv("ApplicationArgs", &self.application_args),
            kv("WorkingDirectory", &self.working_directory),
        ];
        if !self.env_vars.is_empty() {
            h.push(kv(
                "FullEnvironment",
                if self.full_environment { "1" } else { "0" },
            ));
            for (name, value) in &self.env_vars {
                h.push(("EnvVar".to_string(), format!("{name}={value}")));
            }
        }
        h.push(kv(
            "UserTimer",
            if self.user_timer { "True" } else { "False" },
        ));
        h.push(kv("OS Version", &self.os_version));
        h.push(kv("DisplayName", &self.display_name));
        h
    }
}

// ---------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------

/// The whole file: header, then each non-empty section in RCP's order.
pub fn write(atp: &Atp) -> String {
    let mut out = String::new();
    write_header(&mut out, &atp.header);
    write_section(&mut out, API_SECTION, &atp.api, write_api_call);
    write_section(
        &mut out,
        TIMESTAMP_SECTION,
        &atp.timestamps,
        write_timestamp,
    );
    write_section(&mut out, MARKER_SECTION, &atp.markers, write_marker);
    out
}

fn write_section<T>(
    out: &mut String,
    marker: &str,
    blocks: &[Block<T>],
    item: fn(&mut String, &T),
) {
    if blocks.is_empty() {
        return;
    }
    write_section_start(out, marker);
    for b in blocks {
        write_block_start(out, b.tid, b.items.len());
        for i in &b.items {
            item(out, i);
        }
    }
}

/// `Key=Value` lines. A key can hold neither `=` (the reader splits at the
/// first one) nor be blank (the line would read as a section marker); such
/// characters become `_` and a blank key [`EMPTY_FIELD`]. Line breaks in keys
/// and values become spaces.
pub fn write_header(out: &mut String, header: &[(String, String)]) {
    for (key, value) in header {
        if key.trim().is_empty() {
            out.push_str(EMPTY_FIELD);
        } else {
            out.extend(key.chars().map(|c| match c {
                '=' => '_',
                '\n' | '\r' => ' ',
                c => c,
            }));
        }
        out.push('=');
        out.extend(
            value
                .chars()
                .map(|c| if c == '\n' || c == '\r' { ' ' } else { c }),
        );
        out.push('\n');
    }
}

/// A section marker line: one of [`API_SECTION`], [`TIMESTAMP_SECTION`],
/// [`MARKER_SECTION`].
pub fn write_section_start(out: &mut String, section: &str) {
    out.push_str(section);
    out.push('\n');
}

/// The thread-id line and the count line that open a block.
pub fn write_block_start(out: &mut String, tid: u64, count: usize) {
    let _ = writeln!(out, "{tid}\n{count}");
}

/// `Ret = Name ( a;b;c )`. An argument that would not survive the reader's
/// split on top-level `;` (a raw `;`, an unclosed bracket or string, a line
/// break) is written as a quoted string with `\\ \" \n \r \t` escapes, RCP's
/// string convention; so is a return value holding ` = `, and the single
/// argument of a one-empty-argument list (`( )` reads back as no arguments).
pub fn write_api_call(out: &mut String, c: &ApiCall) {
    if ret_is_safe(&c.ret) {
        out.push_str(&c.ret);
    } else {
        push_quoted(out, &c.ret);
    }
    out.push_str(" = ");
    out.push_str(&token(&c.name, &['(']));
    out.push_str(" ( ");
    if let [only] = c.args.as_slice() {
        if only.is_empty() {
            out.push_str("\"\"");
        }
    }
    for (i, a) in c.args.iter().enumerate() {
        if i > 0 {
            out.push(';');
        }
        if arg_is_safe(a) {
            out.push_str(a);
        } else {
            push_quoted(out, a);
        }
    }
    out.push_str(" )\n");
}

/// One timestamp line in RCP's left-justified columns (API type 5, name 45,
/// times 21, command type 8, command name 40, ids 10, handles 25, device 30,
/// transfer size 20). Where a value fills its column RCP runs it into the
/// next field; cltap puts one space there instead.
pub fn write_timestamp(out: &mut String, t: &Timestamp) {
    let mut line = Columns::new(out);
    line.col(Small::dec(u64::from(t.api_type)).as_str(), 5);
    line.col(&token(&t.name, &[]), 45);
    line.col(Small::dec(t.start).as_str(), 21);
    line.col(Small::dec(t.end).as_str(), 21);
    if let Some(e) = &t.enqueue {
        write_enqueue(&mut line, e);
    }
    out.push('\n');
}

fn write_enqueue(line: &mut Columns, e: &Enqueue) {
    line.col(Small::dec(u64::from(e.cmd_type)).as_str(), 8);
    line.col(&token(&e.cmd_name, &[]), 40);
    for t in [e.queued, e.submit, e.start, e.end] {
        line.col(Small::dec(t).as_str(), 21);
    }
    line.col(Small::dec(u64::from(e.queue_id)).as_str(), 10);
    line.col(Small::handle(e.queue).as_str(), 25);
    line.col(Small::dec(u64::from(e.context_id)).as_str(), 10);
    line.col(Small::handle(e.context).as_str(), 25);
    line.col(&token(&e.device, &[]), 30);
    match &e.detail {
        Detail::None => {}
        Detail::Transfer { bytes } => line.col(Small::dec(*bytes).as_str(), 20),
        Detail::Kernel {
            handle,
            name,
            global,
            local,
        } => {
            line.col(Small::handle(*handle).as_str(), 25);
            if name.is_empty() && global.is_empty() && local.is_none() {
                return;
            }
            line.col(&token(name, &[]), 0);
            // The fixed gaps are CLAPI_clEnqueueNDRangeKernel::WriteTimestampEntry's.
            line.raw("      ");
            push_sizes(line.out, Some(global));
            line.raw("     ");
            push_sizes(line.out, local.as_deref());
            line.raw("        ");
        }
    }
}

/// `{g0,g1,…}`, or `{NULL}` for a size the application left out.
fn push_sizes(out: &mut String, sizes: Option<&[u64]>) {
    out.push('{');
    match sizes {
        None => out.push_str("NULL"),
        Some(s) => {
            for (i, v) in s.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(Small::dec(*v).as_str());
            }
        }
    }
    out.push('}');
}

/// `clBeginPerfMarker name time   group` / `clEndPerfMarker time`, in the
/// ActivityLogger's columns. Whitespace in names and groups is stored as
/// `&nbsp;`; an empty group is RCP's `Default`, an empty name
/// [`EMPTY_FIELD`].
pub fn write_marker(out: &mut String, m: &Marker) {
    let mut line = Columns::new(out);
    match m {
        Marker::Begin { name, time, group } => {
            let name = marker_text(name, EMPTY_FIELD);
            let time = Small::dec(*time);
            if name.len() < MARKER_NAME_WIDTH {
                line.col("clBeginPerfMarker", 20);
                line.col(&name, MARKER_NAME_WIDTH);
                line.col(time.as_str(), 20);
            } else {
                // amdtBeginMarker's layout for names too long for the column.
                line.raw("clBeginPerfMarker   ");
                line.raw(&name);
                line.raw("   ");
                line.raw(time.as_str());
            }
            line.raw("   ");
            line.raw(&marker_text(group, DEFAULT_MARKER_GROUP));
        }
        Marker::End { time } => {
            line.col("clEndPerfMarker", 20);
            line.col(Small::dec(*time).as_str(), 20);
        }
    }
    out.push('\n');
}

/// Appends fields to one line, padding each to its column.
struct Columns<'a> {
    out: &'a mut String,
    start: usize,
}

impl<'a> Columns<'a> {
    fn new(out: &'a mut String) -> Self {
        let start = out.len();
        Columns { out, start }
    }

    /// A field left-justified in `width` bytes (as `std::setw` counts). When
    /// the previous field filled its column, a space keeps the two apart.
    fn col(&mut self, s: &str, width: usize) {
        if self.out.len() > self.start && !self.out.ends_with(' ') {
            self.out.push(' ');
        }
        self.out.push_str(s);
        for _ in s.len()..width {
            self.out.push(' ');
        }
    }

    fn raw(&mut self, s: &str) {
        self.out.push_str(s);
    }
}

/// A field of a whitespace-separated line: whitespace (and `extra`) becomes
/// `_`, as RCP does for device names; empty becomes [`EMPTY_FIELD`].
fn token<'s>(s: &'s str, extra: &[char]) -> Cow<'s, str> {
    let bad = |c: char| c.is_whitespace() || extra.contains(&c);
    if s.is_empty() {
        Cow::Borrowed(EMPTY_FIELD)
    } else if s.contains(bad) {
        Cow::Owned(s.chars().map(|c| if bad(c) { '_' } else { c }).collect())
    } else {
        Cow::Borrowed(s)
    }
}

fn marker_text<'s>(s: &'s str, if_empty: &'static str) -> Cow<'s, str> {
    if s.is_empty() {
        Cow::Borrowed(if_empty)
    } else if s.contains(char::is_whitespace) {
        let mut o = String::with_capacity(s.len() + 8);
        for c in s.chars() {
            if c.is_whitespace() {
                o.push_str(MARKER_SPACE);
            } else {
                o.push(c);
            }
        }
        Cow::Owned(o)
    } else {
        Cow::Borrowed(s)
    }
}

/// A number or handle formatted on the stack: these are most of a timestamp
/// line, and the producer writes one line per traced call.
struct Small {
    buf: [u8; 20],
    start: usize,
}

impl Small {
    fn dec(mut v: u64) -> Self {
        let mut s = Small {
            buf: [0; 20],
            start: 20,
        };
        loop {
            s.start -= 1;
            s.buf[s.start] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                return s;
            }
        }
    }

    /// RCP's `StringUtils::ToHexString` of a pointer as built on Linux: `NULL`
    /// for 0, else libstdc++'s `%p` form, `0x` and lower-case digits without
    /// padding.
    fn handle(mut v: u64) -> Self {
        let mut s = Small {
            buf: [0; 20],
            start: 20,
        };
        if v == 0 {
            s.start = 16;
            s.buf[16..].copy_from_slice(b"NULL");
            return s;
        }
        while v != 0 {
            s.start -= 1;
            s.buf[s.start] = b"0123456789abcdef"[(v & 0xF) as usize];
            v >>= 4;
        }
        s.start -= 2;
        s.buf[s.start] = b'0';
        s.buf[s.start + 1] = b'x';
        s
    }

    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.buf[self.start..]).unwrap_or_default()
    }
}

/// RCP's string quoting (`CLStringUtils::GetStringString`), plus `\\` so that
/// the reader can always find the closing quote.
pub fn push_quoted(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn has_line_break(s: &str) -> bool {
    s.contains(['\n', '\r'])
}

/// True when `a`, between two `;`, reads back as exactly itself.
fn arg_is_safe(a: &str) -> bool {
    if has_line_break(a) {
        return false;
    }
    let mut scan = Scan::default();
    for c in a.chars() {
        if c == ';' && scan.at_top() {
            return false;
        }
        scan.step(c);
    }
    scan.at_top()
}

/// True when the reader's search for the first top-level ` = ` stops right
/// after `r`.
fn ret_is_safe(r: &str) -> bool {
    !has_line_break(r) && find_top(&format!("{r} = "), " = ") == Some(r.len())
}

// ---------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------

/// Parses a whole file. Blank lines and CRLF line ends are accepted anywhere;
/// fields may be padded or separated by single spaces.
pub fn read(text: &str) -> Result<Atp, ReadError> {
    let mut lines = Lines::new(text);
    let mut atp = Atp::default();
    while let Some((no, l)) = lines.peek() {
        if starts_section(l) {
            break;
        }
        lines.take();
        let (k, v) = l
            .split_once('=')
            .ok_or_else(|| err(no, "header line without '='"))?;
        atp.header.push((k.to_string(), v.to_string()));
    }
    let mut seen: Vec<Section> = Vec::new();
    while let Some((no, l)) = lines.take() {
        let section = section_kind(l).map_err(|r| err(no, r))?;
        if seen.contains(&section) {
            return Err(err(no, format!("second {} section", section.label())));
        }
        seen.push(section);
        match section {
            Section::Api => atp.api = read_blocks(&mut lines, parse_api_call)?,
            Section::Timestamps => atp.timestamps = read_blocks(&mut lines, parse_timestamp)?,
            Section::Markers => atp.markers = read_blocks(&mut lines, parse_marker)?,
        }
    }
    Ok(atp)
}

fn err(line: usize, reason: impl Into<String>) -> ReadError {
    ReadError {
        line,
        reason: reason.into(),
    }
}

/// Non-blank lines with their 1-based numbers, one line of look-ahead.
struct Lines<'a> {
    inner: std::iter::Enumerate<std::str::Lines<'a>>,
    peeked: Option<(usize, &'a str)>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        Lines {
            inner: text.lines().enumerate(),
            peeked: None,
        }
    }

    fn fetch(&mut self) -> Option<(usize, &'a str)> {
        for (i, l) in self.inner.by_ref() {
            let l = l.strip_suffix('\r').unwrap_or(l);
            if !l.trim().is_empty() {
                return Some((i + 1, l));
            }
        }
        None
    }

    fn peek(&mut self) -> Option<(usize, &'a str)> {
        if self.peeked.is_none() {
            self.peeked = self.fetch();
        }
        self.peeked
    }

    fn take(&mut self) -> Option<(usize, &'a str)> {
        self.peeked.take().or_else(|| self.fetch())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Api,
    Timestamps,
    Markers,
}

impl Section {
    fn label(self) -> &'static str {
        match self {
            Section::Api => "API trace",
            Section::Timestamps => "timestamp",
            Section::Markers => "perf-marker",
        }
    }
}

/// A line that ends the header: RCP's parser takes any line starting with `=`
/// as the first section marker.
fn starts_section(l: &str) -> bool {
    l.trim_start().starts_with('=')
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
        "Perfmarker Output" | "OpenCL Perfmarker Output" => Ok(Section::Markers),
        _ => Err(format!("unknown section {name:?}")),
    }
}

fn is_bare_number(l: &str) -> bool {
    l.trim().parse::<u64>().is_ok()
}

/// Thread blocks up to the next section line or the end of the text.
fn read_blocks<T>(
    lines: &mut Lines,
    parse: fn(&str) -> Result<T, String>,
) -> Result<Vec<Block<T>>, ReadError> {
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
            Some((count_line, count)) if parse(l).is_ok() => err(
                count_line,
                format!("count line says {count} entries, but more entries follow"),
            ),
            _ if starts_section(l) => err(no, format!("malformed section line {:?}", l.trim())),
            _ => err(no, format!("expected a thread id, found {:?}", l.trim())),
        })?;
        let (count_line, cl) = match lines.take() {
            Some((n, c)) if !is_section_marker(c) => (n, c),
            _ => return Err(err(no, "thread id without a count line")),
        };
        let count = cl.trim().parse::<usize>().map_err(|_| {
            err(
                count_line,
                format!("expected an entry count, found {:?}", cl.trim()),
            )
        })?;
        // The count comes from the file: do not let it size an allocation.
        let mut items = Vec::with_capacity(count.min(1024));
        for found in 0..count {
            let (entry_line, el) = match lines.peek() {
                Some((n, e)) if !is_section_marker(e) && !is_bare_number(e) => (n, e),
                _ => {
                    return Err(err(
                        count_line,
                        format!("count line says {count} entries, but {found} follow"),
                    ))
                }
            };
            lines.take();
            items.push(parse(el).map_err(|r| err(entry_line, r))?);
        }
        last_count = Some((count_line, count));
        blocks.push(Block { tid, items });
    }
    Ok(blocks)
}

fn parse_api_call(l: &str) -> Result<ApiCall, String> {
    let l = l.trim_end();
    let eq = find_top(l, " = ").ok_or("API line without ' = ' after the return value")?;
    let ret = &l[..eq];
    let rest = &l[eq + 3..];
    let (name, body) = rest.split_once('(').ok_or("API line without '('")?;
    let name = name.trim();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return Err(format!("bad API name {name:?}"));
    }
    let body = body
        .strip_suffix(')')
        .ok_or("API line does not end with ')'")?;
    let body = body.strip_prefix(' ').unwrap_or(body);
    let body = body.strip_suffix(' ').unwrap_or(body);
    Ok(ApiCall {
        ret: ret.to_string(),
        name: name.to_string(),
        args: split_args(body)?,
    })
}

/// Splits an argument list on `;` outside brackets and quoted strings.
fn split_args(body: &str) -> Result<Vec<String>, String> {
    let mut args = Vec::new();
    if body.is_empty() {
        return Ok(args);
    }
    let mut scan = Scan::default();
    let mut from = 0;
    for (i, c) in body.char_indices() {
        if c == ';' && scan.at_top() {
            args.push(body[from..i].to_string());
            from = i + 1;
        } else {
            scan.step(c);
        }
    }
    if !scan.at_top() {
        return Err("unclosed bracket or string in the argument list".into());
    }
    args.push(body[from..].to_string());
    Ok(args)
}

/// Index of the first `pat` outside brackets and quoted strings.
fn find_top(s: &str, pat: &str) -> Option<usize> {
    let mut scan = Scan::default();
    for (i, c) in s.char_indices() {
        if scan.at_top() && s[i..].starts_with(pat) {
            return Some(i);
        }
        scan.step(c);
    }
    None
}

/// Bracket depth and string state while walking argument text. Any of `([{`
/// opens and any of `)]}` closes; a stray closer is ignored, so that it cannot
/// swallow a later separator.
#[derive(Default)]
struct Scan {
    depth: u32,
    quoted: bool,
    escaped: bool,
}

impl Scan {
    fn at_top(&self) -> bool {
        self.depth == 0 && !self.quoted
    }

    fn step(&mut self, c: char) {
        if self.quoted {
            if self.escaped {
                self.escaped = false;
            } else if c == '\\' {
                self.escaped = true;
            } else if c == '"' {
                self.quoted = false;
            }
            return;
        }
        match c {
            '"' => self.quoted = true,
            '(' | '[' | '{' => self.depth = self.depth.saturating_add(1),
            ')' | ']' | '}' => self.depth = self.depth.saturating_sub(1),
            _ => {}
        }
    }
}

fn number<T: std::str::FromStr>(s: &str, what: &str) -> Result<T, String> {
    s.parse().map_err(|_| format!("bad {what} {s:?}"))
}

/// `NULL` or `0x…` in either case and at any width (Linux and Windows builds
/// of RCP differ).
fn parse_handle(s: &str, what: &str) -> Result<u64, String> {
    if s == "NULL" {
        return Ok(0);
    }
    s.strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .filter(|h| !h.is_empty())
        .and_then(|h| u64::from_str_radix(h, 16).ok())
        .ok_or_else(|| format!("bad {what} {s:?}"))
}

fn looks_like_handle(s: &str) -> bool {
    s == "NULL" || s.starts_with("0x") || s.starts_with("0X")
}

fn parse_timestamp(l: &str) -> Result<Timestamp, String> {
    let f: Vec<&str> = l.split_whitespace().collect();
    if f.len() < 4 {
        return Err(format!(
            "timestamp line has {} fields, needs at least 4",
            f.len()
        ));
    }
    let enqueue = match f.len() {
        4 => None,
        n if n < 15 => {
            return Err(format!(
                "timestamp line has {n} fields: too many for a call, too few for an enqueue (15)"
            ))
        }
        _ => Some(parse_enqueue(&f[4..])?),
    };
    Ok(Timestamp {
        api_type: number(f[0], "API type")?,
        name: f[1].to_string(),
        start: number(f[2], "start time")?,
        end: number(f[3], "end time")?,
        enqueue,
    })
}

/// The fields after the end time; the caller guarantees at least 11.
fn parse_enqueue(f: &[&str]) -> Result<Enqueue, String> {
    let detail = match f.get(11..).unwrap_or_default() {
        [] => Detail::None,
        [x] if looks_like_handle(x) => Detail::Kernel {
            handle: parse_handle(x, "native kernel address")?,
            name: String::new(),
            global: Vec::new(),
            local: None,
        },
        [x] => Detail::Transfer {
            bytes: number(x, "transfer size")?,
        },
        [handle, name, global, local] => Detail::Kernel {
            handle: parse_handle(handle, "kernel handle")?,
            name: name.to_string(),
            global: parse_sizes(global, "global work size")?
                .ok_or("global work size cannot be {NULL}")?,
            local: parse_sizes(local, "local work size")?,
        },
        rest => {
            return Err(format!(
                "{} unexpected fields after the device name",
                rest.len()
            ))
        }
    };
    Ok(Enqueue {
        cmd_type: number(f[0], "command type")?,
        cmd_name: f[1].to_string(),
        queued: number(f[2], "queued time")?,
        submit: number(f[3], "submit time")?,
        start: number(f[4], "device start time")?,
        end: number(f[5], "device end time")?,
        queue_id: number(f[6], "queue id")?,
        queue: parse_handle(f[7], "queue handle")?,
        context_id: number(f[8], "context id")?,
        context: parse_handle(f[9], "context handle")?,
        device: f[10].to_string(),
        detail,
    })
}

/// `{a,b,c}` → `Some`, `{NULL}` → `None`.
fn parse_sizes(s: &str, what: &str) -> Result<Option<Vec<u64>>, String> {
    let inner = s
        .strip_prefix('{')
        .and_then(|s| s.strip_suffix('}'))
        .ok_or_else(|| format!("bad {what} {s:?}: expected {{…}}"))?;
    match inner {
        "NULL" => Ok(None),
        "" => Ok(Some(Vec::new())),
        _ => inner
            .split(',')
            .map(|v| number(v, what))
            .collect::<Result<_, _>>()
            .map(Some),
    }
}

fn parse_marker(l: &str) -> Result<Marker, String> {
    let f: Vec<&str> = l.split_whitespace().collect();
    match f.as_slice() {
        ["clBeginPerfMarker", name, time, group @ ..] if !group.is_empty() => Ok(Marker::Begin {
            name: name.replace(MARKER_SPACE, " "),
            time: number(time, "marker time")?,
            // Old ActivityLogger builds left spaces in groups unescaped.
            group: group.join(" ").replace(MARKER_SPACE, " "),
        }),
        ["clEndPerfMarker", time] => Ok(Marker::End {
            time: number(time, "marker time")?,
        }),
        // Newer ActivityLogger builds name the marker they end; the name is
        // redundant with the matching begin and is not kept.
        ["clEndPerfMarkerEx", time, _name, _group, ..] => Ok(Marker::End {
            time: number(time, "marker time")?,
        }),
        ["clBeginPerfMarker" | "clEndPerfMarker" | "clEndPerfMarkerEx", ..] => {
            Err(format!("perf-marker line with {} fields", f.len()))
        }
        _ => Err("expected clBeginPerfMarker, clEndPerfMarker or clEndPerfMarkerEx".into()),
    }
}

// ---------------------------------------------------------------------------
// API-type numbers
// ---------------------------------------------------------------------------

/// First and last API type of the range for names neither table knows.
pub const HASHED_FIRST: u32 = 1000;
pub const HASHED_LAST: u32 = 9999;

fn by_name() -> &'static HashMap<&'static str, u32> {
    static MAP: OnceLock<HashMap<&'static str, u32>> = OnceLock::new();
    MAP.get_or_init(|| {
        let rcp = RCP_FUNCTIONS.iter().zip(0u32..);
        let cltap = CLTAP_FUNCTIONS.iter().zip(CLTAP_FIRST..);
        rcp.chain(cltap).map(|(n, t)| (*n, t)).collect()
    })
}

/// RCP's API-type number (its `CL_FUNC_TYPE` enum, 0–145) for the functions
/// RCP knew; cltap's own table (200 up) for later core and extension functions;
/// for any other name a 32-bit FNV-1a hash of the name folded into
/// [`HASHED_FIRST`]..=[`HASHED_LAST`]. Every range stays below 10000 so the
/// number fits RCP's 5-wide column. Hashed names may share a number.
pub fn api_type(name: &str) -> u32 {
    by_name()
        .get(name)
        .copied()
        .unwrap_or_else(|| hashed_api_type(name))
}

fn hashed_api_type(name: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in name.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    HASHED_FIRST + h % (HASHED_LAST - HASHED_FIRST + 1)
}

/// The function an API type names; `None` for hashed and unused numbers.
pub fn api_name(api_type: u32) -> Option<&'static str> {
    let i = usize::try_from(api_type).ok()?;
    if let Some(n) = RCP_FUNCTIONS.get(i) {
        return Some(n);
    }
    let j = usize::try_from(api_type.checked_sub(CLTAP_FIRST)?).ok()?;
    CLTAP_FUNCTIONS.get(j).copied()
}

/// RCP's `IsEnqueueAPI`: the API types whose timestamp lines RCP's own reader
/// expects to carry enqueue fields. Functions from cltap's ranges are never
/// enqueue APIs to RCP, so RCP-based viewers ignore their enqueue fields.
pub fn rcp_is_enqueue(api_type: u32) -> bool {
    matches!(api_type, 52..=73 | 101..=105 | 114..=118 | 124..=128 | 135..=136 | 139)
}

#[cfg(test)]
mod tests {
    use super::*;

    const Q: u64 = 0x55d0_c8a3_b2c0;
    const CTX: u64 = 0x55d0_c8a1_f010;
    const K: u64 = 0x55d0_c8b4_0a80;

    fn call(ret: &str, name: &str, args: &[&str]) -> ApiCall {
        ApiCall {
            ret: ret.into(),
            name: name.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
        }
    }

    fn ts(name: &str, start: u64, end: u64, enqueue: Option<Enqueue>) -> Timestamp {
        Timestamp {
            api_type: api_type(name),
            name: name.into(),
            start,
            end,
            enqueue,
        }
    }

    fn enq(cmd_type: u32, cmd_name: &str, t0: u64, device: &str, detail: Detail) -> Enqueue {
        Enqueue {
            cmd_type,
            cmd_name: cmd_name.into(),
            queued: t0,
            submit: t0 + 500,
            start: t0 + 7_000,
            end: t0 + 90_000,
            queue_id: 1,
            queue: Q,
            context_id: 1,
            context: CTX,
            device: device.into(),
            detail,
        }
    }

    fn kernel(name: &str, global: &[u64], local: Option<&[u64]>) -> Detail {
        Detail::Kernel {
            handle: K,
            name: name.into(),
            global: global.to_vec(),
            local: local.map(<[u64]>::to_vec),
        }
    }

    fn begin(name: &str, time: u64, group: &str) -> Marker {
        Marker::Begin {
            name: name.into(),
            time,
            group: group.into(),
        }
    }

    /// Two threads: one sets up and dispatches (1D/2D/3D, with and without a
    /// local size), one transfers, fences and marks; nested markers on both.
    fn sample() -> Atp {
        let header = HeaderInfo {
            profiler_version: "0.1.0".into(),
            application: "/home/u/bin/nbody".into(),
            application_args: "--n=4096 --iters 10".into(),
            working_directory: "/home/u".into(),
            full_environment: false,
            env_vars: vec![("POCL_CACHE_DIR".into(), "/tmp/pc".into())],
            user_timer: false,
            os_version: "Linux 6.1.0-18-amd64".into(),
            display_name: "session1".into(),
        }
        .to_header();
        let api_a = vec![
            call(
                "CL_SUCCESS",
                "clGetPlatformIDs",
                &["1", "[0x55d0c8a00010]", "[1]"],
            ),
            call(
                "CL_SUCCESS",
                "clGetPlatformInfo",
                &[
                    "0x55d0c8a00010",
                    "CL_PLATFORM_NAME",
                    "64",
                    "[\"NVIDIA CUDA; rev 13\"]",
                    "[12]",
                ],
            ),
            call(
                "0x55d0c8a1f010",
                "clCreateContext",
                &[
                    "[{CL_CONTEXT_PLATFORM,0x55d0c8a00010,NULL}]",
                    "1",
                    "[0x55d0c8a00200]",
                    "NULL",
                    "NULL",
                    "[CL_SUCCESS]",
                ],
            ),
            call(
                "0x55d0c8b40a80",
                "clCreateKernel",
                &["0x55d0c8b00000", "\"vadd\"", "[CL_SUCCESS]"],
            ),
            call(
                "CL_SUCCESS",
                "clSetKernelArg",
                &["0x55d0c8b40a80", "0", "8", "[0x55d0c8d00000]"],
            ),
            call(
                "CL_SUCCESS",
                "clEnqueueNDRangeKernel",
                &[
                    "0x55d0c8a3b2c0",
                    "0x55d0c8b40a80",
                    "1",
                    "NULL",
                    "[1048576]",
                    "[256]",
                    "0",
                    "NULL",
                    "NULL",
                ],
            ),
            call(
                "CL_SUCCESS",
                "clEnqueueNDRangeKernel",
                &[
                    "0x55d0c8a3b2c0",
                    "0x55d0c8b40a80",
                    "2",
                    "NULL",
                    "[4096,64]",
                    "NULL",
                    "0",
                    "NULL",
                    "[0x55d0c8c01200]",
                ],
            ),
            call(
                "CL_SUCCESS",
                "clEnqueueNDRangeKernel",
                &[
                    "0x55d0c8a3b2c0",
                    "0x55d0c8b40a80",
                    "3",
                    "[0,0,0]",
                    "[1024,768,4]",
                    "[16,16,1]",
                    "0",
                    "NULL",
                    "NULL",
                ],
            ),
            call("CL_SUCCESS", "clFinish", &["0x55d0c8a3b2c0"]),
        ];
        let ts_a = vec![
            ts("clGetPlatformIDs", 1_000, 9_000, None),
            ts("clGetPlatformInfo", 10_000, 10_400, None),
            ts("clCreateContext", 11_000, 250_000, None),
            ts("clCreateKernel", 260_000, 261_000, None),
            ts("clSetKernelArg", 262_000, 262_100, None),
            ts(
                "clEnqueueNDRangeKernel",
                270_000,
                275_000,
                Some(enq(
                    4592,
                    "CL_COMMAND_NDRANGE_KERNEL",
                    274_000,
                    "NVIDIA_H200",
                    kernel("vadd", &[1_048_576], Some(&[256])),
                )),
            ),
            ts(
                "clEnqueueNDRangeKernel",
                280_000,
                284_000,
                Some(enq(
                    4592,
                    "CL_COMMAND_NDRANGE_KERNEL",
                    283_000,
                    "NVIDIA_H200",
                    kernel("vadd", &[4096, 64], None),
                )),
            ),
            ts(
                "clEnqueueNDRangeKernel",
                290_000,
                293_000,
                Some(enq(
                    4592,
                    "CL_COMMAND_NDRANGE_KERNEL",
                    292_000,
                    "NVIDIA_H200",
                    kernel("vadd", &[1024, 768, 4], Some(&[16, 16, 1])),
                )),
            ),
            ts("clFinish", 300_000, 480_000, None),
        ];
        let api_b = vec![
            call(
                "CL_SUCCESS",
                "clEnqueueWriteBuffer",
                &[
                    "0x55d0c8a3b2c0",
                    "0x55d0c8d00000",
                    "CL_FALSE",
                    "0",
                    "4194304",
                    "0x7f3a10000000",
                    "0",
                    "NULL",
                    "NULL",
                ],
            ),
            call(
                "CL_SUCCESS",
                "clEnqueueReadBuffer",
                &[
                    "0x55d0c8a3b2c0",
                    "0x55d0c8d00000",
                    "CL_TRUE",
                    "0",
                    "4194304",
                    "0x7f3a10400000",
                    "1",
                    "[0x55d0c8c01200]",
                    "NULL",
                ],
            ),
            call(
                "CL_SUCCESS",
                "clEnqueueMarkerWithWaitList",
                &["0x55d0c8a3b2c0", "0", "NULL", "[0x55d0c8c01300]"],
            ),
            call(
                "CL_INVALID_VALUE",
                "clEnqueueReadBuffer",
                &[
                    "0x55d0c8a3b2c0",
                    "NULL",
                    "CL_TRUE",
                    "0",
                    "0",
                    "NULL",
                    "0",
                    "NULL",
                    "NULL",
                ],
            ),
        ];
        let ts_b = vec![
            ts(
                "clEnqueueWriteBuffer",
                200_000,
                201_000,
                Some(enq(
                    4596,
                    "CL_COMMAND_WRITE_BUFFER",
                    200_500,
                    "NVIDIA_H200",
                    Detail::Transfer { bytes: 4_194_304 },
                )),
            ),
            ts(
                "clEnqueueReadBuffer",
                500_000,
                640_000,
                Some(enq(
                    4595,
                    "CL_COMMAND_READ_BUFFER",
                    500_500,
                    "NVIDIA_H200",
                    Detail::Transfer { bytes: 4_194_304 },
                )),
            ),
            ts(
                "clEnqueueMarkerWithWaitList",
                650_000,
                650_900,
                Some(enq(
                    4606,
                    "CL_COMMAND_MARKER",
                    650_500,
                    "NVIDIA_H200",
                    Detail::None,
                )),
            ),
            ts("clEnqueueReadBuffer", 660_000, 660_200, None),
        ];
        Atp {
            header,
            api: vec![
                Block {
                    tid: 41_877,
                    items: api_a,
                },
                Block {
                    tid: 41_880,
                    items: api_b,
                },
            ],
            timestamps: vec![
                Block {
                    tid: 41_877,
                    items: ts_a,
                },
                Block {
                    tid: 41_880,
                    items: ts_b,
                },
            ],
            markers: vec![
                Block {
                    tid: 41_877,
                    items: vec![
                        begin("setup", 900, "Default"),
                        Marker::End { time: 255_000 },
                        begin("solver loop", 265_000, "Solver phases"),
                        begin("step 1", 266_000, "Solver phases"),
                        Marker::End { time: 296_000 },
                        Marker::End { time: 490_000 },
                    ],
                },
                Block {
                    tid: 41_880,
                    items: vec![
                        begin("upload", 199_000, "io"),
                        begin("x".repeat(60).as_str(), 199_500, "io"),
                        Marker::End { time: 202_000 },
                        Marker::End { time: 641_000 },
                    ],
                },
            ],
        }
    }

    #[test]
    fn round_trip_realistic_multi_thread_sample() {
        let atp = sample();
        let text = write(&atp);
        assert_eq!(read(&text).unwrap(), atp);
        // Text-level fixed point too: reading what was read changes nothing.
        assert_eq!(write(&read(&text).unwrap()), text);
    }

    #[test]
    fn write_is_the_concatenation_of_the_streaming_pieces() {
        let atp = sample();
        let mut s = String::new();
        write_header(&mut s, &atp.header);
        write_section_start(&mut s, API_SECTION);
        for b in &atp.api {
            write_block_start(&mut s, b.tid, b.items.len());
            b.items.iter().for_each(|c| write_api_call(&mut s, c));
        }
        write_section_start(&mut s, TIMESTAMP_SECTION);
        for b in &atp.timestamps {
            write_block_start(&mut s, b.tid, b.items.len());
            b.items.iter().for_each(|t| write_timestamp(&mut s, t));
        }
        write_section_start(&mut s, MARKER_SECTION);
        for b in &atp.markers {
            write_block_start(&mut s, b.tid, b.items.len());
            b.items.iter().for_each(|m| write_marker(&mut s, m));
        }
        assert_eq!(write(&atp), s);
    }

    #[test]
    fn empty_sections_are_left_out() {
        let atp = Atp {
            header: HeaderInfo::default().to_header(),
            ..Atp::default()
        };
        let text = write(&atp);
        assert!(!text.contains("====="), "{text}");
        assert_eq!(read(&text).unwrap(), atp);
    }

    fn one_line(f: impl FnOnce(&mut String)) -> String {
        let mut s = String::new();
        f(&mut s);
        s
    }

    /// Each expected string is what RCP's writer prints for the same values;
    /// they were produced by replaying RCP's iostream calls (`left`, `setw`,
    /// libstdc++'s pointer output) in a C++ program, and the source of each
    /// is named beside it.
    #[test]
    fn golden_lines_match_rcp() {
        // sprofile/AtpFile.cpp, AtpFileWriter::SaveToAtpFile: header keys and order.
        let info = HeaderInfo {
            profiler_version: "5.6.7".into(),
            application: "/opt/app".into(),
            application_args: "-x".into(),
            working_directory: "/opt".into(),
            user_timer: false,
            os_version: "Linux".into(),
            display_name: "session1".into(),
            ..HeaderInfo::default()
        };
        assert_eq!(
            one_line(|s| write_header(s, &info.to_header())),
            "TraceFileVersion=3.2\nProfilerVersion=5.6.7\nApplication=/opt/app\nApplicationArgs=-x\n\
             WorkingDirectory=/opt\nUserTimer=False\nOS Version=Linux\nDisplayName=session1\n"
        );
        // Common/APIInfoManagerBase.cpp, WriteAPITraceDataToStream: thread id, count.
        assert_eq!(one_line(|s| write_block_start(s, 41877, 3)), "41877\n3\n");
        // APIInfoManagerBase.cpp, APIBase::WriteAPIEntry; the text is the example
        // in CLTraceAgent/CLAtpFile.cpp, CLAtpFilePart::Parse.
        assert_eq!(
            one_line(|s| write_api_call(
                s,
                &call(
                    "CL_SUCCESS",
                    "clGetPlatformInfo",
                    &[
                        "0x0B69F8C0",
                        "CL_PLATFORM_ICD_SUFFIX_KHR",
                        "0",
                        "NULL",
                        "[4]"
                    ]
                )
            )),
            "CL_SUCCESS = clGetPlatformInfo ( 0x0B69F8C0;CL_PLATFORM_ICD_SUFFIX_KHR;0;NULL;[4] )\n"
        );
        // CLTraceAgent/CLAPIDefBase.cpp, CLAPIBase::WriteTimestampEntry.
        assert_eq!(
            one_line(|s| write_timestamp(s, &ts("clSetKernelArg", 1717000000100, 1717000000350, None))),
            "39   clSetKernelArg                               1717000000100        1717000000350        \n"
        );
        // CLAPIDefBase.cpp, CLEnqueueAPIBase::WriteTimestampEntry, then
        // CLEnqueueAPIDefs.cpp, CLAPI_clEnqueueNDRangeKernel::WriteTimestampEntry.
        let t = 1717000001000;
        let nd3 = Timestamp {
            enqueue: Some(Enqueue {
                queued: 1717000003900,
                submit: 1717000005000,
                start: 1717000012000,
                end: 1717000095000,
                ..enq(
                    4592,
                    "CL_COMMAND_NDRANGE_KERNEL",
                    0,
                    "NVIDIA_H200",
                    kernel("vadd", &[1024, 768, 4], Some(&[16, 16, 1])),
                )
            }),
            ..ts("clEnqueueNDRangeKernel", t, 1717000004500, None)
        };
        assert_eq!(
            one_line(|s| write_timestamp(s, &nd3)),
            "66   clEnqueueNDRangeKernel                       1717000001000        1717000004500        4592    CL_COMMAND_NDRANGE_KERNEL               1717000003900        1717000005000        1717000012000        1717000095000        1         0x55d0c8a3b2c0           1         0x55d0c8a1f010           NVIDIA_H200                   0x55d0c8b40a80           vadd      {1024,768,4}     {16,16,1}        \n"
        );
        let nd2 = Timestamp {
            enqueue: Some(Enqueue {
                queued: 1717000101500,
                submit: 1717000103000,
                start: 1717000110000,
                end: 1717000150000,
                ..enq(
                    4592,
                    "CL_COMMAND_NDRANGE_KERNEL",
                    0,
                    "NVIDIA_H200",
                    kernel("vadd", &[4096, 64], None),
                )
            }),
            ..ts("clEnqueueNDRangeKernel", 1717000100000, 1717000102000, None)
        };
        assert_eq!(
            one_line(|s| write_timestamp(s, &nd2)),
            "66   clEnqueueNDRangeKernel                       1717000100000        1717000102000        4592    CL_COMMAND_NDRANGE_KERNEL               1717000101500        1717000103000        1717000110000        1717000150000        1         0x55d0c8a3b2c0           1         0x55d0c8a1f010           NVIDIA_H200                   0x55d0c8b40a80           vadd      {4096,64}     {NULL}        \n"
        );
        // CLAPIDefBase.cpp, CLEnqueueDataTransfer::WriteTimestampEntry.
        let read_buf = Timestamp {
            enqueue: Some(Enqueue {
                queued: 1717000200500,
                submit: 1717000201000,
                start: 1717000210000,
                end: 1717000250000,
                ..enq(
                    4595,
                    "CL_COMMAND_READ_BUFFER",
                    0,
                    "NVIDIA_H200",
                    Detail::Transfer { bytes: 4194304 },
                )
            }),
            ..ts("clEnqueueReadBuffer", 1717000200000, 1717000260000, None)
        };
        assert_eq!(
            one_line(|s| write_timestamp(s, &read_buf)),
            "52   clEnqueueReadBuffer                          1717000200000        1717000260000        4595    CL_COMMAND_READ_BUFFER                  1717000200500        1717000201000        1717000210000        1717000250000        1         0x55d0c8a3b2c0           1         0x55d0c8a1f010           NVIDIA_H200                   4194304             \n"
        );
        // CLAPIDefBase.cpp, CLEnqueueOther::WriteTimestampEntry (nothing after the device).
        let marker = Timestamp {
            enqueue: Some(Enqueue {
                queued: 1717000300500,
                submit: 1717000300600,
                start: 1717000301000,
                end: 1717000301000,
                ..enq(4606, "CL_COMMAND_MARKER", 0, "NVIDIA_H200", Detail::None)
            }),
            ..ts(
                "clEnqueueMarkerWithWaitList",
                1717000300000,
                1717000300900,
                None,
            )
        };
        assert_eq!(
            one_line(|s| write_timestamp(s, &marker)),
            "104  clEnqueueMarkerWithWaitList                  1717000300000        1717000300900        4606    CL_COMMAND_MARKER                       1717000300500        1717000300600        1717000301000        1717000301000        1         0x55d0c8a3b2c0           1         0x55d0c8a1f010           NVIDIA_H200                   \n"
        );
        // AMDTActivityLogger.cpp, amdtBeginMarker / amdtEndMarker.
        assert_eq!(
            one_line(|s| write_marker(s, &begin("outer loop", 1717000000050, "Solver phases"))),
            "clBeginPerfMarker   outer&nbsp;loop                                   1717000000050          Solver&nbsp;phases\n"
        );
        assert_eq!(
            one_line(|s| write_marker(
                s,
                &Marker::End {
                    time: 1717000400000
                }
            )),
            "clEndPerfMarker     1717000400000       \n"
        );
        assert_eq!(
            one_line(|s| write_marker(s, &begin(&"x".repeat(60), 1717000000060, ""))),
            format!(
                "clBeginPerfMarker   {}   1717000000060   Default\n",
                "x".repeat(60)
            )
        );
        // AMDTActivityLogger.cpp, amdtFinalizeActivityLogger; ProfilerOutputFileDefs.h.
        assert_eq!(MARKER_SECTION, "=====Perfmarker Output=====");
        assert_eq!(API_SECTION, "=====ocl API Trace Output=====");
        assert_eq!(TIMESTAMP_SECTION, "=====ocl Timestamp Output=====");
    }

    #[test]
    fn device_spaces_become_underscores() {
        let mut atp = sample();
        let Some(Enqueue { device, .. }) = &mut atp.timestamps[0].items[5].enqueue else {
            panic!("sample changed")
        };
        *device = "AMD Radeon RX 7900 XTX".into();
        let back = read(&write(&atp)).unwrap();
        let e = back.timestamps[0].items[5].enqueue.as_ref().unwrap();
        assert_eq!(e.device, "AMD_Radeon_RX_7900_XTX");
        // Everything else survives unchanged.
        let mut expected = atp.clone();
        if let Some(Enqueue { device, .. }) = &mut expected.timestamps[0].items[5].enqueue {
            *device = "AMD_Radeon_RX_7900_XTX".into();
        }
        assert_eq!(back, expected);
    }

    #[test]
    fn long_device_name_stays_a_separate_field() {
        // PoCL's CPU device name is longer than RCP's 30-column field.
        let dev = "cpu-haswell-Intel(R)_Xeon(R)_Platinum_8480+";
        let t = ts(
            "clEnqueueWriteBuffer",
            1,
            2,
            Some(enq(
                4596,
                "CL_COMMAND_WRITE_BUFFER",
                3,
                dev,
                Detail::Transfer { bytes: 64 },
            )),
        );
        let line = one_line(|s| write_timestamp(s, &t));
        assert!(line.contains(&format!("{dev} 64")), "{line}");
        assert_eq!(parse_timestamp(&line).unwrap(), t);
    }

    #[test]
    fn native_kernel_uses_rcp_handle_only_form() {
        let d = Detail::Kernel {
            handle: 0x401a20,
            name: String::new(),
            global: vec![],
            local: None,
        };
        let t = ts(
            "clEnqueueNativeKernel",
            1,
            2,
            Some(enq(4594, "CL_COMMAND_NATIVE_KERNEL", 3, "CPU_Device", d)),
        );
        let line = one_line(|s| write_timestamp(s, &t));
        assert!(
            line.trim_end()
                .ends_with(&format!("{:<30}0x401a20", "CPU_Device")),
            "{line:?}"
        );
        assert_eq!(parse_timestamp(&line).unwrap(), t);
    }

    #[test]
    fn arguments_split_only_on_top_level_semicolons() {
        let tricky = call(
            "CL_SUCCESS",
            "clBuildProgram",
            &[
                "0x1",
                "[{a;b},(c;d)]",
                "\"-DX=1; -DY=\\\"2;3\\\"\"",
                "(x;[y;{z}])",
                "",
                "f(a;b)",
            ],
        );
        let line = one_line(|s| write_api_call(s, &tricky));
        assert_eq!(line, "CL_SUCCESS = clBuildProgram ( 0x1;[{a;b},(c;d)];\"-DX=1; -DY=\\\"2;3\\\"\";(x;[y;{z}]);;f(a;b) )\n");
        assert_eq!(parse_api_call(&line).unwrap(), tricky);
        assert_eq!(
            parse_api_call("R = f (  )").unwrap().args,
            Vec::<String>::new()
        );
        assert_eq!(
            parse_api_call("R = f()").unwrap().args,
            Vec::<String>::new()
        );
    }

    #[test]
    fn unsafe_text_is_quoted() {
        let c = call(
            "x = y",
            "clFoo",
            &["a;b", "[open", "two\nlines", "back\\slash;"],
        );
        let line = one_line(|s| write_api_call(s, &c));
        assert_eq!(
            line,
            "\"x = y\" = clFoo ( \"a;b\";\"[open\";\"two\\nlines\";\"back\\\\slash;\" )\n"
        );
        let back = parse_api_call(&line).unwrap();
        assert_eq!(back.ret, "\"x = y\"");
        assert_eq!(
            back.args,
            [
                "\"a;b\"",
                "\"[open\"",
                "\"two\\nlines\"",
                "\"back\\\\slash;\""
            ]
        );
        // One empty argument is not the same as none.
        let one_empty = one_line(|s| write_api_call(s, &call("CL_SUCCESS", "clFoo", &[""])));
        assert_eq!(parse_api_call(&one_empty).unwrap().args, ["\"\""]);
        // RCP writes nothing before ` = ` for functions returning void.
        let void = call("", "clSVMFree", &["0x55d0c8a1f010", "0x7f3a10000000"]);
        let line = one_line(|s| write_api_call(s, &void));
        assert_eq!(line, " = clSVMFree ( 0x55d0c8a1f010;0x7f3a10000000 )\n");
        let text = format!("{API_SECTION}\n7\n2\n{line}{line}");
        assert_eq!(read(&text).unwrap().api[0].items, [void.clone(), void]);
        let none = one_line(|s| write_api_call(s, &call("void", "clFoo", &[])));
        assert_eq!(none, "void = clFoo (  )\n");
        assert_eq!(parse_api_call(&none).unwrap().args, Vec::<String>::new());
    }

    #[test]
    fn reader_accepts_single_spaces_crlf_blank_lines_and_codexl_names() {
        let text = "TraceFileVersion=3.2\r\n\r\nDevice Tahiti Platform Vendor = Advanced Micro Devices, Inc.\r\n\
                    =====CodeXL ocl API Trace Output=====\r\n7\r\n1\r\n\r\nCL_SUCCESS = clFinish ( 0x1 )\r\n\
                    =====CodeXL ocl Timestamp Output=====\n7\n1\n51 clFinish 10 20\n\n\
                    =====OpenCL Perfmarker Output=====\nProfilerVersion=3.0.0\n7\n3\nclBeginPerfMarker a&nbsp;b 5 my group\n\
                    clEndPerfMarkerEx 6 a&nbsp;b my&nbsp;group\nclEndPerfMarker 7\n";
        let atp = read(text).unwrap();
        assert_eq!(
            atp.header[1],
            (
                "Device Tahiti Platform Vendor ".to_string(),
                " Advanced Micro Devices, Inc.".to_string()
            )
        );
        assert_eq!(
            atp.api,
            [Block {
                tid: 7,
                items: vec![call("CL_SUCCESS", "clFinish", &["0x1"])]
            }]
        );
        assert_eq!(
            atp.timestamps,
            [Block {
                tid: 7,
                items: vec![ts("clFinish", 10, 20, None)]
            }]
        );
        assert_eq!(
            atp.markers[0].items,
            [
                begin("a b", 5, "my group"),
                Marker::End { time: 6 },
                Marker::End { time: 7 }
            ]
        );
        // Handles in any case and width (RCP's Windows builds pad to 16 upper-case digits).
        let l = "66 clEnqueueNDRangeKernel 1 2 4592 CL_COMMAND_NDRANGE_KERNEL 3 4 5 6 2 0x00000000022FA230 1 NULL Tahiti \
                 0X7F00AB k {64} {NULL}";
        let e = parse_timestamp(l).unwrap().enqueue.unwrap();
        assert_eq!((e.queue, e.context), (0x22F_A230, 0));
        assert_eq!(
            e.detail,
            Detail::Kernel {
                handle: 0x7F_00AB,
                name: "k".into(),
                global: vec![64],
                local: None
            }
        );
    }

    fn read_err(text: &str) -> ReadError {
        read(text).expect_err("malformed input was accepted")
    }

    #[test]
    fn reader_errors_name_the_line() {
        let head = "TraceFileVersion=3.2\n=====ocl Timestamp Output=====\n";
        // A count larger than the entries that follow: blame the count line.
        let e = read_err(&format!(
            "{head}7\n3\n51 clFinish 10 20\n\n51 clFinish 30 40\n8\n0\n"
        ));
        assert_eq!(e.line, 4, "{e}");
        assert!(e.reason.contains("says 3 entries, but 2 follow"), "{e}");
        // A count smaller than the entries that follow: blame it too.
        let e = read_err(&format!(
            "{head}7\n1\n51 clFinish 10 20\n51 clFinish 30 40\n"
        ));
        assert_eq!(e.line, 4, "{e}");
        assert!(e.reason.contains("more entries follow"), "{e}");
        // A count running into the end of the file.
        let e = read_err(&format!("{head}7\n2\n51 clFinish 10 20\n"));
        assert_eq!(e.line, 4, "{e}");
        // Unknown section.
        let e = read_err(&format!("{head}7\n0\n=====hsa API Trace Output=====\n"));
        assert_eq!(e.line, 5, "{e}");
        assert!(e.reason.contains("unknown section"), "{e}");
        // Non-numeric time.
        let e = read_err(&format!(
            "{head}7\n2\n51 clFinish 10 20\n51 clFinish 3O 40\n"
        ));
        assert_eq!(e.line, 6, "{e}");
        assert!(e.reason.contains("bad start time \"3O\""), "{e}");
        // Header line without '=' (CRLF and a blank line do not shift numbers).
        let e = read_err("TraceFileVersion=3.2\r\n\r\nnonsense\r\n");
        assert_eq!(e.line, 3, "{e}");
        // Enqueue fields cut short.
        let e = read_err(&format!(
            "{head}7\n1\n66 clEnqueueNDRangeKernel 1 2 4592 CL_COMMAND_NDRANGE_KERNEL 3 4\n"
        ));
        assert_eq!(e.line, 5, "{e}");
        // Unterminated string in an API line.
        let e = read_err("=====ocl API Trace Output=====\n7\n1\nCL_SUCCESS = clFoo ( \"abc;d )\n");
        assert_eq!(e.line, 4, "{e}");
        assert!(e.reason.contains("unclosed"), "{e}");
        // A section twice.
        let e = read_err(&format!("{head}7\n0\n=====ocl Timestamp Output=====\n"));
        assert_eq!(e.line, 5, "{e}");
        // A thread id that is not a number.
        let e = read_err(&format!("{head}seven\n0\n"));
        assert_eq!(e.line, 3, "{e}");
        // A broken section marker where a thread id should be.
        let e = read_err(&format!("{head}7\n0\n=====ocl API Trace\n"));
        assert_eq!(e.line, 5, "{e}");
        assert!(e.reason.contains("malformed section line"), "{e}");
        // A bad perf-marker keyword.
        let e = read_err("=====Perfmarker Output=====\n7\n1\nclMiddlePerfMarker 5\n");
        assert_eq!(e.line, 4, "{e}");
    }

    #[test]
    fn api_type_numbers() {
        // Positions in RCP's CL_FUNC_TYPE (CLCommon/CLFunctionEnumDefs.h).
        for (name, n) in [
            ("clGetPlatformIDs", 0),
            ("clSetKernelArg", 39),
            ("clFinish", 51),
            ("clEnqueueReadBuffer", 52),
            ("clEnqueueNDRangeKernel", 66),
            ("clEnqueueMarker", 73),
            ("clEnqueueBarrier", 75),
            ("clSetCommandQueueProperty", 91),
            ("clEnqueueFillBuffer", 101),
            ("clEnqueueMarkerWithWaitList", 104),
            ("clCreateCommandQueueWithProperties", 109),
            ("clEnqueueSVMMigrateMem", 139),
            ("clSetProgramSpecializationConstant", 145),
        ] {
            assert_eq!(api_type(name), n, "{name}");
            assert_eq!(api_name(n), Some(name));
        }
        // RCP's enqueue ranges (CLFunctionEnumDefs.cpp, IsEnqueueAPI).
        assert!(rcp_is_enqueue(api_type("clEnqueueNDRangeKernel")));
        assert!(rcp_is_enqueue(api_type("clEnqueueMarker")));
        assert!(!rcp_is_enqueue(api_type("clEnqueueWaitForEvents")));
        assert!(!rcp_is_enqueue(api_type("clEnqueueCommandBufferKHR")));
        // cltap's range: every name maps back, none repeats.
        let mut seen = std::collections::HashSet::new();
        for name in RCP_FUNCTIONS.iter().chain(CLTAP_FUNCTIONS.iter()) {
            assert!(seen.insert(*name), "{name} twice");
            assert_eq!(api_name(api_type(name)), Some(*name));
        }
        assert_eq!(api_type("clCreateBufferWithProperties"), CLTAP_FIRST);
        assert!(
            api_type("clEnqueueCommandBufferKHR") >= CLTAP_FIRST
                && api_type("clEnqueueCommandBufferKHR") < HASHED_FIRST
        );
        // Anything else: a fixed hash into its own range, never a table name.
        let h = api_type("clEnqueueSomethingFromTheFutureEXT");
        assert!((HASHED_FIRST..=HASHED_LAST).contains(&h));
        assert_eq!(h, 5_047, "the hash must not change between releases");
        assert_eq!(api_name(h), None);
        assert!((HASHED_FIRST..=HASHED_LAST).contains(&api_type("")));
        assert_eq!(api_name(146), None);
        assert_eq!(api_name(u32::MAX), None);
    }

    use crate::test_rng::Rng;

    fn random_sizes(r: &mut Rng) -> Vec<u64> {
        (0..1 + r.below(3)).map(|_| 1 + r.below(1 << 20)).collect()
    }

    fn random_timestamp(r: &mut Rng) -> Timestamp {
        let name = r.pick(&[
            "clFinish",
            "clEnqueueNDRangeKernel",
            "clEnqueueReadBuffer",
            "clCommandNDRangeKernelKHR",
            "clNewThingEXT",
        ]);
        let enqueue = (r.below(3) != 0).then(|| {
            let detail = match r.below(4) {
                0 => Detail::None,
                1 => Detail::Transfer { bytes: r.next() },
                2 => Detail::Kernel {
                    handle: r.next(),
                    name: String::new(),
                    global: vec![],
                    local: None,
                },
                _ => Detail::Kernel {
                    handle: r.next() >> r.below(64),
                    name: r
                        .pick(&["k", "matrix_multiply_tiled_with_a_rather_long_name", "NA"])
                        .into(),
                    global: random_sizes(r),
                    local: (r.below(2) == 0).then(|| random_sizes(r)),
                },
            };
            Enqueue {
                cmd_type: 4592 + r.below(30) as u32,
                cmd_name: r
                    .pick(&[
                        "CL_COMMAND_NDRANGE_KERNEL",
                        "CL_COMMAND_ACQUIRE_DX9_MEDIA_SURFACES_KHR",
                    ])
                    .into(),
                queued: r.next(),
                submit: r.next(),
                start: r.next(),
                end: r.next(),
                queue_id: r.next() as u32,
                queue: r.next() >> r.below(64),
                context_id: r.below(4) as u32,
                context: r.next(),
                device: r
                    .pick(&[
                        "NVIDIA_H200",
                        "CPU_Device",
                        "pthread-cpu-haswell-AMD_EPYC_9654_96-Core_Processor",
                    ])
                    .into(),
                detail,
            }
        });
        Timestamp {
            api_type: api_type(name),
            name: name.into(),
            start: r.next(),
            end: r.next(),
            enqueue,
        }
    }

    fn random_arg(r: &mut Rng) -> String {
        match r.below(6) {
            0 => format!("0x{:x}", r.next()),
            1 => "NULL".into(),
            2 => format!("[{},{}]", r.below(99), r.below(99)),
            3 => format!(
                "[\"{}\"]",
                r.pick(&["a;b", "semi; colon", "br]ack{et", "esc \\\" q"])
            ),
            4 => r
                .pick(&["{CL_CONTEXT_PLATFORM;1}", "f(x;y)", "", " spaced "])
                .into(),
            _ => r.below(100_000).to_string(),
        }
    }

    fn random_atp(r: &mut Rng) -> Atp {
        let threads: Vec<u64> = (0..1 + r.below(4)).map(|_| r.next() >> 40).collect();
        let mut atp = Atp {
            header: HeaderInfo::default().to_header(),
            ..Atp::default()
        };
        for &tid in &threads {
            let n = r.below(40) as usize;
            let api = (0..n)
                .map(|_| ApiCall {
                    ret: r
                        .pick(&["CL_SUCCESS", "0x7f00", "NULL", "[CL_SUCCESS]"])
                        .into(),
                    name: r.pick(&["clFoo", "clSetKernelArg"]).into(),
                    args: match (0..r.below(6)).map(|_| random_arg(r)).collect::<Vec<_>>() {
                        // A lone empty argument is written quoted (see unsafe_text_is_quoted).
                        a if a == [""] => vec!["0".to_string()],
                        a => a,
                    },
                })
                .collect();
            atp.api.push(Block { tid, items: api });
            atp.timestamps.push(Block {
                tid,
                items: (0..n).map(|_| random_timestamp(r)).collect(),
            });
            let markers = (0..r.below(6))
                .map(|_| match r.below(2) {
                    0 => begin(
                        r.pick(&["a", "two words", &"y".repeat(55)]),
                        r.next(),
                        r.pick(&["Default", "my group"]),
                    ),
                    _ => Marker::End { time: r.next() },
                })
                .collect();
            atp.markers.push(Block {
                tid,
                items: markers,
            });
        }
        atp
    }

    #[test]
    fn round_trip_over_generated_files() {
        let mut r = Rng(0x9E37_79B9_7F4A_7C15);
        for _ in 0..200 {
            let atp = random_atp(&mut r);
            let text = write(&atp);
            assert_eq!(read(&text).unwrap(), atp, "{text}");
        }
    }

    #[test]
    fn reader_never_panics_on_damaged_files() {
        let mut r = Rng(0x2545_F491_4F6C_DD1D);
        let text = write(&sample());
        let bytes = text.as_bytes();
        let junk: &[&str] = &[
            "",
            " ",
            "=",
            ";",
            "\"",
            "{",
            "}",
            "(",
            ")",
            "\n",
            "=====",
            "0x",
            "NULL",
            "18446744073709551616",
            "\r",
        ];
        for _ in 0..3000 {
            let mut damaged = String::new();
            let mut at = 0;
            while at < bytes.len() {
                let cut = (at + 1 + r.below(400) as usize).min(bytes.len());
                damaged.push_str(&String::from_utf8_lossy(&bytes[at..cut]));
                damaged.push_str(r.pick(junk));
                at = cut + r.below(3) as usize;
            }
            let _ = read(&damaged);
        }
        // Counts far beyond memory must fail, not allocate.
        assert!(read("=====ocl API Trace Output=====\n1\n18446744073709551615\n").is_err());
    }
}
