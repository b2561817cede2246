//! Where device timing's results go: into the binary trace once the layer
//! names the writer ([`to_trace`]), so that every rendering of the trace,
//! the process's own included, reads the same records; to the store only
//! where no trace takes them (a process that records no calls). Device
//! timing names nothing of the trace: the layer joins the two.

use super::{Command, CommandRef};
use std::sync::OnceLock;

/// The trace's writers of device timing's results: each returns false when
/// no trace takes them (then the store keeps them).
pub struct Deliver {
    pub timed: fn(&Command) -> bool,
    /// A command as a read completes it, written without making a
    /// [`Command`] of it (no allocation per command).
    pub completed: fn(&CommandRef) -> bool,
    /// Command id, API, why its counters could not be read.
    pub untimed: fn(u64, &'static str, &str) -> bool,
}

static TO: OnceLock<Deliver> = OnceLock::new();

/// From now on, results go to `d` first (the first one named is kept).
pub fn to_trace(d: Deliver) {
    let _ = TO.set(d);
}

/// Whether the trace took `c`.
pub(super) fn timed(c: &Command) -> bool {
    TO.get().is_some_and(|d| (d.timed)(c))
}

/// Whether the trace took `c`.
pub(super) fn completed(c: &CommandRef) -> bool {
    TO.get().is_some_and(|d| (d.completed)(c))
}

/// Whether the trace took the untimed command.
pub(super) fn untimed(cmd_id: u64, api: &'static str, why: &str) -> bool {
    TO.get().is_some_and(|d| (d.untimed)(cmd_id, api, why))
}
