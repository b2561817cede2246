//! Device timing at the ABI (`CLTAP_DEVICE_TIMING=1`). Profiling is forced
//! on every queue and hidden from the application: queue queries answer with
//! the application's own properties, and profiling queries on a queue the
//! application did not make for profiling still fail as they would have.
//! Each enqueue's event gets a completion callback that reads its counters;
//! where the application passed no event, cltap's own is released there.
//! Every driver call here goes straight to the driver through the object's
//! own dispatch table, so none of it is logged or seen by the application.

use crate::gen;
use cltap::devtime::{self, Command};
use cltap::dispatch::object_slot;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

static ON: AtomicBool = AtomicBool::new(false);
/// Commands whose completion has not been seen yet.
static PENDING: AtomicI64 = AtomicI64::new(0);

const CL_QUEUE_PROFILING_ENABLE: u64 = 1 << 1;
const CL_QUEUE_PROPERTIES: u64 = 0x1093;
const CL_QUEUE_PROPERTIES_ARRAY: u32 = 0x1098;
const CL_EVENT_COMMAND_QUEUE: u32 = 0x11D0;
const CL_COMPLETE: i32 = 0;
const CL_PROFILING_COMMAND_QUEUED: u32 = 0x1280;

/// What the application asked of a queue.
struct AppQueue {
    profiling: bool,
    /// Its `cl_queue_properties` list, for CL_QUEUE_PROPERTIES_ARRAY.
    list: Option<Vec<u64>>,
}

static QUEUES: Mutex<Option<HashMap<usize, AppQueue>>> = Mutex::new(None);
static KERNEL_NAMES: Mutex<Option<HashMap<usize, String>>> = Mutex::new(None);

pub fn enable(on: bool) {
    ON.store(on, Ordering::Release);
}

#[inline(always)]
pub fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

pub fn force_bits(props: u64) -> u64 {
    if on() {
        props | CL_QUEUE_PROFILING_ENABLE
    } else {
        props
    }
}

pub unsafe fn remember_bits(queue: *mut c_void, app: u64) {
    if on() && !queue.is_null() {
        forget_queue(queue);
        let profiling = app & CL_QUEUE_PROFILING_ENABLE != 0;
        QUEUES.lock().get_or_insert_with(HashMap::new).insert(queue as usize, AppQueue { profiling, list: None });
    }
}

static REFUSES: Mutex<Option<HashMap<usize, bool>>> = Mutex::new(None);

/// Whether this queue's driver refuses profiling queries for commands of a
/// queue made without profiling, as the specification says it must (some
/// drivers, such as Oclgrind, answer anyway). Probed once per driver, the
/// first time an application asks such a question, with a marker on a
/// scratch queue straight through the driver. The scratch queue and event
/// are kept: releasing them right after the marker completes races with
/// PoCL's worker thread.
unsafe fn driver_refuses(queue: *mut c_void) -> bool {
    let slot = |h: *mut c_void, s: usize| object_slot(h, s);
    let Some(qi) = info_fn(queue, gen::slot::clGetCommandQueueInfo) else { return true };
    let (ctx, dev) = (handle_info(qi, queue, 0x1090), handle_info(qi, queue, 0x1091));
    if ctx.is_null() || dev.is_null() {
        return true;
    }
    let key = cltap::exts::key_of(queue) as usize;
    if let Some(&r) = REFUSES.lock().as_ref().and_then(|m| m.get(&key)) {
        return r;
    }
    let probe = || -> Option<bool> {
        let create = slot(ctx, gen::slot::clCreateCommandQueue);
        let marker = slot(queue, gen::slot::clEnqueueMarkerWithWaitList);
        if create.is_null() || marker.is_null() {
            return None;
        }
        let create: unsafe extern "C" fn(*mut c_void, *mut c_void, u64, *mut i32) -> *mut c_void = std::mem::transmute(create);
        let mut err = 0;
        let q = create(ctx, dev, 0, &mut err);
        if q.is_null() {
            return None;
        }
        let marker: unsafe extern "C" fn(*mut c_void, u32, *const c_void, *mut *mut c_void) -> i32 = std::mem::transmute(slot(q, gen::slot::clEnqueueMarkerWithWaitList));
        let mut ev: *mut c_void = std::ptr::null_mut();
        let mut refuses = None;
        if marker(q, 0, std::ptr::null(), &mut ev) == 0 && !ev.is_null() {
            let finish: unsafe extern "C" fn(*mut c_void) -> i32 = std::mem::transmute(slot(q, gen::slot::clFinish));
            finish(q);
            let pi = info_fn(ev, gen::slot::clGetEventProfilingInfo)?;
            refuses = Some(read::<u64>(pi, ev, CL_PROFILING_COMMAND_QUEUED + 3).is_none());
        }
        refuses
    };
    let r = probe().unwrap_or(true);
    REFUSES.lock().get_or_insert_with(HashMap::new).insert(key, r);
    r
}

/// The list with profiling added to CL_QUEUE_PROPERTIES (or the pair added).
pub unsafe fn force_list(list: *mut c_void) -> Option<Vec<u64>> {
    if !on() {
        return None;
    }
    let mut v = read_list(list as *const u64);
    match v.chunks_exact_mut(2).find(|kv| kv[0] == CL_QUEUE_PROPERTIES) {
        Some(kv) => kv[1] |= CL_QUEUE_PROFILING_ENABLE,
        None => v.extend([CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE]),
    }
    v.push(0);
    Some(v)
}

/// A property list's pairs, without the terminator.
unsafe fn read_list(list: *const u64) -> Vec<u64> {
    let mut v = Vec::new();
    if list.is_null() {
        return v;
    }
    let mut i = 0;
    while i < 256 && *list.add(i) != 0 {
        v.push(*list.add(i));
        v.push(*list.add(i + 1));
        i += 2;
    }
    v
}

pub unsafe fn remember_list(queue: *mut c_void, app: *mut c_void) {
    if !on() || queue.is_null() {
        return;
    }
    forget_queue(queue);
    let pairs = read_list(app as *const u64);
    let profiling = pairs.chunks_exact(2).any(|kv| kv[0] == CL_QUEUE_PROPERTIES && kv[1] & CL_QUEUE_PROFILING_ENABLE != 0);
    let list = (!app.is_null()).then(|| {
        let mut l = pairs.clone();
        l.push(0);
        l
    });
    QUEUES.lock().get_or_insert_with(HashMap::new).insert(queue as usize, AppQueue { profiling, list });
}

/// Answers a queue query whose true answer would reveal the forced flag.
pub unsafe fn answer_queue_info(queue: *mut c_void, param: u32, size: usize, value: *mut c_void, size_ret: *mut usize) -> Option<i32> {
    if !on() {
        return None;
    }
    let g = QUEUES.lock();
    let q = g.as_ref()?.get(&(queue as usize))?;
    let bytes: Vec<u8> = match param as u64 {
        CL_QUEUE_PROPERTIES => {
            // The driver's answer with only the profiling bit put back.
            drop(g);
            let f = info_fn(queue, gen::slot::clGetCommandQueueInfo)?;
            let mut v: u64 = read(f, queue, param)?;
            let app_profiling = QUEUES.lock().as_ref().and_then(|m| m.get(&(queue as usize)).map(|q| q.profiling)).unwrap_or(true);
            if !app_profiling {
                v &= !CL_QUEUE_PROFILING_ENABLE;
            }
            v.to_ne_bytes().to_vec()
        }
        _ if param == CL_QUEUE_PROPERTIES_ARRAY => match q.list.clone() {
            Some(mut l) => {
                drop(g);
                // `l` ends in the terminator; drivers differ on returning it.
                if !returns_terminator(queue, l.len() == 1) {
                    l.pop();
                }
                l.iter().flat_map(|w| w.to_ne_bytes()).collect()
            }
            None => Vec::new(),
        },
        _ => return None,
    };
    if !value.is_null() {
        if size < bytes.len() {
            return Some(-30); // CL_INVALID_VALUE, as the driver would say
        }
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), value as *mut u8, bytes.len());
    }
    if !size_ret.is_null() {
        *size_ret = bytes.len();
    }
    Some(0)
}

/// Per driver: whether it returns the terminator for a queue made with the
/// empty list `{0}` (PoCL and Intel do, NVIDIA answers with no entries).
static EMPTY_LIST_TERMINATOR: Mutex<Option<HashMap<usize, bool>>> = Mutex::new(None);

/// Whether `queue`'s driver includes the terminator in its
/// `CL_QUEUE_PROPERTIES_ARRAY` answer. For a non-empty list the driver's
/// answer about the list it was given (pairs, so an odd count means a
/// terminator) says; for an empty one a scratch queue made with `{0}` is
/// asked, once per driver.
unsafe fn returns_terminator(queue: *mut c_void, empty: bool) -> bool {
    let Some(qi) = info_fn(queue, gen::slot::clGetCommandQueueInfo) else { return true };
    let words = |q: *mut c_void| {
        let mut n = 0usize;
        (qi(q, CL_QUEUE_PROPERTIES_ARRAY, 0, std::ptr::null_mut(), &mut n) == 0).then_some(n / 8)
    };
    if !empty {
        return words(queue).is_none_or(|n| n % 2 == 1);
    }
    let key = cltap::exts::key_of(queue) as usize;
    if let Some(&t) = EMPTY_LIST_TERMINATOR.lock().as_ref().and_then(|m| m.get(&key)) {
        return t;
    }
    let probe = || -> Option<bool> {
        let (ctx, dev) = (handle_info(qi, queue, 0x1090), handle_info(qi, queue, 0x1091));
        let create = object_slot(ctx, gen::slot::clCreateCommandQueueWithProperties);
        if ctx.is_null() || dev.is_null() || create.is_null() {
            return None;
        }
        let create: unsafe extern "C" fn(*mut c_void, *mut c_void, *const u64, *mut i32) -> *mut c_void = std::mem::transmute(create);
        let empty = [0u64];
        let mut err = 0;
        let q = create(ctx, dev, empty.as_ptr(), &mut err);
        if q.is_null() {
            return None;
        }
        let n = words(q);
        let release = object_slot(q, gen::slot::clReleaseCommandQueue);
        if !release.is_null() {
            std::mem::transmute::<*const c_void, unsafe extern "C" fn(*mut c_void) -> i32>(release)(q);
        }
        n.map(|n| n > 0)
    };
    let t = probe().unwrap_or(true);
    EMPTY_LIST_TERMINATOR.lock().get_or_insert_with(HashMap::new).insert(key, t);
    t
}

/// `CL_PROFILING_INFO_NOT_AVAILABLE` for an event of a queue the application
/// did not create for profiling.
pub unsafe fn refuse_profiling(event: *mut c_void) -> Option<i32> {
    if !on() || event.is_null() {
        return None;
    }
    let f = info_fn(event, gen::slot::clGetEventInfo)?;
    let q = handle_info(f, event, CL_EVENT_COMMAND_QUEUE);
    if q.is_null() {
        return None;
    }
    let profiling = QUEUES.lock().as_ref()?.get(&(q as usize))?.profiling;
    (!profiling && driver_refuses(q)).then_some(-7)
}

struct Pending {
    /// Taken by whoever claims the completion (see `claimed`).
    cmd: std::cell::UnsafeCell<Option<Command>>,
    own: bool,
    /// The event, released with the box when it is cltap's own: only once
    /// the driver is done calling back, so it never calls back on a freed one.
    ev: *mut c_void,
    /// Set by whichever of the callback and the check after registration
    /// reads the counters first; the other leaves it alone.
    claimed: AtomicBool,
    /// Holders of this box: the enqueue path and the callback. The last
    /// one frees it (a driver that never calls back leaks only its own).
    refs: std::sync::atomic::AtomicU8,
}

impl Pending {
    /// `in_callback`: called from the driver's completion callback, where
    /// the event must not be released (see `start_reaper`). Elsewhere (the
    /// application's own thread) it is released at once: a reaper thread
    /// calling into a driver that is not thread-safe (Oclgrind) would be
    /// worse.
    unsafe fn release(p: *mut Pending, in_callback: bool) {
        if (*p).refs.fetch_sub(1, Ordering::AcqRel) == 1 {
            let b = Box::from_raw(p);
            if b.own && in_callback {
                release_later(b.ev);
            } else {
                release_own(b.ev, b.own);
            }
        }
    }
}

/// cltap's own events, read and waiting to be released.
static RELEASE_LATER: Mutex<Vec<usize>> = Mutex::new(Vec::new());

thread_local! {
    /// This thread has enqueued work: it is the application's. A driver that
    /// runs completion callbacks on such a thread (Oclgrind, inside clFinish)
    /// is not thread-safe enough for the reaper, and releasing there is what
    /// it expects.
    static APP_THREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}
static REAPER_WAKE: parking_lot::Condvar = parking_lot::Condvar::new();
static REAPER: std::sync::Once = std::sync::Once::new();

/// Releases cltap's own events on a thread of its own, promptly but never
/// inside a driver callback: NVIDIA's driver crashes or hangs when an event
/// loses its last reference in its own callback. Prompt matters, because a
/// pending event keeps its context alive (and its destructor callbacks
/// waiting).
fn start_reaper() {
    REAPER.call_once(|| {
        let _ = std::thread::Builder::new().name("cltap-reaper".into()).spawn(|| {
            unsafe {
                let mut all: libc::sigset_t = std::mem::zeroed();
                libc::sigfillset(&mut all);
                libc::pthread_sigmask(libc::SIG_BLOCK, &all, std::ptr::null_mut());
            }
            loop {
                let evs = {
                    let mut v = RELEASE_LATER.lock();
                    while v.is_empty() {
                        REAPER_WAKE.wait(&mut v);
                    }
                    std::mem::take(&mut *v)
                };
                for ev in evs {
                    unsafe { release_own(ev as *mut c_void, true) };
                }
            }
        });
    });
}

fn release_later(ev: *mut c_void) {
    start_reaper();
    let was_empty = {
        let mut v = RELEASE_LATER.lock();
        v.push(ev as usize);
        v.len() == 1
    };
    // The reaper takes the whole list when it wakes: one wake-up (a futex
    // call) per batch, not per event.
    if was_empty {
        REAPER_WAKE.notify_one();
    }
}

/// At the end of the process: whatever is still waiting.
pub fn release_pending_events() {
    let evs = std::mem::take(&mut *RELEASE_LATER.lock());
    for ev in evs {
        unsafe { release_own(ev as *mut c_void, true) };
    }
}

unsafe fn kernel_name(kernel: *mut c_void) -> Option<String> {
    if kernel.is_null() {
        return None;
    }
    if let Some(n) = KERNEL_NAMES.lock().as_ref().and_then(|m| m.get(&(kernel as usize)).cloned()) {
        return Some(n);
    }
    let f = info_fn(kernel, gen::slot::clGetKernelInfo)?;
    let mut buf = [0u8; 256];
    let mut n = 0usize;
    if f(kernel, 0x1190, buf.len(), buf.as_mut_ptr() as *mut c_void, &mut n) != 0 {
        return None;
    }
    let name = String::from_utf8_lossy(&buf[..n.saturating_sub(1).min(buf.len())]).into_owned();
    KERNEL_NAMES.lock().get_or_insert_with(HashMap::new).insert(kernel as usize, name.clone());
    Some(name)
}

/// What the records need of a queue, looked up once per queue.
struct QueueInfo {
    context: u64,
    device: std::sync::Arc<str>,
    to_host: Option<i64>,
}

static QUEUE_INFO: Mutex<Option<HashMap<usize, std::sync::Arc<QueueInfo>>>> = Mutex::new(None);
/// Per driver device: its clock's offset to the host's, sampled once.
static CLOCKS: Mutex<Option<HashMap<usize, Option<i64>>>> = Mutex::new(None);

type InfoFn = unsafe extern "C" fn(*mut c_void, u32, usize, *mut c_void, *mut usize) -> i32;

unsafe fn info_fn(h: *mut c_void, slot: usize) -> Option<InfoFn> {
    let f = object_slot(h, slot);
    (!f.is_null()).then(|| std::mem::transmute::<*const c_void, InfoFn>(f))
}

/// A fixed-size answer of an info function (`T` a number or a handle).
unsafe fn read<T: Copy>(f: InfoFn, h: *mut c_void, param: u32) -> Option<T> {
    let mut v: T = std::mem::zeroed();
    (f(h, param, std::mem::size_of::<T>(), &mut v as *mut T as *mut c_void, std::ptr::null_mut()) == 0).then_some(v)
}

/// A handle-valued answer, NULL when the driver would not give it.
unsafe fn handle_info(f: InfoFn, h: *mut c_void, param: u32) -> *mut c_void {
    read(f, h, param).unwrap_or(std::ptr::null_mut())
}

/// The application's queue `app_queue`: its context (as the application
/// sees it), its device's name and clock offset.
unsafe fn queue_info(app_queue: u64) -> std::sync::Arc<QueueInfo> {
    if let Some(q) = QUEUE_INFO.lock().as_ref().and_then(|m| m.get(&(app_queue as usize)).cloned()) {
        return q;
    }
    let hs = crate::icd_mode::handles_if_ready();
    let real = hs.map_or(app_queue as *mut c_void, |h| h.unwrap(app_queue as *mut c_void));
    let (mut ctx, mut dev) = (std::ptr::null_mut(), std::ptr::null_mut());
    if let Some(qi) = info_fn(real, gen::slot::clGetCommandQueueInfo) {
        ctx = handle_info(qi, real, 0x1090);
        dev = handle_info(qi, real, 0x1091);
    }
    let mut name = String::new();
    if let Some(di) = (!dev.is_null()).then(|| info_fn(dev, gen::slot::clGetDeviceInfo)).flatten() {
        let mut buf = [0u8; 256];
        let mut n = 0usize;
        if di(dev, 0x102B, buf.len(), buf.as_mut_ptr() as *mut c_void, &mut n) == 0 {
            name = String::from_utf8_lossy(&buf[..n.saturating_sub(1).min(buf.len())]).into_owned();
        }
    }
    let to_host = if dev.is_null() { None } else { device_clock(dev) };
    let context = match hs {
        Some(h) if !ctx.is_null() => h.wrap(ctx) as u64,
        _ => ctx as u64,
    };
    let q = std::sync::Arc::new(QueueInfo { context, device: name.into(), to_host });
    QUEUE_INFO.lock().get_or_insert_with(HashMap::new).insert(app_queue as usize, q.clone());
    q
}

/// A new queue (`queue`, the driver's handle) may sit at the address of a
/// released one.
pub fn forget_queue(queue: *mut c_void) {
    let app = crate::icd_mode::handles_if_ready().map_or(queue, |h| h.wrap(queue));
    if let Some(m) = QUEUE_INFO.lock().as_mut() {
        m.remove(&(queue as usize));
        m.remove(&(app as usize));
    }
}

/// Nanoseconds to add to `dev`'s profiling times to get the host's
/// `CLOCK_MONOTONIC`, from `clGetDeviceAndHostTimer`. The driver's host
/// clock need not be `CLOCK_MONOTONIC`, so it is itself placed by reading
/// `clGetHostTimer` between two monotonic readings (the tightest of a few).
unsafe fn device_clock(dev: *mut c_void) -> Option<i64> {
    if let Some(c) = CLOCKS.lock().as_ref().and_then(|m| m.get(&(dev as usize)).copied()) {
        return c;
    }
    let c = sample_clock(dev);
    CLOCKS.lock().get_or_insert_with(HashMap::new).insert(dev as usize, c);
    c
}

/// The device's OpenCL version, from `CL_DEVICE_VERSION` ("OpenCL 3.0 …").
unsafe fn device_version(dev: *mut c_void) -> Option<(u32, u32)> {
    let di = info_fn(dev, gen::slot::clGetDeviceInfo)?;
    let mut buf = [0u8; 128];
    if di(dev, 0x102F, buf.len(), buf.as_mut_ptr() as *mut c_void, std::ptr::null_mut()) != 0 {
        return None;
    }
    let text = String::from_utf8_lossy(&buf);
    let v = text.strip_prefix("OpenCL ")?.split(|c: char| c == ' ' || c == '\0').next()?;
    let (major, minor) = v.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

unsafe fn sample_clock(dev: *mut c_void) -> Option<i64> {
    // The timers came with OpenCL 2.1. An older driver's table may hold
    // anything in their slots: Oclgrind's leads back into the loader's own
    // entry point and recurses until the stack runs out.
    if device_version(dev)? < (2, 1) {
        return None;
    }
    type Both = unsafe extern "C" fn(*mut c_void, *mut u64, *mut u64) -> i32;
    type Host = unsafe extern "C" fn(*mut c_void, *mut u64) -> i32;
    let both = object_slot(dev, gen::slot::clGetDeviceAndHostTimer);
    let host = object_slot(dev, gen::slot::clGetHostTimer);
    if both.is_null() || host.is_null() {
        return None;
    }
    let (both, host): (Both, Host) = (std::mem::transmute(both), std::mem::transmute(host));
    let mono = cltap::trace::tsc::monotonic_ns;
    let (mut d, mut h) = (0u64, 0u64);
    if both(dev, &mut d, &mut h) != 0 || d == 0 {
        return None;
    }
    let mut best: Option<(u64, i64)> = None;
    for _ in 0..5 {
        let mut x = 0u64;
        let m0 = mono();
        let r = host(dev, &mut x);
        let m1 = mono();
        if r != 0 {
            return None;
        }
        let window = m1 - m0;
        let host_minus_mono = x as i64 - (m0 + window / 2) as i64;
        if best.is_none_or(|(w, _)| window < w) {
            best = Some((window, host_minus_mono));
        }
    }
    let (_, host_minus_mono) = best?;
    Some(h as i64 - d as i64 - host_minus_mono)
}

unsafe fn words(p: u64, n: usize) -> Vec<usize> {
    if p == 0 {
        return Vec::new();
    }
    std::slice::from_raw_parts(p as *const usize, n.min(3)).to_vec()
}

/// After an enqueue: follow its event to completion.
pub unsafe fn track(id: usize, cmd_id: u64, t0: u64, ok: bool, event: *mut c_void, own: bool, app: &[u64]) {
    let _ = APP_THREAD.try_with(|a| a.set(true));
    if !ok || event.is_null() {
        return;
    }
    let ev = *(event as *const *mut c_void);
    if ev.is_null() {
        return;
    }
    let f = &cltap::meta::FUNCTIONS[id];
    let arg = |name: &str| f.params.iter().position(|p| p.name == name).map(|i| app[i]);
    let (mut kernel, mut global, mut local, mut bytes) = (None, Vec::new(), None, None);
    if f.name == "clEnqueueNDRangeKernel" {
        let dim = arg("work_dim").unwrap_or(0) as usize;
        kernel = kernel_name(crate::icd_mode::handles_if_ready().map_or(app[1] as *mut c_void, |h| h.unwrap(app[1] as *mut c_void)));
        global = words(arg("global_work_size").unwrap_or(0), dim);
        local = arg("local_work_size").filter(|&p| p != 0).map(|p| words(p, dim));
    } else if f.name == "clEnqueueTask" {
        kernel = kernel_name(crate::icd_mode::handles_if_ready().map_or(app[1] as *mut c_void, |h| h.unwrap(app[1] as *mut c_void)));
        global = vec![1];
    } else {
        bytes = arg("cb").or_else(|| arg("size"));
    }
    let qi = queue_info(app[0]);
    let p = Box::new(Pending {
        cmd: std::cell::UnsafeCell::new(Some(Command {
            cmd_id,
            api: f.name,
            tid: cltap::trace::writer::thread_id(),
            queue: app[0],
            context: qi.context,
            device: qi.device.clone(),
            cmd_type: 0,
            to_host: qi.to_host,
            kernel,
            global,
            local,
            bytes,
            queued: 0,
            submit: 0,
            start: 0,
            end: 0,
            status: 0,
            enqueue_tsc: t0,
            enqueue_end_tsc: cltap::trace::tsc::now(),
        })),
        own,
        ev,
        claimed: AtomicBool::new(false),
        refs: std::sync::atomic::AtomicU8::new(2),
    });
    let set = object_slot(ev, gen::slot::clSetEventCallback);
    if set.is_null() {
        devtime::untimed(cmd_id, f.name, "the driver has no clSetEventCallback".into());
        release_own(ev, own);
        return;
    }
    let set: unsafe extern "C" fn(*mut c_void, i32, *mut c_void, *mut c_void) -> i32 = std::mem::transmute(set);
    let raw = Box::into_raw(p);
    PENDING.fetch_add(1, Ordering::AcqRel);
    let r = set(ev, CL_COMPLETE, on_complete as *mut c_void, raw as *mut c_void);
    if r != 0 {
        PENDING.fetch_sub(1, Ordering::AcqRel);
        drop(Box::from_raw(raw));
        devtime::untimed(cmd_id, f.name, format!("clSetEventCallback failed ({r})"));
        release_own(ev, own);
        return;
    }
    // Some drivers (Oclgrind) never call back for an event that had already
    // completed when the callback was set: read those now.
    let status = info_fn(ev, gen::slot::clGetEventInfo).and_then(|f| read::<i32>(f, ev, 0x11D3));
    if let Some(st) = status.filter(|&st| st <= CL_COMPLETE) {
        complete(ev, st, raw);
    }
    Pending::release(raw, false);
}

/// Reads the counters once, whoever gets here first.
unsafe fn complete(ev: *mut c_void, status: i32, p: *mut Pending) {
    if (*p).claimed.swap(true, Ordering::AcqRel) {
        return;
    }
    PENDING.fetch_sub(1, Ordering::AcqRel);
    // SAFETY: only the one that set `claimed` gets here, once.
    let Some(mut cmd) = (*(*p).cmd.get()).take() else { return };
    cmd.status = status;
    if let Some(t) = info_fn(ev, gen::slot::clGetEventInfo).and_then(|f| read::<u32>(f, ev, 0x11D1)) {
        cmd.cmd_type = t;
    }
    let info = info_fn(ev, gen::slot::clGetEventProfilingInfo);
    let mut t = [0u64; 4];
    let mut ok = info.is_some();
    if let Some(info) = info {
        for (i, v) in t.iter_mut().enumerate() {
            let r = info(ev, CL_PROFILING_COMMAND_QUEUED + i as u32, 8, v as *mut u64 as *mut c_void, std::ptr::null_mut());
            if r != 0 {
                ok = false;
                devtime::untimed(cmd.cmd_id, cmd.api, format!("profiling info refused ({})", cltap::trace::names::status_text(r)));
                break;
            }
        }
    }
    if ok {
        [cmd.queued, cmd.submit, cmd.start, cmd.end] = t;
        devtime::record(cmd);
    }
}

unsafe fn release_own(ev: *mut c_void, own: bool) {
    if !own {
        return;
    }
    let rel = object_slot(ev, gen::slot::clReleaseEvent);
    if !rel.is_null() {
        let rel: unsafe extern "C" fn(*mut c_void) -> i32 = std::mem::transmute(rel);
        rel(ev);
    }
}

extern "C" fn on_complete(ev: *mut c_void, status: i32, data: *mut c_void) {
    let _ = std::panic::catch_unwind(|| unsafe {
        let p = data as *mut Pending;
        complete(ev, status, p);
        // On a driver thread the event is released by the reaper; on the
        // application's own thread, here.
        let app_thread = APP_THREAD.try_with(|a| a.get()).unwrap_or(false);
        Pending::release(p, !app_thread);
    });
}

/// At the end of the process: a command that finished just before exit may
/// still have its completion callback on the way from a driver thread. Wait
/// for those a little (at most `limit`), so the last read of a program is
/// not lost; commands still running are then reported as pending.
pub fn settle(limit: std::time::Duration) {
    if !on() {
        return;
    }
    let t = std::time::Instant::now();
    while pending() > 0 && t.elapsed() < limit {
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
}

/// Commands enqueued whose completion was never seen (the application
/// ended without waiting for them).
pub fn pending() -> i64 {
    PENDING.load(Ordering::Acquire)
}
