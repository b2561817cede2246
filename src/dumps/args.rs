//! What each kernel's arguments are, as the application last set them, and
//! which words are memory objects: a table per kernel updated at
//! `clSetKernelArg` and read at the enqueue, and the memory objects by
//! handle with their number (in the order the process made them). Only the
//! calls of a process with a dump control on reach it (a lock is fine there).
//! Handles are the driver's.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Mutex;

/// One argument as set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Set {
    /// `clSetKernelArg` with a value: its bytes.
    Value(Vec<u8>),
    /// `clSetKernelArg` with NULL: local memory of this size.
    Local(usize),
    /// `clSetKernelArgSVMPointer` (or a USM pointer).
    Svm(u64),
}

/// One argument at an enqueue, classified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    /// A memory object: the driver's handle and cltap's number for it.
    Mem {
        handle: u64,
        number: u64,
    },
    /// A scalar or struct passed by value.
    Scalar(Vec<u8>),
    /// A sampler: the driver's handle.
    Sampler(u64),
    Local(usize),
    /// An SVM or USM pointer, with the bytes from it to its allocation's
    /// end where cltap saw the allocation made (`usm`: by an Intel USM call).
    Svm {
        ptr: u64,
        len: Option<usize>,
        usm: bool,
    },
    /// Never set.
    Unset,
}

struct Tables {
    kernels: HashMap<u64, Vec<Option<Set>>>,
    mems: HashMap<u64, u64>,
    next_mem: u64,
    /// SVM and USM allocations by base: (size, made by a USM call).
    svm: BTreeMap<u64, (u64, bool)>,
    samplers: HashSet<u64>,
}

static TABLES: Mutex<Option<Tables>> = Mutex::new(None);

/// The prepare handler's part ([`crate::fork`]).
pub(crate) fn hold_for_fork() {
    crate::fork::kept::keep(TABLES.lock().unwrap_or_else(|e| e.into_inner()));
}

fn with<R>(f: impl FnOnce(&mut Tables) -> R) -> R {
    let mut g = TABLES.lock().unwrap_or_else(|e| e.into_inner());
    let t = g.get_or_insert_with(|| Tables {
        kernels: HashMap::new(),
        mems: HashMap::new(),
        next_mem: 1,
        svm: BTreeMap::new(),
        samplers: HashSet::new(),
    });
    f(t)
}

/// A successful `clSetKernelArg*`.
pub fn set(kernel: u64, index: u32, arg: Set) {
    with(|t| {
        let v = t.kernels.entry(kernel).or_default();
        let i = index as usize;
        if v.len() <= i {
            v.resize(i + 1, None);
        }
        v[i] = Some(arg);
    })
}

/// A kernel made (a handle the driver reused starts with no arguments),
/// or cloned from `from` (it has that kernel's arguments).
pub fn kernel_made(kernel: u64, from: Option<u64>) {
    with(|t| {
        let args = from.and_then(|f| t.kernels.get(&f).cloned()).unwrap_or_default();
        t.kernels.insert(kernel, args);
    })
}

/// A memory object made: numbered.
pub fn mem_made(handle: u64) {
    with(|t| {
        let n = t.next_mem;
        t.next_mem += 1;
        t.mems.insert(handle, n);
    })
}

/// A memory object's last reference released: its handle is no longer one.
pub fn mem_gone(handle: u64) {
    with(|t| {
        t.mems.remove(&handle);
    })
}

/// An SVM or USM allocation made: an allocation it overlaps was freed
/// where cltap did not see it (`clEnqueueSVMFree`), and is forgotten.
pub fn svm_made(base: u64, size: u64, usm: bool) {
    with(|t| {
        let end = base.saturating_add(size);
        let stale: Vec<u64> =
            t.svm.range(..end).rev().take_while(|(b, (s, _))| b.saturating_add(*s) > base).map(|(b, _)| *b).collect();
        for b in stale {
            t.svm.remove(&b);
        }
        t.svm.insert(base, (size, usm));
    })
}

/// An SVM or USM allocation freed.
pub fn svm_gone(base: u64) {
    with(|t| {
        t.svm.remove(&base);
    })
}

/// A sampler made.
pub fn sampler_made(handle: u64) {
    with(|t| {
        t.samplers.insert(handle);
    })
}

/// A sampler's last reference released: its handle is no longer one.
pub fn sampler_gone(handle: u64) {
    with(|t| {
        t.samplers.remove(&handle);
    })
}

/// Whether `handle` is a sampler cltap saw made and not released.
pub fn is_sampler(handle: u64) -> bool {
    with(|t| t.samplers.contains(&handle))
}

/// Whether `handle` is a memory object cltap saw made.
pub fn is_mem(handle: u64) -> bool {
    with(|t| t.mems.contains_key(&handle))
}

/// The kernel's arguments now, `n` of them (`n` from the driver, or as
/// many as were set).
pub fn at_enqueue(kernel: u64, n: Option<usize>) -> Vec<Arg> {
    with(|t| {
        let set = t.kernels.get(&kernel).cloned().unwrap_or_default();
        let n = n.unwrap_or(set.len());
        (0..n)
            .map(|i| match set.get(i).cloned().flatten() {
                None => Arg::Unset,
                Some(Set::Local(s)) => Arg::Local(s),
                Some(Set::Svm(p)) => {
                    let a = t.svm.range(..=p).next_back().filter(|(b, (s, _))| p < b.saturating_add(*s));
                    let len = a.map(|(b, (s, _))| (b + s - p) as usize);
                    Arg::Svm { ptr: p, len, usm: a.is_some_and(|(_, (_, u))| *u) }
                }
                Some(Set::Value(b)) => {
                    let w = (b.len() == 8).then(|| u64::from_ne_bytes(b[..8].try_into().unwrap()));
                    match w.and_then(|w| t.mems.get(&w).map(|n| (w, *n))) {
                        Some((handle, number)) => Arg::Mem { handle, number },
                        None => match w.filter(|w| t.samplers.contains(w)) {
                            Some(h) => Arg::Sampler(h),
                            None => Arg::Scalar(b),
                        },
                    }
                }
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_that_are_memory_objects_are_classified() {
        mem_made(0x1000);
        let k = 0xfeed_0001;
        kernel_made(k, None);
        set(k, 0, Set::Value(0x1000u64.to_ne_bytes().to_vec()));
        set(k, 2, Set::Value(7u32.to_ne_bytes().to_vec()));
        set(k, 3, Set::Local(64));
        let a = at_enqueue(k, Some(5));
        assert!(matches!(a[0], Arg::Mem { handle: 0x1000, .. }));
        assert_eq!(a[1], Arg::Unset);
        assert_eq!(a[2], Arg::Scalar(7u32.to_ne_bytes().to_vec()));
        assert_eq!(a[3], Arg::Local(64));
        assert_eq!(a[4], Arg::Unset);
        let c = 0xfeed_0002;
        kernel_made(c, Some(k));
        assert_eq!(at_enqueue(c, None).len(), 4);
        mem_gone(0x1000);
        assert!(matches!(at_enqueue(k, None)[0], Arg::Scalar(_)));
        kernel_made(k, None);
        assert!(at_enqueue(k, None).is_empty());
    }

    #[test]
    fn pointers_reach_to_their_allocations_end() {
        let k = 0xfeed_0003;
        kernel_made(k, None);
        svm_made(0x10_0000, 0x400, false);
        svm_made(0x20_0000, 0x100, true);
        sampler_made(0x3000);
        set(k, 0, Set::Svm(0x10_0040));
        set(k, 1, Set::Svm(0x20_0000));
        set(k, 2, Set::Svm(0x10_0400));
        set(k, 3, Set::Value(0x3000u64.to_ne_bytes().to_vec()));
        let a = at_enqueue(k, None);
        assert_eq!(a[0], Arg::Svm { ptr: 0x10_0040, len: Some(0x3c0), usm: false });
        assert_eq!(a[1], Arg::Svm { ptr: 0x20_0000, len: Some(0x100), usm: true });
        assert_eq!(a[2], Arg::Svm { ptr: 0x10_0400, len: None, usm: false }, "one past the end");
        assert_eq!(a[3], Arg::Sampler(0x3000));
        // A new allocation over a freed one cltap did not see freed.
        svm_made(0x10_0200, 0x10, false);
        assert_eq!(at_enqueue(k, None)[0], Arg::Svm { ptr: 0x10_0040, len: None, usm: false });
        svm_gone(0x20_0000);
        assert_eq!(at_enqueue(k, None)[1], Arg::Svm { ptr: 0x20_0000, len: None, usm: false });
    }

    #[test]
    fn a_released_samplers_handle_is_a_value_again() {
        let k = 0xfeed_0004;
        kernel_made(k, None);
        sampler_made(0x5000);
        set(k, 0, Set::Value(0x5000u64.to_ne_bytes().to_vec()));
        assert!(is_sampler(0x5000));
        assert_eq!(at_enqueue(k, None)[0], Arg::Sampler(0x5000));
        sampler_gone(0x5000);
        assert!(!is_sampler(0x5000));
        assert_eq!(at_enqueue(k, None)[0], Arg::Scalar(0x5000u64.to_ne_bytes().to_vec()));
    }
}
