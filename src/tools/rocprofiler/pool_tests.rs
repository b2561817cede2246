//! The context pool's ring without a runtime: entries handed out in ring
//! order, delivered strictly in fetch order (a completed entry waits behind
//! an older one still counting), reused after delivery, a fetch that waits
//! for a free entry, and the pool's errors.

use super::abi_ext::PoolEntry;
use super::error::RocpError;
use super::pool::Pool;
use parking_lot::Mutex;
use std::ffi::c_void;
use std::sync::Arc;

/// What the pool's handler received: each entry's payload number.
static DELIVERED: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// # Safety
/// Called by the pool with a live entry and the `arg` the test gave it.
unsafe extern "C" fn handler(e: *const PoolEntry, arg: *mut c_void) -> bool {
    assert_eq!(arg as usize, 42, "the pool's handler argument");
    // SAFETY: the pool passes a live entry whose payload is the test's `u32` (# Safety).
    DELIVERED.lock().push(unsafe { *((*e).payload as *const u32) });
    false
}

/// A pool of `n` entries whose contexts are fake handles (1, 2, …); the
/// addresses its contexts' handlers get, by entry.
fn pool(n: u32) -> (Arc<Pool>, Arc<Mutex<Vec<usize>>>) {
    let args = Arc::new(Mutex::new(Vec::new()));
    let a = args.clone();
    let opener = Box::new(move |arg: *mut c_void| -> Result<usize, RocpError> {
        let mut v = a.lock();
        v.push(arg as usize);
        Ok(v.len())
    });
    (Pool::new(n, 4, Some(handler), 42 as *mut c_void, opener).unwrap(), args)
}

fn fetch(p: &Pool, number: u32) -> PoolEntry {
    let e = p.fetch().unwrap();
    // SAFETY: the entry's payload holds 4 bytes at least.
    unsafe { *(e.payload as *mut u32) = number };
    e
}

#[test]
fn entries_are_delivered_in_fetch_order_and_reused() {
    DELIVERED.lock().clear();
    let (p, args) = pool(2);
    let (e0, e1) = (fetch(&p, 10), fetch(&p, 11));
    assert_eq!((e0.context as usize, e1.context as usize), (1, 2), "contexts opened at the first fetch, in ring order");
    assert_eq!(e0.payload as usize % 64, 0, "64-byte aligned payloads");
    assert_eq!(e1.payload as usize - e0.payload as usize, 64, "4 payload bytes take one 64-byte stride");
    let args = args.lock().clone();
    // SAFETY: the addresses the pool gave its contexts' handlers.
    unsafe { Pool::context_done(args[1] as *mut c_void) };
    assert!(DELIVERED.lock().is_empty(), "the second waits behind the first, still counting");
    unsafe { Pool::context_done(args[0] as *mut c_void) };
    assert_eq!(*DELIVERED.lock(), [10, 11]);
    let e2 = fetch(&p, 12);
    assert_eq!((e2.context, e2.payload), (e0.context, e0.payload), "the first entry, reused");
    p.deliver();
    assert_eq!(*DELIVERED.lock(), [10, 11], "a flush delivers nothing still counting");
    unsafe { Pool::context_done(args[0] as *mut c_void) };
    assert_eq!(*DELIVERED.lock(), [10, 11, 12]);
    assert_eq!(p.contexts(), [1, 2]);
}

#[test]
fn a_fetch_waits_for_an_entry_to_be_delivered() {
    let (p, args) = pool(1);
    fetch(&p, 1);
    let arg = args.lock()[0];
    let q = p.clone();
    // Every entry is out: the next fetch returns once another thread
    // completes the first (the join is the synchronisation, not a sleep).
    let waiter = std::thread::spawn(move || q.fetch().map(|e| e.context as usize));
    // SAFETY: the address the pool gave its context's handler.
    unsafe { Pool::context_done(arg as *mut c_void) };
    assert_eq!(waiter.join().unwrap().unwrap(), 1);
}

#[test]
fn the_pools_errors() {
    let opener = Box::new(|_: *mut c_void| -> Result<usize, RocpError> { Ok(1) });
    assert!(matches!(Pool::new(0, 8, None, std::ptr::null_mut(), opener), Err(RocpError::PoolSize)));
    let failing = Box::new(|_: *mut c_void| -> Result<usize, RocpError> { Err(RocpError::UnknownAgent(7)) });
    let p = Pool::new(2, 8, None, std::ptr::null_mut(), failing).unwrap();
    let e = p.fetch().unwrap_err();
    assert!(matches!(e, RocpError::PoolOpen(_)), "{e}");
    assert!(e.to_string().contains("agent 0x7"), "{e}");
    assert!(p.fetch().is_err(), "said again at every fetch");
}
