//! A kernel's machine code as the waves fetch it: the words of the allocation it lies in, each
//! instruction decoded once (waves and work-groups share the decoded form; threads may race to
//! decode the same word and get the same result). The decoded forms are kept per 4 KiB page of
//! code, made when a wave first runs there, so that a kernel in a large allocation costs only the
//! pages it runs.

use std::sync::OnceLock;

use crate::decode::{decode, DecodeError, Inst};
use crate::fault::Fault;

/// Words in a page of decoded code.
const PAGE_WORDS: usize = 1024;

type Decoded = OnceLock<Result<Inst, DecodeError>>;

pub struct Code {
    start: u64,
    end: u64,
    pages: Vec<OnceLock<Box<[Decoded]>>>,
    /// Owned words, for code made from a vector (tests); else the words are the host memory at
    /// `start..end`.
    _owned: Option<Box<[u32]>>,
}

impl Code {
    /// Code in host memory from `start` to `end`, which must stay mapped and unchanged while this
    /// `Code` lives.
    ///
    /// # Safety
    /// `start..end` is readable host memory for the life of the returned value, and `start` is
    /// 4-byte aligned.
    pub unsafe fn in_memory(start: u64, end: u64) -> Code {
        let words = ((end.saturating_sub(start)) / 4) as usize;
        Code { start, end: start + words as u64 * 4, pages: Code::pages(words), _owned: None }
    }

    /// Code made of `words`, placed wherever the vector's memory is.
    pub fn from_words(words: Vec<u32>) -> Code {
        let owned = words.into_boxed_slice();
        let start = owned.as_ptr() as u64;
        let n = owned.len();
        Code { start, end: start + n as u64 * 4, pages: Code::pages(n), _owned: Some(owned) }
    }

    fn pages(words: usize) -> Vec<OnceLock<Box<[Decoded]>>> {
        (0..words.div_ceil(PAGE_WORDS)).map(|_| OnceLock::new()).collect()
    }

    /// The address of the first word.
    pub fn start(&self) -> u64 {
        self.start
    }

    pub fn contains(&self, pc: u64) -> bool {
        pc >= self.start && pc < self.end && pc.is_multiple_of(4)
    }

    /// The instruction at `pc`; a pc outside the code or words that do not decode fault.
    pub fn fetch(&self, pc: u64) -> Result<Inst, Fault> {
        if !self.contains(pc) {
            return Err(Fault::Memory { pc, addr: pc, len: 4, name: "instruction fetch" });
        }
        let i = ((pc - self.start) / 4) as usize;
        let page = self.pages[i / PAGE_WORDS].get_or_init(|| (0..PAGE_WORDS).map(|_| OnceLock::new()).collect());
        let r = page[i % PAGE_WORDS].get_or_init(|| {
            let left = ((self.end - pc) / 4).min(3) as usize;
            // SAFETY: inside start..end, which the constructor's contract keeps mapped.
            let words = unsafe { std::slice::from_raw_parts(pc as *const u32, left) };
            decode(words)
        });
        r.map_err(|why| Fault::Decode { pc, why })
    }
}
