//! Records asked for after the trace ended: counted, since they cannot
//! reach the files, and reported at the very end of the process.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Records asked for after the trace ended (calls from finalisers of
/// libraries that run after cltap's, or after the HSA runtime unloaded
/// cltap): they cannot reach the files, so they are counted, and the count
/// is reported at the very end of the process ([`take_late_records`]).
static LATE: AtomicU64 = AtomicU64::new(0);
/// The count was reported: a late record after that says so itself, once.
static LATE_REPORTED: AtomicBool = AtomicBool::new(false);
static LATE_SAID: AtomicBool = AtomicBool::new(false);

/// How many records were asked for after the trace ended, for the report
/// at the very end; any that come after it say so themselves.
pub fn take_late_records() -> u64 {
    LATE_REPORTED.store(true, Ordering::SeqCst);
    LATE.load(Ordering::SeqCst)
}

#[cold]
pub(super) fn late_record() {
    LATE.fetch_add(1, Ordering::SeqCst);
    if LATE_REPORTED.load(Ordering::SeqCst) && !LATE_SAID.swap(true, Ordering::Relaxed) {
        crate::warn!(
            "calls came after cltap ended its trace and made its last report (from finalisers of libraries that ran after cltap's); they are not in its files"
        );
    }
}
