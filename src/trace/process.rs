//! The trace's entry points for the process as a whole, which need both a
//! thread's capture state (`local`) and the trace's life (`writer`). Here,
//! and not in `writer`, so that `local` depends on `writer` and never the
//! other way round.

use super::{local, settings, writer};

/// Turns tracing on with `s`, and lets the tools' buffers ask for what the
/// trace holds at a flush. Called once by the layer at start-up.
pub fn start(s: settings::TraceSettings) {
    crate::tools::buffer_registry::GLOBAL.set_source(feed_tools_now);
    writer::start(s);
}

/// Ends the trace of this process (exit, `clDeinitLayer`): the calling
/// thread's chunk goes to the renderer first, then everything is rendered.
pub fn finish() {
    if writer::running() {
        local::retire_current_thread();
    }
    writer::finish();
}

/// The end's first part (cltap's exit handler): the calling thread's chunk
/// goes to the renderer, and every sealed chunk is rendered; the trace
/// goes on recording (the exit handlers that run after cltap's).
pub fn catch_up() {
    if writer::running() {
        local::retire_current_thread();
    }
    writer::catch_up();
}

/// For a tool's flush (`cltap_flush_buffer`): gives the tools' buffers
/// every complete record the trace holds now, rendered or not.
pub fn feed_tools_now() {
    writer::feed_tools_now(local::thread_id());
}

pub use local::{take_late_records, thread_id};
