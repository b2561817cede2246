//! Fields of the whitespace-separated lines (timestamps, perf markers, kernel
//! dispatches): RCP's fixed-width columns on the way out, number and handle
//! parsing on the way in.

use std::borrow::Cow;

use super::EMPTY_FIELD;

/// Appends fields to one line, padding each to its column.
pub(super) struct Columns<'a> {
    pub(super) out: &'a mut String,
    start: usize,
}

impl<'a> Columns<'a> {
    pub(super) fn new(out: &'a mut String) -> Self {
        let start = out.len();
        Columns { out, start }
    }

    /// A field left-justified in `width` bytes (as `std::setw` counts). When
    /// the previous field filled its column, a space keeps the two apart.
    pub(super) fn col(&mut self, s: &str, width: usize) {
        if self.out.len() > self.start && !self.out.ends_with(' ') {
            self.out.push(' ');
        }
        self.out.push_str(s);
        for _ in s.len()..width {
            self.out.push(' ');
        }
    }

    pub(super) fn raw(&mut self, s: &str) {
        self.out.push_str(s);
    }
}

/// A field of a whitespace-separated line: whitespace (and `extra`) becomes
/// `_`, as RCP does for device names; empty becomes [`EMPTY_FIELD`].
pub(super) fn token<'s>(s: &'s str, extra: &[char]) -> Cow<'s, str> {
    let bad = |c: char| c.is_whitespace() || extra.contains(&c);
    if s.is_empty() {
        Cow::Borrowed(EMPTY_FIELD)
    } else if s.contains(bad) {
        Cow::Owned(s.chars().map(|c| if bad(c) { '_' } else { c }).collect())
    } else {
        Cow::Borrowed(s)
    }
}

/// `s` with every character for which `escape` answers replaced by that text;
/// `if_empty` for an empty `s`. RCP's `&nbsp;`-style escapes.
pub(super) fn escaped<'s>(
    s: &'s str,
    if_empty: &'static str,
    escape: fn(char) -> Option<&'static str>,
) -> Cow<'s, str> {
    if s.is_empty() {
        Cow::Borrowed(if_empty)
    } else if s.chars().any(|c| escape(c).is_some()) {
        let mut o = String::with_capacity(s.len() + 8);
        for c in s.chars() {
            match escape(c) {
                Some(e) => o.push_str(e),
                None => o.push(c),
            }
        }
        Cow::Owned(o)
    } else {
        Cow::Borrowed(s)
    }
}

/// A number or handle formatted on the stack: these are most of a timestamp
/// line, and the producer writes one line per traced call.
pub(super) struct Small {
    buf: [u8; 20],
    start: usize,
}

impl Small {
    pub(super) fn dec(mut v: u64) -> Self {
        let mut s = Small { buf: [0; 20], start: 20 };
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
    pub(super) fn handle(v: u64) -> Self {
        Self::hex(v, b"0123456789abcdef")
    }

    /// `ToHexString` of an integer (`std::hex << std::uppercase`): `NULL` for
    /// 0, else `0x` and upper-case digits without padding.
    pub(super) fn upper_handle(v: u64) -> Self {
        Self::hex(v, b"0123456789ABCDEF")
    }

    fn hex(mut v: u64, digits: &[u8; 16]) -> Self {
        let mut s = Small { buf: [0; 20], start: 20 };
        if v == 0 {
            s.start = 16;
            s.buf[16..].copy_from_slice(b"NULL");
            return s;
        }
        while v != 0 {
            s.start -= 1;
            s.buf[s.start] = digits[(v & 0xF) as usize];
            v >>= 4;
        }
        s.start -= 2;
        s.buf[s.start] = b'0';
        s.buf[s.start + 1] = b'x';
        s
    }

    pub(super) fn as_str(&self) -> &str {
        std::str::from_utf8(&self.buf[self.start..]).unwrap_or_default()
    }
}

pub(super) fn number<T: std::str::FromStr>(s: &str, what: &str) -> Result<T, String> {
    s.parse().map_err(|_| format!("bad {what} {s:?}"))
}

/// `NULL` or `0x…` in either case and at any width (Linux and Windows builds
/// of RCP differ).
pub(super) fn parse_handle(s: &str, what: &str) -> Result<u64, String> {
    if s == "NULL" {
        return Ok(0);
    }
    s.strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .filter(|h| !h.is_empty())
        .and_then(|h| u64::from_str_radix(h, 16).ok())
        .ok_or_else(|| format!("bad {what} {s:?}"))
}

pub(super) fn looks_like_handle(s: &str) -> bool {
    s == "NULL" || s.starts_with("0x") || s.starts_with("0X")
}
