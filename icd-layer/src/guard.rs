//! The API boundary: no panic of cltap's crosses `extern "C"`
//! (docs/architecture.md#panics). Every wrapper's body runs under
//! [`wrapper`], every other function the application, a loader, a runtime
//! or a tool calls runs under [`guard`], and a panic is reported once per
//! place by `cltap::panics`.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Runs layer code that is not a forwarded call: a panic in it is caught and
/// reported, and `fallback` is returned, so no panic crosses `extern "C"`.
pub fn guard<T>(fallback: T, f: impl FnOnce() -> T) -> T {
    cltap::panics::catch("cltap's layer", "the caller was answered with a default", fallback, f)
}

/// [`guard`] that names its place in the report.
pub fn guard_at<T>(place: &'static str, fallback: T, f: impl FnOnce() -> T) -> T {
    cltap::panics::catch(place, "the caller was answered with a default", fallback, f)
}

/// The body of a generated wrapper of function `name`. `body` stores the
/// driver's answer in its slot as soon as it has it; after a panic,
/// `after_panic` is given that answer (`None`: the panic came before it)
/// and gives the application's. A wrapper whose call needs nothing of
/// cltap's forwards the call then; see docs/architecture.md#panics.
#[inline(always)]
pub fn wrapper<R: Copy>(
    name: &'static str,
    body: impl FnOnce(&mut Option<R>) -> R,
    after_panic: impl FnOnce(Option<R>) -> R,
) -> R {
    let mut answer = None;
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(&mut answer))) {
        Ok(r) => r,
        Err(p) => {
            let then = if answer.is_some() {
                "the application got the driver's answer"
            } else {
                "the call was answered without cltap's part in it"
            };
            cltap::panics::caught(name, &*p, then);
            after_panic(answer)
        }
    }
}

/// A part of cltap's around a forwarded call that is not under
/// [`wrapper`] (the record path): `None` after a panic, which is reported.
#[inline(always)]
pub fn part<T>(name: &'static str, f: impl FnOnce() -> T) -> Option<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(v) => Some(v),
        Err(p) => {
            cltap::panics::caught(name, &*p, "the call was forwarded without its record");
            None
        }
    }
}

/// `CLTAP_TEST_PANIC`: the OpenCL function (id + 1) and the HSA function
/// (id + 1) whose wrapper panics, and where. Set once at start-up; read only
/// on the windowed path, which the setting makes every call take.
static TEST_CL: AtomicUsize = AtomicUsize::new(0);
static TEST_HSA: AtomicUsize = AtomicUsize::new(0);
static TEST_AFTER: AtomicBool = AtomicBool::new(false);

/// Arms `CLTAP_TEST_PANIC` (checked by the configuration).
pub fn arm_test_panic(t: &cltap::config::test_panic::TestPanic) {
    if let Some(id) = cltap::meta::by_name(&t.function) {
        TEST_CL.store(id + 1, Ordering::Release);
    }
    if let Some(id) = cltap::meta::hsa_by_name(&t.function) {
        TEST_HSA.store(id + 1, Ordering::Release);
    }
    TEST_AFTER.store(t.after, Ordering::Release);
    cltap::window::STATE.fetch_or(cltap::window::TEST_PANIC, Ordering::AcqRel);
    cltap::fastpath::changed();
}

/// On the windowed path before OpenCL function `id` is forwarded: panics if
/// it is the one `CLTAP_TEST_PANIC` names (before the call).
#[cold]
#[inline(never)]
pub fn test_panic_before(id: usize, hsa: bool) {
    let armed = if hsa { &TEST_HSA } else { &TEST_CL };
    if armed.load(Ordering::Acquire) == id + 1 && !TEST_AFTER.load(Ordering::Acquire) {
        panic!("CLTAP_TEST_PANIC: before the call");
    }
}

/// Whether OpenCL function `id`'s wrapper panics after the call.
pub fn test_panics_after(id: usize) -> bool {
    TEST_CL.load(Ordering::Acquire) == id + 1 && TEST_AFTER.load(Ordering::Acquire)
}

/// After the call of a function [`test_panics_after`] named.
#[cold]
#[inline(never)]
pub fn test_panic_after() {
    panic!("CLTAP_TEST_PANIC: after the call");
}
