//! Profiling is forced on every queue and hidden from the application: what
//! the application asked of each queue, the property lists the driver gets
//! instead, and the answers to queue queries that would reveal the forced
//! flag. The layer asks the driver; the arithmetic is here.

use super::memo::Memo;
use super::pending::on;

pub const CL_QUEUE_PROFILING_ENABLE: u64 = 1 << 1;
pub const CL_QUEUE_PROPERTIES: u64 = 0x1093;
pub const CL_QUEUE_PROPERTIES_ARRAY: u32 = 0x1098;
const CL_INVALID_VALUE: i32 = -30;

/// What the application asked of a queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppQueue {
    pub profiling: bool,
    /// Its `cl_queue_properties` list, for CL_QUEUE_PROPERTIES_ARRAY.
    pub list: Option<Vec<u64>>,
}

impl AppQueue {
    /// A queue made with `clCreateCommandQueue(…, properties, …)`.
    pub fn from_bits(app: u64) -> Self {
        AppQueue { profiling: app & CL_QUEUE_PROFILING_ENABLE != 0, list: None }
    }

    /// A queue made with a property list: `pairs` as [`read_list`] gives
    /// them, `null` when the application passed no list.
    pub fn from_list(pairs: Vec<u64>, null: bool) -> Self {
        let profiling =
            pairs.chunks_exact(2).any(|kv| kv[0] == CL_QUEUE_PROPERTIES && kv[1] & CL_QUEUE_PROFILING_ENABLE != 0);
        let list = (!null).then(|| {
            let mut l = pairs;
            l.push(0);
            l
        });
        AppQueue { profiling, list }
    }
}

/// The application's queues, by the driver's handle.
static QUEUES: Memo<AppQueue> = Memo::new();

pub fn remember(queue: usize, q: AppQueue) {
    QUEUES.insert(queue, q);
}

/// Locks the queues' memo across a `fork`; unlocked by [`release`].
pub(super) fn hold() {
    QUEUES.hold();
}

/// # Safety
/// [`hold`] ran on this thread, and nothing was released since.
pub(super) unsafe fn release() {
    // SAFETY: `release` needs this thread to hold the lock, taken by `hold`/`prepare`, as this fn's own contract
    // gives: [`hold`] ran on this thread, and nothing was released since (# Safety).
    unsafe { QUEUES.release() };
}

pub fn lookup(queue: usize) -> Option<AppQueue> {
    QUEUES.get(queue)
}

/// Whether the application made `queue` for profiling; `None` for a queue
/// cltap did not see made.
pub fn profiling(queue: usize) -> Option<bool> {
    QUEUES.with(queue, |q| q.profiling)
}

pub fn force_bits(props: u64) -> u64 {
    if on() {
        props | CL_QUEUE_PROFILING_ENABLE
    } else {
        props
    }
}

/// The list with profiling added to CL_QUEUE_PROPERTIES (or the pair added).
///
/// # Safety
/// `list` is NULL or a zero-terminated property list.
pub unsafe fn force_list(list: *const u64) -> Option<Vec<u64>> {
    if !on() {
        return None;
    }
    // SAFETY: `read_list`'s # Safety follows from this fn's: `list` is NULL or a zero-terminated property list (#
    // Safety).
    Some(forced(unsafe { read_list(list) }))
}

/// `pairs` with profiling forced, terminated.
pub fn forced(mut pairs: Vec<u64>) -> Vec<u64> {
    match pairs.chunks_exact_mut(2).find(|kv| kv[0] == CL_QUEUE_PROPERTIES) {
        Some(kv) => kv[1] |= CL_QUEUE_PROFILING_ENABLE,
        None => pairs.extend([CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE]),
    }
    pairs.push(0);
    pairs
}

/// A property list's pairs, without the terminator.
///
/// # Safety
/// `list` is NULL or a zero-terminated property list.
pub unsafe fn read_list(list: *const u64) -> Vec<u64> {
    let mut v = Vec::new();
    if list.is_null() {
        return v;
    }
    let mut i = 0;
    // SAFETY: `list.add(i)` is valid for this access: `list` is NULL or a zero-terminated property list (# Safety).
    while i < 256 && unsafe { *list.add(i) } != 0 {
        // SAFETY: `list.add(i)`, `list.add(i + 1)` are valid for this access, as the caller promises (# Safety).
        unsafe {
            v.push(*list.add(i));
            v.push(*list.add(i + 1));
        }
        i += 2;
    }
    v
}

/// The driver's CL_QUEUE_PROPERTIES with only the profiling bit put back.
pub fn properties_answer(driver: u64, app_profiling: bool) -> u64 {
    if app_profiling {
        driver
    } else {
        driver & !CL_QUEUE_PROFILING_ENABLE
    }
}

/// The application's list as CL_QUEUE_PROPERTIES_ARRAY answers it. `list`
/// ends in the terminator; drivers differ on returning it.
pub fn array_answer(mut list: Vec<u64>, with_terminator: bool) -> Vec<u8> {
    if !with_terminator {
        list.pop();
    }
    list.iter().flat_map(|w| w.to_ne_bytes()).collect()
}

/// Whether a driver's CL_QUEUE_PROPERTIES_ARRAY answer of `words` words
/// (pairs, so an odd count means a terminator) includes the terminator;
/// where it would not say, it is taken to.
pub fn has_terminator(words: Option<usize>) -> bool {
    words.is_none_or(|n| n % 2 == 1)
}

/// Writes an info answer as a driver would: `CL_INVALID_VALUE` when
/// `value` is too small.
///
/// # Safety
/// `value` is NULL or holds `size` bytes; `size_ret` is NULL or writable.
pub unsafe fn write_answer(bytes: &[u8], size: usize, value: *mut u8, size_ret: *mut usize) -> i32 {
    if !value.is_null() {
        if size < bytes.len() {
            return CL_INVALID_VALUE;
        }
        // SAFETY: the copy's source is readable and its destination writable for the count: `value` is NULL or holds
        // `size` bytes; `size_ret` is NULL or writable (# Safety).
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), value, bytes.len()) };
    }
    if !size_ret.is_null() {
        // SAFETY: `size_ret` is valid for this access, as the caller promises (# Safety).
        unsafe { *size_ret = bytes.len() };
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: u64 = CL_QUEUE_PROFILING_ENABLE;
    const OOO: u64 = 1; // CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
    const SIZE: u64 = 0x1094; // CL_QUEUE_SIZE

    #[test]
    fn lists_are_read_to_their_terminator() {
        let l = [CL_QUEUE_PROPERTIES, OOO, SIZE, 64, 0, 99];
        assert_eq!(unsafe { read_list(l.as_ptr()) }, vec![CL_QUEUE_PROPERTIES, OOO, SIZE, 64]);
        assert!(unsafe { read_list(std::ptr::null()) }.is_empty());
        assert!(unsafe { read_list([0u64].as_ptr()) }.is_empty());
    }

    #[test]
    fn profiling_is_forced_into_a_list() {
        assert_eq!(forced(vec![CL_QUEUE_PROPERTIES, OOO]), vec![CL_QUEUE_PROPERTIES, OOO | P, 0]);
        assert_eq!(forced(vec![SIZE, 64]), vec![SIZE, 64, CL_QUEUE_PROPERTIES, P, 0]);
        assert_eq!(forced(vec![]), vec![CL_QUEUE_PROPERTIES, P, 0]);
    }

    #[test]
    fn what_the_application_asked_is_kept() {
        assert_eq!(AppQueue::from_bits(OOO), AppQueue { profiling: false, list: None });
        assert!(AppQueue::from_bits(P | OOO).profiling);
        let q = AppQueue::from_list(vec![SIZE, 64, CL_QUEUE_PROPERTIES, P], false);
        assert_eq!(q, AppQueue { profiling: true, list: Some(vec![SIZE, 64, CL_QUEUE_PROPERTIES, P, 0]) });
        assert_eq!(AppQueue::from_list(vec![], true), AppQueue { profiling: false, list: None });
        assert_eq!(AppQueue::from_list(vec![], false).list, Some(vec![0]));
    }

    #[test]
    fn queues_are_remembered_by_handle() {
        remember(0xA11CE, AppQueue::from_bits(P));
        assert_eq!(profiling(0xA11CE), Some(true));
        assert_eq!(lookup(0xA11CE).map(|q| q.list), Some(None));
        assert_eq!(profiling(0xB0B), None);
    }

    #[test]
    fn answers_hide_the_forced_flag() {
        assert_eq!(properties_answer(OOO | P, false), OOO);
        assert_eq!(properties_answer(OOO | P, true), OOO | P);
        let l = vec![CL_QUEUE_PROPERTIES, OOO, 0];
        assert_eq!(array_answer(l.clone(), true).len(), 24);
        assert_eq!(
            array_answer(l, false),
            [CL_QUEUE_PROPERTIES, OOO].iter().flat_map(|w| w.to_ne_bytes()).collect::<Vec<_>>()
        );
        assert!(has_terminator(Some(3)));
        assert!(!has_terminator(Some(2)));
        assert!(has_terminator(None));
    }

    #[test]
    fn answers_are_written_as_a_driver_would() {
        let bytes = 7u64.to_ne_bytes();
        let mut out = 0u64;
        let mut n = 0usize;
        assert_eq!(unsafe { write_answer(&bytes, 8, &mut out as *mut u64 as *mut u8, &mut n) }, 0);
        assert_eq!((out, n), (7, 8));
        assert_eq!(unsafe { write_answer(&bytes, 4, &mut out as *mut u64 as *mut u8, &mut n) }, CL_INVALID_VALUE);
        n = 0;
        assert_eq!(unsafe { write_answer(&bytes, 0, std::ptr::null_mut(), &mut n) }, 0);
        assert_eq!(n, 8, "the size alone");
    }
}
