//! The binary call record: what the hot path writes and the writer thread
//! reads. Everything is 8-byte aligned; a record is a header, one word per
//! argument, then the captured contents behind pointer arguments.

/// Largest record; longer captures are truncated to fit.
pub const MAX_RECORD: usize = 8192;

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Header {
    /// Whole record, bytes, a multiple of 8.
    pub len: u32,
    pub fn_id: u16,
    pub nargs: u8,
    pub flags: u8,
    pub tid: u32,
    pub _pad: u32,
    pub cmd_id: u64,
    pub t0: u64,
    pub t1: u64,
    pub ret: u64,
}

pub const HEADER: usize = std::mem::size_of::<Header>();
pub const FLAG_CMD: u8 = 1;
/// The call succeeded, so the contents behind its pointers were captured.
pub const FLAG_OK: u8 = 2;

/// One captured content: `bytes` of data follow, padded to 8.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capture {
    pub param: u8,
    pub tag: u8,
    pub _pad: u16,
    pub bytes: u32,
    /// Elements or bytes the application had, before truncation.
    pub total: u64,
}

pub const CAPTURE: usize = std::mem::size_of::<Capture>();

#[repr(u8)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tag {
    /// An input array, element by element.
    Array = 1,
    /// Raw bytes (kernel argument values, fill patterns, IL, info answers).
    Bytes = 2,
    /// A string, without its NUL.
    Str = 3,
    /// One value written by the callee (`*errcode_ret`, `*event`, …).
    Out = 4,
    /// Elements written by the callee into an output array.
    OutArray = 5,
    /// A zero-terminated property list, terminator excluded.
    Props = 6,
    /// The local work size the driver chose for a NULL local size.
    LocalSize = 7,
}

impl Tag {
    pub fn from_u8(v: u8) -> Option<Tag> {
        Some(match v {
            1 => Tag::Array,
            2 => Tag::Bytes,
            3 => Tag::Str,
            4 => Tag::Out,
            5 => Tag::OutArray,
            6 => Tag::Props,
            7 => Tag::LocalSize,
            _ => return None,
        })
    }
}

pub const fn pad8(n: usize) -> usize {
    (n + 7) & !7
}

/// A record read back from a buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View<'a> {
    pub header: Header,
    pub args: Vec<u64>,
    pub captures: Vec<(Capture, &'a [u8])>,
}

impl View<'_> {
    /// The captured text of string argument `i`.
    pub fn string_arg(&self, i: usize) -> Option<String> {
        self.captures
            .iter()
            .find(|(c, _)| c.param as usize == i && c.tag == Tag::Str as u8)
            .map(|(_, d)| String::from_utf8_lossy(d).into_owned())
    }
}

/// Splits a buffer into records. Stops at the first malformed one.
pub fn records(mut buf: &[u8]) -> impl Iterator<Item = View<'_>> {
    std::iter::from_fn(move || {
        if buf.len() < HEADER {
            return None;
        }
        // SAFETY: the buffer holds at least a header; read_unaligned copes with any address.
        let h: Header = unsafe { std::ptr::read_unaligned(buf.as_ptr() as *const Header) };
        let len = h.len as usize;
        if len < HEADER + 8 * h.nargs as usize || len > buf.len() || len % 8 != 0 {
            return None;
        }
        let (rec, rest) = buf.split_at(len);
        buf = rest;
        let mut off = HEADER;
        let args = (0..h.nargs as usize)
            .map(|i| u64::from_ne_bytes(rec[off + 8 * i..off + 8 * i + 8].try_into().unwrap()))
            .collect();
        off += 8 * h.nargs as usize;
        let mut captures = Vec::new();
        while off + CAPTURE <= len {
            // SAFETY: bounds checked above.
            let c: Capture = unsafe { std::ptr::read_unaligned(rec[off..].as_ptr() as *const Capture) };
            let start = off + CAPTURE;
            let end = start + c.bytes as usize;
            if end > len {
                break;
            }
            captures.push((c, &rec[start..end]));
            off = start + pad8(c.bytes as usize);
        }
        Some(View { header: h, args, captures })
    })
}
