//! Cells of the comma-separated files: splitting a line (with double-quoted
//! cells, as rocprof writes kernel names), quoting text that would not read
//! back as itself, `NA`, and the number forms the three writers use.

use std::fmt::Write as _;

/// RCP's word for a value it does not know (`CLGPAProfiler::DumpKernelStats`).
pub const NA: &str = "NA";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct ReadError {
    /// 1-based.
    pub line: usize,
    pub reason: String,
}

pub(super) fn err(line: usize, reason: impl Into<String>) -> ReadError {
    ReadError { line, reason: reason.into() }
}

/// One cell as read: its text without the quotes, and whether it was quoted
/// (a quoted `"NA"` is the text NA, a bare `NA` is "unknown").
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Cell {
    pub text: String,
    pub quoted: bool,
}

impl Cell {
    pub(super) fn is_na(&self) -> bool {
        !self.quoted && self.text == NA
    }
}

/// Splits a line at `sep` outside double quotes. Spaces around a cell are
/// dropped (RCP pads numbers and writes `, ` between cells); inside quotes
/// `""` is one quote.
pub(super) fn split_cells(line: &str, sep: char) -> Result<Vec<Cell>, String> {
    let mut cells = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        while chars.peek() == Some(&' ') {
            chars.next();
        }
        let mut text = String::new();
        let quoted = chars.peek() == Some(&'"');
        if quoted {
            chars.next();
            loop {
                match chars.next() {
                    None => return Err("unclosed quote".into()),
                    Some('"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        text.push('"');
                    }
                    Some('"') => break,
                    Some(c) => text.push(c),
                }
            }
            while chars.peek() == Some(&' ') {
                chars.next();
            }
            match chars.peek() {
                None => {}
                Some(&c) if c == sep => {}
                Some(c) => return Err(format!("{c:?} after a closing quote")),
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c == sep {
                    break;
                }
                text.push(c);
                chars.next();
            }
            text.truncate(text.trim_end_matches(' ').len());
        }
        cells.push(Cell { text, quoted });
        if chars.next().is_none() {
            return Ok(cells);
        }
    }
}

/// True when `s` written bare reads back as itself.
fn bare_is_safe(s: &str, sep: char) -> bool {
    !s.is_empty() && !s.starts_with(' ') && !s.ends_with(' ') && !s.contains([sep, '"', '\n', '\r'])
}

/// A text cell, bare when that reads back as itself and is not [`NA`],
/// otherwise in double quotes with `""` for a quote. Line breaks cannot be
/// kept in a line-based file: they become spaces.
pub(super) fn push_text(out: &mut String, s: &str, sep: char) {
    if bare_is_safe(s, sep) && s != NA {
        out.push_str(s);
        return;
    }
    push_quoted(out, s);
}

/// `"s"` always (rocprof quotes every column name and kernel name).
pub(super) fn push_quoted(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\"\""),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `text`, or `None` for a bare [`NA`].
pub(super) fn opt_text(c: &Cell) -> Option<String> {
    (!c.is_na()).then(|| c.text.clone())
}

pub(super) fn parse_u64(c: &Cell, what: &str) -> Result<u64, String> {
    c.text.parse().map_err(|_| format!("{what}: expected an unsigned integer, found {:?}", c.text))
}

/// A number or [`NA`].
pub(super) fn parse_opt_u64(c: &Cell, what: &str) -> Result<Option<u64>, String> {
    if c.is_na() {
        Ok(None)
    } else {
        parse_u64(c, what).map(Some)
    }
}

/// A finite number, or `None` for `na` (written bare).
pub(super) fn parse_opt_f64(c: &Cell, what: &str, na: &str) -> Result<Option<f64>, String> {
    if !c.quoted && c.text == na {
        return Ok(None);
    }
    match c.text.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(Some(v)),
        _ => Err(format!("{what}: expected a number, found {:?}", c.text)),
    }
}

pub(super) fn push_opt_u64(out: &mut String, v: Option<u64>) {
    match v {
        Some(v) => {
            let _ = write!(out, "{v}");
        }
        None => out.push_str(NA),
    }
}

/// A whole number that an `f64` holds exactly, as an integer.
fn as_integer(v: f64) -> Option<i64> {
    // 2^53: every integer up to here is exact, and the cast cannot saturate.
    (v.fract() == 0.0 && v.abs() <= 9_007_199_254_740_992.0).then_some(v as i64)
}

/// RCP's counter cell: `%lu` for a whole number, `%12.2f` for any other (a
/// derived metric); not finite or unknown is [`NA`].
pub(super) fn push_rcp_value(out: &mut String, v: Option<f64>) {
    match v.filter(|v| v.is_finite()) {
        Some(v) => match as_integer(v) {
            Some(i) => {
                let _ = write!(out, "{i}");
            }
            None => {
                let _ = write!(out, "{v:12.2}");
            }
        },
        None => out.push_str(NA),
    }
}

/// C++ `operator<<(float)` with the default precision, which is `%g` with 6
/// significant digits: RCP's "Kernel occupancy" cell.
pub(super) fn push_g6(out: &mut String, v: f64) {
    if v == 0.0 {
        out.push('0');
        return;
    }
    // `{:.5e}` rounds to 6 significant digits and tells the exponent of the
    // rounded value, which is what `%g` decides on.
    let sci = format!("{v:.5e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if (-4..6).contains(&exp) {
        let decimals = (5 - exp) as usize;
        out.push_str(&trim(&format!("{v:.decimals$}")));
    } else {
        let _ = write!(out, "{}e{}{:02}", trim(mantissa), if exp < 0 { '-' } else { '+' }, exp.abs());
    }
}

/// A number as rocprof's results.csv shows it: SQLite stores the tool's text
/// in an INTEGER-affinity column, so a whole number comes out as an integer,
/// any other as Python's `repr` of the REAL (shortest digits, exponent form
/// below 1e-4 and from 1e16).
pub(super) fn push_py_number(out: &mut String, v: f64) {
    // SQLite's conversion to INTEGER is for values inside the i64 range.
    if v.fract() == 0.0 && v.abs() < 9.2e18 {
        let _ = write!(out, "{}", v as i64);
        return;
    }
    let sci = format!("{v:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..16).contains(&exp) {
        let _ = write!(out, "{v}");
    } else {
        let _ = write!(out, "{mantissa}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    }
}

/// Writes `cells` joined by `sep` and `pad` (RCP's `.csv` puts a space after
/// each separator), then a line break.
pub(super) fn push_line(out: &mut String, cells: &[String], sep: char, pad: &str) {
    for (i, c) in cells.iter().enumerate() {
        if i > 0 {
            out.push(sep);
            out.push_str(pad);
        }
        out.push_str(c);
    }
    out.push('\n');
}
