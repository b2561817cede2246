//! Queues. `hsaKmtCreateQueue` for an AQL compute queue records ROCr's ring, its read and write
//! dispatch ids (fields of ROCr's own `amd_queue_t`) and hands back a doorbell; a command processor
//! thread then runs the queue ([`crate::cp`]). SDMA queues are refused, so ROCr copies with its blit
//! kernels, which the command processor executes; with `GPU_EMU_SDMA=1` they get an SDMA engine
//! ([`crate::sdma`]) instead.

use std::collections::HashMap;
use std::mem::offset_of;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::queue::Queue;
use crate::sys::*;

struct Running {
    queue: Arc<Queue>,
    thread: Option<JoinHandle<()>>,
}

static QUEUES: Mutex<Option<HashMap<u64, Running>>> = Mutex::new(None);
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Starts a command processor on the ring; `read_ptr` is ROCr's `&amd_queue_.read_dispatch_id`.
pub fn start(ring: usize, ring_bytes: u64, read_ptr: usize) -> Arc<Queue> {
    let queue = Arc::new(Queue {
        id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        ring,
        packets: ring_bytes / 64,
        amd_queue: read_ptr - offset_of!(amd_queue_t, read_dispatch_id),
        doorbell: Box::new(AtomicU64::new(crate::queue::NOT_RUNG)),
        active: AtomicBool::new(true),
        stop: AtomicBool::new(false),
        halted: AtomicBool::new(false),
        counters: Mutex::default(),
    });
    let runner = queue.clone();
    let thread = std::thread::Builder::new()
        .name(format!("gpu-emu-cp{}", queue.id))
        .spawn(move || crate::cp::run(&runner))
        .expect("spawning a command processor thread");
    QUEUES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(HashMap::new)
        .insert(queue.id, Running { queue: queue.clone(), thread: Some(thread) });
    queue
}

/// Stops the queue's command processor and forgets the queue.
pub fn stop(id: u64) -> bool {
    let running = QUEUES.lock().unwrap_or_else(|e| e.into_inner()).as_mut().and_then(|q| q.remove(&id));
    match running {
        Some(mut r) => {
            r.queue.stop.store(true, Ordering::Release);
            if let Some(t) = r.thread.take() {
                let _ = t.join();
            }
            true
        }
        None => false,
    }
}

/// One line per running queue, by id, for the watchdog's report: how far its command processor got.
pub fn describe() -> Vec<String> {
    // Under the lock: ROCr frees the amd_queue_t read here only after hsaKmtDestroyQueue, which
    // takes the queue out of the table under this lock first.
    let table = QUEUES.lock().unwrap_or_else(|e| e.into_inner());
    let mut lines: Vec<(u64, String)> = table
        .iter()
        .flat_map(|m| m.values())
        .map(|r| {
            let q = &r.queue;
            let state = if q.halted.load(Ordering::Acquire) {
                "halted"
            } else if q.active.load(Ordering::Acquire) {
                "active"
            } else {
                "suspended"
            };
            let (read, write) = (q.read_index().load(Ordering::Acquire), q.write_index().load(Ordering::Acquire));
            (q.id, format!("queue {}: {state}, read index {read}, write index {write}", q.id))
        })
        .collect();
    lines.sort_unstable();
    lines.into_iter().map(|(_, l)| l).collect()
}

fn find(id: u64) -> Option<Arc<Queue>> {
    QUEUES.lock().unwrap_or_else(|e| e.into_inner()).as_ref()?.get(&id).map(|r| r.queue.clone())
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn hsaKmtCreateQueue(
    node: u32,
    kind: HSA_QUEUE_TYPE,
    _percentage: u32,
    _priority: HSA_QUEUE_PRIORITY,
    ring: *mut libc::c_void,
    ring_bytes: u64,
    _event: *mut HsaEvent,
    resource: *mut HsaQueueResource,
) -> HSAKMT_STATUS {
    crate::guard(|| {
        if node != crate::topology::GPU_NODE || resource.is_null() || ring.is_null() {
            return HSAKMT_STATUS_INVALID_PARAMETER;
        }
        // SAFETY: checked non-null; ROCr's struct (for AQL, with its read and write pointers filled in).
        let mut r = unsafe { resource.read_unaligned() };
        if kind == HSA_QUEUE_SDMA && crate::sdma::enabled() {
            if ring_bytes < 4096 || !ring_bytes.is_power_of_two() {
                return HSAKMT_STATUS_INVALID_PARAMETER;
            }
            // As the real thunk, for a queue that is not AQL: the read and write words are its own.
            let q = crate::sdma::start(NEXT_ID.fetch_add(1, Ordering::Relaxed), ring as usize, ring_bytes);
            r.QueueId = q.id;
            r.__bindgen_anon_1.Queue_DoorBell_aql = &*q.doorbell as *const AtomicU64 as *mut u64;
            r.__bindgen_anon_2.Queue_write_ptr_aql = &*q.wptr as *const AtomicU64 as *mut u64;
            r.__bindgen_anon_3.Queue_read_ptr_aql = &*q.rptr as *const AtomicU64 as *mut u64;
            // SAFETY: checked non-null.
            unsafe { resource.write_unaligned(r) };
            return HSAKMT_STATUS_SUCCESS;
        }
        if kind != HSA_QUEUE_COMPUTE_AQL {
            // PM4 compute queues are not emulated, nor SDMA ones without GPU_EMU_SDMA=1: ROCr then
            // uses its blit kernels.
            return HSAKMT_STATUS_NOT_SUPPORTED;
        }
        // SAFETY: reading the 64-bit view of the union ROCr filled.
        let read_ptr = unsafe { r.__bindgen_anon_3.Queue_read_ptr_aql } as usize;
        if read_ptr == 0 || ring_bytes < 64 || !(ring_bytes / 64).is_power_of_two() {
            return HSAKMT_STATUS_INVALID_PARAMETER;
        }
        let queue = start(ring as usize, ring_bytes, read_ptr);
        r.QueueId = queue.id;
        r.__bindgen_anon_1.Queue_DoorBell_aql = &*queue.doorbell as *const AtomicU64 as *mut u64;
        // SAFETY: checked non-null.
        unsafe { resource.write_unaligned(r) };
        HSAKMT_STATUS_SUCCESS
    })
}

#[no_mangle]
pub extern "C" fn hsaKmtDestroyQueue(id: u64) -> HSAKMT_STATUS {
    crate::guard(
        || if stop(id) || crate::sdma::stop(id) { HSAKMT_STATUS_SUCCESS } else { HSAKMT_STATUS_INVALID_HANDLE },
    )
}

#[no_mangle]
pub extern "C" fn hsaKmtUpdateQueue(
    id: u64,
    percentage: u32,
    _priority: HSA_QUEUE_PRIORITY,
    _ring: *mut libc::c_void,
    _ring_bytes: u64,
    _event: *mut HsaEvent,
) -> HSAKMT_STATUS {
    crate::guard(|| match find(id) {
        Some(q) => {
            q.active.store(percentage > 0, Ordering::Release);
            HSAKMT_STATUS_SUCCESS
        }
        None => HSAKMT_STATUS_INVALID_HANDLE,
    })
}

#[no_mangle]
pub extern "C" fn hsaKmtSetQueueCUMask(id: u64, _count: u32, _mask: *mut u32) -> HSAKMT_STATUS {
    crate::guard(|| if find(id).is_some() { HSAKMT_STATUS_SUCCESS } else { HSAKMT_STATUS_INVALID_HANDLE })
}

#[no_mangle]
pub extern "C" fn hsaKmtAllocQueueGWS(_id: u64, _count: u32, _first: *mut u32) -> HSAKMT_STATUS {
    HSAKMT_STATUS_NOT_SUPPORTED
}
