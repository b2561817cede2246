//! rocprofiler v1's context pool (`rocprofiler_pool_open`, `_fetch`,
//! `_flush`, `_close`), with 5.2.3's semantics (`src/core/context_pool.h`):
//! a ring of `num_entries` entries, each a context over the pool's features
//! and a payload of `payload_bytes` (64-byte aligned) for the tool.
//!
//! - `fetch` hands out the entries in ring order; when every entry is out
//!   (fetched, its dispatch not yet delivered), it waits for the oldest to
//!   be delivered, as 5.2.3 does.
//! - An entry's context handler (its dispatch's values were written into
//!   the pool's features) marks it completed; completed entries are given
//!   to the pool's handler strictly in fetch order, each once, then reused.
//!   A completed entry waits behind an older one still counting.
//! - `flush` delivers what has completed, in order.
//! - The contexts are opened at the first `fetch` (5.2.3 does the same: a
//!   pool may be opened from `OnLoadTool`, before the runtime is up).
//!
//! Only one thread delivers at a time (a flag, never a lock held while the
//! tool's handler runs: the handler may fetch or flush itself).

use super::abi_ext::{PoolEntry, PoolHandler};
use super::error::RocpError;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock, Weak};

/// Opens one entry's context; its argument is the address to give the
/// context's handler ([`Pool::context_done`] takes it back).
pub type Opener = Box<dyn Fn(*mut c_void) -> Result<usize, RocpError> + Send + Sync>;

struct Slot {
    pool: *const Pool,
    context: AtomicUsize,
    completed: AtomicBool,
}

pub struct Pool {
    slots: Box<[Slot]>,
    /// Owns the payloads `base` points into.
    _payload: Vec<u8>,
    stride: usize,
    /// The first byte of `payload` at a 64-byte boundary.
    base: usize,
    read: AtomicU64,
    write: AtomicU64,
    delivering: AtomicBool,
    handler: Option<PoolHandler>,
    handler_arg: usize,
    opener: Opener,
    /// The contexts were opened, or why they could not be.
    opened: OnceLock<Result<(), String>>,
}

// SAFETY: the raw pointers are to the pool itself, and to the tool's
// handler argument, which v1 lets any thread use.
unsafe impl Send for Pool {}
unsafe impl Sync for Pool {}

fn aligned64(n: usize) -> usize {
    (n + 63) & !63
}

impl Pool {
    /// A pool of `entries` entries (its slots point back to it, hence the
    /// `Arc` made around it).
    pub fn new(
        entries: u32,
        payload_bytes: u32,
        handler: Option<PoolHandler>,
        handler_arg: *mut c_void,
        opener: Opener,
    ) -> Result<Arc<Pool>, RocpError> {
        if entries == 0 {
            return Err(RocpError::PoolSize);
        }
        let stride = aligned64(payload_bytes as usize).max(64);
        let mut payload = vec![0u8; stride * entries as usize + 63];
        let base = aligned64(payload.as_mut_ptr() as usize);
        Ok(Arc::new_cyclic(|me: &Weak<Pool>| {
            let slots = (0..entries)
                .map(|_| Slot { pool: me.as_ptr(), context: AtomicUsize::new(0), completed: AtomicBool::new(false) })
                .collect();
            Pool {
                slots,
                _payload: payload,
                stride,
                base,
                read: AtomicU64::new(0),
                write: AtomicU64::new(0),
                delivering: AtomicBool::new(false),
                handler,
                handler_arg: handler_arg as usize,
                opener,
                opened: OnceLock::new(),
            }
        }))
    }

    fn open_contexts(&self) -> Result<(), RocpError> {
        self.opened
            .get_or_init(|| {
                for s in self.slots.iter() {
                    let h = (self.opener)(s as *const Slot as *mut c_void).map_err(|e| e.to_string())?;
                    s.context.store(h, Ordering::Release);
                }
                Ok(())
            })
            .clone()
            .map_err(RocpError::PoolOpen)
    }

    fn entry(&self, index: u64) -> (&Slot, PoolEntry) {
        let i = (index % self.slots.len() as u64) as usize;
        let s = &self.slots[i];
        let payload = (self.base + i * self.stride) as *mut c_void;
        (s, PoolEntry { context: s.context.load(Ordering::Acquire) as *mut c_void, payload })
    }

    /// The next entry, in ring order; waits while every entry is out.
    pub fn fetch(&self) -> Result<PoolEntry, RocpError> {
        self.open_contexts()?;
        let w = self.write.fetch_add(1, Ordering::AcqRel);
        while w >= self.read.load(Ordering::Acquire) + self.slots.len() as u64 {
            self.deliver();
            std::thread::yield_now();
        }
        let (slot, entry) = self.entry(w);
        if slot.completed.load(Ordering::Acquire) {
            return Err(RocpError::PoolCorrupted);
        }
        Ok(entry)
    }

    /// Gives the pool's handler every completed entry, oldest first, up to
    /// the first one still counting.
    pub fn deliver(&self) {
        loop {
            if self.delivering.swap(true, Ordering::AcqRel) {
                return;
            }
            let mut r = self.read.load(Ordering::Acquire);
            while r < self.write.load(Ordering::Acquire) {
                let (slot, entry) = self.entry(r);
                if !slot.completed.load(Ordering::Acquire) {
                    break;
                }
                if let Some(h) = self.handler {
                    // SAFETY: the tool's handler with its own argument and an entry of this pool.
                    unsafe { h(&entry, self.handler_arg as *mut c_void) };
                }
                slot.completed.store(false, Ordering::Release);
                r += 1;
                self.read.store(r, Ordering::Release);
            }
            self.delivering.store(false, Ordering::Release);
            // One that completed while this thread was delivering found the
            // flag taken: look once more.
            let r = self.read.load(Ordering::Acquire);
            let more = r < self.write.load(Ordering::Acquire) && self.entry(r).0.completed.load(Ordering::Acquire);
            if !more {
                return;
            }
        }
    }

    /// The contexts' handles (to close them with the pool).
    pub fn contexts(&self) -> Vec<usize> {
        self.slots.iter().map(|s| s.context.load(Ordering::Acquire)).filter(|&h| h != 0).collect()
    }

    /// An entry's context handler: `arg` is what the opener was given.
    ///
    /// # Safety
    /// `arg` is a slot of a pool that is still alive.
    pub unsafe fn context_done(arg: *mut c_void) {
        // SAFETY: `(arg as *const Slot)` is valid for this access: `arg` is a slot of a pool that is still alive (#
        // Safety).
        let slot = unsafe { &*(arg as *const Slot) };
        slot.completed.store(true, Ordering::Release);
        // SAFETY: `(*slot.pool)` is valid for this access, as the caller promises (# Safety).
        unsafe { (*slot.pool).deliver() };
    }
}
