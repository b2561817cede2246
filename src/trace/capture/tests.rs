use super::*;
use crate::meta::{by_name, Count, FnMeta, Kind, Ret, FUNCTIONS};

#[test]
fn short_copies_copy_exactly_their_bytes() {
    let src: Vec<u8> = (1..=40).collect();
    for n in 0..=40 {
        let mut dst = [0xEEu8; 48];
        // SAFETY: both buffers hold at least `n` bytes.
        unsafe { copy_short(src.as_ptr(), dst.as_mut_ptr(), n) };
        assert_eq!(&dst[..n], &src[..n], "{n} bytes");
        assert!(dst[n..].iter().all(|&b| b == 0xEE), "{n} bytes: nothing past them");
    }
}

#[test]
fn an_ndrange_record_carries_sizes_wait_list_and_event() {
    let id = by_name("clEnqueueNDRangeKernel").unwrap();
    let global = [1024usize, 16];
    let wait = [0x1111usize, 0x2222];
    let mut ev: u64 = 0xE0E0;
    let args = [0xAAu64, 0xBB, 2, 0, global.as_ptr() as u64, 0, 2, wait.as_ptr() as u64, &mut ev as *mut u64 as u64];
    let mut scratch = vec![0u8; MAX_RECORD];
    let n = unsafe { write_record(&mut scratch, id, &FUNCTIONS[id], 7, Some(3), 10, 20, 0, &args, Some(&[64, 4])) };
    let v = records(&scratch[..n]).next().unwrap();
    assert_eq!(v.header.fn_id as usize, id);
    assert_eq!(v.header.cmd_id, 3);
    assert_eq!(v.args.as_slice(), args);
    let arr: Vec<_> = v.captures.iter().filter(|(c, _)| c.tag == Tag::Array as u8).collect();
    assert_eq!(arr.len(), 2);
    assert_eq!(arr[0].1, unsafe { std::slice::from_raw_parts(global.as_ptr() as *const u8, 16) });
    let out = v.captures.iter().find(|(c, _)| c.tag == Tag::Out as u8).unwrap();
    assert_eq!(out.0.param, 8);
    assert_eq!(u64::from_ne_bytes(out.1.try_into().unwrap()), 0xE0E0);
    assert!(v.captures.iter().any(|(c, _)| c.tag == Tag::LocalSize as u8));
}

#[test]
fn failed_calls_keep_only_errcode() {
    let id = by_name("clCreateBuffer").unwrap();
    let mut err: i32 = -61;
    let args = [1u64, 0, 0, 0, &mut err as *mut i32 as u64];
    let mut scratch = vec![0u8; MAX_RECORD];
    let n = unsafe { write_record(&mut scratch, id, &FUNCTIONS[id], 1, None, 0, 0, 0, &args, None) };
    let v = records(&scratch[..n]).next().unwrap();
    assert_eq!(v.header.flags & FLAG_OK, 0);
    assert_eq!(v.captures.len(), 1);
    assert_eq!(u64::from_ne_bytes(v.captures[0].1.try_into().unwrap()) as i64, -61);
}

#[test]
fn an_hsa_record_has_its_kind_its_out_handle_and_its_string() {
    use crate::meta::{hsa_by_name, HSA_FUNCTIONS};
    let id = hsa_by_name("hsa_queue_create").unwrap();
    let f = &HSA_FUNCTIONS[id];
    let mut q: u64 = 0x7F00_1234_5678;
    let args = [0x1111u64, 4096, 0, 0, 0, 0, 0, &mut q as *mut u64 as u64];
    let mut scratch = vec![0u8; MAX_RECORD];
    let n = unsafe {
        open_record(&mut scratch, KIND_HSA_CALL, id, f, 3, None, 1, &args);
        complete_record::<KIND_HSA_CALL>(&mut scratch, f, 2, 0, &args, None)
    };
    let v = records(&scratch[..n]).next().unwrap();
    assert_eq!((v.header.kind, v.header.fn_id as usize, v.header.flags & FLAG_CMD), (KIND_HSA_CALL, id, 0));
    assert_ne!(v.header.flags & FLAG_OK, 0);
    let out = v.captures.iter().find(|(c, _)| c.tag == Tag::Out as u8).unwrap();
    assert_eq!((out.0.param, u64::from_ne_bytes(out.1.try_into().unwrap())), (7, 0x7F00_1234_5678));
    // A failed call keeps no outputs; an iteration a callback broke off is no failure.
    drop(v);
    let n = unsafe {
        open_record(&mut scratch, KIND_HSA_CALL, id, f, 3, None, 1, &args);
        complete_record::<KIND_HSA_CALL>(&mut scratch, f, 2, 0x1001, &args, None)
    };
    let v = records(&scratch[..n]).next().unwrap();
    assert!(v.captures.is_empty());
    assert!(succeeded(f, 1) && succeeded(f, 44) && !succeeded(f, 40) && !succeeded(f, 0x1000));
    let id = hsa_by_name("hsa_executable_get_symbol_by_name").unwrap();
    let name = b"add_one.kd\0";
    let agent = 0x42u64;
    let mut sym = 0u64;
    let args = [0x9u64, name.as_ptr() as u64, &agent as *const u64 as u64, &mut sym as *mut u64 as u64];
    drop(v);
    let n = unsafe {
        open_record(&mut scratch, KIND_HSA_CALL, id, &HSA_FUNCTIONS[id], 3, None, 1, &args);
        complete_record::<KIND_HSA_CALL>(&mut scratch, &HSA_FUNCTIONS[id], 2, 0, &args, None)
    };
    let v = records(&scratch[..n]).next().unwrap();
    assert_eq!(v.string_arg(1).as_deref(), Some("add_one.kd"));
    let arr = v.captures.iter().find(|(c, _)| c.tag == Tag::Array as u8).unwrap();
    assert_eq!((arr.0.param, &*arr.1), (2, &0x42u64.to_ne_bytes()[..]));
}

#[test]
fn long_strings_keep_a_prefix_and_their_length() {
    let id = by_name("clCreateKernel").unwrap();
    let name = format!("{}\0", "k".repeat(1000));
    let mut err = 0i32;
    let args = [1u64, name.as_ptr() as u64, &mut err as *mut i32 as u64];
    let mut scratch = vec![0u8; MAX_RECORD];
    let n = unsafe { write_record(&mut scratch, id, &FUNCTIONS[id], 1, None, 0, 0, 0x1234, &args, None) };
    let v = records(&scratch[..n]).next().unwrap();
    let s = v.captures.iter().find(|(c, _)| c.tag == Tag::Str as u8).unwrap();
    assert_eq!(s.1.len(), MAX_STR);
    assert_eq!(s.0.total, 1000);
}

#[test]
fn a_failed_calls_string_is_kept_and_a_bad_pointer_is_not_read() {
    let id = by_name("clCreateKernel").unwrap();
    let mut err = -46i32;
    let errcode = &mut err as *mut i32 as u64;
    let capture = |name: u64| {
        let args = [1u64, name, errcode];
        let mut scratch = vec![0u8; MAX_RECORD];
        // A NULL handle: the call failed.
        let n = unsafe { write_record(&mut scratch, id, &FUNCTIONS[id], 1, None, 0, 0, 0, &args, None) };
        let v = records(&scratch[..n]).next().unwrap();
        assert_eq!(v.header.flags & FLAG_OK, 0);
        v.captures.iter().find(|(c, _)| c.tag == Tag::Str as u8).map(|(c, d)| (d.to_vec(), c.total))
    };
    let name = b"no_such_kernel\0";
    assert_eq!(capture(name.as_ptr() as u64), Some((b"no_such_kernel".to_vec(), 14)));
    // A long name: its prefix and its whole length, as for a call that succeeded.
    let long = format!("{}\0", "k".repeat(5000));
    assert_eq!(capture(long.as_ptr() as u64).map(|(d, t)| (d.len(), t)), Some((MAX_STR, 5000)));
    // A string that ends where its mapping does is read up to there.
    // SAFETY: a fresh private mapping of two pages; the second is made unreadable.
    unsafe {
        let page = 4096usize;
        let p = libc::mmap(
            std::ptr::null_mut(),
            2 * page,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        ) as *mut u8;
        assert_ne!(p as *mut libc::c_void, libc::MAP_FAILED);
        assert_eq!(libc::mprotect(p.add(page) as *mut libc::c_void, page, libc::PROT_NONE), 0);
        std::ptr::write_bytes(p, b'x', page);
        let (d, total) = capture(p.add(page - 10) as u64).unwrap();
        assert_eq!((d, total), (vec![b'x'; 10], 10));
        // A pointer to nothing readable: nothing captured, and no fault.
        assert_eq!(capture(p.add(page) as u64), None);
        libc::munmap(p as *mut libc::c_void, 2 * page);
    }
    assert_eq!(capture(8), None);
}

/// Arguments that make every capture of `f` as long as its kind allows:
/// each pointer at a long run of non-zero bytes (strings, property lists
/// and counts run to their limits), each count huge.
fn longest_args(f: &FnMeta, buf: &[u8], strs: &[*const u8]) -> Vec<u64> {
    let mut args = vec![0u64; f.params.len()];
    let mut counts = Vec::new();
    for (i, p) in f.params.iter().enumerate() {
        args[i] = match p.kind {
            Kind::InStrings { len } => {
                counts.push(len);
                strs.as_ptr() as u64
            }
            Kind::InArray { len, .. } | Kind::InBytes { len } => {
                counts.push(len);
                buf.as_ptr() as u64
            }
            Kind::OutArray { cap, .. } => {
                counts.push(cap);
                buf.as_ptr() as u64
            }
            Kind::Info { size, .. } => {
                counts.push(Count::Param(size));
                buf.as_ptr() as u64
            }
            Kind::InString | Kind::OutValue { .. } | Kind::OutHandle | Kind::Errcode | Kind::Properties(_) => {
                buf.as_ptr() as u64
            }
            _ => 0,
        };
    }
    for c in counts {
        if let Count::Param(j) = c {
            if matches!(f.params[j].kind, Kind::Scalar) {
                args[j] = 1 << 40;
            }
        }
    }
    args
}

#[test]
fn no_function_captures_more_than_its_worst_case() {
    use crate::meta::HSA_FUNCTIONS;
    // Non-zero bytes, then a NUL: strings end, but far past every limit.
    let mut buf = vec![0x41u8; 16384];
    buf[16376..].fill(0);
    let strs = [buf.as_ptr(); 8];
    let mut out = vec![0u8; 1 << 16];
    let mut bounded = 0;
    for (kind, table) in [(KIND_OPENCL_CALL, &FUNCTIONS[..]), (KIND_HSA_CALL, &HSA_FUNCTIONS[..])] {
        for f in table {
            let worst = captures_worst(f);
            if worst >= MAX_RECORD {
                continue;
            }
            bounded += 1;
            let args = longest_args(f, &buf, &strs);
            // A result the function counts as success, so outputs are read.
            let ret = if matches!(f.ret, Ret::Handle | Ret::Pointer) { 1 } else { 0 };
            // SAFETY: every pointer argument points into `buf` or `strs`,
            // which hold more than any capture reads.
            let n = unsafe {
                if kind == KIND_OPENCL_CALL {
                    complete_compact::<KIND_OPENCL_CALL, _>(&mut out, 0, f, 0, ret, &args, None)
                } else {
                    complete_compact::<KIND_HSA_CALL, _>(&mut out, 0, f, 0, ret, &args, None)
                }
            };
            // Less the duration, the result (a byte each) and the end mark.
            let captured = n - 3;
            assert!(captured <= worst, "{}: {captured} bytes of captures, worst case {worst}", f.name);
        }
    }
    assert!(bounded > 100, "only {bounded} functions have bounded captures");
}

/// Each function's type visits its captured parameters one by one, each
/// description a constant ([`Captured::capture`]): for every function, with
/// its longest arguments and with null pointers, after success and after
/// failure, the same bytes as the walk through its description.
#[test]
fn each_functions_type_captures_what_the_walk_through_its_description_does() {
    use super::unrolled::{described_complete, hsa_described_complete};
    use crate::meta::HSA_FUNCTIONS;
    let mut buf = vec![0x41u8; 16384];
    buf[16376..].fill(0);
    let strs = [buf.as_ptr(); 8];
    let (mut walked, mut typed) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    let mut differing = 0;
    for (hsa, table) in [(false, &FUNCTIONS[..]), (true, &HSA_FUNCTIONS[..])] {
        for f in table {
            let longest = longest_args(f, &buf, &strs);
            let nulls: Vec<u64> = longest.iter().map(|&a| if a == buf.as_ptr() as u64 { 0 } else { a }).collect();
            let success = if matches!(f.ret, Ret::Handle | Ret::Pointer) { 1 } else { 0 };
            let failure = if matches!(f.ret, Ret::Handle | Ret::Pointer) { 0 } else { 1 };
            for args in [&longest, &nulls] {
                for ret in [success, failure] {
                    walked.fill(0xEE);
                    typed.fill(0xEE);
                    // SAFETY: every pointer argument is null or points into
                    // `buf` or `strs`, which hold more than any capture reads.
                    let (n, m) = unsafe {
                        if hsa {
                            let n = complete_compact::<KIND_HSA_CALL, _>(&mut walked, 0, f, 0, ret, args, None);
                            (n, hsa_described_complete(f.id as usize, &mut typed, ret, args))
                        } else {
                            let n = complete_compact::<KIND_OPENCL_CALL, _>(&mut walked, 0, f, 0, ret, args, None);
                            (n, described_complete(f.id as usize, &mut typed, ret, args))
                        }
                    };
                    assert_eq!(walked[..n], typed[..m], "{}: the type's captures differ from the walk's", f.name);
                    differing += usize::from(n > 3);
                }
            }
        }
    }
    // Not a comparison of empty records only.
    assert!(differing > 300, "only {differing} records captured anything");
}

/// A record completed as a copy (calls made inside it follow it) is opened
/// again from its opened part: the same bytes as opening it from what the
/// call said, for every state, function and command id.
#[test]
fn reopening_an_opened_part_writes_what_opening_the_call_wrote() {
    use crate::meta::HSA_FUNCTIONS;
    use compact::{Prev, STATE_HSA};
    let words = [0u64, 1, 0x7F, 0x80, 0x3FFF, 0x4000, 1 << 21, 1 << 56, u64::MAX];
    let fns = [(0usize, &FUNCTIONS[0]), (200, &FUNCTIONS[200]), (HSA_FUNCTIONS.len() - 1, &HSA_FUNCTIONS[0])];
    for state in [0, FLAG_CMD, STATE_HSA, FLAG_CMD | STATE_HSA] {
        for &(fn_id, f) in &fns {
            for (k, &cmd) in words.iter().enumerate() {
                let t0 = words[(k + 3) % words.len()];
                let args: Vec<u64> =
                    (0..f.params.len() as u64).map(|i| words[(k + i as usize) % words.len()]).collect();
                let before = Prev { t0: 12345, args: [7; compact::DELTA_ARGS] };
                let (mut opened, mut again, mut direct) = ([0u8; 512], [0u8; 512], [0u8; 512]);
                let (mut p1, mut p2, mut p3) = (Prev::default(), before, before);
                // SAFETY: 512 bytes hold any of these opened parts.
                let (n, m) = unsafe {
                    open_compact(opened.as_mut_ptr(), state, fn_id, f, t0, cmd, &args, &mut p1);
                    (
                        reopen_compact(again.as_mut_ptr(), opened.as_ptr(), f, t0, &args, &mut p2),
                        open_compact(direct.as_mut_ptr(), state, fn_id, f, t0, cmd, &args, &mut p3),
                    )
                };
                assert_eq!((n, &again[..], p2), (m, &direct[..], p3), "state {state:#x} fn {fn_id} cmd {cmd:#x}");
            }
        }
    }
}
