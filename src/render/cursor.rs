//! Appending short pieces of text to a string, as the API log's line writer
//! does a dozen times per record: one capacity check per piece and copies
//! of fixed size, where `push_str` would call `memcpy` for each (a call
//! costs more than the few bytes it copies).

/// Text whose bytes can be copied in whole blocks of [`BLOCK`] bytes: the
/// pieces of a line laid end to end, with a block of padding after the
/// last, so that reading a piece's last block never leaves the buffer.
#[derive(Debug, Default)]
pub struct Arena {
    bytes: Vec<u8>,
}

pub const BLOCK: usize = 16;

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

    /// Ends the arena: the padding that block copies read past a piece.
    pub fn seal(&mut self) {
        self.bytes.extend_from_slice(&[0; BLOCK]);
    }
}

/// Appends to a string's bytes.
pub struct Cursor<'a> {
    buf: &'a mut Vec<u8>,
}

impl<'a> Cursor<'a> {
    /// Only whole UTF-8 characters are ever appended (ASCII, and the
    /// arena's pieces, each made from a `&str`).
    pub fn new(s: &'a mut String) -> Cursor<'a> {
        // SAFETY: see above; the string stays valid UTF-8.
        Cursor { buf: unsafe { s.as_mut_vec() } }
    }

    /// Makes room for `n` more bytes.
    #[inline]
    pub fn room(&mut self, n: usize) {
        if self.buf.capacity() - self.buf.len() < n {
            self.buf.reserve(n.max(4096));
        }
    }

    /// Appends the first `len` bytes of `a`, copying the whole array.
    #[inline]
    pub fn put_array<const N: usize>(&mut self, a: &[u8; N], len: usize) {
        assert!(len <= N);
        self.room(N);
        let at = self.buf.len();
        // SAFETY: `room` made space for all N bytes; only `len` become part
        // of the string.
        unsafe {
            std::ptr::write_unaligned(self.buf.as_mut_ptr().add(at) as *mut [u8; N], *a);
            self.buf.set_len(at + len);
        }
    }

    /// Appends a piece of `arena`, a block at a time.
    #[inline]
    pub fn put_piece(&mut self, arena: &Arena, p: Piece) {
        let len = p.len as usize;
        let blocks = len.div_ceil(BLOCK);
        self.room(blocks * BLOCK);
        let src = &arena.bytes[p.off as usize..p.off as usize + blocks * BLOCK];
        let at = self.buf.len();
        // SAFETY: `room` made space for every block; the source slice is
        // in bounds (checked above, the arena's padding covers the last
        // block); only `len` bytes become part of the string.
        unsafe {
            let dst = self.buf.as_mut_ptr().add(at);
            let mut k = 0;
            while k < blocks * BLOCK {
                let b = std::ptr::read_unaligned(src.as_ptr().add(k) as *const [u8; BLOCK]);
                std::ptr::write_unaligned(dst.add(k) as *mut [u8; BLOCK], b);
                k += BLOCK;
            }
            self.buf.set_len(at + len);
        }
    }

    /// Appends any text (the rare and the long).
    pub fn put_str(&mut self, s: &str) {
        self.buf.extend_from_slice(s.as_bytes());
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
        for (w, p) in words.iter().zip(&pieces) {
            let mut c = Cursor::new(&mut s);
            c.put_piece(&a, *p);
            c.put_array(b"0123456789", 3);
            c.put_str("|");
            want.push_str(w);
            want.push_str("012|");
        }
        assert_eq!(s, want);
    }
}
