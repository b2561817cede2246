//! Appending short pieces of text to a string, as the API log's line writer
//! does a dozen times per record: one capacity check per piece and copies
//! of fixed size, where `push_str` would call `memcpy` for each (a call
//! costs more than the few bytes it copies).

/// Text whose bytes can be copied in whole blocks of [`BLOCK`] bytes: the
/// pieces of a line laid end to end, with [`PAD`] bytes after the last, so
/// that reading a short piece as [`SHORT`] bytes never leaves the buffer.
#[derive(Debug, Default)]
pub struct Arena {
    bytes: Vec<u8>,
}

pub const BLOCK: usize = 16;
/// A piece this long or shorter is copied as one fixed-size copy of this
/// many bytes (most of a line's pieces: `, size_t param_value_size = `).
pub const SHORT: usize = 3 * BLOCK;
const PAD: usize = SHORT;

/// A piece of an [`Arena`]: its offset and length.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Piece {
    off: u32,
    len: u32,
}

impl Piece {
    pub fn is_empty(self) -> bool {
        self.len == 0
    }
}

impl Arena {
    /// Adds `s` (ASCII or whole UTF-8 characters).
    pub fn add(&mut self, s: &str) -> Piece {
        let off = self.bytes.len();
        self.bytes.extend_from_slice(s.as_bytes());
        Piece { off: off as u32, len: s.len() as u32 }
    }

    /// Ends the arena: the padding that whole-block copies read past a piece.
    pub fn seal(&mut self) {
        self.bytes.extend_from_slice(&[0; PAD]);
    }
}

/// Appends to a string's bytes. Its length is set when the cursor is
/// dropped: until then the end lives in a register, not in the string.
pub struct Cursor<'a> {
    s: &'a mut String,
    ptr: *mut u8,
    len: usize,
    cap: usize,
}

impl<'a> Cursor<'a> {
    /// Only whole UTF-8 characters are ever appended (ASCII, and the
    /// arena's pieces, each made from a `&str`).
    pub fn new(s: &'a mut String) -> Cursor<'a> {
        // SAFETY: see above; the string stays valid UTF-8.
        let vec = unsafe { s.as_mut_vec() };
        let (ptr, len, cap) = (vec.as_mut_ptr(), vec.len(), vec.capacity());
        Cursor { s, ptr, len, cap }
    }

    /// Makes room for `n` more bytes.
    #[inline(always)]
    fn room(&mut self, n: usize) {
        if self.cap - self.len < n {
            (self.ptr, self.cap) = grow(self.s, self.len, n);
        }
    }

    /// Lends the string, its length set, to `f` (the rare text made with
    /// `String`'s own methods: decoded contents).
    pub fn with_string(&mut self, f: impl FnOnce(&mut String)) {
        // SAFETY: the bytes up to `len` were written, whole characters.
        unsafe { self.s.as_mut_vec().set_len(self.len) };
        f(self.s);
        // SAFETY: only the pointer, length and capacity are read.
        let vec = unsafe { self.s.as_mut_vec() };
        (self.ptr, self.len, self.cap) = (vec.as_mut_ptr(), vec.len(), vec.capacity());
    }

    /// Appends the first `len` bytes of `a`, copying the whole array.
    #[inline(always)]
    pub fn put_array<const N: usize>(&mut self, a: &[u8; N], len: usize) {
        assert!(len <= N);
        self.room(N);
        // SAFETY: `room` made space for all N bytes; only `len` count.
        unsafe { std::ptr::write_unaligned(self.ptr.add(self.len) as *mut [u8; N], *a) };
        self.len += len;
    }

    /// Appends a piece of `arena`: a short piece (most) as one copy of
    /// [`SHORT`] bytes, a longer one a block at a time; either way without
    /// a call to `memcpy`, which costs more than the few bytes it copies.
    #[inline(always)]
    pub fn put_piece(&mut self, arena: &Arena, p: Piece) {
        let len = p.len as usize;
        let off = p.off as usize;
        // The arena's padding covers a short copy of its last piece, and
        // the blocks of a long one.
        let src = arena.bytes[off..off + len + PAD].as_ptr();
        if len <= SHORT {
            self.room(SHORT);
            // SAFETY: `room` made space for SHORT bytes; the source holds
            // SHORT bytes (checked above); only `len` count.
            unsafe {
                let b = std::ptr::read_unaligned(src as *const [u8; SHORT]);
                std::ptr::write_unaligned(self.ptr.add(self.len) as *mut [u8; SHORT], b);
            }
        } else {
            let blocks = len.div_ceil(BLOCK);
            self.room(blocks * BLOCK);
            for k in 0..blocks {
                // SAFETY: `room` made space for every block; the source
                // holds them (checked above: `blocks * BLOCK < len + PAD`).
                unsafe {
                    let b = std::ptr::read_unaligned(src.add(k * BLOCK) as *const [u8; BLOCK]);
                    std::ptr::write_unaligned(self.ptr.add(self.len + k * BLOCK) as *mut [u8; BLOCK], b);
                }
            }
        }
        self.len += len;
    }

    /// Appends `N` bytes, `init`, then lets `f` change them in place and
    /// say how many of them count (at most `N`): text of fixed columns,
    /// such as a line's head, written where it goes.
    #[inline(always)]
    pub fn put_patched<const N: usize>(&mut self, init: &[u8; N], f: impl FnOnce(&mut [u8; N]) -> usize) {
        self.room(N);
        // SAFETY: `room` made space for N bytes, which `init` fills before
        // they are lent (initialised, alignment 1).
        let n = unsafe {
            let dst = self.ptr.add(self.len) as *mut [u8; N];
            std::ptr::write_unaligned(dst, *init);
            f(&mut *dst)
        };
        assert!(n <= N);
        self.len += n;
    }

    /// `v` as 16 upper-case hex digits.
    #[inline(always)]
    pub fn put_hex(&mut self, v: u64) {
        self.put_array(&cltap_formats::digits::hex16(v, true), 16);
    }

    /// `v` in decimal.
    #[inline(always)]
    pub fn put_decimal(&mut self, v: u64) {
        if v < 10 {
            // Sizes, indices, flags: most often one digit.
            self.put_array(&[b'0' + v as u8], 1);
            return;
        }
        if let Some((w, n)) = cltap_formats::digits::small_decimal(v) {
            self.put_array(&w.to_le_bytes(), n);
            return;
        }
        match cltap_formats::digits::short_decimal(v) {
            Some((w, n)) => self.put_array(&w.to_le_bytes(), n),
            None => {
                let mut b = [0u8; 20];
                let n = cltap_formats::digits::decimal(v, &mut b);
                self.put_array(&b, n);
            }
        }
    }

    /// Appends any text (the rare and the long).
    #[inline(always)]
    pub fn put_str(&mut self, s: &str) {
        self.room(s.len());
        // SAFETY: `room` made space.
        unsafe { std::ptr::copy_nonoverlapping(s.as_ptr(), self.ptr.add(self.len), s.len()) };
        self.len += s.len();
    }
}

/// Makes room for `n` more bytes after the first `len` of `s` (written,
/// its length not yet set); its new start and capacity. Apart from the
/// cursor, whose fields then stay in registers.
#[cold]
#[inline(never)]
fn grow(s: &mut String, len: usize, n: usize) -> (*mut u8, usize) {
    // SAFETY: the bytes up to `len` were written, whole characters.
    let vec = unsafe { s.as_mut_vec() };
    // SAFETY: as above.
    unsafe { vec.set_len(len) };
    vec.reserve(n.max(1 << 16));
    (vec.as_mut_ptr(), vec.capacity())
}

impl Drop for Cursor<'_> {
    fn drop(&mut self) {
        // SAFETY: the bytes up to `len` were written, whole characters.
        unsafe { self.s.as_mut_vec().set_len(self.len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_and_arrays_append_exactly_their_text() {
        let mut a = Arena::default();
        let words: Vec<String> = (0..40).map(|n| "x".repeat(n) + "é").collect();
        let pieces: Vec<Piece> = words.iter().map(|w| a.add(w)).collect();
        a.seal();
        let mut s = String::from("start");
        let mut want = s.clone();
        for (i, (w, p)) in words.iter().zip(&pieces).enumerate() {
            let mut c = Cursor::new(&mut s);
            c.put_piece(&a, *p);
            c.put_array(b"0123456789", 3);
            c.put_str("|");
            c.put_decimal(i as u64 * 1_234_567_891);
            drop(c);
            want.push_str(w);
            want.push_str("012|");
            want.push_str(&(i as u64 * 1_234_567_891).to_string());
        }
        assert_eq!(s, want);
        // Growing keeps what was written.
        let mut s = String::new();
        let mut c = Cursor::new(&mut s);
        for _ in 0..100_000 {
            c.put_piece(&a, pieces[39]);
        }
        drop(c);
        assert_eq!(s, words[39].repeat(100_000));
    }
}
