use super::record::*;
use super::*;
use crate::test_rng::Rng;
use std::path::PathBuf;

fn header(chunk: u64) -> FileHeader {
    FileHeader::new(chunk, 4242, Clock::InvariantTsc, 1000, 5_000_000)
}

/// A call record numbered `n` on thread `tid`, with a few captures.
fn call(rng: &mut Rng, tid: u32, n: u64) -> Vec<u8> {
    let nargs = rng.below(8) as usize;
    let args: Vec<u64> = (0..nargs).map(|_| rng.next()).collect();
    let data: Vec<Vec<u8>> =
        (0..rng.below(3)).map(|_| (0..rng.below(40)).map(|_| rng.next() as u8).collect()).collect();
    let caps: Vec<(Capture, &[u8])> = data
        .iter()
        .enumerate()
        .map(|(i, d)| {
            (Capture { param: i as u8, tag: Tag::Bytes as u8, _pad: 0, bytes: 0, total: d.len() as u64 }, &d[..])
        })
        .collect();
    let h = Header {
        fn_id: rng.below(150) as u16,
        flags: FLAG_DONE | FLAG_OK | FLAG_CMD,
        tid,
        cmd_id: n,
        t0: n * 10,
        t1: n * 10 + 5,
        ret: rng.next(),
        ..Header::default()
    };
    encode(&h, &args, &caps)
}

/// A fresh trace with 4 KiB chunks in a folder that removes itself.
fn new_trace() -> (tempfile::TempDir, PathBuf, TraceWriter) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.cltrace");
    let w = TraceWriter::create(&path, header(4096), &[]).unwrap();
    (dir, path, w)
}

fn read_all(path: &Path) -> Result<Vec<(u32, Vec<u8>, bool)>, Error> {
    let r = Reader::open(path)?;
    let mut out = Vec::new();
    let mut buf = Vec::new();
    for c in r.chunks()? {
        r.chunk_bytes(&c, &mut buf)?;
        r.walk(&c, &buf, |v| out.push((v.header.tid, v.header.cmd_id.to_ne_bytes().to_vec(), v.returned())))?;
    }
    Ok(out)
}

#[test]
fn round_trip_keeps_every_record_and_each_threads_order() {
    for version in [VERSION_WIDE, VERSION] {
        round_trip(version);
    }
}

/// A record of another kind than a call (a dispatch's), numbered `n`.
fn dispatch(rng: &mut Rng, tid: u32, n: u64) -> Vec<u8> {
    let h =
        Header { kind: KIND_HSA_DISPATCH, flags: FLAG_DONE | FLAG_OK | FLAG_CMD, tid, cmd_id: n, ..Header::default() };
    let args: Vec<u64> = (0..DISPATCH_WORDS).map(|_| rng.next()).collect();
    let name = Capture { param: NAME_PARAM, tag: Tag::Str as u8, _pad: 0, bytes: 0, total: 5 };
    encode(&h, &args, &[(name, b"kern1")])
}

fn round_trip(version: u32) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.cltrace");
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let info = [("application", "app -x"), ("cwd", "/tmp")];
    let mut w = TraceWriter::create(&path, FileHeader { version, ..header(4096) }, &info).unwrap();
    let mut threads: Vec<ThreadWriter> = (1..=4).map(|t| w.thread(t)).collect();
    let mut written: Vec<Vec<u8>> = Vec::new();
    for n in 0..3000u64 {
        let t = rng.below(4) as usize;
        let rec = if n % 10 == 9 { dispatch(&mut rng, threads[t].tid, n) } else { call(&mut rng, threads[t].tid, n) };
        w.push(&mut threads[t], &rec).unwrap();
        written.push(rec);
    }
    w.header.tsc1 = 3000;
    w.header.mono1 = 6_000_000;
    w.update_header().unwrap();
    let r = Reader::open(&path).unwrap();
    assert_eq!(r.header.version, version);
    assert_eq!(r.info("application"), Some("app -x"));
    assert_eq!(r.info("cwd"), Some("/tmp"));
    assert_eq!(r.header.ticks_per_us(), Some(2.0));
    // Every record read back, byte for byte, each thread's in its order.
    let mut got: Vec<Vec<u8>> = Vec::new();
    let mut buf = Vec::new();
    let mut last_per_thread = std::collections::HashMap::new();
    for c in r.chunks().unwrap() {
        r.chunk_bytes(&c, &mut buf).unwrap();
        r.walk(&c, &buf, |v| {
            assert!(v.returned());
            let prev = last_per_thread.insert(v.header.tid, v.header.cmd_id);
            assert!(prev.is_none_or(|p| p < v.header.cmd_id), "thread {} out of order", v.header.tid);
            got.push(wide(v));
        })
        .unwrap();
    }
    got.sort_by_key(|r| u64::from_ne_bytes(r[16..24].try_into().unwrap()));
    assert_eq!(got, written);
}

#[test]
fn sealed_chunks_come_first_in_seal_order_then_open_ones() {
    let (_dir, path, mut w) = new_trace();
    let mut rng = Rng(7);
    let (mut a, mut b) = (w.thread(1), w.thread(2));
    w.push(&mut a, &call(&mut rng, 1, 1)).unwrap(); // chunk 0
    w.push(&mut b, &call(&mut rng, 2, 2)).unwrap(); // chunk 1
    w.seal(&mut b).unwrap(); // seal 1
    w.seal(&mut a).unwrap(); // seal 2
    w.push(&mut b, &call(&mut rng, 2, 3)).unwrap(); // chunk 2, never sealed
    let order: Vec<u64> =
        read_all(&path).unwrap().iter().map(|(_, id, _)| u64::from_ne_bytes(id[..].try_into().unwrap())).collect();
    assert_eq!(order, [2, 1, 3]);
}

#[test]
fn an_open_record_is_the_threads_last_and_did_not_return() {
    let (_dir, path, mut w) = new_trace();
    let mut rng = Rng(11);
    let mut t = w.thread(9);
    w.push(&mut t, &call(&mut rng, 9, 1)).unwrap();
    let h = Header { fn_id: 12, tid: 9, cmd_id: 2, t0: 77, flags: FLAG_CMD, ..Header::default() };
    // Cut short after its arguments, as the process left it.
    w.push_open(&mut t, &encode(&h, &[5, 6], &[])).unwrap();
    let r = Reader::open(&path).unwrap();
    let c = r.chunks().unwrap()[0];
    let mut buf = Vec::new();
    r.chunk_bytes(&c, &mut buf).unwrap();
    let mut views = Vec::new();
    r.walk(&c, &buf, |v| views.push(v.clone())).unwrap();
    assert_eq!(views.len(), 2);
    assert!(views[0].returned());
    assert!(!views[1].returned());
    assert_eq!(views[1].args.as_slice(), [5, 6]);
    assert_eq!(views[1].header.t0, 77);
}

#[test]
fn open_calls_inside_the_chunk_and_moved_records() {
    // A call (cmd 1) opened; a callback inside it made a call (cmd 2); the
    // outer call then completed, as a copy after it (cmd 1 again), and its
    // opened record was marked moved. A third call (cmd 3) is still open,
    // with a callback call (cmd 4) inside it that returned.
    let (_dir, path, mut w) = new_trace();
    let mut rng = Rng(17);
    let mut t = w.thread(1);
    let opened = |cmd: u64, flags: u8| {
        encode(&Header { tid: 1, cmd_id: cmd, flags: flags | FLAG_CMD, ..Header::default() }, &[cmd], &[])
    };
    w.push(&mut t, &opened(1, FLAG_MOVED)).unwrap();
    w.push(&mut t, &call(&mut rng, 1, 2)).unwrap();
    w.push(&mut t, &call(&mut rng, 1, 1)).unwrap();
    w.push(&mut t, &opened(3, 0)).unwrap();
    w.push(&mut t, &call(&mut rng, 1, 4)).unwrap();
    let got: Vec<(u64, bool)> = read_all(&path)
        .unwrap()
        .iter()
        .map(|(_, id, done)| (u64::from_ne_bytes(id[..].try_into().unwrap()), *done))
        .collect();
    assert_eq!(got, [(2, true), (1, true), (3, false), (4, true)]);
}

#[test]
fn a_half_completed_record_counts_as_not_returned() {
    // The process died after writing the record's end but before moving the
    // chunk's marks: the header says DONE, its length passes `open`.
    let mut rng = Rng(3);
    let rec = call(&mut rng, 1, 1);
    let h: Header = unsafe { std::ptr::read_unaligned(rec.as_ptr() as *const Header) };
    let opened = HEADER + 8 * h.nargs as usize;
    let v = last(&rec[..opened]).unwrap();
    let walked = {
        let (_dir, path, mut w) = new_trace();
        let mut t = w.thread(1);
        w.push(&mut t, &rec[..opened]).unwrap();
        read_all(&path).unwrap()
    };
    assert_eq!(walked.len(), 1);
    assert!(!walked[0].2, "DONE, but longer than what the chunk holds: not returned");
    assert!(!v.returned());
    assert!(v.captures.is_empty());
    assert!(last(&rec).unwrap().returned(), "length reaching the mark: complete");
}

fn damaged(edit: impl Fn(&mut Vec<u8>)) -> String {
    damaged_as(VERSION, edit)
}

/// A trace of 50 records in `version`'s layout, edited, then read.
fn damaged_as(version: u32, edit: impl Fn(&mut Vec<u8>)) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.cltrace");
    let mut w = TraceWriter::create(&path, FileHeader { version, ..header(4096) }, &[]).unwrap();
    let mut rng = Rng(5);
    let mut t = w.thread(1);
    for n in 0..50 {
        w.push(&mut t, &call(&mut rng, 1, n)).unwrap();
    }
    drop(w);
    let mut bytes = std::fs::read(&path).unwrap();
    edit(&mut bytes);
    std::fs::write(&path, &bytes).unwrap();
    read_all(&path).map(|_| String::new()).unwrap_or_else(|e| e.to_string())
}

#[test]
fn damage_is_named_by_file_and_offset() {
    for version in [VERSION_WIDE, VERSION] {
        let e = damaged_as(version, |b| b.truncate(100));
        assert!(e.contains("t.cltrace: offset 100: the file ends inside the header"), "{e}");
        let e = damaged_as(version, |b| b[0] = b'X');
        assert!(e.ends_with("offset 0: not a cltap trace (bad magic)"), "{e}");
        let e = damaged_as(version, |b| b[HEADER_SIZE] = 0x55);
        assert!(e.contains(&format!("offset {HEADER_SIZE}: chunk 0: bad chunk magic")), "{e}");
        // A chunk cut short by a truncated file.
        let e = damaged_as(version, |b| b.truncate(HEADER_SIZE + CHUNK_HEADER + 64));
        assert!(e.contains("is cut short"), "{e}");
    }
    // A record's length made odd: the walk stops there, naming the record.
    let first = HEADER_SIZE + CHUNK_HEADER;
    let e = damaged_as(VERSION_WIDE, |b| b[first] = 0x0B);
    assert!(e.contains(&format!("offset {first}: chunk 0: record length")), "{e}");
    // Version 2: a compact record's varint made endless, then a record
    // turned wide with another thread's header: each named where it starts.
    let e = damaged(|b| b[first + 1..first + 12].fill(0xFF));
    assert!(e.contains(&format!("offset {first}: chunk 0: an opened record")), "{e}");
    let e = damaged(|b| b[first] = compact::STATE_WIDE);
    assert!(e.contains(&format!("offset {first}: chunk 0: a record of thread")), "{e}");
    assert_eq!(damaged(|b| b.truncate(b.len())), "", "undamaged, the trace reads whole");
}

#[test]
fn the_reader_never_panics_on_damaged_traces() {
    let mut rng = Rng(0xDEAD_BEEF);
    for _ in 0..300 {
        let (at, val, cut) = (rng.below(3 * 4096) as usize, rng.next() as u8, rng.below(4) == 0);
        let len = rng.below(4 * 4096) as usize;
        let _ = damaged(|b| {
            if at < b.len() {
                b[at] = val;
            }
            if cut {
                b.truncate(len);
            }
        });
    }
}

/// A cheap call as the layer records it: a handle, small integers, a stack
/// pointer; one output value (`*param_value_size_ret`).
fn cheap_call(tid: u32, t0: u64) -> Vec<u8> {
    let h = Header { fn_id: 21, flags: FLAG_DONE | FLAG_OK, tid, t0, t1: t0 + 90, ..Header::default() };
    let out = Capture { param: 4, tag: Tag::Out as u8, _pad: 0, bytes: 0, total: 1 };
    encode(&h, &[0x5581_2345_6780, 0x902, 0, 0, 0x7FFD_1234_5670], &[(out, &28u64.to_ne_bytes())])
}

#[test]
fn calls_are_stored_compact_and_read_back_exactly() {
    let (_dir, path, mut w) = new_trace();
    let mut t = w.thread(3);
    let recs: Vec<Vec<u8>> = (0..40).map(|n| cheap_call(3, 1_000_000_000 + 150 * n)).collect();
    let c = compact::narrow(&recs[0], &mut compact::Prev::default()).unwrap();
    let mut back = Vec::new();
    compact::widen(&c, 3, &mut back).unwrap();
    assert_eq!(back, recs[0]);
    for r in &recs {
        w.push(&mut t, r).unwrap();
    }
    let r = Reader::open(&path).unwrap();
    let c = r.chunks().unwrap()[0];
    // 48 + 5 words + a 16-byte capture with its word: 112 bytes wide.
    assert_eq!(recs[0].len(), 112);
    // Repeated on the same handles, each word after the first record is a
    // one-byte delta: 16 bytes (state, function, count, a 2-byte time
    // delta, 5 words, duration, result, a 3-byte output value, the end).
    let per = c.header.used as f64 / recs.len() as f64;
    assert!(per <= 17.0, "{per} bytes per cheap call");
    let mut buf = Vec::new();
    r.chunk_bytes(&c, &mut buf).unwrap();
    let mut back = Vec::new();
    r.walk(&c, &buf, |v| back.push(wide(v))).unwrap();
    assert_eq!(back, recs);
}

#[test]
fn a_compact_record_cut_anywhere_after_its_opened_part_did_not_return() {
    // What a death leaves: `used` stops after the opened part, or after a
    // tail written in part or whole, with DONE stored or not.
    let rec = call(&mut Rng(23), 1, 5);
    let full = compact::narrow(&rec, &mut compact::Prev::default()).expect("a call is stored compact");
    let opened = {
        let v = record::last(&rec).unwrap();
        let open = encode(&Header { flags: v.header.flags & FLAG_CMD, t1: 0, ret: 0, ..v.header }, &v.args, &[]);
        compact::narrow(&open, &mut compact::Prev::default()).unwrap().len()
    };
    for done in [false, true] {
        let mut b = full.clone();
        if !done {
            b[0] &= !(FLAG_DONE | FLAG_OK);
        }
        // Without DONE, `used` stops after the opened part.
        let cuts = if done { opened..=full.len() } else { opened..=opened };
        for cut in cuts {
            let mut out = Vec::new();
            compact::widen(&b[..cut], 1, &mut out).unwrap();
            let v = last(&out).unwrap();
            assert_eq!(v.returned(), done && cut == full.len(), "cut at {cut} of {}, DONE {done}", full.len());
            assert_eq!(v.header.cmd_id, 5);
        }
        // `used` never stops inside an opened part: that is damage.
        assert!(compact::widen(&b[..opened - 1], 1, &mut Vec::new()).is_err());
    }
}

#[test]
fn the_compact_reader_never_panics_on_any_bytes() {
    let mut rng = Rng(0xC0FFEE);
    let mut out = Vec::new();
    for _ in 0..20_000 {
        let n = rng.below(64) as usize;
        let b: Vec<u8> = (0..n).map(|_| if rng.below(3) == 0 { 0xFF } else { rng.next() as u8 }).collect();
        out.clear();
        let _ = compact::widen(&b, 1, &mut out);
        // What it gives is wide records the walk accepts, all of thread 1.
        let mut off = 0;
        while off < out.len() {
            let v = last(&out[off..]).unwrap_or_else(|| panic!("{b:02x?} gave {out:02x?}"));
            assert_eq!(v.header.tid, 1);
            off += v.header.len as usize;
        }
    }
}

#[test]
fn a_record_moved_later_keeps_the_widened_offsets_before_and_after_it() {
    // The tools' buffers remember how far into a chunk's widened records
    // they gave: a call opened, a callback's call inside it, then the outer
    // call completed as a copy and its opened record marked moved.
    let outer = encode(&Header { tid: 1, cmd_id: 1, flags: FLAG_CMD, t0: 10, ..Header::default() }, &[7], &[]);
    let inner = cheap_call(1, 20);
    let mut prev = compact::Prev::default();
    let a = compact::narrow(&outer, &mut prev).unwrap();
    let b = compact::narrow(&inner, &mut prev).unwrap();
    let before = [&a[..], &b[..]].concat();
    let mut moved = before.clone();
    moved[0] |= FLAG_MOVED;
    let (mut w0, mut w1) = (Vec::new(), Vec::new());
    compact::widen(&before, 1, &mut w0).unwrap();
    compact::widen(&moved, 1, &mut w1).unwrap();
    assert_eq!(w0.len(), w1.len());
    assert_eq!(w0[HEADER + 8..], w1[HEADER + 8..], "the inner call at the same offset");
    assert_eq!(last(&w1).unwrap().header.flags & FLAG_MOVED, FLAG_MOVED);
}

/// A view's record in the wide layout.
fn wide(v: &View<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    encode_into(&mut out, &v.header, &v.args, &v.captures);
    out
}

/// A trace cut short at any byte of its chunk (`head -c`, a full disk when
/// copying) keeps every record that lies whole before the cut, each as it
/// was (none turned into a call that did not return), and counts the rest
/// of the chunk's bytes as lost.
#[test]
fn a_chunk_cut_short_keeps_its_whole_records_and_counts_the_rest() {
    for version in [VERSION_WIDE, VERSION] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.cltrace");
        let mut w = TraceWriter::create(&path, FileHeader { version, ..header(1 << 16) }, &[]).unwrap();
        let mut rng = Rng(21);
        let mut t = w.thread(1);
        for n in 0..40 {
            w.push(&mut t, &call(&mut rng, 1, n)).unwrap();
        }
        drop(w);
        let whole = std::fs::read(&path).unwrap();
        let r = Reader::open(&path).unwrap();
        let c = r.chunks().unwrap()[0];
        let mut buf = Vec::new();
        r.chunk_bytes(&c, &mut buf).unwrap();
        // Where each record ends, from the chunk's first record.
        let ends: Vec<usize> = if version == VERSION_WIDE {
            let mut at = 0;
            let mut v = Vec::new();
            r.walk(&c, &buf, |x| {
                at += x.header.len as usize;
                v.push(at);
            })
            .unwrap();
            v
        } else {
            let (mut d, mut v, mut out) = (compact::Decoder::new(&buf, 1), View::default(), Vec::new());
            while let Some(x) = d.next(&mut v) {
                x.unwrap();
                out.push(d.at());
            }
            out
        };
        assert_eq!((ends.len(), *ends.last().unwrap() as u64), (40, c.header.used));
        let first = HEADER_SIZE + CHUNK_HEADER;
        for cut in (first..first + c.header.used as usize).step_by(3) {
            std::fs::write(&path, &whole[..cut]).unwrap();
            let r = Reader::open(&path).unwrap();
            let e = r.chunk_bytes(&c, &mut buf).unwrap_err().to_string();
            assert!(e.contains(&format!("chunk 0 is cut short: {} of {}", cut - first, c.header.used)), "{e}");
            let mut ids = Vec::new();
            let walked = r
                .walk(&c, &buf, |v| {
                    assert!(v.returned(), "cut at {cut}: a returned call read as not returned");
                    ids.push(v.header.cmd_id);
                })
                .unwrap();
            let kept = ends.iter().take_while(|&&e| e <= cut - first).count();
            assert_eq!(ids, (0..kept as u64).collect::<Vec<_>>(), "version {version}, cut at {cut}");
            let kept_bytes = if kept == 0 { 0 } else { ends[kept - 1] };
            assert_eq!(walked.lost, c.header.used - kept_bytes as u64, "version {version}, cut at {cut}");
        }
    }
}

#[test]
fn a_key_added_during_the_run_reads_back_beside_the_first_ones() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.cltrace");
    let mut w = TraceWriter::create(&path, header(4096), &[("stem", "app.1"), ("atp", "1")]).unwrap();
    // A reader opened before the key, as the in-process renderer is.
    let early = Reader::open(&path).unwrap();
    w.add_info(INFO_HSA_CLOCK_OFFSET, "-12345").unwrap();
    assert_eq!(early.info(INFO_HSA_CLOCK_OFFSET), None);
    let now = early.current_info().unwrap();
    assert!(now.contains(&(INFO_HSA_CLOCK_OFFSET.to_string(), "-12345".to_string())), "{now:?}");
    let late = Reader::open(&path).unwrap();
    assert_eq!(late.info("stem"), Some("app.1"));
    assert_eq!(late.info("atp"), Some("1"));
    assert_eq!(late.info(INFO_HSA_CLOCK_OFFSET), Some("-12345"));
}

#[test]
fn appending_a_key_past_the_header_page_is_refused_and_leaves_it_alone() {
    let mut info = vec![0u8; HEADER_SIZE - FILE_HEADER];
    let end = append_info(&mut info, 0, "k", "v").unwrap();
    assert_eq!(&info[..end], b"k\0v\0");
    let full = HEADER_SIZE - FILE_HEADER - 3;
    assert_eq!(append_info(&mut info, full, "k", "v"), None);
    assert!(info[full..].iter().all(|b| *b == 0));
}
