//! The readers held to the reference ([`super::oracle`], the reader before
//! compact records were read straight into views) over random chunks, whole
//! and damaged: the same records, in the same order, the same damage, and
//! the same widened bytes for the tools' buffers.

use super::compact::{self, Decoder, Prev, STATE_WIDE};
use super::oracle::{old_walk, old_widen, OldView};
use super::record::*;
use crate::test_rng::Rng;

/// A view as the reference gives one, to compare.
fn old_form(v: &View<'_>) -> OldView {
    OldView {
        header: v.header,
        args: v.args.to_vec(),
        captures: v.captures.iter().map(|(c, d)| (*c, d.to_vec())).collect(),
    }
}

/// A random record of thread `tid`, in the wide layout: a call (OpenCL or
/// HSA, open, moved, with words past the delta-coded ones, output values,
/// captures cut short), or now and then a record of another kind.
fn record(rng: &mut Rng, tid: u32, t: &mut u64) -> Vec<u8> {
    let nargs = match rng.below(8) {
        0 => rng.below(40),
        _ => rng.below(8),
    } as usize;
    // Words that repeat (handles) and words that change (pointers, sizes).
    let args: Vec<u64> =
        (0..nargs).map(|i| if rng.below(2) == 0 { 0x5000 + i as u64 } else { rng.next() >> rng.below(64) }).collect();
    let data: Vec<Vec<u8>> =
        (0..rng.below(4)).map(|_| (0..rng.below(24)).map(|_| rng.next() as u8).collect()).collect();
    let caps: Vec<(Capture, &[u8])> = data
        .iter()
        .map(|d| {
            let tag = 1 + rng.below(7) as u8;
            let (total, d) = match rng.below(4) {
                // An output value: a one-word capture.
                0 => (1, &d[..d.len().min(8)]),
                1 => (d.len() as u64 + rng.below(100), &d[..]),
                _ => (d.len() as u64, &d[..]),
            };
            (Capture { param: rng.below(12) as u8, tag, _pad: 0, bytes: 0, total }, d)
        })
        .collect();
    *t += rng.below(1000);
    let kind = match rng.below(12) {
        0 => KIND_HSA_DISPATCH + rng.below(8) as u16,
        1..=3 => KIND_HSA_CALL,
        _ => KIND_OPENCL_CALL,
    };
    let mut flags = FLAG_DONE | (FLAG_OK * (rng.below(4) != 0) as u8) | (FLAG_CMD * (rng.below(2) == 0) as u8);
    if rng.below(10) == 0 {
        flags |= FLAG_MOVED;
    }
    let h = Header {
        fn_id: rng.below(300) as u16,
        flags,
        tid,
        kind,
        cmd_id: if flags & FLAG_CMD != 0 || kind == KIND_HSA_CALL { rng.below(1 << 20) } else { 0 },
        t0: *t,
        t1: *t + rng.below(5000),
        ret: rng.next() >> rng.below(64),
        ..Header::default()
    };
    let rec = encode(&h, &args, &caps);
    if rng.below(8) == 0 {
        // Not returned: its opened part only.
        let mut open = rec[..HEADER + 8 * nargs].to_vec();
        let h = Header { len: open.len() as u32, flags: flags & (FLAG_CMD | FLAG_MOVED), t1: 0, ret: 0, ..h };
        open[..HEADER].copy_from_slice(&encode(&h, &[], &[])[..HEADER]);
        return open;
    }
    rec
}

/// A chunk of `n` random records of thread 1 as the layer stores them:
/// compact where the compact form says a record exactly, else wide.
fn compact_chunk(rng: &mut Rng, n: usize) -> Vec<u8> {
    let (mut prev, mut t, mut out) = (Prev::default(), rng.next() >> 8, Vec::new());
    for _ in 0..n {
        let rec = record(rng, 1, &mut t);
        match compact::narrow(&rec, &mut prev) {
            Some(c) => out.extend_from_slice(&c),
            None => {
                out.push(STATE_WIDE | rec[7]);
                out.extend_from_slice(&rec);
            }
        }
    }
    out
}

/// Damage of every kind a disk or a death leaves: bytes changed, the end
/// cut off, a piece dropped.
fn damage(rng: &mut Rng, b: &mut Vec<u8>) {
    for _ in 0..rng.below(3) {
        match (rng.below(4), b.len()) {
            (_, 0) => {}
            (0, n) => b.truncate(rng.below(n as u64) as usize),
            (1, n) => {
                let at = rng.below(n as u64) as usize;
                b.drain(at..(at + 1 + rng.below(8) as usize).min(n));
            }
            (2, n) => b[rng.below(n as u64) as usize] = 0xFF,
            (_, n) => b[rng.below(n as u64) as usize] = rng.next() as u8,
        }
    }
}

/// A version 2 chunk read both ways: the walk's records and damage, and
/// the widened bytes.
fn same_as_reference(b: &[u8]) {
    let mut old_wide = Vec::new();
    let old_damage = old_widen(b, 1, &mut old_wide).err();
    let mut old = Vec::new();
    assert_eq!(old_walk(1, &old_wide, &mut old), Ok(()), "the widened records read whole: {b:02x?}");

    let mut new = Vec::new();
    let mut new_damage = None;
    let (mut d, mut v) = (Decoder::new(b, 1), View::default());
    while let Some(r) = d.next(&mut v) {
        match r {
            Ok(_) if v.header.flags & FLAG_MOVED == 0 => new.push(old_form(&v)),
            Ok(_) => {}
            Err(e) => new_damage = Some(e),
        }
    }
    assert_eq!(new, old, "the records of {b:02x?}");
    assert_eq!(new_damage, old_damage, "the damage of {b:02x?}");

    let mut new_wide = Vec::new();
    let r = compact::widen(b, 1, &mut new_wide).err();
    assert_eq!(r, old_damage);
    assert_eq!(new_wide, old_wide, "widened {b:02x?}");
}

#[test]
fn compact_chunks_read_as_the_reference_reads_them() {
    let mut rng = Rng(0x5EED_0018);
    for round in 0..3000 {
        let n = 1 + rng.below(12) as usize;
        let mut b = compact_chunk(&mut rng, n);
        if round % 4 != 0 {
            damage(&mut rng, &mut b);
        }
        same_as_reference(&b);
    }
}

#[test]
fn any_bytes_read_as_the_reference_reads_them() {
    let mut rng = Rng(0xB17E5);
    for _ in 0..20_000 {
        let n = rng.below(80) as usize;
        let b: Vec<u8> = (0..n)
            .map(|_| match rng.below(6) {
                0 => 0xFF,
                1 => 0,
                2 => STATE_WIDE,
                _ => rng.next() as u8,
            })
            .collect();
        same_as_reference(&b);
    }
}

#[test]
fn wide_chunks_read_as_the_reference_reads_them() {
    let mut rng = Rng(0x0001_0001);
    for round in 0..3000 {
        let mut t = 0;
        let n = 1 + rng.below(10);
        let mut b: Vec<u8> = (0..n).flat_map(|_| record(&mut rng, 1, &mut t)).collect();
        if round % 4 != 0 {
            damage(&mut rng, &mut b);
        }
        let mut old = Vec::new();
        let old_r = old_walk(1, &b, &mut old);
        let mut new = Vec::new();
        let new_r = super::walk_wide(1, &b, false, |v| new.push(old_form(v))).map(|_| ());
        assert_eq!(new, old, "the records of {b:02x?}");
        assert_eq!(new_r, old_r, "the damage of {b:02x?}");
    }
}
