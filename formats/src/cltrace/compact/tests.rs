//! The encoder's fast paths against the plain forms they replaced: the
//! same bytes, or the trace format has changed.

use super::*;

/// `put_opened` as it was, a varint at a time, as the oracle.
///
/// # Safety
/// As for [`put_opened`].
unsafe fn put_opened_plain(
    p: *mut u8,
    state: u8,
    fn_id: u16,
    t0: u64,
    cmd: u64,
    args: &[u64],
    prev: &mut Prev,
) -> usize {
    // SAFETY: each write is inside the `3 + (3 + args.len()) * VARINT_MAX` bytes `p` holds (# Safety).
    let mut n = unsafe {
        *p = state;
        1 + put_raw_loop(p.add(1), fn_id as u64)
    };
    // SAFETY: as above: the count byte, then the time's varint.
    unsafe {
        *p.add(n) = args.len() as u8;
        n += 1;
        n += put_raw_loop(p.add(n), zigzag(t0.wrapping_sub(prev.t0) as i64));
    }
    prev.t0 = t0;
    if state & (FLAG_CMD | STATE_HSA) != 0 {
        // SAFETY: as above.
        n += unsafe { put_raw_loop(p.add(n), cmd) };
    }
    for (i, &a) in args.iter().enumerate() {
        n += match prev.args.get_mut(i) {
            Some(b) => {
                let d = a.wrapping_sub(*b) as i64;
                *b = a;
                // SAFETY: as above.
                unsafe { put_raw_loop(p.add(n), zigzag(d)) }
            }
            // SAFETY: as above.
            None => unsafe { put_raw_loop(p.add(n), a) },
        };
    }
    n
}

/// A small deterministic generator (xorshift), so a failure repeats.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Values of every length: a random number of random low bits.
    fn value(&mut self) -> u64 {
        let bits = self.next() % 65;
        if bits == 64 {
            self.next()
        } else {
            self.next() & ((1u64 << bits) - 1)
        }
    }
}

/// Every boundary of a varint's length, and its neighbours.
fn edges() -> Vec<u64> {
    let mut v = vec![0, 1, u64::MAX, u64::MAX - 1, 1 << 63, (1 << 63) - 1];
    for k in 1..=9u32 {
        let b = 1u64 << (7 * k);
        v.extend([b - 2, b - 1, b, b + 1, b | 0x7F, b | 0x80]);
    }
    v.extend([127, 128, (1 << 56) - 1, 1 << 56]);
    v
}

fn encode(f: unsafe fn(*mut u8, u64) -> usize, v: u64) -> ([u8; 16], usize) {
    let mut buf = [0xA5u8; 16];
    // SAFETY: 16 bytes, more than VARINT_MAX.
    let n = unsafe { f(buf.as_mut_ptr(), v) };
    (buf, n)
}

#[test]
fn put_raw_writes_the_bytes_of_the_plain_loop_and_no_more() {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let values = edges().into_iter().chain((0..200_000).map(|_| r.value()));
    for v in values {
        let (fast, n) = encode(put_raw, v);
        let (plain, m) = encode(put_raw_loop, v);
        assert_eq!((n, &fast[..]), (m, &plain[..]), "value {v:#x}");
        assert!(fast[n..].iter().all(|&b| b == 0xA5), "value {v:#x}: a byte past the varint changed");
    }
}

#[test]
fn every_value_up_to_three_bytes_encodes_as_the_plain_loop() {
    for v in 0..1u64 << 21 {
        let (fast, n) = encode(put_raw, v);
        let (plain, m) = encode(put_raw_loop, v);
        assert_eq!((n, &fast[..]), (m, &plain[..]), "value {v:#x}");
    }
}

#[test]
fn put_opened_writes_the_bytes_of_the_plain_form() {
    let mut r = Rng(0x2545_F491_4F6C_DD1D);
    let (mut prev_a, mut prev_b) = (Prev::default(), Prev::default());
    let edge = edges();
    let mut args: Vec<u64> = Vec::new();
    for round in 0..100_000u64 {
        let nargs = (r.next() % 22) as usize;
        // Repeat the last call's words now and then, nudge them, or take
        // new ones, so that every path (all deltas small or not) is taken.
        let mode = r.next() % 4;
        args.resize(nargs, 0);
        for (i, a) in args.iter_mut().enumerate() {
            *a = match mode {
                0 => *a,
                1 => a.wrapping_add((r.next() % 129).wrapping_sub(64)),
                2 => edge[(r.next() as usize + i) % edge.len()],
                _ => r.value(),
            };
        }
        let state = [0, FLAG_CMD, STATE_HSA, FLAG_CMD | STATE_HSA][(round % 4) as usize];
        let fn_id = (r.next() % 700) as u16;
        let t0 = if round % 7 == 0 { r.next() } else { prev_a.t0.wrapping_add(r.value() >> (r.next() % 64)) };
        let cmd = r.value();
        let mut a = vec![0xA5u8; 3 + (3 + args.len()) * VARINT_MAX + 8];
        let mut b = a.clone();
        // SAFETY: each buffer has the room `put_opened` asks for.
        let (n, m) = unsafe {
            (
                put_opened(a.as_mut_ptr(), state, fn_id, t0, cmd, &args, &mut prev_a),
                put_opened_plain(b.as_mut_ptr(), state, fn_id, t0, cmd, &args, &mut prev_b),
            )
        };
        assert_eq!((n, &a), (m, &b), "round {round}: {args:x?}");
        assert!(n <= OPENED_MAX, "round {round}: {n} bytes");
        assert_eq!(prev_a, prev_b, "round {round}");
    }
}

#[test]
fn the_longest_opened_part_is_within_opened_max() {
    let args = [u64::MAX / 2 + 1; 255];
    let mut prev = Prev::default();
    let mut buf = vec![0u8; OPENED_MAX + 16];
    // SAFETY: the buffer has the room `put_opened` asks for.
    let n = unsafe { put_opened(buf.as_mut_ptr(), FLAG_CMD, u16::MAX, 1 << 63, u64::MAX, &args, &mut prev) };
    assert!(n <= OPENED_MAX, "{n} bytes");
}

#[test]
fn capture_heads_and_words_encode_as_before() {
    let edge = edges();
    for &bytes in &edge {
        for &total in &[bytes, 0, 1, 127, 128, u64::MAX] {
            let mut a = [0u8; 32];
            let mut b = [0u8; 32];
            // SAFETY: 32 bytes, more than 2 + 2 * VARINT_MAX.
            let (n, m) = unsafe {
                let n = put_capture_head(a.as_mut_ptr(), 2, 3, bytes, total);
                let same = if bytes == total { CAP_SAME } else { 0 };
                b[0] = 2 | same;
                b[1] = 3;
                let mut m = 2 + put_raw_loop(b.as_mut_ptr().add(2), bytes);
                if same == 0 {
                    m += put_raw_loop(b.as_mut_ptr().add(m), total);
                }
                (n, m)
            };
            assert_eq!((n, a), (m, b), "bytes {bytes:#x} total {total:#x}");
        }
        let mut a = [0u8; 16];
        let mut b = [0u8; 16];
        // SAFETY: 16 bytes, more than 2 + VARINT_MAX.
        let (n, m) = unsafe {
            b[0] = 4 | CAP_WORD;
            b[1] = 9;
            (put_capture_word(a.as_mut_ptr(), 4, 9, bytes), 2 + put_raw_loop(b.as_mut_ptr().add(2), bytes))
        };
        assert_eq!((n, a), (m, b), "word {bytes:#x}");
    }
}
