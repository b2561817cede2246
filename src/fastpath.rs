//! Wrappers forward a call on a fast path while nothing records or
//! watches its function. What decides that (a tool's tracer, the
//! collection window) lives here in the core and changes at run time;
//! the layer keeps its own per-function flag in step, so that its wrappers
//! read one byte of their own rather than each of these through the
//! global offset table. Whoever changes one of them calls [`changed`]
//! after the change is visible.

use std::sync::OnceLock;

static LISTENER: OnceLock<fn()> = OnceLock::new();

/// Names what recomputes the layer's flags (the first one named is kept).
pub fn listen(f: fn()) {
    let _ = LISTENER.set(f);
}

/// A tracer or the window changed: the flags are recomputed before this
/// returns, so a call that starts after it sees the change. Never called
/// from a signal handler (the listener takes a lock).
pub fn changed() {
    if let Some(f) = LISTENER.get() {
        f();
    }
}
