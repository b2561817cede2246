//! Settings made once, when the configuration is read, behind a flag that
//! a hooked call reads alone: the only cost of a feature that is off.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

pub struct Switched<T> {
    on: AtomicBool,
    settings: OnceLock<T>,
}

impl<T> Switched<T> {
    pub const fn new() -> Switched<T> {
        Switched { on: AtomicBool::new(false), settings: OnceLock::new() }
    }

    /// Turns the feature on with `settings`; the first settings stay.
    pub fn set(&self, settings: T) {
        if self.settings.set(settings).is_ok() {
            self.on.store(true, Ordering::Release);
        }
    }

    #[inline(always)]
    pub fn on(&self) -> bool {
        self.on.load(Ordering::Relaxed)
    }

    /// The settings, when on.
    pub fn get(&self) -> Option<&T> {
        self.on().then(|| self.settings.get()).flatten()
    }
}

impl<T> Default for Switched<T> {
    fn default() -> Self {
        Self::new()
    }
}
