//! The tools' end, once the last record is rendered and before cltap
//! closes its files: every buffer's rest is delivered (and its callback has
//! returned), then each tool's `OnUnloadTool` runs, the last loaded first,
//! and only then are the rocprofiler v1 contexts still open freed.
//! A tool thus sees every record in its buffers before it is told to
//! finish, and while it runs the API log has no trailer yet and the trace
//! is not marked finished.
//!
//! Called by the renderer's finish before it writes the trailer; by the
//! trace's finish when nothing is rendered (`CLTAP_RENDER=0`), before the
//! trace is marked finished; and by the layer's finish when there is no
//! trace at all. It runs once, whichever comes first.

use std::sync::atomic::{AtomicBool, Ordering};

static DONE: AtomicBool = AtomicBool::new(false);

pub fn end_of_records() {
    if DONE.swap(true, Ordering::AcqRel) {
        return;
    }
    super::buffer_registry::GLOBAL.end();
    super::toollib::unload_all();
    // Only now, with no tool left to read them: the rocprofiler v1
    // contexts the tools never closed. (They were closed by an exit handler
    // of their own, registered at the first `rocprofiler_open` and so run
    // before cltap's, which ends the tools: a tool's `OnUnloadTool` reading
    // the contexts whose handler had not run yet found them closed, and
    // rocprof's tool aborted; issue #41.)
    super::rocprofiler::registry::free_all();
}
