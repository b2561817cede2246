//! A record as the renderers see it ([`View`]), and the wide layout's
//! reader into one. A walk fills one view per chunk over and over and lends
//! it to each sink: a view is a few hundred bytes, and building, moving and
//! dropping one per record was a fifth of the rendering's cost.

use super::{pad8, Capture, Header, CAPTURE, FLAG_DONE, FLAG_OK, HEADER};
use std::ops::Deref;

/// Inline room for a record's words and captures: rendering reads millions
/// of records, and an allocation per record was a tenth of its time.
pub type Args = smallvec::SmallVec<[u64; 16]>;
pub type Captures<'a> = smallvec::SmallVec<[(Capture, Data<'a>); 4]>;

/// A capture's data. A compact record stores a one-word capture (an output
/// value) as a varint, so no bytes of the trace hold its 8 bytes: the view
/// carries them.
#[derive(Clone, Copy)]
pub enum Data<'a> {
    Bytes(&'a [u8]),
    Word([u8; 8]),
}

impl Deref for Data<'_> {
    type Target = [u8];

    #[inline(always)]
    fn deref(&self) -> &[u8] {
        match self {
            Data::Bytes(b) => b,
            Data::Word(w) => w,
        }
    }
}

impl AsRef<[u8]> for Data<'_> {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl<'a> From<&'a [u8]> for Data<'a> {
    fn from(b: &'a [u8]) -> Self {
        Data::Bytes(b)
    }
}

impl TryFrom<Data<'_>> for [u8; 8] {
    type Error = std::array::TryFromSliceError;

    fn try_from(d: Data<'_>) -> Result<Self, Self::Error> {
        (*d).try_into()
    }
}

// Equal when the bytes are: where they are kept is not part of the value.
impl PartialEq for Data<'_> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for Data<'_> {}

impl PartialEq<&[u8]> for Data<'_> {
    fn eq(&self, other: &&[u8]) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for Data<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

/// A record read back from a buffer.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct View<'a> {
    pub header: Header,
    pub args: Args,
    pub captures: Captures<'a>,
}

impl View<'_> {
    /// A dispatch record's kernel name, when it carries one.
    pub fn kernel_name(&self) -> Option<String> {
        self.string_arg(super::NAME_PARAM as usize)
    }

    /// Whether the call returned (the record was completed).
    pub fn returned(&self) -> bool {
        self.header.flags & FLAG_DONE != 0
    }

    /// The captured text of string argument `i`.
    pub fn string_arg(&self, i: usize) -> Option<String> {
        self.captures
            .iter()
            .find(|(c, _)| c.param as usize == i && c.tag == super::Tag::Str as u8)
            .map(|(_, d)| String::from_utf8_lossy(d).into_owned())
    }
}

/// The argument words of a wide record: `n` words from `b` on.
#[inline(always)]
fn read_args(b: &[u8], n: usize, args: &mut Args) {
    args.clear();
    args.extend(b[HEADER..HEADER + 8 * n].chunks_exact(8).map(|w| u64::from_ne_bytes(w.try_into().unwrap())));
}

/// Reads a complete wide record into `v`: `rec` is exactly the record's
/// `len` bytes and `h` its header, as [`super::check`] passed them.
/// Captures are read while whole ones fit; what follows them is ignored.
pub fn read_wide<'a>(rec: &'a [u8], h: Header, v: &mut View<'a>) {
    let len = rec.len();
    read_args(rec, h.nargs as usize, &mut v.args);
    let mut off = HEADER + 8 * h.nargs as usize;
    v.captures.clear();
    while off + CAPTURE <= len {
        // SAFETY: bounds checked above; read_unaligned copes with any address.
        let c: Capture = unsafe { std::ptr::read_unaligned(rec[off..].as_ptr() as *const Capture) };
        let start = off + CAPTURE;
        let end = start + c.bytes as usize;
        if end > len {
            break;
        }
        v.captures.push((c, Data::Bytes(&rec[start..end])));
        off = start + pad8(c.bytes as usize);
    }
    v.header = h;
}

/// Reads a wide record that may not be complete into `v`: `buf` runs from
/// the record to the end of what its chunk holds. Complete when the header
/// says so and its length fits; otherwise the call had not returned, and
/// only the header and arguments are trusted (the rest may be half
/// written). False when not even those fit.
pub fn read_last<'a>(buf: &'a [u8], v: &mut View<'a>) -> bool {
    if buf.len() < HEADER {
        return false;
    }
    // SAFETY: the buffer holds at least a header.
    let mut h: Header = unsafe { std::ptr::read_unaligned(buf.as_ptr() as *const Header) };
    if h.flags & FLAG_DONE != 0 && h.len as usize <= buf.len() {
        return match super::check(&buf[..h.len as usize]) {
            Ok(h) => {
                read_wide(&buf[..h.len as usize], h, v);
                true
            }
            Err(_) => false,
        };
    }
    let len = HEADER + 8 * h.nargs as usize;
    if len > buf.len() {
        return false;
    }
    h.len = len as u32;
    h.flags &= !(FLAG_DONE | FLAG_OK);
    read_args(buf, h.nargs as usize, &mut v.args);
    v.captures.clear();
    v.header = h;
    true
}
