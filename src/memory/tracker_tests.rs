//! The tracker over hand-made records of real functions (records as the
//! layer writes them, not a driver): the attribution of a multi-device
//! context, sub-buffers, failed calls, the reference rule.

use super::*;
use crate::config::memory::Memory;
use cltap_formats::cltrace::record::{encode, records, Capture, Header, Tag, FLAG_DONE, FLAG_OK};

const CONTEXT: u64 = 0xc0;
const DEV_A: u64 = 0xd1;
const DEV_B: u64 = 0xd2;

fn clock() -> HostClock {
    HostClock { tsc0: 0, mono0: 0, ticks_per_us: 1000.0 }
}

/// A returned OpenCL call of `name` with argument words `args`, result
/// `ret`, and an input array capture for `array` (parameter, words),
/// returning at `t1`.
fn call_at(t: &mut Tracker, t1: u64, name: &str, args: &[u64], ret: u64, array: Option<(u8, &[u64])>) {
    let fn_id = meta::by_name(name).unwrap() as u16;
    let h = Header { kind: KIND_OPENCL_CALL, fn_id, flags: FLAG_DONE | FLAG_OK, t1, ret, ..Default::default() };
    let bytes: Vec<u8> = array.map(|(_, w)| w.iter().flat_map(|x| x.to_ne_bytes()).collect()).unwrap_or_default();
    let caps: Vec<(Capture, &[u8])> = array
        .map(|(p, w)| {
            (Capture { param: p, tag: Tag::Array as u8, _pad: 0, bytes: 0, total: w.len() as u64 }, &bytes[..])
        })
        .into_iter()
        .collect();
    let b = encode(&h, args, &caps);
    t.record(&records(&b).next().unwrap());
}

/// [`call_at`], all at one time: the calls are taken in render order.
fn call(t: &mut Tracker, name: &str, args: &[u64], ret: u64, array: Option<(u8, &[u64])>) {
    call_at(t, 1000, name, args, ret, array)
}

fn tracker() -> Tracker {
    let mut t = Tracker::new(Memory { trace: true, leaks: true }, clock());
    // clCreateContext(properties, num_devices, devices, notify, user_data, errcode_ret)
    call(&mut t, "clCreateContext", &[0, 2, 0x7000, 0, 0, 0], CONTEXT, Some((2, &[DEV_A, DEV_B])));
    t
}

#[test]
fn a_multi_device_contexts_buffer_counts_against_each_of_its_devices() {
    let mut t = tracker();
    // clCreateBuffer(context, flags, size, host_ptr, errcode_ret)
    call(&mut t, "clCreateBuffer", &[CONTEXT, 1, 4096, 0, 0], 0xb1, None);
    call(&mut t, "clReleaseMemObject", &[0xb1], 0, None);
    let r = t.report();
    let devices = vec!["device 0xd1".to_string(), "device 0xd2".to_string()];
    assert_eq!(r.rows.len(), 2);
    assert!(r.rows.iter().all(|row| row.devices == devices));
    assert_eq!(r.peaks, vec![(devices[0].clone(), 4096), (devices[1].clone(), 4096)]);
    // The context was never released.
    assert_eq!(r.leaks.iter().map(|l| (l.ty.as_str(), l.record)).collect::<Vec<_>>(), [("cl_context", 0)]);
}

#[test]
fn memory_is_freed_when_the_applications_references_reach_zero() {
    let mut t = tracker();
    call(&mut t, "clCreateBuffer", &[CONTEXT, 1, 100, 0, 0], 0xb1, None);
    call(&mut t, "clRetainMemObject", &[0xb1], 0, None);
    call(&mut t, "clReleaseMemObject", &[0xb1], 0, None);
    // A failed release counts nothing; a release of a handle never seen is ignored.
    let fn_id = meta::by_name("clReleaseMemObject").unwrap() as u16;
    let h =
        Header { kind: KIND_OPENCL_CALL, fn_id, flags: FLAG_DONE, ret: (-38i32) as u32 as u64, ..Default::default() };
    let b = encode(&h, &[0xb1], &[]);
    t.record(&records(&b).next().unwrap());
    call(&mut t, "clReleaseMemObject", &[0xdead], 0, None);
    call(&mut t, "clReleaseMemObject", &[0xb1], 0, None);
    let r = t.report();
    let rows: Vec<_> = r.rows.iter().map(|x| (x.op, x.record, x.alloc_record)).collect();
    assert_eq!(rows, [(Op::Alloc, 1, 1), (Op::Free, 6, 1)]);
}

#[test]
fn a_release_rendered_before_the_create_it_follows_still_frees() {
    // Thread B's chunk (the release, at t1 = 3000) is rendered before
    // thread A's (the buffer made at t1 = 2000).
    let mut t = tracker();
    call_at(&mut t, 3000, "clReleaseMemObject", &[0xb1], 0, None);
    call_at(&mut t, 2000, "clCreateBuffer", &[CONTEXT, 1, 64, 0, 0], 0xb1, None);
    let r = t.report();
    let rows: Vec<_> = r.rows.iter().map(|x| (x.op, x.record, x.alloc_record)).collect();
    assert_eq!(rows, [(Op::Alloc, 2, 2), (Op::Free, 1, 2)]);
    assert!(r.leaks.iter().all(|l| l.ty != "cl_mem"), "{:?}", r.leaks);
}

#[test]
fn a_sub_buffer_holds_no_bytes_of_its_own_and_a_failed_create_allocates_nothing() {
    let mut t = tracker();
    call(&mut t, "clCreateBuffer", &[CONTEXT, 1, 1024, 0, 0], 0xb1, None);
    // clCreateSubBuffer(buffer, flags, type, info, errcode_ret)
    call(&mut t, "clCreateSubBuffer", &[0xb1, 1, 0x1220, 0x7100, 0], 0xb2, None);
    call(&mut t, "clCreateBuffer", &[CONTEXT, 1, 0, 0, 0], 0, None);
    let r = t.report();
    assert_eq!(r.rows.len(), 2);
    assert_eq!((r.rows[1].kind.as_str(), r.rows[1].bytes), ("sub-buffer", 0));
    assert_eq!(r.rows[1].devices, r.rows[0].devices);
    assert_eq!(r.rows[1].owner, "buffer 0xb1");
    assert_eq!(r.peaks[0].1, 1024);
}
