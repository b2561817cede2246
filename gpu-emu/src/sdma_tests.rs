//! The SDMA engine on packets laid out as ROCr 5.2.3's `BlitSdma` writes them.

use super::*;

fn lo(p: usize) -> u32 {
    p as u32
}

fn hi(p: usize) -> u32 {
    (p as u64 >> 32) as u32
}

fn run_one(pkt: &[u32]) -> Result<(usize, Done), Unknown> {
    // SAFETY: the packet is whole and names only this test's live buffers.
    unsafe { execute(pkt.as_ptr(), &AtomicBool::new(false)) }
}

#[test]
fn linear_copy_moves_count_plus_one_bytes() {
    let src: Vec<u8> = (0..200u32).map(|i| (i * 7) as u8).collect();
    let mut dst = vec![0u8; 200];
    let (s, d) = (src.as_ptr() as usize, dst.as_mut_ptr() as usize);
    let pkt = [OP_COPY | SUB_COPY_LINEAR << 8, 150 - 1, 0, lo(s), hi(s), lo(d), hi(d)];
    assert_eq!(run_one(&pkt), Ok((7, Done::Copy { bytes: 150 })));
    assert_eq!(dst[..150], src[..150]);
    assert!(dst[150..].iter().all(|&b| b == 0), "nothing past the count");
}

/// The rectangle of `programs copy rect` (tests/hsa/programs.c): 100 bytes of 20 rows of 3 slices
/// from (7, 5, 1) of a source with rows of 256 bytes and slices of 64 KiB, to (0, 0, 0) of a
/// destination with rows of 128 and slices of 4 KiB. ROCr folds y and z into the base and passes
/// the base's misalignment as the x offset in elements (bytes here).
#[test]
fn rect_copy_copies_each_row_of_each_slice() {
    let src: Vec<u8> = (0..4 << 16).map(|i: u32| (i * 13 + 5) as u8).collect();
    let mut dst = vec![0u8; 4 * 4096];
    let sbase = src.as_ptr() as usize + 7 + 5 * 256 + (1 << 16);
    let dbase = dst.as_mut_ptr() as usize;
    let (s, d) = (sbase & !3, dbase & !3);
    let pkt = [
        OP_COPY | SUB_COPY_RECT << 8,
        lo(s),
        hi(s),
        (sbase % 4) as u32,
        (256 - 1) << 13,
        (1 << 16) - 1,
        lo(d),
        hi(d),
        (dbase % 4) as u32,
        (128 - 1) << 13,
        4096 - 1,
        (100 - 1) | (20 - 1) << 16,
        3 - 1,
    ];
    assert_eq!(run_one(&pkt), Ok((13, Done::Rect { x_bytes: 100, y: 20, z: 3 })));
    for z in 0..3 {
        for y in 0..20 {
            let from = (1 + z) * (1 << 16) + (5 + y) * 256 + 7;
            assert_eq!(dst[z * 4096 + y * 128..][..100], src[from..from + 100], "row {y} of slice {z}");
            assert!(dst[z * 4096 + y * 128 + 100..][..28].iter().all(|&b| b == 0), "the pitch's gap");
        }
    }
}

#[test]
fn rect_copy_in_dwords_counts_pitches_in_elements() {
    let src: Vec<u32> = (0..64).collect();
    let mut dst = vec![0u32; 32];
    let (s, d) = (src.as_ptr() as usize, dst.as_mut_ptr() as usize);
    // Element 2 (4 bytes): 3 dwords of 4 rows, source rows of 8 dwords from x 1, destination of 4.
    let pkt = [
        OP_COPY | SUB_COPY_RECT << 8 | 2 << 29,
        lo(s),
        hi(s),
        1,
        (8 - 1) << 13,
        0,
        lo(d),
        hi(d),
        0,
        (4 - 1) << 13,
        0,
        2 | 3 << 16,
        0,
    ];
    assert_eq!(run_one(&pkt), Ok((13, Done::Rect { x_bytes: 12, y: 4, z: 1 })));
    for y in 0..4 {
        assert_eq!(dst[y * 4..y * 4 + 3], src[y * 8 + 1..y * 8 + 4]);
    }
}

#[test]
fn constant_fill_writes_dwords() {
    let mut buf = vec![0u32; 10];
    let p = buf.as_mut_ptr() as usize;
    // ROCr: count = (dwords - 1) * 4, fillsize 2 (dwords).
    let pkt = [OP_CONST_FILL | 2 << 30, lo(p), hi(p), 0x5a5a_5a5a, (8 - 1) * 4];
    assert_eq!(run_one(&pkt), Ok((5, Done::Fill { dwords: 8 })));
    assert!(buf[..8].iter().all(|&v| v == 0x5a5a_5a5a) && buf[8..] == [0, 0]);
}

#[test]
fn fence_atomic_and_timestamp_write_their_words() {
    let mut mailbox = 0u32;
    let m = &mut mailbox as *mut u32 as usize;
    assert_eq!(run_one(&[OP_FENCE, lo(m), hi(m), 77]), Ok((4, Done::Fence)));
    assert_eq!(mailbox, 77);

    let mut value: i64 = 3;
    let v = &mut value as *mut i64 as usize;
    // ROCr's decrement: add 0xffffffff_ffffffff.
    let atomic = [OP_ATOMIC | ATOMIC_ADD64 << 25, lo(v), hi(v), u32::MAX, u32::MAX, 0, 0, 0];
    assert_eq!(run_one(&atomic), Ok((8, Done::Atomic)));
    assert_eq!(value, 2);

    let mut ts = [0u64; 2];
    for slot in &mut ts {
        let t = slot as *mut u64 as usize;
        assert_eq!(run_one(&[OP_TIMESTAMP | SUB_TIMESTAMP_GLOBAL << 8, lo(t), hi(t)]), Ok((3, Done::Timestamp)));
    }
    assert!(ts[0] > 0 && ts[1] > ts[0], "the GPU counter, strictly increasing: {ts:?}");
}

#[test]
fn polls_traps_padding_and_unknown_packets() {
    let word = 0u32;
    let w = &word as *const u32 as usize;
    // Memory poll for equality (mem_poll bit 31, func 3 at bit 28): already equal.
    let poll = [OP_POLL_REGMEM | 3 << 28 | 1 << 31, lo(w), hi(w), 0, u32::MAX, 0x0fff_0004];
    assert_eq!(run_one(&poll), Ok((6, Done::Poll)));
    // Never equal: only the engine's stop ends the wait.
    let never = [OP_POLL_REGMEM | 3 << 28 | 1 << 31, lo(w), hi(w), 1, u32::MAX, 0x0fff_0004];
    // SAFETY: as in run_one.
    assert_eq!(unsafe { execute(never.as_ptr(), &AtomicBool::new(true)) }, Ok((6, Done::Poll)));
    // The HDP flush: a register poll, skipped.
    assert_eq!(run_one(&[OP_POLL_REGMEM | 1 << 26, 0, 0, 0, 0, 0]), Ok((6, Done::RegisterPoll)));
    assert_eq!(run_one(&[OP_TRAP, 0x1234]), Ok((2, Done::Trap { event: 0x1234 })));
    assert_eq!(run_one(&[0]), Ok((1, Done::Nop)));
    assert_eq!(run_one(&[17 | 1 << 8]), Err(Unknown { op: 17, sub_op: 1 }));
}

#[test]
fn a_queue_runs_what_is_written_up_to_its_write_pointer() {
    let mut ring = vec![0u32; 1024];
    let mut fence = 0u32;
    let f = &mut fence as *mut u32 as usize;
    let q = start(9000, ring.as_mut_ptr() as usize, 4096);
    // Padding, then a fence: 5 dwords.
    ring[1..5].copy_from_slice(&[OP_FENCE, lo(f), hi(f), 5]);
    q.wptr.store(20, Ordering::Release);
    while q.rptr.load(Ordering::Acquire) < 20 {
        std::thread::yield_now();
    }
    // SAFETY: the engine has moved past the fence.
    assert_eq!(unsafe { (f as *const u32).read_volatile() }, 5);
    assert!(stop(9000) && !stop(9000), "stopped once");
}
