//! The guards the fork's prepare handler takes, kept on the forking thread
//! (prepare, parent and child handlers all run on it) until the parent or
//! the child lets go of them.

use std::any::Any;
use std::cell::RefCell;

thread_local! {
    /// The guards the prepare handler took, in the order it took them.
    static KEPT: RefCell<Vec<Box<dyn Any>>> = const { RefCell::new(Vec::new()) };
}

/// Keeps `guard` (a lock held) until [`let_go`] on this thread.
pub fn keep<G: 'static>(guard: G) {
    let _ = KEPT.try_with(|k| k.borrow_mut().push(Box::new(guard)));
}

/// Releases what [`keep`] kept, the last taken first.
pub fn let_go() {
    let kept = KEPT.try_with(|k| std::mem::take(&mut *k.borrow_mut())).unwrap_or_default();
    for g in kept.into_iter().rev() {
        drop(g);
    }
}
