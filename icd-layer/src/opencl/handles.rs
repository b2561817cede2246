//! ICD mode's handles: the space cltap's own handles come from, and the
//! translations the generated wrappers make of arguments and answers that
//! hold handles (docs/platform-facts.md#the-dispatch-table-and-icd-handles).

use cltap::icd::handles::HandleSpace;
use cltap::icd::props::{self, Shape};
use std::ffi::c_void;
use std::sync::OnceLock;

/// Room for this many distinct driver objects (16 bytes each, reserved, not
/// committed).
const HANDLE_CAPACITY: usize = 1 << 26;

static HANDLES: OnceLock<HandleSpace> = OnceLock::new();

/// The handle space if ICD mode has started, without starting it.
pub fn if_ready() -> Option<&'static HandleSpace> {
    HANDLES.get()
}

/// The handle space, reserved on first use; its handles lead to `dispatch`
/// (cltap's ICD table).
pub fn space(dispatch: *const c_void) -> &'static HandleSpace {
    HANDLES.get_or_init(|| {
        let hs = HandleSpace::reserve(HANDLE_CAPACITY).unwrap_or_else(|e| {
            cltap::warn!("{e}; retrying with a smaller handle space");
            HandleSpace::reserve(1 << 16).expect("reserve 1 MiB of address space")
        });
        hs.set_dispatch(dispatch);
        hs
    })
}

/// A handle array translated for the driver: on the stack when small.
pub struct Unwrapped {
    small: [*mut c_void; 16],
    big: Vec<*mut c_void>,
    n: usize,
}

impl Unwrapped {
    /// # Safety
    /// `src` is NULL or holds `n` readable handles.
    #[inline]
    pub unsafe fn new(hs: &HandleSpace, src: *const *mut c_void, n: usize) -> Self {
        let mut u = Unwrapped { small: [std::ptr::null_mut(); 16], big: Vec::new(), n: 0 };
        if src.is_null() || n == 0 {
            return u;
        }
        u.n = n;
        if n <= u.small.len() {
            for i in 0..n {
                // SAFETY: `src.add(i)` is valid for this access (# Safety).
                unsafe { u.small[i] = hs.unwrap(*src.add(i)) };
            }
        } else {
            // SAFETY: `src.add(i)` is valid for this access, as the caller promises (# Safety).
            unsafe { u.big = (0..n).map(|i| hs.unwrap(*src.add(i))).collect() };
        }
        u
    }

    /// The translated array, or `orig` when there was nothing to translate.
    #[inline]
    pub fn ptr(&self, orig: *mut c_void) -> *mut c_void {
        if self.n == 0 {
            orig
        } else if self.n <= self.small.len() {
            self.small.as_ptr() as *mut c_void
        } else {
            self.big.as_ptr() as *mut c_void
        }
    }
}

/// A copy of an application's `cl_image_desc` whose `buffer` field holds
/// the driver's handle.
pub struct ImageDesc(Option<cltap::sys::cl_image_desc>);

impl ImageDesc {
    /// # Safety
    /// `desc` is NULL or points at a readable `cl_image_desc`.
    pub unsafe fn new(hs: &HandleSpace, desc: *mut c_void) -> Self {
        if desc.is_null() {
            return ImageDesc(None);
        }
        // SAFETY: `desc as *const cltap::sys::cl_image_desc` is readable (# Safety).
        let mut d = unsafe { std::ptr::read_unaligned(desc as *const cltap::sys::cl_image_desc) };
        if !hs.is_ours(d.buffer as *const c_void) {
            return ImageDesc(None);
        }
        d.buffer = hs.unwrap(d.buffer);
        ImageDesc(Some(d))
    }

    pub fn ptr(&self, orig: *mut c_void) -> *mut c_void {
        match &self.0 {
            Some(d) => d as *const _ as *mut c_void,
            None => orig,
        }
    }
}

/// # Safety
/// `list` is NULL or a zero-terminated property list of `shape`'s kind.
pub unsafe fn props_in(hs: &HandleSpace, list: *mut c_void, shape: Shape) -> Option<Vec<u64>> {
    // SAFETY: `translate`'s # Safety follows from this fn's.
    unsafe { props::translate(list as *const u64, shape, |v| hs.unwrap(v as *mut c_void) as u64) }
}

const WORD: usize = std::mem::size_of::<*mut c_void>();

/// What the driver reads in place of a `clSetKernelArg` value that starts
/// with one of cltap's handles: the driver's handle, then the application's
/// other bytes.
#[derive(Default)]
pub struct ArgValue {
    words: [usize; 4],
    spill: Vec<usize>,
}

/// `clSetKernelArg` values that are handles (buffers, images, samplers,
/// queues) are swapped for the driver's, whatever size the application
/// gives. A driver may read a handle's word before it checks the size (AMD's
/// runtime checks the memory object first), so its answer to a wrong size is
/// its own only if that word is its own handle.
///
/// # Safety
/// `value` is NULL or readable for `size` bytes, as `clSetKernelArg` reads it.
#[inline(always)]
pub unsafe fn kernel_arg(hs: &HandleSpace, value: *mut c_void, size: usize, copy: &mut ArgValue) -> *mut c_void {
    if value.is_null() {
        return value;
    }
    if !word_readable(value, size) {
        // SAFETY: `kernel_arg_probed`'s # Safety follows from this fn's.
        return unsafe { kernel_arg_probed(hs, value, size, copy) };
    }
    // SAFETY: `value as *const *mut c_void` is readable, as the caller promises (# Safety).
    let v = unsafe { std::ptr::read_unaligned(value as *const *mut c_void) };
    if !hs.is_ours(v) {
        return value;
    }
    if size == WORD {
        copy.words[0] = hs.unwrap(v) as usize;
        return copy.words.as_mut_ptr() as *mut c_void;
    }
    // SAFETY: `translated`'s # Safety follows from this fn's.
    unsafe { translated(hs, v, value, size, copy) }
}

/// Whether the word at `value` can be read without the risk of a fault: the
/// application vouches for `size` bytes; a word that reaches past them is
/// read only inside the 4 KiB block of its first byte (a page of any size
/// holds that block whole).
#[inline(always)]
fn word_readable(value: *mut c_void, size: usize) -> bool {
    const BLOCK: usize = 4096;
    size >= WORD || (size > 0 && value as usize % BLOCK <= BLOCK - WORD)
}

/// The driver's handle `v` in place of cltap's, then the application's
/// other bytes; a short value gets the first bytes of the driver's handle,
/// as it had the first of cltap's.
///
/// # Safety
/// `value` is NULL or readable for `size` bytes.
#[inline(never)]
unsafe fn translated(
    hs: &HandleSpace,
    v: *mut c_void,
    value: *mut c_void,
    size: usize,
    copy: &mut ArgValue,
) -> *mut c_void {
    let words = size.div_ceil(WORD).max(1);
    let dst = if words <= copy.words.len() {
        copy.words.as_mut_ptr()
    } else {
        copy.spill = vec![0; words];
        copy.spill.as_mut_ptr()
    };
    if size > WORD {
        // SAFETY: the copy's source is readable and its destination writable for the count (# Safety).
        unsafe { std::ptr::copy_nonoverlapping(value as *const u8, dst as *mut u8, size) };
    }
    // SAFETY: `dst` is valid for this access, as the caller promises (# Safety).
    unsafe { *dst = hs.unwrap(v) as usize };
    dst as *mut c_void
}

/// A size of 0, or a short value whose word crosses into the next 4 KiB:
/// the word is read through the kernel, which refuses an unmapped address
/// instead of faulting; one that cannot be read passes as it is.
///
/// # Safety
/// `value` is NULL or readable for `size` bytes, as `clSetKernelArg` reads it.
#[cold]
#[inline(never)]
unsafe fn kernel_arg_probed(hs: &HandleSpace, value: *mut c_void, size: usize, copy: &mut ArgValue) -> *mut c_void {
    let mut w: usize = 0;
    let local = libc::iovec { iov_base: &mut w as *mut usize as *mut c_void, iov_len: WORD };
    let remote = libc::iovec { iov_base: value, iov_len: WORD };
    // SAFETY: `process_vm_readv`'s # Safety follows from this fn's.
    let n = unsafe { libc::process_vm_readv(libc::getpid(), &local, 1, &remote, 1, 0) };
    if n != WORD as isize || !hs.is_ours(w as *mut c_void) {
        return value;
    }
    // SAFETY: `translated`'s # Safety follows from this fn's.
    unsafe { translated(hs, w as *mut c_void, value, size, copy) }
}

/// # Safety
/// `a` is NULL or holds `n` writable handles.
pub unsafe fn wrap_array(hs: &HandleSpace, a: *mut *mut c_void, n: usize) {
    for i in 0..n {
        // SAFETY: `a.add(i)` is valid for this access (# Safety).
        unsafe { *a.add(i) = hs.wrap(*a.add(i)) };
    }
}

/// Gives the application cltap's handles in an info answer that holds
/// the driver's. Inlined into each wrapper, with `func` a constant there.
///
/// # Safety
/// `buf` is NULL or holds `written` bytes the driver wrote (of `size` lent).
#[inline(always)]
pub unsafe fn info_out(hs: &HandleSpace, func: &str, param_name: u32, buf: *mut c_void, size: usize, written: usize) {
    if let Some(a) = cltap::icd::info::answer(func, param_name) {
        // SAFETY: `translate`'s # Safety follows from this fn's.
        unsafe { cltap::icd::info::translate(buf, size.min(written), a, |v| hs.wrap(v as *mut c_void) as u64) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the driver reads through `kernel_arg`'s answer: `n` bytes.
    ///
    /// # Safety
    /// `p` is readable for `n` bytes.
    unsafe fn seen(p: *mut c_void, n: usize) -> Vec<u8> {
        // SAFETY: `p` is readable for `n` bytes (# Safety).
        unsafe { std::slice::from_raw_parts(p as *const u8, n) }.to_vec()
    }

    fn bytes(words: &[usize]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_ne_bytes()).collect()
    }

    /// At every size the driver finds its own handle where the application
    /// put cltap's, and every other byte as the application wrote it.
    #[test]
    fn a_handle_becomes_the_drivers_at_every_size() {
        let hs = HandleSpace::reserve(64).unwrap();
        let real = 0x5eed_0000usize as *mut c_void;
        let ours = hs.wrap(real) as usize;
        let app = [ours, 7, ours, 9, 11, 13];
        for size in [0usize, 1, 4, 7, 8, 9, 12, 16, 24, 32, 33, 40, 48] {
            let mut copy = ArgValue::default();
            let p = unsafe { kernel_arg(&hs, app.as_ptr() as *mut c_void, size, &mut copy) };
            assert_ne!(p as usize, app.as_ptr() as usize, "size {size}: translated");
            let mut want = bytes(&app);
            want[..WORD].copy_from_slice(&(real as usize).to_ne_bytes());
            let n = size.max(WORD);
            assert_eq!(unsafe { seen(p, n) }, want[..n], "size {size}");
        }
    }

    /// A value that does not start with a handle of cltap's, or NULL, is the
    /// application's own pointer.
    #[test]
    fn other_values_pass_unchanged() {
        let hs = HandleSpace::reserve(64).unwrap();
        let app = [0x1234usize, 5, 6, 7, 8, 9];
        for size in [0usize, 4, 8, 16, 48] {
            let mut copy = ArgValue::default();
            let p = unsafe { kernel_arg(&hs, app.as_ptr() as *mut c_void, size, &mut copy) };
            assert_eq!(p as usize, app.as_ptr() as usize, "size {size}");
            let p = unsafe { kernel_arg(&hs, std::ptr::null_mut(), size, &mut copy) };
            assert!(p.is_null());
        }
    }

    /// A short value whose word crosses into the next page, mapped or not:
    /// read through the kernel, never faulting.
    #[test]
    fn a_short_value_at_a_pages_end() {
        let hs = HandleSpace::reserve(64).unwrap();
        let real = 0xfeed_0000usize as *mut c_void;
        let ours = hs.wrap(real) as usize;
        unsafe {
            let page = libc::sysconf(libc::_SC_PAGESIZE) as usize;
            let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
            let two = libc::mmap(std::ptr::null_mut(), 2 * page, libc::PROT_READ | libc::PROT_WRITE, flags, -1, 0);
            assert_ne!(two, libc::MAP_FAILED);
            let at = (two as *mut u8).add(page - 4);
            std::ptr::write_unaligned(at as *mut usize, ours);
            let mut copy = ArgValue::default();
            let p = kernel_arg(&hs, at as *mut c_void, 4, &mut copy);
            assert_eq!(std::ptr::read_unaligned(p as *const usize), real as usize);
            // The next page gone: the word cannot be read, the value passes as it is.
            assert_eq!(libc::mprotect((two as *mut u8).add(page) as *mut c_void, page, libc::PROT_NONE), 0);
            let p = kernel_arg(&hs, at as *mut c_void, 4, &mut copy);
            assert_eq!(p as usize, at as usize);
            let p = kernel_arg(&hs, at as *mut c_void, 0, &mut copy);
            assert_eq!(p as usize, at as usize);
            libc::munmap(two, 2 * page);
        }
    }
}
