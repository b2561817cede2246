//! The API log (Intel's API log format, docs/platform-facts.md#public-documents): one line per call,
//!
//! ```text
//! TID <tid> START TIME 0x<TSC> DURATION 0x<µs> [CMD ID <n>] name(<type> <param> = <value>, …) = <result>, *<out> = <value>
//! ```
//!
//! plus "Internally calculated local_work_size" lines and `#` comment lines
//! (cltap's header and trailer).

use std::borrow::Cow;
use std::fmt::Write;

/// A name that is usually one of the API description's own strings
/// (borrowed when cltap prints a record, owned when a log is read back).
pub type Name = Cow<'static, str>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg {
    pub c_type: Name,
    pub name: Name,
    pub value: String,
}

/// Written instead of the result of a call that never returned (the process
/// died in it); its duration is 0 and it has no outputs.
pub const NOT_RETURNED: &str = "<did not return>";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub tid: u64,
    /// Time-stamp counter at entry.
    pub start: u64,
    /// Microseconds between entry and exit.
    pub duration_us: u64,
    /// Set for calls with a `cl_event*` output.
    pub cmd_id: Option<u64>,
    pub name: Name,
    pub args: Vec<Arg>,
    /// `None` for functions returning `void`.
    pub result: Option<String>,
    /// Output parameters after the call: (`event`, `0000000001234560`).
    pub outs: Vec<(Name, String)>,
}

impl Call {
    pub fn returned(&self) -> bool {
        self.result.as_deref() != Some(NOT_RETURNED)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Call(Call),
    /// The work-group size the driver chose for an NDRange enqueued with a
    /// NULL local size.
    LocalWorkSize {
        cmd_id: u64,
        sizes: Vec<u64>,
    },
    /// A `#` line, without the `# `.
    Comment(String),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct ParseError {
    pub line: usize,
    pub reason: String,
}

/// Width of the command-id field, present or not, so calls line up.
const CMD_FIELD: usize = 25;

pub fn write_entry(out: &mut String, e: &Entry) {
    match e {
        Entry::Comment(c) => {
            out.push_str("# ");
            push_one_line(out, c);
        }
        Entry::LocalWorkSize { cmd_id, sizes } => {
            let s: Vec<String> = sizes.iter().map(u64::to_string).collect();
            let _ = write!(
                out,
                "Internally calculated local_work_size with for NDRangeKernel command with ID {cmd_id}: ({})",
                s.join(", ")
            );
        }
        Entry::Call(c) => write_call(out, c),
    }
    out.push('\n');
}

const SPACES: &str = "                                ";

/// A call line's fixed-width start: thread, start time, duration and the
/// command-id field. Built on the stack: the renderer copies it whole.
pub struct Head {
    buf: [u8; HEAD_MAX],
    len: usize,
}

/// The longest head: 20-digit thread and command ids.
pub const HEAD_MAX: usize = 128;

/// The head of a thread id of at most 8 digits and a command id of at most
/// 14 (every real one): fixed columns, so a copy of this with the numbers
/// written in place.
pub const HEAD_BLANK: [u8; HEAD_MAX] = {
    const fn put(mut b: [u8; HEAD_MAX], at: usize, s: &[u8]) -> [u8; HEAD_MAX] {
        let mut i = 0;
        while i < s.len() {
            b[at + i] = s[i];
            i += 1;
        }
        b
    }
    let b = put([b' '; HEAD_MAX], 0, b"TID ");
    let b = put(b, HEAD_TID_END, b"    START TIME 0x");
    put(b, HEAD_DURATION - 15, b"    DURATION 0x")
};
const HEAD_TID_END: usize = 4 + 9;
const HEAD_START: usize = HEAD_TID_END + 17;
const HEAD_DURATION: usize = HEAD_START + 16 + 15;
const HEAD_CMD: usize = HEAD_DURATION + 16;
const CMD_LABEL: &[u8] = b"    CMD ID ";

impl Head {
    #[inline]
    pub fn new(tid: u64, start: u64, duration_us: u64, cmd_id: Option<u64>) -> Head {
        let mut h = Head { buf: HEAD_BLANK, len: 0 };
        h.len = Head::write_over(&mut h.buf, tid, start, duration_us, cmd_id);
        h
    }

    /// Writes a head into `buf`, which holds [`HEAD_BLANK`], and returns
    /// its length: the renderer writes it where the line goes, its
    /// constant text copied as one block.
    #[inline]
    pub fn write_over(buf: &mut [u8; HEAD_MAX], tid: u64, start: u64, duration_us: u64, cmd_id: Option<u64>) -> usize {
        let usual = tid < 100_000_000 && !matches!(cmd_id, Some(id) if id >= 100_000_000_000_000);
        if !usual {
            let h = Head::wide(tid, start, duration_us, cmd_id);
            *buf = h.buf;
            return h.len;
        }
        // Right-aligned: the digits' word, its leading zeros made spaces.
        let n = crate::digits::decimal_len(tid);
        let lead = (1u64 << (8 * (8 - n))) - 1;
        let w = (crate::digits::decimal8(tid as u32) & !lead) | (0x2020_2020_2020_2020 & lead);
        buf[HEAD_TID_END - 8..HEAD_TID_END].copy_from_slice(&w.to_le_bytes());
        buf[HEAD_START..HEAD_START + 16].copy_from_slice(&crate::digits::hex16(start, false));
        buf[HEAD_DURATION..HEAD_DURATION + 16].copy_from_slice(&crate::digits::hex16(duration_us, false));
        if let Some(id) = cmd_id {
            let digits = HEAD_CMD + CMD_LABEL.len();
            buf[HEAD_CMD..digits].copy_from_slice(CMD_LABEL);
            match crate::digits::short_decimal(id) {
                // Spaces after the digits, as the field has.
                Some((w, _)) => buf[digits..digits + 8].copy_from_slice(&w.to_le_bytes()),
                None => crate::digits::decimal_ending(id, buf, digits + crate::digits::decimal_len(id)),
            }
        }
        HEAD_CMD + CMD_FIELD
    }

    /// Any head, the columns pushed right by long numbers.
    fn wide(tid: u64, start: u64, duration_us: u64, cmd_id: Option<u64>) -> Head {
        let mut h = Head { buf: [b' '; HEAD_MAX], len: 0 };
        let mut put = |s: &[u8]| {
            h.buf[h.len..h.len + s.len()].copy_from_slice(s);
            h.len += s.len();
        };
        let mut d = [0u8; 20];
        put(b"TID ");
        let n = crate::digits::decimal(tid, &mut d);
        put(&SPACES.as_bytes()[..9usize.saturating_sub(n)]);
        put(&d[..n]);
        put(b"    START TIME 0x");
        put(&crate::digits::hex16(start, false));
        put(b"    DURATION 0x");
        put(&crate::digits::hex16(duration_us, false));
        match cmd_id {
            Some(id) => {
                let n = crate::digits::decimal(id, &mut d);
                put(CMD_LABEL);
                put(&d[..n]);
                put(&SPACES.as_bytes()[..CMD_FIELD.saturating_sub(CMD_LABEL.len() + n)]);
            }
            None => put(&SPACES.as_bytes()[..CMD_FIELD]),
        }
        h
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// The whole buffer (spaces past the head): for a copy of fixed size.
    pub fn buffer(&self) -> &[u8; HEAD_MAX] {
        &self.buf
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn as_str(&self) -> &str {
        // SAFETY: only ASCII was written.
        unsafe { std::str::from_utf8_unchecked(self.as_bytes()) }
    }
}

/// A comment is one line: a line break in what it quotes (an application
/// argument, a file name) is written as `\n` or `\r`, so the text that
/// follows cannot pass for an entry of its own.
pub fn push_one_line(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

// The pieces of a call line after its head, in order. The renderer builds
// each function's constant text from these same pieces once, so its lines
// and `write_call`'s cannot differ in layout.

/// `name(`: the call's name and its opening parenthesis.
pub fn push_open(out: &mut String, name: &str) {
    out.push_str(name);
    out.push('(');
}

/// `type name = ` before argument `i`'s value (`, ` before all but the first).
pub fn push_arg_decl(out: &mut String, i: usize, c_type: &str, name: &str) {
    if i > 0 {
        out.push_str(", ");
    }
    out.push_str(c_type);
    out.push(' ');
    out.push_str(name);
    out.push_str(" = ");
}

/// `)` after the last argument.
pub fn push_close(out: &mut String) {
    out.push(')');
}

/// ` = ` before the result.
pub fn push_result_sign(out: &mut String) {
    out.push_str(" = ");
}

/// `, *name = ` before an output's value.
pub fn push_out_decl(out: &mut String, name: &str) {
    out.push_str(", *");
    out.push_str(name);
    out.push_str(" = ");
}

/// Writes one call line (without the newline).
pub fn write_call(out: &mut String, c: &Call) {
    out.push_str(Head::new(c.tid, c.start, c.duration_us, c.cmd_id).as_str());
    push_open(out, &c.name);
    for (i, a) in c.args.iter().enumerate() {
        push_arg_decl(out, i, &a.c_type, &a.name);
        out.push_str(&a.value);
    }
    push_close(out);
    if let Some(r) = &c.result {
        push_result_sign(out);
        out.push_str(r);
    }
    for (n, v) in &c.outs {
        push_out_decl(out, n);
        out.push_str(v);
    }
}

pub fn write(entries: &[Entry]) -> String {
    let mut s = String::new();
    for e in entries {
        write_entry(&mut s, e);
    }
    s
}

pub fn read(text: &str) -> Result<Vec<Entry>, ParseError> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.is_empty())
        .map(|(i, l)| parse_line(l).map_err(|reason| ParseError { line: i + 1, reason }))
        .collect()
}

fn hex_field(s: &str, what: &str) -> Result<u64, String> {
    let h = s.strip_prefix("0x").ok_or(format!("{what}: expected 0x…, found {s:?}"))?;
    u64::from_str_radix(h, 16).map_err(|_| format!("{what}: bad hex {s:?}"))
}

pub fn parse_line(l: &str) -> Result<Entry, String> {
    if let Some(c) = l.strip_prefix('#') {
        return Ok(Entry::Comment(c.strip_prefix(' ').unwrap_or(c).to_string()));
    }
    if let Some(rest) = l.strip_prefix("Internally calculated local_work_size with for NDRangeKernel command with ID ")
    {
        let (id, sizes) = rest.split_once(": (").ok_or("local_work_size line without ': ('")?;
        let sizes = sizes.strip_suffix(')').ok_or("local_work_size line without ')'")?;
        return Ok(Entry::LocalWorkSize {
            cmd_id: id.parse().map_err(|_| format!("bad command id {id:?}"))?,
            sizes: sizes
                .split(", ")
                .map(|s| s.parse().map_err(|_| format!("bad size {s:?}")))
                .collect::<Result<_, _>>()?,
        });
    }
    let rest = l.strip_prefix("TID ").ok_or("expected 'TID', '#' or 'Internally calculated'")?;
    let (tid, rest) = rest.split_once("    START TIME ").ok_or("missing 'START TIME'")?;
    let tid = tid.trim().parse().map_err(|_| format!("bad thread id {tid:?}"))?;
    let (start, rest) = rest.split_once("    DURATION ").ok_or("missing 'DURATION'")?;
    let start = hex_field(start, "START TIME")?;
    // `get` rather than slicing: a multibyte character may straddle the field.
    let (Some(duration), Some(rest)) = (rest.get(..18), rest.get(18..)) else {
        return Err("line ends inside DURATION, or DURATION is not 18 characters".into());
    };
    let duration_us = hex_field(duration, "DURATION")?;
    if rest.len() < CMD_FIELD || !rest.is_char_boundary(CMD_FIELD) {
        return Err("line ends before the call".into());
    }
    let (field, call) = rest.split_at(CMD_FIELD);
    let cmd_id = match field.trim() {
        "" => None,
        f => Some(f.strip_prefix("CMD ID ").and_then(|n| n.parse().ok()).ok_or(format!("bad command id field {f:?}"))?),
    };
    let open = call.find('(').ok_or("call without '('")?;
    let name: Name = call[..open].to_string().into();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!("bad function name {name:?}"));
    }
    let close = matching(call, open).ok_or("call without matching ')'")?;
    let mut args = Vec::new();
    for piece in split_top(&call[open + 1..close]) {
        let (decl, value) = piece.split_once(" = ").ok_or(format!("argument without ' = ': {piece:?}"))?;
        let (c_type, name) = decl.rsplit_once(' ').ok_or(format!("argument without a type: {decl:?}"))?;
        args.push(Arg { c_type: c_type.to_string().into(), name: name.to_string().into(), value: value.to_string() });
    }
    let tail = &call[close + 1..];
    let mut pieces = split_top(tail).into_iter();
    let result = match tail.strip_prefix(" = ") {
        Some(_) => {
            let first = pieces.next().unwrap_or_default();
            Some(first.strip_prefix(" = ").unwrap_or(&first).to_string())
        }
        None => {
            if let Some(p) = pieces.next() {
                if !p.is_empty() {
                    return Err(format!("unexpected text after the call: {p:?}"));
                }
            }
            None
        }
    };
    let mut outs = Vec::new();
    for p in pieces {
        let p = p.strip_prefix('*').ok_or(format!("output without '*': {p:?}"))?;
        let (n, v) = p.split_once(" = ").ok_or(format!("output without ' = ': {p:?}"))?;
        outs.push((n.to_string().into(), v.to_string()));
    }
    Ok(Entry::Call(Call { tid, start, duration_us, cmd_id, name, args, result, outs }))
}

/// Walks text keeping track of brackets and quoted strings.
#[derive(Default)]
struct Scan {
    depth: i32,
    quoted: bool,
    escaped: bool,
}

impl Scan {
    /// Takes one character; true when it is outside any quoted string (the
    /// depth then already counts it).
    fn step(&mut self, c: char) -> bool {
        if self.quoted {
            match c {
                _ if self.escaped => self.escaped = false,
                '\\' => self.escaped = true,
                '"' => self.quoted = false,
                _ => {}
            }
            return false;
        }
        match c {
            '"' => self.quoted = true,
            '(' | '[' | '{' => self.depth += 1,
            ')' | ']' | '}' => self.depth -= 1,
            _ => {}
        }
        !self.quoted
    }
}

/// Index of the `)` closing the `(` at `open`, skipping nested brackets and
/// quoted strings.
fn matching(s: &str, open: usize) -> Option<usize> {
    let mut scan = Scan::default();
    s.char_indices()
        .skip_while(|(i, _)| *i < open)
        .find(|&(_, c)| scan.step(c) && c == ')' && scan.depth == 0)
        .map(|(i, _)| i)
}

/// Splits on ", " outside brackets and quotes (an argument list).
pub fn split_top(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    if s.is_empty() {
        return out;
    }
    let mut scan = Scan::default();
    let mut cur = String::new();
    let mut i = 0;
    while i < s.len() {
        let c = s[i..].chars().next().unwrap();
        if c == ',' && !scan.quoted && scan.depth == 0 && s[i..].starts_with(", ") {
            out.push(std::mem::take(&mut cur));
            i += 2;
            continue;
        }
        scan.step(c);
        cur.push(c);
        i += c.len_utf8();
    }
    out.push(cur);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_rng::Rng;

    fn value(r: &mut Rng) -> String {
        match r.next() % 7 {
            0 => format!("{:016X}", r.next()),
            1 => (r.next() % 100000).to_string(),
            2 => "NULL".into(),
            3 => format!(
                "{} ({})",
                r.next() % 5000,
                r.pick(&["CL_DEVICE_NAME", "CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR"])
            ),
            4 => format!("{{{}, {}, {}}}", r.next() % 9, r.next() % 9, r.next() % 9),
            5 => format!("\"{}\"", r.pick(&["a, b", "x(y", "quote \\\" inside", "", "-cl-std=CL2.0 -DX=1"])),
            _ => format!("[{}]", r.next() % 77),
        }
    }

    fn random_entry(r: &mut Rng) -> Entry {
        match r.next() % 10 {
            0 => Entry::Comment(format!("cltap {} = {}", r.next() % 10, value(r))),
            1 => Entry::LocalWorkSize {
                cmd_id: r.next() % 1000,
                sizes: (0..1 + r.next() % 3).map(|_| r.next() % 1024).collect(),
            },
            _ => {
                let nargs = r.next() % 10;
                Entry::Call(Call {
                    tid: r.next() % 4_000_000,
                    start: r.next(),
                    duration_us: r.next() % 1_000_000,
                    cmd_id: r.next().is_multiple_of(2).then(|| r.next() % 1_000_000_000),
                    name: r.pick(&["clGetDeviceInfo", "clEnqueueNDRangeKernel", "clSVMFree", "clFinish"]).into(),
                    args: (0..nargs)
                        .map(|i| Arg {
                            c_type: r
                                .pick(&["cl_uint", "const size_t*", "void*", "cl_command_queue", "const char**"])
                                .into(),
                            name: format!("p{i}").into(),
                            value: value(r),
                        })
                        .collect(),
                    result: (!r.next().is_multiple_of(5))
                        .then(|| r.pick(&["CL_SUCCESS", "CL_INVALID_VALUE", "00007F0012345678"]).into()),
                    outs: (0..r.next() % 3).map(|i| (format!("o{i}").into(), value(r))).collect(),
                })
            }
        }
    }

    #[test]
    fn round_trip_over_generated_entries() {
        let mut r = Rng(0x9E37_79B9_7F4A_7C15);
        let entries: Vec<Entry> = (0..5000).map(|_| random_entry(&mut r)).collect();
        let text = write(&entries);
        assert_eq!(read(&text).unwrap(), entries);
    }

    #[test]
    fn usual_heads_are_the_wide_layout() {
        let mut r = Rng(0x5DEE_CE66_D1CE_4E5B);
        let edges =
            [0, 9, 10, 99_999_999, 100_000_000, 999_999_999, 1_000_000_000, 99_999_999_999_999, 100_000_000_000_000];
        let mut ids: Vec<u64> = edges.to_vec();
        ids.extend([u64::MAX, u32::MAX as u64]);
        ids.extend((0..200).map(|_| r.next() >> (r.next() % 64)));
        for &tid in &ids {
            for &id in &ids {
                for cmd in [None, Some(id)] {
                    let (start, duration) = (r.next(), r.next() >> (r.next() % 64));
                    let h = Head::new(tid, start, duration, cmd);
                    assert_eq!(h.as_bytes(), Head::wide(tid, start, duration, cmd).as_bytes(), "{tid} {cmd:?}");
                }
            }
        }
    }

    #[test]
    fn layout_matches_the_seed() {
        let c = Call {
            tid: 5780,
            start: 0x00038ec9f2b404c3,
            duration_us: 0x1e9,
            cmd_id: Some(2),
            name: "clFinish".into(),
            args: vec![Arg {
                c_type: "cl_command_queue".into(),
                name: "command_queue".into(),
                value: "0000000009038E60".into(),
            }],
            result: Some("CL_SUCCESS".into()),
            outs: vec![("event".into(), "NULL".into())],
        };
        let mut s = String::new();
        write_call(&mut s, &c);
        assert_eq!(
            s,
            "TID      5780    START TIME 0x00038ec9f2b404c3    DURATION 0x00000000000001e9    CMD ID 2             \
             clFinish(cl_command_queue command_queue = 0000000009038E60) = CL_SUCCESS, *event = NULL"
        );
    }

    #[test]
    fn malformed_lines_give_line_and_reason() {
        let text = "# header\nTID 1    START TIME 0xzz    DURATION 0x0000000000000001";
        let e = read(text).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.reason.contains("START TIME"), "{e}");
        let e = read("garbage").unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.reason.contains("expected 'TID'"), "{e}");
    }
}
