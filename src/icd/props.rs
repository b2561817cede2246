//! Property lists that carry handles. In ICD mode the application's list
//! holds cltap's handles and the driver's must hold its own, so lists are
//! copied with each handle translated. Lists without handles are passed as
//! they are.

/// `CL_CONTEXT_PLATFORM`
pub const CONTEXT_PLATFORM: u64 = 0x1084;
/// `CL_MEM_DEVICE_HANDLE_LIST_KHR`: devices follow until `..._END_KHR` (0).
pub const MEM_DEVICE_HANDLE_LIST: u64 = 0x2051;
/// `CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR`: devices follow until 0.
pub const SEMAPHORE_DEVICE_HANDLE_LIST: u64 = 0x2053;

/// A list longer than this is taken as unterminated and left alone.
const MAX_WORDS: usize = 4096;

/// Which values in a list are handles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `cl_context_properties`: `CL_CONTEXT_PLATFORM` holds a platform.
    Context,
    /// `cl_mem_properties` / `cl_semaphore_properties_khr`: device lists.
    DeviceLists,
    /// No handles.
    Plain,
}

/// Copies the zero-terminated list at `list`, applying `f` to each handle.
/// Returns `None` when there is nothing to translate (NULL list, no handles
/// in this kind of list, or no terminator within a sane length).
///
/// # Safety
/// `list` must be NULL or point at a zero-terminated list of 64-bit words.
pub unsafe fn translate(list: *const u64, shape: Shape, f: impl Fn(u64) -> u64) -> Option<Vec<u64>> {
    if list.is_null() || shape == Shape::Plain {
        return None;
    }
    let mut out = Vec::with_capacity(8);
    let mut i = 0;
    loop {
        if i >= MAX_WORDS {
            return None;
        }
        // SAFETY: `list.add(i)` is valid for this access: `list` must be NULL or point at a zero-terminated list of
        // 64-bit words (# Safety).
        let key = unsafe { *list.add(i) };
        out.push(key);
        if key == 0 {
            return Some(out);
        }
        i += 1;
        let is_list =
            shape == Shape::DeviceLists && (key == MEM_DEVICE_HANDLE_LIST || key == SEMAPHORE_DEVICE_HANDLE_LIST);
        if is_list {
            loop {
                if i >= MAX_WORDS {
                    return None;
                }
                // SAFETY: `list.add(i)` is valid for this access, as the caller promises (# Safety).
                let v = unsafe { *list.add(i) };
                i += 1;
                out.push(if v == 0 { 0 } else { f(v) });
                if v == 0 {
                    break;
                }
            }
        } else {
            // SAFETY: `list.add(i)` is valid for this access, as the caller promises (# Safety).
            let v = unsafe { *list.add(i) };
            i += 1;
            out.push(if shape == Shape::Context && key == CONTEXT_PLATFORM { f(v) } else { v });
        }
    }
}

/// Translates, in place, the handles of a list the driver wrote into an
/// application buffer of `words` words (an info query's answer).
///
/// # Safety
/// `buf` must point at `words` writable 64-bit words.
pub unsafe fn translate_in_place(buf: *mut u64, words: usize, shape: Shape, f: impl Fn(u64) -> u64) {
    if buf.is_null() || shape == Shape::Plain {
        return;
    }
    let mut i = 0;
    while i + 1 < words {
        // SAFETY: `buf.add(i)` is valid for this access: `buf` must point at `words` writable 64-bit words (#
        // Safety).
        let key = unsafe { *buf.add(i) };
        if key == 0 {
            return;
        }
        i += 1;
        if shape == Shape::DeviceLists && (key == MEM_DEVICE_HANDLE_LIST || key == SEMAPHORE_DEVICE_HANDLE_LIST) {
            // SAFETY: `buf.add(i)` is valid for this access, as the caller promises (# Safety).
            while i < words && unsafe { *buf.add(i) } != 0 {
                // SAFETY: `buf.add(i)` is valid for this access, as the caller promises (# Safety).
                unsafe { *buf.add(i) = f(*buf.add(i)) };
                i += 1;
            }
            i += 1;
        } else {
            if shape == Shape::Context && key == CONTEXT_PLATFORM {
                // SAFETY: `buf.add(i)` is valid for this access, as the caller promises (# Safety).
                unsafe { *buf.add(i) = f(*buf.add(i)) };
            }
            i += 1;
        }
    }
}

/// The `CL_CONTEXT_PLATFORM` value of a context property list, if any.
///
/// # Safety
/// As for [`translate`].
pub unsafe fn context_platform(list: *const u64) -> Option<u64> {
    if list.is_null() {
        return None;
    }
    let mut i = 0;
    while i < MAX_WORDS {
        // SAFETY: `list.add(i)` is valid for this access: As for [`translate`] (# Safety).
        let key = unsafe { *list.add(i) };
        if key == 0 {
            return None;
        }
        if key == CONTEXT_PLATFORM {
            // SAFETY: a key other than 0 is followed by its value in a well-formed list (# Safety).
            return Some(unsafe { *list.add(i + 1) });
        }
        i += 2;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_platform_is_translated_and_the_rest_kept() {
        let list = [0x1085u64, 1, CONTEXT_PLATFORM, 0x1000, 0];
        let out = unsafe { translate(list.as_ptr(), Shape::Context, |v| v + 1) }.unwrap();
        assert_eq!(out, vec![0x1085, 1, CONTEXT_PLATFORM, 0x1001, 0]);
        assert_eq!(unsafe { context_platform(list.as_ptr()) }, Some(0x1000));
    }

    #[test]
    fn device_lists_are_translated_up_to_their_end() {
        let list = [0x1u64, 7, SEMAPHORE_DEVICE_HANDLE_LIST, 0x10, 0x20, 0, 0x2, 9, 0];
        let out = unsafe { translate(list.as_ptr(), Shape::DeviceLists, |v| v * 2) }.unwrap();
        assert_eq!(out, vec![0x1, 7, SEMAPHORE_DEVICE_HANDLE_LIST, 0x20, 0x40, 0, 0x2, 9, 0]);
    }

    #[test]
    fn plain_lists_and_null_are_left_alone() {
        let list = [0x1093u64, 2, 0];
        assert!(unsafe { translate(list.as_ptr(), Shape::Plain, |v| v) }.is_none());
        assert!(unsafe { translate(std::ptr::null(), Shape::Context, |v| v) }.is_none());
        assert_eq!(unsafe { context_platform(list.as_ptr()) }, None);
    }

    #[test]
    fn unterminated_lists_are_refused() {
        let list = vec![0x1085u64; MAX_WORDS + 8];
        assert!(unsafe { translate(list.as_ptr(), Shape::Context, |v| v) }.is_none());
    }

    #[test]
    fn in_place_translation_of_an_answer() {
        let mut buf = [0x1085u64, 1, CONTEXT_PLATFORM, 0x1000, 0];
        unsafe { translate_in_place(buf.as_mut_ptr(), buf.len(), Shape::Context, |v| v + 5) };
        assert_eq!(buf, [0x1085, 1, CONTEXT_PLATFORM, 0x1005, 0]);
    }
}
