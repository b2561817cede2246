//! Device timing at the ABI (`CLTAP_DEVICE_TIMING=1`): the driver calls.
//! Profiling is forced on every queue and hidden from the application:
//! queue queries answer with the application's own properties, and
//! profiling queries on a queue the application did not make for profiling
//! still fail as they would have. Each enqueue's event is held (cltap's
//! own where the application passed none, else the application's with one
//! reference of cltap's, hidden from `CL_EVENT_REFERENCE_COUNT`) in its
//! queue's list, and the lists are read in batches by cltap's reader thread
//! (`cltap::devtime::reader`), woken at the application's synchronisation
//! points and when a list grows past its bound, and at the end of the
//! process (`cltap::devtime::pending`). No callback is registered per
//! command, and no driver query of cltap's runs between the application's
//! enqueues. Every driver call here goes
//! straight to the driver through the object's own dispatch table, so none
//! of it is logged or seen by the application. What is kept and recorded
//! is decided in `cltap::devtime`.

use super::api::slot;
use super::handles;
use cltap::devtime::cl::CL_EVENT_COMMAND_EXECUTION_STATUS;
use cltap::devtime::clock::{self, HostSample};
use cltap::devtime::enqueue::{self, Enqueued, QueueDesc};
use cltap::devtime::memo::Memo;
use cltap::devtime::on;
use cltap::devtime::pending::{self, Held, QueueList, OUTSTANDING};
use cltap::devtime::queues::CL_QUEUE_PROPERTIES;
use cltap::devtime::reader::Reader;
use cltap::devtime::recent::{Generation, Recent};
use cltap::icd_table::object_slot;
use std::cell::RefCell;
use std::ffi::c_void;
use std::sync::Arc;

const CL_EVENT_COMMAND_QUEUE: u32 = 0x11D0;
const OUT_OF_ORDER: u64 = 1;
const CL_DEVICE_TYPE_CPU: u64 = 2;
const CL_COMPLETE: i32 = 0;
const CL_EVENT_REFERENCE_COUNT: u32 = 0x11D2;

pub(crate) mod fork;
mod hide;
mod kernels;
mod read;
pub use hide::{answer_queue_info, refuse_profiling, remember_bits, remember_list};
use hide::{EMPTY_LIST_TERMINATOR, REFUSES};
use kernels::{kernel_id, kernel_name};
pub use kernels::{kernel_refs, kernel_released, kernels_made};
use read::read_list;

static READER: Reader = Reader::new();
/// A GPU queue's first mark (see `QueueList::set_bound`).
const GPU_BOUND: usize = 4096;
/// Each application queue's list of held events (with what the records
/// need of the queue), by the application's handle.
static QUEUE_INFO: Memo<Arc<QueueList>> = Memo::new();
/// Bumped when a queue is forgotten (see `forget_queue`).
static QUEUE_GEN: Generation = Generation::new();

thread_local! {
    /// The thread's latest queues: an enqueue finds its list without a lock.
    static LATEST_QUEUES: RefCell<Recent<Arc<QueueList>, 4>> = const { RefCell::new(Recent::new()) };
}
/// Per driver device: its clock's offset to the host's, sampled once.
static CLOCKS: Memo<Option<i64>> = Memo::new();
/// The application synchronised (clFinish, clWaitForEvents, a blocking
/// enqueue): on its own thread, the lists are read here, as CLIntercept
/// reads at the application's synchronisation, so that no read of cltap's
/// runs in the driver beside the application's next enqueues; elsewhere (a
/// driver's callback thread) the reader is woken.
pub fn sync_point() {
    // Nothing held: nothing to read, no wake (a system call) to send.
    if on() && OUTSTANDING.get() > 0 {
        fork_handlers();
        if pending::on_app_thread() {
            read_all();
        } else {
            READER.wake();
        }
    }
}

/// An event found complete: the reader is woken, and the application goes
/// on without waiting for it (it may ask again and again).
fn poll_point() {
    if on() && OUTSTANDING.get() > 0 {
        fork_handlers();
        READER.wake();
        // A CPU device's lists are cltap's own work on the application's
        // thread, as before the reader (see `QueueList::set_read_by_enqueue`).
        if pending::any_read_by_enqueue() && pending::on_app_thread() {
            read_lists(|l| l.read_by_enqueue());
        }
    }
}

/// A queue or context is about to be released: its held events are read
/// first, where that is safe. This may come from the application's callback
/// on a driver's thread, where releasing an event is unsafe (see
/// `pending::on_app_thread`): there the reader does it.
pub fn before_release() {
    if !on() {
        return;
    }
    fork_handlers();
    if pending::on_app_thread() {
        read_all();
    } else {
        READER.wake();
    }
}

/// Reads every list once.
fn read_all() {
    read_lists(|_| true);
}

/// The reader thread's work: the lists it reads (not a CPU device's), past
/// their mark (the application's thread reads them at its synchronisation).
fn read_for_reader() {
    read_lists(|l| !l.read_by_enqueue() && l.is_due());
}

fn read_lists(which: impl Fn(&QueueList) -> bool) {
    pending::seen_all();
    for l in pending::lists() {
        if which(&l) {
            unsafe { read_list(&l) };
        }
    }
}

/// After the application's `clGetEventInfo` (driver handle `event`): an
/// event found complete is a synchronisation point, and the references
/// cltap holds are taken off the reference count it is told.
///
/// # Safety
/// `event` is the event the call asked about; `value` NULL or holding the `size` bytes the
/// driver answered with (result `r`).
pub unsafe fn event_info_answered(r: i32, event: *mut c_void, param: u32, size: usize, value: *mut c_void) {
    if r != 0 || !on() || value.is_null() || size < 4 {
        return;
    }
    fork_handlers();
    match param {
        // An application polling an event asks again and again: the first
        // answer after new enqueues wakes the reader, not every one.
        // SAFETY: the driver answered at least 4 bytes at `value` (checked above).
        CL_EVENT_COMMAND_EXECUTION_STATUS
            if unsafe { *(value as *const i32) } <= CL_COMPLETE && pending::held_since_read() =>
        {
            poll_point()
        }
        CL_EVENT_REFERENCE_COUNT => {
            // The driver's count and cltap's holds, taken together while no
            // read moves or releases a held event.
            // SAFETY: `info_fn`: the handle is a live object of the driver, its dispatch table first (# Safety).
            let Some(f) = (unsafe { info_fn(event, slot::clGetEventInfo) }) else { return };
            let (rc, held) = pending::between_reads(|| {
                // SAFETY: `read`: `f` is the info query of the handle's kind, its answer exactly a `T` (# Safety).
                (unsafe { read::<u32>(f, event, CL_EVENT_REFERENCE_COUNT) }, pending::holds(event as usize))
            });
            if let Some(rc) = rc {
                // SAFETY: `(value as *mut u32)` is valid for this access, as the caller promises (# Safety).
                unsafe { *(value as *mut u32) = rc.saturating_sub(held) };
            }
        }
        _ => {}
    }
}

/// At the end of the process: reads what completes within a short while
/// (commands that finished just before exit); what still runs is reported
/// as pending.
pub fn drain() {
    if !on() {
        return;
    }
    READER.stop();
    let t = std::time::Instant::now();
    loop {
        read_all();
        if OUTSTANDING.get() <= 0 || t.elapsed() > std::time::Duration::from_millis(250) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

type InfoFn = unsafe extern "C" fn(*mut c_void, u32, usize, *mut c_void, *mut usize) -> i32;

/// # Safety
/// `h` is a live object of the driver, its dispatch table first; `slot` is a slot of that table.
unsafe fn info_fn(h: *mut c_void, slot: usize) -> Option<InfoFn> {
    // SAFETY: `object_slot`: the object is a live ICD object, its dispatch table first (# Safety).
    let f = unsafe { object_slot(h, slot) };
    // SAFETY: the address is that entry's, and this type its C prototype.
    (!f.is_null()).then(|| unsafe { std::mem::transmute::<*const c_void, InfoFn>(f) })
}

/// A fixed-size answer of an info function (`T` a number or a handle).
///
/// # Safety
/// `f` is the driver's info query for `h`'s kind, and `param`'s answer is exactly a `T`.
unsafe fn read<T: Copy>(f: InfoFn, h: *mut c_void, param: u32) -> Option<T> {
    // SAFETY: all-zero bytes are a valid value of this C struct (# Safety).
    let mut v: T = unsafe { std::mem::zeroed() };
    // SAFETY: `f` gets arguments its C declaration accepts.
    (unsafe { f(h, param, std::mem::size_of::<T>(), &mut v as *mut T as *mut c_void, std::ptr::null_mut()) } == 0)
        .then_some(v)
}

/// A handle-valued answer, NULL when the driver would not give it.
///
/// # Safety
/// `f` is the driver's info query for `h`'s kind, and `param`'s answer is one handle.
unsafe fn handle_info(f: InfoFn, h: *mut c_void, param: u32) -> *mut c_void {
    // SAFETY: `f` and `h` are the caller's, as `read` needs them (# Safety); the answer is one handle.
    unsafe { read(f, h, param) }.unwrap_or(std::ptr::null_mut())
}

/// The list of the application's queue `app_queue`: the thread's latest
/// queues answer without a lock; otherwise the memo, or the driver's
/// answers about the queue the first time it is seen.
///
/// # Safety
/// `app_queue` is the application's handle of a live queue.
#[inline]
unsafe fn queue_list(app_queue: u64) -> Arc<QueueList> {
    let gen = QUEUE_GEN.now();
    if let Ok(Some(l)) = LATEST_QUEUES.try_with(|q| q.borrow().get(app_queue as usize, gen).cloned()) {
        return l;
    }
    let l = match QUEUE_INFO.get(app_queue as usize) {
        Some(l) => l,
        // SAFETY: a live queue of the application's (# Safety).
        None => unsafe { new_queue_list(app_queue) },
    };
    let _ = LATEST_QUEUES.try_with(|q| q.borrow_mut().put(app_queue as usize, gen, l.clone()));
    l
}

/// The list of a queue seen for the first time: its context (as the
/// application sees it), its device's name and clock offset, its order and
/// reading policy.
///
/// # Safety
/// As [`queue_list`].
#[cold]
unsafe fn new_queue_list(app_queue: u64) -> Arc<QueueList> {
    let hs = handles::if_ready();
    let real = hs.map_or(app_queue as *mut c_void, |h| h.unwrap(app_queue as *mut c_void));
    let (mut ctx, mut dev) = (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: `info_fn`: the handle is a live object of the driver, its dispatch table first (# Safety).
    if let Some(qi) = unsafe { info_fn(real, slot::clGetCommandQueueInfo) } {
        // SAFETY: `handle_info`: `f` is the info query of the handle's kind, its answer one handle (# Safety).
        ctx = unsafe { handle_info(qi, real, 0x1090) };
        // SAFETY: `handle_info`: `f` is the info query of the handle's kind, its answer one handle (# Safety).
        dev = unsafe { handle_info(qi, real, 0x1091) };
    }
    let mut in_order = false;
    // SAFETY: `info_fn`: the handle is a live object of the driver, its dispatch table first (# Safety).
    if let Some(qi) = unsafe { info_fn(real, slot::clGetCommandQueueInfo) } {
        // SAFETY: `read`: `f` is the info query of the handle's kind, its answer exactly a `T` (# Safety).
        in_order = unsafe { read::<u64>(qi, real, CL_QUEUE_PROPERTIES as u32) }.is_some_and(|p| p & OUT_OF_ORDER == 0);
    }
    let mut name = String::new();
    // SAFETY: `info_fn`: the handle is a live object of the driver, its dispatch table first (# Safety).
    if let Some(di) = (!dev.is_null()).then(|| unsafe { info_fn(dev, slot::clGetDeviceInfo) }).flatten() {
        let mut buf = [0u8; 256];
        let mut n = 0usize;
        // SAFETY: `di` gets arguments its C declaration accepts.
        if unsafe { di(dev, 0x102B, buf.len(), buf.as_mut_ptr() as *mut c_void, &mut n) } == 0 {
            name = enqueue::info_string(&buf, n);
        }
    }
    // SAFETY: `device_clock`'s # Safety follows from this fn's.
    let to_host = if dev.is_null() { None } else { unsafe { device_clock(dev) } };
    // CL_DEVICE_TYPE: a CPU device runs its commands on the host's cores.
    // SAFETY: `info_fn`'s conditions follow from this fn's; `read`: `f` is the info query of the handle's kind, its
    // answer exactly a `T` (# Safety).
    let cpu = (!dev.is_null())
        .then(|| unsafe { info_fn(dev, slot::clGetDeviceInfo) })
        .flatten()
        .and_then(|di| unsafe { read::<u64>(di, dev, 0x1000) })
        .is_some_and(|t| t & CL_DEVICE_TYPE_CPU != 0);
    let context = match hs {
        Some(h) if !ctx.is_null() => h.wrap(ctx) as u64,
        _ => ctx as u64,
    };
    let l = QueueList::new(QueueDesc { context, device: name.into(), to_host });
    l.set_in_order(in_order);
    l.set_read_by_enqueue(cpu);
    if !cpu {
        l.set_bound(GPU_BOUND);
    }
    if cpu {
        cltap::devtime::devices::note_cpu(&l.desc().device);
    }
    QUEUE_INFO.insert(app_queue as usize, l.clone());
    l
}

/// A new queue (`queue`, the driver's handle) may sit at the address of a
/// released one.
pub fn forget_queue(queue: *mut c_void) {
    let app = handles::if_ready().map_or(queue, |h| h.wrap(queue));
    QUEUE_INFO.forget(&[queue as usize, app as usize]);
    QUEUE_GEN.bump();
}

/// Nanoseconds to add to `dev`'s profiling times to get the host's
/// `CLOCK_MONOTONIC`, from `clGetDeviceAndHostTimer`. The driver's host
/// clock need not be `CLOCK_MONOTONIC`, so it is itself placed by reading
/// `clGetHostTimer` between two monotonic readings (the tightest of a few).
///
/// # Safety
/// `dev` is a live device of the driver.
unsafe fn device_clock(dev: *mut c_void) -> Option<i64> {
    if let Some(c) = CLOCKS.get(dev as usize) {
        return c;
    }
    // SAFETY: `sample_clock`'s # Safety follows from this fn's.
    let c = unsafe { sample_clock(dev) };
    CLOCKS.insert(dev as usize, c);
    c
}

/// The device's OpenCL version, from `CL_DEVICE_VERSION` ("OpenCL 3.0 …").
///
/// # Safety
/// `dev` is a live device of the driver.
unsafe fn device_version(dev: *mut c_void) -> Option<(u32, u32)> {
    // SAFETY: `info_fn`: the handle is a live object of the driver, its dispatch table first (# Safety).
    let di = unsafe { info_fn(dev, slot::clGetDeviceInfo) }?;
    let mut buf = [0u8; 128];
    // SAFETY: `di` gets arguments its C declaration accepts.
    if unsafe { di(dev, 0x102F, buf.len(), buf.as_mut_ptr() as *mut c_void, std::ptr::null_mut()) } != 0 {
        return None;
    }
    clock::cl_version(&buf)
}

/// # Safety
/// `dev` is a live device of the driver.
unsafe fn sample_clock(dev: *mut c_void) -> Option<i64> {
    // The timers came with OpenCL 2.1. An older driver's table may hold
    // anything in their slots: Oclgrind's leads back into the loader's own
    // entry point and recurses until the stack runs out.
    // SAFETY: `device_version`'s # Safety follows from this fn's.
    if unsafe { device_version(dev) }? < (2, 1) {
        return None;
    }
    type Both = unsafe extern "C" fn(*mut c_void, *mut u64, *mut u64) -> i32;
    type Host = unsafe extern "C" fn(*mut c_void, *mut u64) -> i32;
    // SAFETY: `object_slot`: the object is a live ICD object, its dispatch table first (# Safety).
    let both = unsafe { object_slot(dev, slot::clGetDeviceAndHostTimer) };
    // SAFETY: `object_slot`: the object is a live ICD object, its dispatch table first (# Safety).
    let host = unsafe { object_slot(dev, slot::clGetHostTimer) };
    if both.is_null() || host.is_null() {
        return None;
    }
    // SAFETY: the address is that entry's, and this type its C prototype.
    let (both, host) = (unsafe { std::mem::transmute::<*const c_void, Both>(both) }, unsafe {
        std::mem::transmute::<*const c_void, Host>(host)
    });
    let mono = cltap::trace::tsc::monotonic_ns;
    let (mut d, mut h) = (0u64, 0u64);
    // SAFETY: `both` gets arguments its C declaration accepts.
    if unsafe { both(dev, &mut d, &mut h) } != 0 || d == 0 {
        return None;
    }
    let mut samples = [HostSample { mono_before: 0, host: 0, mono_after: 0 }; 5];
    for s in samples.iter_mut() {
        let mut x = 0u64;
        let m0 = mono();
        // SAFETY: `host` gets arguments its C declaration accepts.
        let r = unsafe { host(dev, &mut x) };
        let m1 = mono();
        if r != 0 {
            return None;
        }
        *s = HostSample { mono_before: m0, host: x, mono_after: m1 };
    }
    clock::host_offset(d, h, &samples)
}

/// Before an enqueue (the application's arguments `app`): whether its
/// command is timed. Only inside the collection window (`inside`, as the
/// call's bracket decided) and, for a kernel launch (`launch`: the kernel
/// is `app[1]`), the kernel filter.
///
/// # Safety
/// `app` are the enqueue's argument words as the application passed them (its event
/// pointers NULL or writable).
#[inline]
pub unsafe fn wants(app: &[u64], launch: bool, inside: bool) -> bool {
    if !inside || !on() {
        return false;
    }
    fork_handlers();
    match cltap::kfilter::get() {
        Some(f) if launch => {
            let k = app[1] as *mut c_void;
            // SAFETY: `kernel_name`'s # Safety follows from this fn's.
            f.admit(unsafe { kernel_name(handles::if_ready().map_or(k, |h| h.unwrap(k))) }.as_deref())
        }
        _ => true,
    }
}

/// After an enqueue: hold its event until its times are read. `own`: the
/// event is cltap's (the application passed none); the application's
/// gets one more reference, given back once read. No lock (but the
/// list's own, which only a read of that list takes too), no allocation:
/// the queue's list and the kernel's name come from the thread's latest
/// look-ups, and the command is kept as the enqueue saw it (`Enqueued`).
///
/// # Safety
/// `event` is NULL or the live event the enqueue returned (cltap's own when `own`); `app` are
/// the enqueue's argument words.
pub unsafe fn track(id: usize, cmd_id: u64, t0: u64, ok: bool, event: *mut c_void, own: bool, app: &[u64]) {
    pending::mark_app_thread();
    READER.ensure(read_for_reader);
    if !ok || event.is_null() {
        return;
    }
    // SAFETY: `(event as *const *mut c_void)` is valid for this access (# Safety).
    let ev = unsafe { *(event as *const *mut c_void) };
    if ev.is_null() {
        return;
    }
    let f = &cltap::meta::FUNCTIONS[id];
    if !own {
        // SAFETY: `object_slot`: the object is a live ICD object, its dispatch table first (# Safety).
        let retain = unsafe { object_slot(ev, slot::clRetainEvent) };
        let r = if retain.is_null() {
            -59
        } else {
            // SAFETY: the entry called here gets arguments its C declaration accepts.
            unsafe { std::mem::transmute::<*const c_void, unsafe extern "C" fn(*mut c_void) -> i32>(retain)(ev) }
        };
        if r != 0 {
            cltap::devtime::untimed(cmd_id, f.name, format!("the event could not be retained ({r})"));
            return;
        }
    }
    // SAFETY: `app` are the arguments of a call to `f` that succeeded (an event was returned).
    let launch = unsafe { enqueue::launch(f, app) };
    // SAFETY: the kernel of a successful enqueue is live; unwrapped to the driver's handle.
    let kernel = launch.kernel.and_then(|k| unsafe {
        kernel_id(handles::if_ready().map_or(k as *mut c_void, |h| h.unwrap(k as *mut c_void)))
    });
    // SAFETY: app[0] is the queue of a successful enqueue.
    let list = unsafe { queue_list(app[0]) };
    let cmd = Enqueued {
        tid: cltap::trace::process::thread_id(),
        enqueue_tsc: t0,
        enqueue_end_tsc: cltap::trace::tsc::now(),
        ..Enqueued::new(cmd_id, f.name, app[0], kernel, launch)
    };
    OUTSTANDING.add();
    match list.push(Held { ev: ev as usize, cmd, inherited: false }) {
        pending::Due::Nothing => {}
        // The enqueue that takes a list to its mark reads it, between the
        // application's enqueues rather than beside them: a CPU device's
        // commands run on the cores a reader thread would take from them,
        // and on NVIDIA's driver a reader's queries beside a burst of
        // enqueues cost each enqueue more than the reads themselves
        // (docs/device-timing.md#held-events-and-who-reads-them).
        // SAFETY: every held event carries cltap's reference (the retain above).
        pending::Due::Mark | pending::Due::ReadNow => unsafe { read_list(&list) },
    }
}

/// Gives back cltap's reference on a held event.
///
/// # Safety
/// `ev` is a live event cltap holds one reference on, given back here once.
unsafe fn release(ev: *mut c_void) {
    // SAFETY: `object_slot`: the object is a live ICD object, its dispatch table first (# Safety).
    let rel = unsafe { object_slot(ev, slot::clReleaseEvent) };
    if !rel.is_null() {
        // SAFETY: the address is that entry's, and this type its C prototype.
        let rel: unsafe extern "C" fn(*mut c_void) -> i32 = unsafe { std::mem::transmute(rel) };
        // SAFETY: `rel` gets arguments its C declaration accepts.
        unsafe { rel(ev) };
    }
}

/// Registers the fork handlers, on device timing's first use.
fn fork_handlers() {
    crate::fork::register();
}
