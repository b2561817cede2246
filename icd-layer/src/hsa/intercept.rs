//! `ROCP_HSA_INTERCEPT=1|2`: dispatch interception as rocprofiler v1 does it
//! (docs/platform-facts.md#intercept-queues-and-aqlprofile). `OnLoad` puts [`queue_create`] in the core table's
//! `hsa_queue_create` entry: it records the application's call as the
//! generated wrapper does, but makes an *intercept queue*
//! (`hsa_amd_queue_intercept_create`) and registers [`on_packets`] on it
//! (`hsa_amd_queue_intercept_register`). The runtime hands every packet the
//! application submits to the handler, which writes them on through the
//! runtime's writer: unchanged with `=1`; with `=2` each kernel dispatch's
//! completion signal is replaced by a proxy of cltap's, whose async handler
//! reads the dispatch's begin and end, forwards the completion to the
//! application's signal and records the dispatch. Each kernel dispatch
//! becomes one `KIND_HSA_DISPATCH` record.
//!
//! cltap's own calls go to the runtime's entries saved in [`ORIG`], never
//! through its wrappers, so they are not logged as the application's.

use super::api::id;
use super::wrappers::orig;
use crate::bracket;
use cltap::hsa::packet::{KernelDispatch, PacketType, PACKET_SIZE};
use cltap::trace::record::*;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

/// 0 off, 1 intercept, 2 intercept with timestamps (set by `OnLoad`).
static MODE: AtomicU8 = AtomicU8::new(0);
/// Dispatch numbers, process-wide, from 1.
static NEXT_DISPATCH: AtomicU64 = AtomicU64::new(1);
/// Packets the handler saw, by AQL type (see [`PACKET_KINDS`]); written
/// only by the handler.
static PACKETS: [AtomicU64; 6] = [const { AtomicU64::new(0) }; 6];
/// The names of [`PACKETS`]' counters, as the summary shows them.
pub const PACKET_KINDS: [&str; 6] =
    ["kernel_dispatch", "barrier_and", "barrier_or", "vendor_specific", "agent_dispatch", "other"];
/// Kernel objects → dispatches recorded (the handler's).
/// (Kernel object, its name when dispatched) → dispatches: the name is
/// kept with the count, as an object's name may change when its
/// executable is destroyed and another loaded at its address.
pub(crate) static KERNEL_DISPATCHES: Mutex<Option<HashMap<KernelKey, u64>>> = Mutex::new(None);
/// A kernel object and the name it had when dispatched.
type KernelKey = (u64, Option<Arc<str>>);

const HSA_STATUS_SUCCESS: u32 = 0;
const HSA_STATUS_ERROR: u32 = 0x1000;
/// `hsa_queue_t.id`'s offset.
const QUEUE_ID_OFFSET: usize = 32;
/// `hsa_queue_t.size`'s offset (a u32, in packets).
const QUEUE_SIZE_OFFSET: usize = 24;

type Writer = unsafe extern "C" fn(*const c_void, u64);
type Handler = unsafe extern "C" fn(*const c_void, u64, u64, *mut c_void, Option<Writer>);

/// Turns interception on with `mode` (1 or 2) before the tables are installed.
pub fn set_mode(mode: u8) {
    MODE.store(mode, Ordering::Release);
}

pub fn mode() -> u8 {
    MODE.load(Ordering::Acquire)
}

/// What `OnLoad` puts in the core table's `hsa_queue_create` entry.
pub fn queue_create_entry() -> usize {
    queue_create as *const () as usize
}

/// The packets the handler saw, by type: `(name, count)` in [`PACKET_KINDS`]' order.
pub fn packet_counts() -> Vec<(&'static str, u64)> {
    PACKET_KINDS.iter().zip(PACKETS.iter()).map(|(n, c)| (*n, c.load(Ordering::Relaxed))).collect()
}

/// The kernels dispatched: `(kernel_object, name if known, dispatches)`,
/// by kernel object.
pub fn kernel_counts() -> Vec<(u64, Option<String>, u64)> {
    let mut v: Vec<(u64, Option<String>, u64)> = KERNEL_DISPATCHES
        .lock()
        .map(|m| {
            m.as_ref()
                .map(|m| m.iter().map(|((k, name), n)| (*k, name.as_deref().map(str::to_string), *n)).collect())
                .unwrap_or_default()
        })
        .unwrap_or_default();
    v.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    v
}

fn count_packet(kind: PacketType) {
    let k = match kind {
        PacketType::KernelDispatch => 0,
        PacketType::BarrierAnd => 1,
        PacketType::BarrierOr => 2,
        PacketType::VendorSpecific => 3,
        PacketType::AgentDispatch => 4,
        _ => 5,
    };
    PACKETS[k].fetch_add(1, Ordering::Relaxed);
}

/// What one intercept queue's handler knows of it (never freed: a queue's
/// packets may still complete after it is destroyed).
struct QueueInfo {
    agent: u64,
    /// The application's `hsa_queue_t*`.
    queue: usize,
    queue_id: u64,
    /// The queue's number among the intercept queues, from 0 in creation
    /// order: rocprofiler v1's `queue_id`.
    number: u32,
    mode: u8,
    /// Room in the runtime's hidden queue behind this one.
    room: super::room::Room,
    /// Whether the application's own counters are armed on this queue
    /// (`counters::app_vendor_packet`).
    app_counters: std::sync::atomic::AtomicBool,
}

static NEXT_QUEUE: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// The intercept queues alive (`hsa_queue_t*`), for rocprofiler v1's
/// queue callbacks: created and destroyed rarely.
pub(crate) static QUEUES: Mutex<Vec<usize>> = Mutex::new(Vec::new());

/// Told of every intercept queue made (rocprofiler v1's `create` queue
/// callback), after its handler was registered.
pub type QueueHook = fn(queue: *mut c_void);
static QUEUE_HOOK: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

pub fn set_queue_hook(h: Option<QueueHook>) {
    QUEUE_HOOK.store(h.map_or(0, |h| h as usize), Ordering::Release);
}

/// Whether `queue` is an intercept queue still alive; with `forget`, it
/// is forgotten (it is being destroyed).
pub fn intercepted(queue: usize, forget: bool) -> bool {
    let mut v = QUEUES.lock().unwrap_or_else(|e| e.into_inner());
    let found = v.iter().position(|q| *q == queue);
    if let (true, Some(i)) = (forget, found) {
        v.swap_remove(i);
    }
    found.is_some()
}

/// Told of every packet an intercept queue submits, before it is written
/// (rocprofiler v1's `submit` callback): the packet, the application's
/// `hsa_queue_t*`, the agent, and for a kernel dispatch its kernel's name.
pub type SubmitHook = fn(packet: &[u8; PACKET_SIZE], queue: usize, agent: u64, kernel: Option<&std::ffi::CStr>);
static SUBMIT_HOOK: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Sets (or with None removes) the submit hook.
pub fn set_submit_hook(h: Option<SubmitHook>) {
    SUBMIT_HOOK.store(h.map_or(0, |h| h as usize), Ordering::Release);
}

fn submitted(raw: &[u8; PACKET_SIZE], q: &QueueInfo, kernel: Option<&super::kernels::Kernel>) {
    let h = SUBMIT_HOOK.load(Ordering::Acquire);
    if h != 0 {
        // SAFETY: only ever set from a `SubmitHook`.
        let h: SubmitHook = unsafe { std::mem::transmute::<usize, SubmitHook>(h) };
        h(raw, q.queue, q.agent, kernel.and_then(|k| k.v1_name()));
    }
}

/// An intercept queue whose dispatches are timed, whatever the mode
/// (rocprofiler v1's `rocprofiler_queue_create_profiled`).
#[allow(clippy::too_many_arguments)]
pub fn create_profiled(
    agent: u64,
    size: u32,
    qtype: u32,
    callback: *mut c_void,
    data: *mut c_void,
    private_segment_size: u32,
    group_segment_size: u32,
    queue: *mut *mut u8,
) -> u32 {
    create(agent, size, qtype, callback, data, private_segment_size, group_segment_size, queue, 2)
}

/// `hsa_queue_create`, as the application calls it.
///
/// # Safety
/// As `hsa_queue_create`: `queue` writable, `callback` NULL or accepting `data`.
#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn queue_create(
    mut agent: u64,
    mut size: u32,
    mut qtype: u32,
    mut callback: *mut c_void,
    mut data: *mut c_void,
    mut private_segment_size: u32,
    mut group_segment_size: u32,
    mut queue: *mut c_void,
) -> u32 {
    super::traced::traced!(
        id::hsa_queue_create,
        (agent, size, qtype, callback, data, private_segment_size, group_segment_size, queue),
        // SAFETY: `queue_create_recorded`'s # Safety follows from this fn's.
        unsafe {
            queue_create_recorded(agent, size, qtype, callback, data, private_segment_size, group_segment_size, queue)
        }
    )
}

/// # Safety
/// Arguments as `hsa_queue_create` declares them: `queue` writable, `callback` accepting `data`.
#[allow(clippy::too_many_arguments)]
unsafe fn queue_create_recorded(
    agent: u64,
    size: u32,
    qtype: u32,
    callback: *mut c_void,
    data: *mut c_void,
    private_segment_size: u32,
    group_segment_size: u32,
    queue: *mut c_void,
) -> u32 {
    let app = [
        agent,
        size as u64,
        qtype as u64,
        callback as u64,
        data as u64,
        private_segment_size as u64,
        group_segment_size as u64,
        queue as u64,
    ];
    let t = crate::guard::part("hsa_queue_create", || {
        bracket::enter_hsa(::cltap::meta::hsa_described::hsa_queue_create, &app)
    })
    .unwrap_or(bracket::Enter::OFF);
    let r = crate::guard::guard(HSA_STATUS_ERROR, || {
        create(agent, size, qtype, callback, data, private_segment_size, group_segment_size, queue as *mut *mut u8, 0)
    });
    crate::guard::part("hsa_queue_create", || {
        if t.on {
            bracket::exit_hsa(::cltap::meta::hsa_described::hsa_queue_create, t, r as u64, &app);
        } else {
            bracket::done_hsa(id::hsa_queue_create, !cltap::trace::capture::hsa_status_ok(r as u64));
        }
    });
    r
}

type QueueCreate = unsafe extern "C" fn(u64, u32, u32, *mut c_void, *mut c_void, u32, u32, *mut *mut u8) -> u32;

#[allow(clippy::too_many_arguments)]
fn create(
    agent: u64,
    size: u32,
    qtype: u32,
    callback: *mut c_void,
    data: *mut c_void,
    private_segment_size: u32,
    group_segment_size: u32,
    queue: *mut *mut u8,
    min_mode: u8,
) -> u32 {
    let plain = orig(id::hsa_queue_create);
    let icreate = orig(id::hsa_amd_queue_intercept_create);
    let register = orig(id::hsa_amd_queue_intercept_register);
    // SAFETY: the runtime's own entries, called with the application's arguments.
    unsafe {
        if icreate == 0 || register == 0 {
            if plain == 0 {
                return HSA_STATUS_ERROR;
            }
            let f: QueueCreate = std::mem::transmute(plain);
            return f(agent, size, qtype, callback, data, private_segment_size, group_segment_size, queue);
        }
        let f: QueueCreate = std::mem::transmute(icreate);
        let r = f(agent, size, qtype, callback, data, private_segment_size, group_segment_size, queue);
        if r != HSA_STATUS_SUCCESS || queue.is_null() || (*queue).is_null() {
            return r;
        }
        let q = *queue;
        let m = mode().max(min_mode);
        if m >= 2 {
            let en = orig(id::hsa_amd_profiling_set_profiler_enabled);
            if en != 0 {
                let en: unsafe extern "C" fn(*mut u8, i32) -> u32 = std::mem::transmute(en);
                en(q, 1);
            }
        }
        let info = Box::into_raw(Box::new(QueueInfo {
            agent,
            queue: q as usize,
            queue_id: std::ptr::read_volatile(q.add(QUEUE_ID_OFFSET) as *const u64),
            number: NEXT_QUEUE.fetch_add(1, Ordering::Relaxed),
            mode: m,
            room: super::room::Room::new(std::ptr::read_volatile(q.add(QUEUE_SIZE_OFFSET) as *const u32)),
            app_counters: std::sync::atomic::AtomicBool::new(false),
        }));
        let reg: unsafe extern "C" fn(*mut u8, Handler, *mut c_void) -> u32 = std::mem::transmute(register);
        if reg(q, on_packets, info as *mut c_void) != HSA_STATUS_SUCCESS {
            cltap::warn!("HSA: hsa_amd_queue_intercept_register failed: this queue's dispatches are not recorded");
        }
        QUEUES.lock().unwrap_or_else(|e| e.into_inner()).push(q as usize);
        let h = QUEUE_HOOK.load(Ordering::Acquire);
        if h != 0 {
            let h: QueueHook = std::mem::transmute::<usize, QueueHook>(h);
            crate::guard::guard((), || h(q as *mut c_void));
        }
        r
    }
}

/// The runtime's handler call: `count` packets from `pkts`, the first at
/// `index` in the application's queue.
///
/// # Safety
/// Called by ROCr's intercept queue: `pkts` holds `count` 64-byte packets; `writer` is ROCr's
/// writer for this queue, `data` the queue's record cltap registered.
unsafe extern "C" fn on_packets(
    pkts: *const c_void,
    count: u64,
    index: u64,
    data: *mut c_void,
    writer: Option<Writer>,
) {
    let Some(writer) = writer else { return };
    if pkts.is_null() || data.is_null() || count == 0 {
        // SAFETY: `writer` gets arguments its C declaration accepts.
        unsafe { writer(pkts, count) };
        return;
    }
    // `QueueInfo` is never freed.
    // SAFETY: `(data as *const QueueInfo)` is valid for this access, as the caller promises (# Safety).
    let q: &'static QueueInfo = unsafe { &*(data as *const QueueInfo) };
    let (changed, watch) = crate::guard::guard((None, None), || handle(pkts as *const u8, count, index, q));
    let (mut changed, mut watch) = (changed, watch);
    let n = changed.as_ref().map_or(count, |v| (v.len() / PACKET_SIZE) as u64);
    if watch.is_none() && q.room.needs_watch(n) {
        if let Some(m) = crate::guard::guard(None, || super::mark::marker(&q.room, q.room.next() + n)) {
            let v = changed.get_or_insert_with(|| {
                // SAFETY: the runtime passes `count` packets of 64 bytes.
                unsafe { std::slice::from_raw_parts(pkts as *const u8, count as usize * PACKET_SIZE) }.to_vec()
            });
            v.extend_from_slice(&m);
            watch = Some(q.room.next() + n);
        }
    }
    let (out, n) = match &changed {
        Some(v) => (v.as_ptr() as *const c_void, (v.len() / PACKET_SIZE) as u64),
        None => (pkts, count),
    };
    // More than fit would abort the process in ROCr 5.2.3 (see `room`).
    q.room.wait_for(n);
    // SAFETY: `writer` gets arguments its C declaration accepts.
    unsafe { writer(out, n) };
    q.room.wrote(n);
    if let Some(at) = watch {
        q.room.watch(at);
    }
}

fn words(q: &QueueInfo, index: u64, p: &KernelDispatch) -> [u64; DISPATCH_WORDS] {
    let mut w = [0u64; DISPATCH_WORDS];
    w[DISPATCH_TID] = cltap::trace::local::thread_id() as u64;
    w[DISPATCH_CALL] = cltap::trace::local::open_hsa_call();
    w[DISPATCH_AGENT] = q.agent;
    w[DISPATCH_QUEUE_ID] = q.queue_id;
    w[DISPATCH_QUEUE_INDEX] = index;
    w[DISPATCH_KERNEL_OBJECT] = p.kernel_object;
    for k in 0..3 {
        w[DISPATCH_GRID + k] = p.grid_size[k] as u64;
        w[DISPATCH_WORKGROUP + k] = p.workgroup_size[k] as u64;
    }
    w[DISPATCH_SIGNAL] = p.completion_signal;
    w[DISPATCH_QUEUE_NUMBER] = q.number as u64;
    w[DISPATCH_PRIVATE_SEGMENT] = p.private_segment_size as u64;
    w[DISPATCH_GROUP_SEGMENT] = p.group_segment_size as u64;
    w
}

/// Records the dispatches among the packets. Returns the packets to write
/// instead when some changed: with timestamps, completion signals replaced
/// by proxies; with counters, each dispatch between its `start` and `stop`
/// packets.
/// Also returns the hidden-queue index of the last packet whose completion cltap will see.
fn handle(pkts: *const u8, count: u64, index: u64, q: &'static QueueInfo) -> (Option<Vec<u8>>, Option<u64>) {
    // Outside the collection window the packets go as they are: no
    // record, no counters, no timestamps.
    if !cltap::window::open() {
        return (None, None);
    }
    let n = count as usize;
    // SAFETY: the runtime passes `count` packets of 64 bytes.
    let bytes = unsafe { std::slice::from_raw_parts(pkts, n * PACKET_SIZE) };
    let counting = super::counters::counting(q.agent);
    let mut out = Rewrite { src: bytes, out: None };
    let mut watch = None;
    for i in 0..n {
        let Ok(raw) = <&[u8; PACKET_SIZE]>::try_from(&bytes[i * PACKET_SIZE..(i + 1) * PACKET_SIZE]) else {
            return (None, None);
        };
        let p = KernelDispatch::read(raw);
        let kind = p.header().kind;
        count_packet(kind);
        if kind != PacketType::KernelDispatch {
            if kind == PacketType::VendorSpecific && counting {
                super::counters::app_vendor_packet(&q.app_counters);
            }
            submitted(raw, q, None);
            out.keep(i);
            continue;
        }
        let kernel = super::kernels::lookup(p.kernel_object);
        let name = kernel.name.clone();
        submitted(raw, q, Some(&kernel));
        if let Ok(mut m) = KERNEL_DISPATCHES.lock() {
            *m.get_or_insert_with(HashMap::new).entry((p.kernel_object, name.clone())).or_insert(0) += 1;
        }
        let seq = NEXT_DISPATCH.fetch_add(1, Ordering::Relaxed);
        let w = words(q, index + i as u64, &p);
        let mut np = p;
        // Taken before a tool sees the dispatch: its record and cltap's
        // trace then give the dispatch the same time.
        let dispatch = if q.mode >= 2 { super::proxy::timestamp() } else { 0 };
        let tool = super::counters::tool_request(&super::counters::DispatchInfo {
            agent: q.agent,
            queue: q.queue as *const c_void,
            queue_index: index + i as u64,
            queue_number: q.number,
            packet: raw,
            kernel_object: p.kernel_object,
            kernel: &kernel,
            dispatch_time: dispatch,
        });
        // Where this packet goes in the hidden queue.
        let at = q.room.next() + out.len(i);
        // Outside the kernel filter: neither counted (no barrier, no
        // AQLprofile packets) nor timed; its record says so.
        if tool.is_none() && !cltap::kfilter::admit(name.as_deref()) {
            cltap::trace::local::record_kind_flagged::<KIND_HSA_DISPATCH>(
                FLAG_FILTERED,
                seq,
                0,
                0,
                &w,
                name.as_deref(),
            );
            out.keep(i);
            continue;
        }
        let counting = counting && !super::counters::app_counts(&q.app_counters, q.number);
        if counting || tool.is_some() {
            let mut wt = w;
            wt[DISPATCH_TIME_DISPATCH] = dispatch;
            let stop = (&q.room, at + 2);
            if let Some(c) =
                super::counters::wrap(seq, q.agent, wt, name.clone(), p.completion_signal, q.mode >= 2, tool, stop)
            {
                watch = Some(at + 2);
                if q.mode < 2 {
                    cltap::trace::local::record_kind::<KIND_HSA_DISPATCH>(seq, 0, 0, &w, name.as_deref());
                }
                np.completion_signal = c.proxy;
                out.replace(i, &[&packet_bytes(&c.start), &np.bytes(), &packet_bytes(&c.stop)]);
                continue;
            }
        }
        if q.mode < 2 {
            cltap::trace::local::record_kind::<KIND_HSA_DISPATCH>(seq, 0, 0, &w, name.as_deref());
        } else {
            match proxy(q, seq, w, name.clone(), dispatch, p.completion_signal, at) {
                Some(sig) => {
                    watch = Some(at);
                    np.completion_signal = sig;
                    out.replace(i, &[&np.bytes()]);
                    continue;
                }
                None => {
                    let mut w = w;
                    w[DISPATCH_TIME_DISPATCH] = dispatch;
                    cltap::trace::local::record_kind::<KIND_HSA_DISPATCH>(seq, 0, 0, &w, name.as_deref());
                }
            }
        }
        out.keep(i);
    }
    (out.out, watch)
}

/// The packets to write instead of the application's, built only once one
/// of them changes (most batches pass unchanged, with no allocation).
struct Rewrite<'a> {
    src: &'a [u8],
    out: Option<Vec<u8>>,
}

impl Rewrite<'_> {
    /// Packets written so far, before packet `i` of the batch.
    fn len(&self, i: usize) -> u64 {
        self.out.as_ref().map_or(i, |o| o.len() / PACKET_SIZE) as u64
    }

    /// Packet `i` goes as the application wrote it.
    fn keep(&mut self, i: usize) {
        if let Some(o) = self.out.as_mut() {
            o.extend_from_slice(&self.src[i * PACKET_SIZE..(i + 1) * PACKET_SIZE]);
        }
    }

    /// Packet `i` becomes `with` (one or more packets).
    fn replace(&mut self, i: usize, with: &[&[u8]]) {
        let src = self.src;
        let o = self.out.get_or_insert_with(|| {
            let mut v = Vec::with_capacity(src.len() + 2 * PACKET_SIZE);
            v.extend_from_slice(&src[..i * PACKET_SIZE]);
            v
        });
        for w in with {
            o.extend_from_slice(w);
        }
    }
}

/// A PM4 packet's 64 bytes.
fn packet_bytes(p: &cltap::hsa::aqlprofile::Pm4Packet) -> [u8; PACKET_SIZE] {
    // SAFETY: a plain 64-byte repr(C) struct (size checked against the header).
    unsafe { std::mem::transmute_copy(p) }
}

/// A dispatch whose proxy signal has not completed yet.
struct Pending {
    /// The queue's room and the dispatch's index in its hidden queue.
    room: &'static super::room::Room,
    at: u64,
    agent: u64,
    name: Option<Arc<str>>,
    seq: u64,
    words: [u64; DISPATCH_WORDS],
    app_signal: u64,
    proxy: u64,
}

/// Makes the proxy completion signal of one dispatch and waits for it
/// asynchronously; None when either step fails (the packet goes unchanged).
fn proxy(
    q: &'static QueueInfo,
    seq: u64,
    mut words: [u64; DISPATCH_WORDS],
    name: Option<Arc<str>>,
    dispatch: u64,
    app_signal: u64,
    at: u64,
) -> Option<u64> {
    words[DISPATCH_TIME_DISPATCH] = dispatch;
    let sig = super::proxy::new_signal()?;
    let arg = Box::into_raw(Box::new(Pending {
        room: &q.room,
        at,
        agent: q.agent,
        name,
        seq,
        words,
        app_signal,
        proxy: sig,
    }));
    // SAFETY: `on_complete` takes back the `Pending` it is given.
    if !unsafe { super::proxy::when_done(sig, on_complete, arg as *mut c_void) } {
        // SAFETY: the runtime refused it: `arg` is still ours.
        drop(unsafe { Box::from_raw(arg) });
        super::proxy::destroy(sig);
        return None;
    }
    Some(sig)
}

/// The proxy signal completed: the dispatch's times are read and recorded,
/// then the completion goes on to the application's signal.
///
/// # Safety
/// `arg` is what the handler was registered with, passed once.
unsafe extern "C" fn on_complete(_value: i64, arg: *mut c_void) -> bool {
    if arg.is_null() {
        return false;
    }
    super::room::on_signal_thread();
    // SAFETY: `arg as *mut Pending` came from `Box::into_raw` and is freed once (# Safety).
    let p = unsafe { Box::from_raw(arg as *mut Pending) };
    p.room.passed(p.at);
    crate::guard::guard((), || complete(&p));
    false
}

fn complete(p: &Pending) {
    // SAFETY: the proxy is cltap's, the application's signal its own.
    unsafe { super::proxy::dispatch_done(p.agent, p.seq, p.words, p.name.as_deref(), p.app_signal, p.proxy, true) }
}
