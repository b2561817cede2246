//! Extension functions are called through pointers the application got from
//! `clGetExtensionFunctionAddress*`, not through dispatch tables. cltap hands
//! out its own wrapper and keeps, per driver, the driver's pointer for each
//! known extension function. A driver is recognised by the dispatch table its
//! objects carry (their first field), so a wrapper finds the right pointer
//! from its first handle argument with a few loads and no lock.

use std::ffi::c_void;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

pub const MAX_DRIVERS: usize = 16;
pub const MAX_EXTS: usize = 256;

struct Driver {
    key: AtomicPtr<c_void>,
    fns: [AtomicPtr<c_void>; MAX_EXTS],
}

pub struct ExtTable {
    drivers: [Driver; MAX_DRIVERS],
    used: AtomicUsize,
    /// Pointer last seen per function, for handles that carry no known table
    /// (e.g. extension objects that are not ICD objects).
    fallback: [AtomicPtr<c_void>; MAX_EXTS],
    lock: crate::fork::lock::Mutex<()>,
}

impl ExtTable {
    pub const fn new() -> Self {
        Self {
            drivers: [const {
                Driver {
                    key: AtomicPtr::new(std::ptr::null_mut()),
                    fns: [const { AtomicPtr::new(std::ptr::null_mut()) }; MAX_EXTS],
                }
            }; MAX_DRIVERS],
            used: AtomicUsize::new(0),
            fallback: [const { AtomicPtr::new(std::ptr::null_mut()) }; MAX_EXTS],
            lock: crate::fork::lock::Mutex::new(()),
        }
    }

    /// The prepare handler's part ([`crate::fork`]): the table's lock.
    pub fn hold_for_fork(&'static self) {
        crate::fork::kept::keep(self.lock.lock());
    }

    /// Records that the driver whose objects carry `key` implements extension
    /// function `ext` at `f`. A NULL key records only the fallback.
    pub fn record(&self, key: *const c_void, ext: usize, f: *const c_void) {
        if f.is_null() || ext >= MAX_EXTS {
            return;
        }
        // A marker below one page (see `lws`) is remembered per driver only.
        if f as usize >= 4096 {
            self.fallback[ext].store(f as *mut c_void, Ordering::Release);
        }
        if key.is_null() {
            return;
        }
        let _g = self.lock.lock();
        let n = self.used.load(Ordering::Acquire);
        let slot = (0..n).find(|&i| std::ptr::eq(self.drivers[i].key.load(Ordering::Acquire), key));
        let i = match slot {
            Some(i) => i,
            None if n < MAX_DRIVERS => {
                self.drivers[n].key.store(key as *mut c_void, Ordering::Release);
                self.used.store(n + 1, Ordering::Release);
                n
            }
            None => return,
        };
        self.drivers[i].fns[ext].store(f as *mut c_void, Ordering::Release);
    }

    /// The pointer recorded for exactly this driver, without the fallback.
    pub fn lookup_exact(&self, key: *const c_void, ext: usize) -> *const c_void {
        let n = self.used.load(Ordering::Acquire);
        self.drivers[..n]
            .iter()
            .find(|d| std::ptr::eq(d.key.load(Ordering::Relaxed), key))
            .map_or(std::ptr::null(), |d| d.fns[ext].load(Ordering::Acquire))
    }

    /// The driver pointer for `ext` given the dispatch key of a handle.
    #[inline]
    pub fn lookup(&self, key: *const c_void, ext: usize) -> *const c_void {
        let n = self.used.load(Ordering::Acquire);
        for d in &self.drivers[..n] {
            if std::ptr::eq(d.key.load(Ordering::Relaxed), key) {
                let f = d.fns[ext].load(Ordering::Acquire);
                if f as usize >= 4096 {
                    return f;
                }
                break;
            }
        }
        self.fallback[ext].load(Ordering::Acquire)
    }
}

impl Default for ExtTable {
    fn default() -> Self {
        Self::new()
    }
}

/// The dispatch key of a driver handle: its first field, or NULL for NULL.
///
/// # Safety
/// `h` must be NULL or a live object whose first field is readable.
#[inline]
pub unsafe fn key_of(h: *mut c_void) -> *const c_void {
    if h.is_null() {
        std::ptr::null()
    } else {
        // SAFETY: `(h as *const *const c_void)` is valid for this access: `h` must be NULL or a live object whose
        // first field is readable (# Safety).
        unsafe { *(h as *const *const c_void) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_driver_pointers_with_fallback() {
        let t = ExtTable::new();
        let (ka, kb) = (0x100 as *const c_void, 0x200 as *const c_void);
        t.record(ka, 3, 0xA000 as *const c_void);
        t.record(kb, 3, 0xB000 as *const c_void);
        assert_eq!(t.lookup(ka, 3) as usize, 0xA000);
        assert_eq!(t.lookup(kb, 3) as usize, 0xB000);
        assert_eq!(t.lookup(0x300 as *const c_void, 3) as usize, 0xB000, "unknown driver gets the last pointer seen");
        assert!(t.lookup(ka, 4).is_null());
        t.record(ka, 5, std::ptr::dangling::<c_void>());
        assert_eq!(t.lookup_exact(ka, 5) as usize, 1, "a marker is kept for its driver");
        assert!(t.lookup(kb, 5).is_null(), "but never handed to another");
    }
}
