//! The line writer against the reference (`render::reference`: the line
//! built as an `apilog::Call` and written by the API-log format's own
//! writer), plain and decoded: for every function of both APIs, records
//! with varied values, outputs present, absent, short and NULL, statuses
//! known and unknown, returned and not.

use super::super::printer::{print, Options, Timebase};
use super::super::reference;
use super::*;
use crate::meta::{FUNCTIONS, HSA_FUNCTIONS};
use crate::trace::record::{Args, Capture, Captures, Header, FLAG_DONE, FLAG_OK, KIND_HSA_CALL, KIND_OPENCL_CALL};

/// xorshift: the same values on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A word as calls see them: small, negative, status-like, huge.
    fn word(&mut self) -> u64 {
        match self.below(9) {
            0 => 0,
            1 => self.below(16),
            2 => (-(self.below(80) as i64)) as u64,
            3 => (-(1000 - self.below(200) as i64)) as u64,
            4 => self.below(1 << 32),
            5 => u64::MAX - self.below(3),
            6 => 1 << 63,
            7 => 0x7F00_0000_0000 + self.below(1 << 20) * 8,
            _ => self.next(),
        }
    }

    fn status(&mut self, hsa: bool) -> u64 {
        match self.below(4) {
            0 => 0,
            1 if hsa => 0x1000 + self.below(0x30),
            1 => (-(self.below(70) as i64)) as u64,
            2 => (-(1090 + self.below(60) as i64)) as u64,
            _ => self.word(),
        }
    }
}

const TAGS: [u8; 8] = [
    Tag::Array as u8,
    Tag::Bytes as u8,
    Tag::Str as u8,
    Tag::Out as u8,
    Tag::OutArray as u8,
    Tag::Props as u8,
    Tag::LocalSize as u8,
    0,
];

/// One record of function `fn_id`, with `data` holding its captures' bytes.
fn record<'a>(r: &mut Rng, kind: u16, fn_id: usize, f: &FnMeta, data: &'a [u8]) -> View<'a> {
    let mut flags = 0u8;
    if r.below(3) > 0 {
        flags |= FLAG_DONE | FLAG_OK;
    }
    if f.event_out || r.below(4) == 0 {
        flags |= FLAG_CMD;
    }
    let t0 = r.word();
    let header = Header {
        len: 0,
        fn_id: fn_id as u16,
        nargs: f.params.len() as u8,
        flags,
        tid: match r.below(3) {
            0 => r.below(100) as u32,
            1 => r.next() as u32,
            _ => 4_000_000 + r.below(100_000) as u32,
        },
        kind,
        _pad: 0,
        cmd_id: if r.below(2) == 0 { r.below(1000) } else { r.word() },
        t0,
        t1: if r.below(5) == 0 { r.word() } else { t0.wrapping_add(r.below(1 << 30)) },
        ret: if kind == KIND_HSA_CALL {
            r.status(true)
        } else if r.below(2) == 0 {
            r.status(false)
        } else {
            r.word()
        },
    };
    // Now and then a record shorter than its function (a damaged trace).
    let nargs = if r.below(20) == 0 { r.below(f.params.len() as u64 + 1) as usize } else { f.params.len() };
    let args: Args = (0..nargs).map(|_| r.word()).collect();
    let mut captures = Captures::new();
    let mut at = 0;
    let n = r.below(6);
    for _ in 0..n {
        // Mostly outputs of the function's own parameters; the rest any tag,
        // any parameter (some past the last), any length.
        let param = (r.below(f.params.len() as u64 + 2)) as u8;
        let tag = if r.below(3) > 0 { Tag::Out as u8 } else { TAGS[r.below(8) as usize] };
        let len = [8, 8, 8, 0, 4, 16, 24, 32][r.below(8) as usize].min(data.len() - at);
        let c = Capture { param, tag, _pad: 0, bytes: len as u32, total: r.below(100) };
        captures.push((c, data[at..at + len].into()));
        at += len;
    }
    View { header, args, captures }
}

fn reference(v: &View<'_>, tb: &Timebase, decode: bool) -> String {
    reference::lines(v, tb, decode).expect("a call of a known function")
}

#[test]
fn every_function_writes_the_line_the_format_writes() {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let tb = Timebase { ticks_per_us: 2601.089 };
    let data: Vec<u8> = (0..256).map(|_| r.next() as u8).collect();
    let mut lines = 0;
    for (kind, table) in [(KIND_OPENCL_CALL, &FUNCTIONS[..]), (KIND_HSA_CALL, &HSA_FUNCTIONS[..])] {
        for (id, f) in table.iter().enumerate() {
            for k in 0..200 {
                let v = record(&mut r, kind, id, f, &data);
                // Decoded contents cost more to make: every tenth record.
                for decode in [false, k % 10 == 0] {
                    let want = reference(&v, &tb, decode);
                    let mut got = String::from("before\n");
                    assert!(write(&mut got, &v, &tb, decode.then_some(None)), "{} not written", f.name);
                    assert_eq!(got.strip_prefix("before\n").unwrap(), want, "{} (decode: {decode}) {v:?}", f.name);
                }
                lines += 1;
            }
        }
    }
    assert!(lines > 80_000);
}

/// The reference must see what the tests mean it to: a status, an output
/// shown NULL beside its status, one not written, and decoded contents.
#[test]
fn the_reference_shows_results_and_outputs_by_their_forms() {
    let tb = Timebase { ticks_per_us: 1.0 };
    let id = crate::meta::by_name("clCreateBuffer").unwrap();
    let f = &FUNCTIONS[id];
    let errcode = f.params.iter().position(|p| p.kind == Kind::Errcode).unwrap() as u8;
    let status = (-30i64 as u64).to_ne_bytes();
    let mut v = View {
        header: Header { fn_id: id as u16, flags: FLAG_DONE | FLAG_OK, kind: KIND_OPENCL_CALL, ..Header::default() },
        args: (0..f.params.len()).map(|i| if i == errcode as usize { 0 } else { 1 + i as u64 }).collect(),
        captures: Captures::new(),
    };
    v.captures.push((Capture { param: errcode, tag: Tag::Out as u8, _pad: 0, bytes: 8, total: 1 }, status[..].into()));
    for decode in [false, true] {
        let want = reference(&v, &tb, decode);
        assert!(want.ends_with(" = 0000000000000000, *errcode_ret = NULL (CL_INVALID_VALUE)\n"), "{want}");
        let mut got = String::new();
        assert!(write(&mut got, &v, &tb, decode.then_some(None)));
        assert_eq!(got, want);
    }
    assert!(reference(&v, &tb, true).contains("cl_mem_flags flags = 2 (CL_MEM_WRITE_ONLY), "));
    v.args[errcode as usize] = 0x1000;
    v.captures.clear();
    assert!(reference(&v, &tb, false).ends_with(", *errcode_ret = (not written)\n"));
}

/// `print`, which the sink and the parallel renderer call, writes calls
/// with the line writer, plain or decoded, and other records as comments.
#[test]
fn print_takes_the_line_writer_for_calls_only() {
    let mut r = Rng(7);
    let tb = Timebase { ticks_per_us: 1.0 };
    let data = [0u8; 64];
    let id = crate::meta::by_name("clGetPlatformInfo").unwrap();
    let v = record(&mut r, KIND_OPENCL_CALL, id, &FUNCTIONS[id], &data);
    for decode in [false, true] {
        let mut text = String::new();
        print(&mut text, &v, &tb, &Options { decode, kernels: None });
        assert_eq!(text, reference(&v, &tb, decode));
    }
    // A function id past its API's table is no function, even where the
    // other API's ids would reach it.
    for fn_id in [u16::MAX, FUNCTIONS.len() as u16] {
        let mut unknown = v.clone();
        unknown.header.fn_id = fn_id;
        let mut text = String::new();
        assert!(!write(&mut text, &unknown, &tb, None));
        assert!(text.is_empty());
        assert!(reference::lines(&unknown, &tb, false).is_none());
        for decode in [false, true] {
            print(&mut text, &unknown, &tb, &Options { decode, kernels: None });
            assert_eq!(text, format!("# unknown function id {fn_id}\n"));
            text.clear();
        }
    }
}
