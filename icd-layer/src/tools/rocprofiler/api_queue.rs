//! The intercepting API: the tool's dispatch callback, called for every
//! kernel dispatch cltap's intercept queues see, through the counter
//! backend's tool hook (`hsa::counters::set_tool_hook`).
//!
//! For each dispatch (on the application's thread, at the doorbell) the
//! callback gets a `rocprofiler_callback_data_t` and may return a group of
//! a context it opened. That group's events are counted around the
//! dispatch; when its stop packet completed, on the runtime's signal
//! thread, the values are written into the group's features and the
//! context's handler is called, as rocprofiler v1 does.
//!
//! Dispatches are only seen on intercept queues: `ROCP_HSA_INTERCEPT=1|2`,
//! or a tool that registered a dispatch callback while it loaded. The
//! queue `create` callback is called for every intercept queue made, the
//! `destroy` callback when the application destroys one, as in 5.2.3.

use super::agent;
use super::api_base::call;
use crate::hsa::counters::{self, DispatchInfo, ToolRequest};
use cltap::tools::rocprofiler::abi::{status, Agent, CallbackData, DispatchRecord, Group, QueueCallbacks};
use cltap::tools::rocprofiler::collect::Collection;
use cltap::tools::rocprofiler::error::RocpError;
use cltap::tools::rocprofiler::registry;
use std::cell::Cell;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

/// The tool's callbacks and their data.
#[derive(Clone, Copy)]
struct Registered {
    callbacks: QueueCallbacks,
    data: usize,
}

/// The registered callbacks: a leaked box, swapped whole (registering is
/// rare; the hook reads it for every dispatch without a lock). A replaced
/// one is never freed: a dispatch may still be reading it.
static REGISTERED: AtomicPtr<Registered> = AtomicPtr::new(std::ptr::null_mut());

fn registered() -> Option<Registered> {
    let p = REGISTERED.load(Ordering::Acquire);
    // SAFETY: a leaked box, never freed.
    (!p.is_null()).then(|| unsafe { *p })
}

fn register(r: Option<Registered>) {
    let p = r.map_or(std::ptr::null_mut(), |r| Box::into_raw(Box::new(r)));
    REGISTERED.store(p, Ordering::Release);
}
/// `rocprofiler_stop_queue_callbacks` was called (and no start since).
static STOPPED: AtomicBool = AtomicBool::new(false);
/// A tool registered a dispatch callback (it needs intercept queues).
static WANTS_DISPATCHES: AtomicBool = AtomicBool::new(false);

/// The HSA interception a tool's dispatch callback needs: 1 once one was
/// registered (typically from `OnLoadTool`, which runs before `OnLoad`
/// chooses the queue interception), else 0. Meant for
/// `tools::toollib::hsa_mode` to take into account (not wired yet: that
/// file is another part's).
#[allow(dead_code)]
pub fn requested_hsa_mode() -> u8 {
    WANTS_DISPATCHES.load(Ordering::Acquire) as u8
}

thread_local! {
    static IN_CALLBACK: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread is inside the tool's dispatch callback (where
/// waiting for a dispatch could block the very queue that runs it, and
/// where the hook cannot be removed: the backend holds it while calling).
pub fn in_dispatch_callback() -> bool {
    IN_CALLBACK.with(|c| c.get())
}

/// `hsa_completion_signal` of an AQL dispatch packet.
const PACKET_COMPLETION_SIGNAL: usize = 56;

/// A dispatch record handed to the tool: malloc'ed, the tool's to free
/// (whether or not it returned a group), as rocprofiler v1's records are.
#[derive(Clone, Copy)]
struct Record(*mut DispatchRecord);
// SAFETY: written once more (its completion time) on the signal thread,
// before the handler that reads it is called.
unsafe impl Send for Record {}

impl Record {
    /// Stamps the dispatch's begin and end and the completion time (called
    /// by value, so that a closure captures the whole `Record`, not its raw
    /// pointer).
    fn completed(self, times: [u64; 2]) {
        if !self.0.is_null() {
            // SAFETY: the record handed to the tool with this dispatch.
            unsafe {
                (*self.0).begin = times[0];
                (*self.0).end = times[1];
                (*self.0).complete = crate::hsa::proxy::timestamp();
            }
        }
    }
}

/// The record of a dispatch seen at `dispatch` (0: not on a timed queue,
/// and v1 gives a record only with timestamps on).
fn new_record(dispatch: u64) -> Record {
    if dispatch == 0 {
        return Record(std::ptr::null_mut());
    }
    // SAFETY: plain allocation of a plain struct.
    let p = unsafe { libc::malloc(std::mem::size_of::<DispatchRecord>()) as *mut DispatchRecord };
    if !p.is_null() {
        // SAFETY: freshly allocated, of the right size.
        unsafe { p.write(DispatchRecord { dispatch, begin: 0, end: 0, complete: 0 }) };
    }
    Record(p)
}

/// The tool hook: the tool's dispatch callback, and what to count for it.
fn hook(d: &DispatchInfo<'_>) -> Option<ToolRequest> {
    if STOPPED.load(Ordering::Acquire) {
        return None;
    }
    let reg = registered()?;
    let dispatch = reg.callbacks.dispatch?;
    // 5.2.3's optimised path (`OnSubmitCB_opt`, a tool's `opt_mode`) gives
    // no kernel name, object, code, thread or record.
    let full = !cltap::tools::toollib::opt_mode();
    let name = d.kernel.v1_name().filter(|_| full);
    let record = if full { new_record(d.dispatch_time) } else { Record(std::ptr::null_mut()) };
    let data = CallbackData {
        agent: Agent { handle: d.agent },
        agent_index: agent::named(d.agent).map_or(0, |g| g.index),
        queue: d.queue,
        queue_index: d.queue_index,
        queue_id: d.queue_number,
        completion_signal: u64::from_le_bytes(d.packet[PACKET_COMPLETION_SIGNAL..].try_into().ok()?),
        packet: d.packet.as_ptr() as *const c_void,
        kernel_name: name.map_or(std::ptr::null(), |n| n.as_ptr()),
        kernel_object: if full { d.kernel_object } else { 0 },
        // As 5.2.3: the kernel object's host address (the loader's), read
        // by tools as an `amd_kernel_code_t`: with code objects v3+ it is
        // the kernel descriptor, whose `compute_pgm_rsrc1` is at the same
        // offset (48), which is all rocprofiler's own tool reads of it.
        kernel_code: if full {
            crate::hsa::kernels::host_address(d.kernel_object) as *const c_void
        } else {
            std::ptr::null()
        },
        // SAFETY: a plain system call.
        thread_id: if full { unsafe { libc::syscall(libc::SYS_gettid) as u32 } } else { 0 },
        record: record.0,
    };
    let mut group = Group::EMPTY;
    // Saved and restored: the callback may itself submit a dispatch.
    let was = IN_CALLBACK.with(|c| c.replace(true));
    // SAFETY: the tool's callback, with its own data; `data` and `name` outlive the call.
    let st = unsafe { dispatch(&data, reg.data as *mut c_void, &mut group) };
    IN_CALLBACK.with(|c| c.set(was));
    // A declined dispatch's record stays the tool's, as in rocprofiler
    // (which never frees it either): the tool may have kept the pointer.
    (st == status::SUCCESS && !group.context.is_null() && group.feature_count > 0)
        .then(|| request(&group, record))
        .flatten()
}

/// What to count for the group the tool returned.
fn request(group: &Group, record: Record) -> Option<ToolRequest> {
    let ctx = match registry::get(group.context as usize) {
        Ok(c) => c,
        Err(e) => {
            cltap::warn!("rocprofiler dispatch callback returned a group of {e}; the dispatch is not counted");
            return None;
        }
    };
    let (collection, events) = Collection::start(ctx, group.index).ok()?;
    let events: Vec<_> = events.into_iter().filter(counters::valid).collect();
    if events.is_empty() {
        return None;
    }
    let done = move |values: &std::collections::BTreeMap<_, u64>, times: [u64; 2]| {
        record.completed(times);
        collection.finish(values);
    };
    Some(ToolRequest { events, done: Box::new(done) })
}

/// `hsa_status_t rocprofiler_set_queue_callbacks(rocprofiler_queue_callbacks_t, void* data)`.
///
/// # Safety
/// The callbacks are NULL or functions of rocprofiler's queue-callback types, accepting `data`.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_set_queue_callbacks(callbacks: QueueCallbacks, data: *mut c_void) -> u32 {
    call("rocprofiler_set_queue_callbacks", || {
        register(Some(Registered { callbacks, data: data as usize }));
        STOPPED.store(false, Ordering::Release);
        if callbacks.dispatch.is_some() {
            WANTS_DISPATCHES.store(true, Ordering::Release);
        }
        if !in_dispatch_callback() {
            counters::set_tool_hook(Some(Box::new(hook)));
        }
        crate::hsa::intercept::set_queue_hook(
            callbacks.create.map(|_| on_queue_created as crate::hsa::intercept::QueueHook),
        );
        if callbacks.destroy.is_some() {
            // Takes effect when the runtime loads cltap: a tool registering
            // from its `OnLoadTool` is in time (docs/rocprofiler-v1.md).
            crate::hsa::in_front::put_in_front(
                crate::hsa::api::id::hsa_queue_destroy,
                queue_destroy as *const () as usize,
            );
        }
        Ok(())
    })
}

/// An intercept queue was made: the tool's `create` callback, as 5.2.3
/// calls it (its status is not the application's: cltap never changes
/// what the application's call returns).
fn on_queue_created(queue: *mut c_void) {
    if let Some(f) = registered().and_then(|r| r.callbacks.create.map(|f| (f, r.data))) {
        // SAFETY: the tool's callback, with its own data.
        unsafe { (f.0)(queue, f.1 as *mut c_void) };
    }
}

/// `hsa_queue_destroy` with a `destroy` callback registered: for an
/// intercept queue, the callback first, as 5.2.3 calls it; then cltap's
/// own entry, whatever the callback returned.
///
/// # Safety
/// `queue` is a live queue, destroyed here once.
unsafe extern "C" fn queue_destroy(queue: *mut c_void) -> u32 {
    if crate::guard::guard_at("hsa_queue_destroy", false, || crate::hsa::intercept::intercepted(queue as usize, true)) {
        if let Some((f, data)) = registered().and_then(|r| r.callbacks.destroy.map(|f| (f, r.data))) {
            // SAFETY: `f` gets arguments its C declaration accepts.
            crate::guard::guard(0, || unsafe { f(queue, data as *mut c_void) });
        }
    }
    let next = crate::hsa::in_front::next(crate::hsa::api::id::hsa_queue_destroy);
    if next == 0 {
        return 0x1000;
    }
    // SAFETY: the address is that entry's, and this type its C prototype.
    let next: unsafe extern "C" fn(*mut c_void) -> u32 = unsafe { std::mem::transmute(next) };
    // SAFETY: `next` gets arguments its C declaration accepts.
    unsafe { next(queue) }
}

/// `hsa_status_t rocprofiler_remove_queue_callbacks()`.
#[no_mangle]
pub extern "C" fn rocprofiler_remove_queue_callbacks() -> u32 {
    call("rocprofiler_remove_queue_callbacks", || {
        register(None);
        // From inside the callback the hook stays installed, without callbacks.
        if !in_dispatch_callback() {
            counters::set_tool_hook(None);
        }
        Ok(())
    })
}

/// `hsa_status_t rocprofiler_start_queue_callbacks()`.
#[no_mangle]
pub extern "C" fn rocprofiler_start_queue_callbacks() -> u32 {
    call("rocprofiler_start_queue_callbacks", || {
        STOPPED.store(false, Ordering::Release);
        Ok(())
    })
}

/// `hsa_status_t rocprofiler_stop_queue_callbacks()`.
#[no_mangle]
pub extern "C" fn rocprofiler_stop_queue_callbacks() -> u32 {
    call("rocprofiler_stop_queue_callbacks", || -> Result<(), RocpError> {
        STOPPED.store(true, Ordering::Release);
        Ok(())
    })
}
