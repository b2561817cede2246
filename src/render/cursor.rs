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

/// Appends to a string's bytes. Its length is set when the cursor is
/// dropped: until then the end lives in a register, not in the string.
pub struct Cursor<'a> {
    vec: &'a mut Vec<u8>,
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
        Cursor { ptr: vec.as_mut_ptr(), len: vec.len(), cap: vec.capacity(), vec }
    }

    /// Makes room for `n` more bytes.
    #[inline(always)]
    fn room(&mut self, n: usize) {
        if self.cap - self.len < n {
            self.grow(n);
        }
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, n: usize) {
        // SAFETY: the bytes up to `len` were written.
        unsafe { self.vec.set_len(self.len) };
        self.vec.reserve(n.max(1 << 16));
        self.ptr = self.vec.as_mut_ptr();
        self.cap = self.vec.capacity();
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

    /// Appends a piece of `arena`, a block at a time: pieces are short (a
    /// parameter's declaration), so blocks one by one rather than a loop
    /// the compiler would turn back into `memcpy`.
    #[inline(always)]
    pub fn put_piece(&mut self, arena: &Arena, p: Piece) {
        let len = p.len as usize;
        let blocks = len.div_ceil(BLOCK);
        self.room(blocks * BLOCK);
        let src = arena.bytes[p.off as usize..p.off as usize + blocks * BLOCK].as_ptr();
        // SAFETY: `room` made space for every block; the source is in
        // bounds (checked above: the arena's padding covers the last
        // block); only `len` bytes count.
        unsafe {
            let dst = self.ptr.add(self.len);
            let block = |k: usize| {
                let b = std::ptr::read_unaligned(src.add(k) as *const [u8; BLOCK]);
                std::ptr::write_unaligned(dst.add(k) as *mut [u8; BLOCK], b);
            };
            if blocks > 0 {
                block(0);
            }
            if blocks > 1 {
                block(BLOCK);
            }
            if blocks > 2 {
                block(2 * BLOCK);
                let mut k = 3 * BLOCK;
                while k < blocks * BLOCK {
                    block(k);
                    k += BLOCK;
                }
            }
        }
        self.len += len;
    }

    /// `v` in decimal.
    #[inline(always)]
    pub fn put_decimal(&mut self, v: u64) {
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
    pub fn put_str(&mut self, s: &str) {
        self.room(s.len());
        // SAFETY: `room` made space.
        unsafe { std::ptr::copy_nonoverlapping(s.as_ptr(), self.ptr.add(self.len), s.len()) };
        self.len += s.len();
    }
}

impl Drop for Cursor<'_> {
    fn drop(&mut self) {
        // SAFETY: the bytes up to `len` were written, whole characters.
        unsafe { self.vec.set_len(self.len) };
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
