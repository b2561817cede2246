//! Layer-owned handles. In ICD mode each driver object the application sees
//! is a [`Wrapped`] whose first field is cltap's dispatch table; the loader
//! dispatches through it to cltap, which unwraps and calls the driver.
//!
//! Wrappers live in one reserved address range, so "is this one of ours?" is
//! a bounds check with no lock. A driver address always maps to the same
//! wrapper, found through a sharded map. Wrappers are never freed: a driver
//! reuses the addresses of freed objects, so the number of wrappers follows
//! the peak number of live objects, and reuse for an object of another type
//! is harmless because a wrapper holds no type.

use crate::fork::lock::Mutex;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

#[repr(C)]
pub struct Wrapped {
    /// cltap's ICD dispatch table: the loader reads this field.
    pub dispatch: *const c_void,
    /// The driver's object.
    pub real: *mut c_void,
}

const SHARDS: usize = 64;

pub struct HandleSpace {
    base: usize,
    capacity: usize,
    next: AtomicUsize,
    dispatch: AtomicPtr<c_void>,
    map: [Mutex<Option<HashMap<usize, usize>>>; SHARDS],
}

#[derive(Debug, thiserror::Error)]
pub enum HandleError {
    #[error("could not reserve {0} bytes of address space for handles")]
    Reserve(usize),
}

impl HandleSpace {
    /// Reserves room for `capacity` wrappers. Pages are committed on first
    /// touch, so a large reservation costs nothing until used.
    pub fn reserve(capacity: usize) -> Result<Self, HandleError> {
        let bytes = capacity * std::mem::size_of::<Wrapped>();
        // SAFETY: an anonymous private mapping; no file, no aliasing.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(HandleError::Reserve(bytes));
        }
        Ok(Self {
            base: p as usize,
            capacity,
            next: AtomicUsize::new(0),
            dispatch: AtomicPtr::new(std::ptr::null_mut()),
            map: [const { Mutex::new(None) }; SHARDS],
        })
    }

    /// Sets the dispatch table every new wrapper carries.
    pub fn set_dispatch(&self, table: *const c_void) {
        self.dispatch.store(table as *mut c_void, Ordering::Release);
    }

    #[inline(always)]
    pub fn is_ours(&self, p: *const c_void) -> bool {
        let a = p as usize;
        a >= self.base
            && a < self.base + self.capacity * std::mem::size_of::<Wrapped>()
            && (a - self.base).is_multiple_of(std::mem::size_of::<Wrapped>())
    }

    /// The driver object behind `p`; anything that is not a wrapper (NULL, a
    /// handle the driver made itself, garbage) is passed on unchanged so the
    /// driver answers exactly as it would without cltap.
    #[inline(always)]
    pub fn unwrap(&self, p: *mut c_void) -> *mut c_void {
        if self.is_ours(p) {
            // SAFETY: in range and aligned, so it is a wrapper we wrote.
            unsafe { (*(p as *const Wrapped)).real }
        } else {
            p
        }
    }

    /// The wrapper for driver object `real`, made on first sight. NULL stays
    /// NULL, and an address that already is a wrapper is returned as is.
    pub fn wrap(&self, real: *mut c_void) -> *mut c_void {
        if real.is_null() || self.is_ours(real) {
            return real;
        }
        let key = real as usize;
        let shard = &self.map[(key >> 4).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58];
        let mut g = shard.lock();
        let m = g.get_or_insert_with(HashMap::new);
        if let Some(&w) = m.get(&key) {
            return w as *mut c_void;
        }
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        if i >= self.capacity {
            // Out of room: hand the driver's own handle back. Later calls on
            // it bypass cltap, which is better than failing the application.
            crate::warn!("handle space exhausted ({} objects); new objects bypass cltap", self.capacity);
            return real;
        }
        let w = (self.base + i * std::mem::size_of::<Wrapped>()) as *mut Wrapped;
        // SAFETY: slot i is inside the reservation and handed out once.
        unsafe {
            w.write(Wrapped { dispatch: self.dispatch.load(Ordering::Acquire), real });
        }
        m.insert(key, w as usize);
        w as *mut c_void
    }

    /// The prepare handler's part ([`crate::fork`]): every shard's lock
    /// (a wrapper made in the parent at the fork would leave its shard
    /// held in the child).
    pub fn hold_for_fork(&'static self) {
        for m in &self.map {
            crate::fork::kept::keep(m.lock());
        }
    }

    /// Wrapper count, for diagnostics and tests.
    pub fn len(&self) -> usize {
        self.next.load(Ordering::Relaxed).min(self.capacity)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_is_stable_and_unwrap_inverts_it() {
        let hs = HandleSpace::reserve(1024).unwrap();
        hs.set_dispatch(0x1000 as *const c_void);
        let real = 0xdead_0000usize as *mut c_void;
        let w = hs.wrap(real);
        assert_ne!(w, real);
        assert!(hs.is_ours(w));
        assert_eq!(hs.wrap(real), w, "same driver object, same wrapper");
        assert_eq!(hs.unwrap(w), real);
        assert_eq!(unsafe { (*(w as *const Wrapped)).dispatch } as usize, 0x1000);
        assert_eq!(hs.wrap(w), w, "wrapping a wrapper is a no-op");
    }

    #[test]
    fn foreign_and_null_pass_through() {
        let hs = HandleSpace::reserve(16).unwrap();
        assert!(hs.wrap(std::ptr::null_mut()).is_null());
        let foreign = 0x1234_5678usize as *mut c_void;
        assert_eq!(hs.unwrap(foreign), foreign);
        assert!(!hs.is_ours((hs.base + 8) as *const c_void), "misaligned is not ours");
    }

    #[test]
    fn exhaustion_returns_the_real_handle() {
        let hs = HandleSpace::reserve(2).unwrap();
        let a = hs.wrap(0x10 as *mut c_void);
        let b = hs.wrap(0x20 as *mut c_void);
        let c = hs.wrap(0x30 as *mut c_void);
        assert!(hs.is_ours(a) && hs.is_ours(b));
        assert_eq!(c as usize, 0x30);
        assert_eq!(hs.len(), 2);
    }

    #[test]
    fn concurrent_wraps_agree() {
        let hs = std::sync::Arc::new(HandleSpace::reserve(1 << 16).unwrap());
        let ws: Vec<Vec<usize>> = (0..4)
            .map(|_| {
                let hs = hs.clone();
                std::thread::spawn(move || (1..2000usize).map(|i| hs.wrap((i << 4) as *mut c_void) as usize).collect())
            })
            .map(|t| t.join().unwrap())
            .collect();
        assert!(ws.windows(2).all(|w| w[0] == w[1]));
        assert_eq!(hs.len(), 1999);
    }
}
