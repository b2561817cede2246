//! What becomes of a panic of cltap's inside the application's process
//! (docs/architecture.md#panics): it is caught where cltap's code meets
//! the application's or a runtime's (`extern "C"`), or at the top of a
//! thread of cltap's, and reported once per place on stderr. Nothing here
//! runs unless something panicked, except [`install`], once at start-up.

use std::any::Any;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};

thread_local! {
    /// Where this thread's last panic happened and what it said, kept by
    /// the hook for the place that catches it.
    static LAST: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// The places (wrappers, callbacks, threads) whose panic was reported.
static REPORTED: crate::fork::lock::Mutex<Vec<&'static str>> = crate::fork::lock::Mutex::new(Vec::new());

/// The prepare handler's part ([`crate::fork`]).
pub(crate) fn hold_for_fork() {
    crate::fork::kept::keep(REPORTED.lock());
}
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// Replaces the default hook of this library's copy of `std` (a cdylib has
/// its own; the application's, if it has one, is not touched) with one that
/// keeps the panic's place and message for the place that catches it, so
/// that each panic makes one line. A panic nothing catches (it would abort
/// the process: `extern "C"` functions do not unwind) is printed at once.
pub fn install() {
    if INSTALLED.swap(true, Ordering::AcqRel) {
        return;
    }
    std::panic::set_hook(Box::new(|info| {
        let text = match info.location() {
            Some(l) => format!("panicked at {}:{}: {}", l.file(), l.line(), message(info.payload())),
            None => format!("panicked: {}", message(info.payload())),
        };
        // The runtime's own panics on the way to an abort: nothing can
        // catch them, so the first panic and this one are said now.
        let fatal = text.contains("panic in a function that cannot unwind")
            || text.contains("panic in a destructor during cleanup");
        if fatal {
            let first = LAST.try_with(|l| l.borrow_mut().take()).ok().flatten();
            if let Some(first) = first {
                crate::warn!("internal error: {first}");
            }
            crate::warn!("internal error, the process ends: {text}");
            return;
        }
        let _ = LAST.try_with(|l| *l.borrow_mut() = Some(text));
    }));
}

fn message(payload: &(dyn Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s
    } else {
        "(no message)"
    }
}

/// Reports a panic caught at `place`, once per place: what it said and
/// where (kept by the hook, or the payload's message without it), and
/// `then`, what cltap did instead. Later panics at the same place are not
/// reported again.
#[cold]
#[inline(never)]
pub fn caught(place: &'static str, payload: &(dyn Any + Send), then: &str) {
    let text = LAST.try_with(|l| l.borrow_mut().take()).ok().flatten();
    {
        let mut seen = REPORTED.lock();
        if seen.contains(&place) {
            return;
        }
        seen.push(place);
    }
    let text = text.unwrap_or_else(|| format!("panicked: {}", message(payload)));
    crate::warn!("internal error in {place} ({text}); {then}; later ones there are not reported");
}

/// Runs `f` under `catch_unwind`: a panic is reported ([`caught`]) with
/// `then` and gives `fallback`.
pub fn catch<T>(place: &'static str, then: &str, fallback: T, f: impl FnOnce() -> T) -> T {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(v) => v,
        Err(p) => {
            caught(place, &*p, then);
            fallback
        }
    }
}

/// The body of a thread of cltap's: a panic in it ends the thread, not the
/// process, and is reported; what the thread did is then done at the
/// process's end (each caller says how).
pub fn thread_body(place: &'static str, f: impl FnOnce()) {
    catch(place, "the thread stopped; the application goes on", (), f)
}
