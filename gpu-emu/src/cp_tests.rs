//! The command processor against rings, queues and signals laid out as ROCr's. Queues stepped by
//! hand check order and halting deterministically; queues with their own thread check what must
//! happen across queues (each wait has a generous deadline so a defect fails instead of hanging).
use super::*;
use crate::signal::tests::new_signal;
use crate::sys::{amd_queue_t, amd_signal_t, HsaEvent, HsaEventDescriptor, HSA_EVENTTYPE_SIGNAL};
use cltap::hsa::packet::{Header, PacketType};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// ROCr's side of a queue: its `amd_queue_t` and a ring of 64-byte packets.
struct Ring {
    amd: Box<amd_queue_t>,
    slots: Vec<[u64; 8]>,
    /// The doorbell of the queue run over this ring, once there is one.
    doorbell: *const AtomicU64,
}

impl Ring {
    fn new(packets: usize, profiling: bool) -> Ring {
        let mut amd = Box::<amd_queue_t>::default();
        if profiling {
            amd.queue_properties |= 1 << 3;
        }
        let invalid = [INVALID as u64, 0, 0, 0, 0, 0, 0, 0];
        Ring { amd, slots: vec![invalid; packets], doorbell: std::ptr::null() }
    }

    fn read_ptr(&self) -> usize {
        &self.amd.read_dispatch_id as *const u64 as usize
    }

    /// A queue over this ring with no thread: the test steps it.
    fn queue(&mut self) -> Queue {
        let q = Queue {
            id: 0,
            ring: self.slots.as_ptr() as usize,
            packets: self.slots.len() as u64,
            amd_queue: self.read_ptr() - std::mem::offset_of!(amd_queue_t, read_dispatch_id),
            doorbell: Box::new(AtomicU64::new(crate::queue::NOT_RUNG)),
            active: AtomicBool::new(true),
            stop: AtomicBool::new(false),
            halted: AtomicBool::new(false),
            counters: Default::default(),
        };
        self.ring_on(&q);
        q
    }

    /// Rings `q`'s doorbell from now on, and now for what was written before.
    fn ring_on(&mut self, q: &Queue) {
        self.doorbell = &*q.doorbell;
        self.ring();
    }

    /// Stores the last written packet's index in the doorbell, as ROCr does.
    fn ring(&self) {
        if !self.doorbell.is_null() && self.amd.write_dispatch_id > 0 {
            // SAFETY: the doorbell of a queue the test keeps while it pushes (boxed: it does not move).
            unsafe { (*self.doorbell).store(self.amd.write_dispatch_id - 1, Ordering::Release) };
        }
    }

    /// Writes a packet as a producer does: body, then header, then the write index; then rings.
    fn push(&mut self, kind: PacketType, body: [u64; 8]) {
        self.push_unrung(kind, body);
        self.ring();
    }

    /// [`Ring::push`] without the doorbell: the packet is written, its doorbell not yet rung.
    fn push_unrung(&mut self, kind: PacketType, body: [u64; 8]) {
        let index = self.amd.write_dispatch_id;
        let len = self.slots.len();
        let slot = &mut self.slots[index as usize % len];
        slot[1..].copy_from_slice(&body[1..]);
        let h = Header { kind, barrier: true, acquire: 2, release: 2 }.encode();
        let first = body[0] & !0xffff | u64::from(h);
        // SAFETY: the slot's first word, written last with release as a producer must.
        unsafe { (*(slot.as_mut_ptr() as *const AtomicU64)).store(first, Ordering::Release) };
        // SAFETY: the write index is an aligned u64 of the boxed amd_queue_t.
        unsafe { (*(&self.amd.write_dispatch_id as *const u64 as *const AtomicU64)).fetch_add(1, Ordering::Release) };
    }

    fn read_index(&self) -> u64 {
        // SAFETY: as above.
        unsafe { (*(&self.amd.read_dispatch_id as *const u64 as *const AtomicU64)).load(Ordering::Acquire) }
    }
}

fn handle(s: &amd_signal_t) -> u64 {
    s as *const amd_signal_t as u64
}

fn value(s: &amd_signal_t) -> i64 {
    Signal::from_handle(handle(s)).unwrap().load()
}

/// `s_endpgm`, and `v_cubeid_f32 v0, v1, v2, v3` (which the shader core does not implement: no
/// compiler emits it for compute).
const S_ENDPGM: u32 = 0xbf81_0000;
const V_CUBEID_F32: [u32; 2] = [0xd1c4_0000, 0x040e_0501];

/// A kernel object in the emulator's memory: a header as ROCr writes before its blit kernels
/// (entry offset 256, nothing enabled), then `code`.
fn kernel(code: &[u32]) -> u64 {
    let p = crate::memory::allocate(crate::topology::GPU_NODE, 4096, 0).unwrap();
    let mut words = vec![0u32; 64];
    words[4] = 256;
    words.extend_from_slice(code);
    // SAFETY: the 4096-byte allocation just made.
    unsafe { std::ptr::copy_nonoverlapping(words.as_ptr(), p as *mut u32, words.len()) };
    p as u64
}

/// A kernel that only ends (made once).
fn empty_kernel() -> u64 {
    static K: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *K.get_or_init(|| kernel(&[S_ENDPGM]))
}

/// A dispatch of `object`: one work-group of 64 work-items.
fn dispatch_of(object: u64, done: &amd_signal_t) -> [u64; 8] {
    [1 << 16 | 64 << 32 | 1 << 48, 1 | 64 << 32, 1 | 1 << 32, 0, object, 0, 0, handle(done)]
}

/// A dispatch of a kernel that does nothing.
fn dispatch(done: &amd_signal_t) -> [u64; 8] {
    dispatch_of(empty_kernel(), done)
}

fn barrier_of(deps: &[&amd_signal_t], done: &amd_signal_t) -> [u64; 8] {
    let mut b = [0u64; 8];
    for (i, d) in deps.iter().enumerate() {
        b[1 + i] = handle(d);
    }
    b[7] = handle(done);
    b
}

fn wait_until(what: &str, cond: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !cond() {
        assert!(Instant::now() < deadline, "{what}: never happened");
        std::thread::yield_now();
    }
}

#[test]
fn packets_run_in_order_with_timestamps_and_decrements_through_a_wrapping_ring() {
    let mut ring = Ring::new(4, true);
    let q = ring.queue();
    let signals: Vec<_> = (0..6).map(|_| new_signal(1)).collect();
    for s in &signals[..4] {
        ring.push(PacketType::KernelDispatch, dispatch(s));
    }
    while step(&q) {}
    assert_eq!(ring.read_index(), 4);
    for slot in &ring.slots {
        assert_eq!(slot[0] as u16 & 0xff, INVALID, "consumed slots are INVALID again");
    }
    // The producer reuses slots 0 and 1 for packets 4 and 5.
    for s in &signals[4..] {
        ring.push(PacketType::KernelDispatch, dispatch(s));
    }
    while step(&q) {}
    assert_eq!(ring.read_index(), 6);
    let mut prev_end = 0;
    for (i, s) in signals.iter().enumerate() {
        assert_eq!(value(s), 0, "signal {i}");
        assert!(s.start_ts != 0 && s.start_ts <= s.end_ts, "signal {i}: {}..{}", s.start_ts, s.end_ts);
        assert!(s.start_ts > prev_end, "signal {i} started before the previous packet ended");
        prev_end = s.end_ts;
    }
}

#[test]
fn completion_decrements_without_profiling_and_leaves_no_timestamps() {
    let mut ring = Ring::new(8, false);
    let q = ring.queue();
    let s = new_signal(5);
    ring.push(PacketType::KernelDispatch, dispatch(&s));
    ring.push(PacketType::BarrierAnd, barrier_of(&[], &s));
    while step(&q) {}
    assert_eq!(value(&s), 3);
    assert_eq!((s.start_ts, s.end_ts), (0, 0));
}

#[test]
fn a_reserved_slot_is_not_run_until_its_header_is_written() {
    let mut ring = Ring::new(8, false);
    let q = ring.queue();
    // The producer took index 0 but has not written the packet yet (another producer's doorbell
    // may name it already).
    ring.amd.write_dispatch_id = 1;
    ring.ring();
    assert!(!step(&q));
    assert_eq!(ring.read_index(), 0);
    ring.amd.write_dispatch_id = 0;
    let s = new_signal(1);
    ring.push(PacketType::KernelDispatch, dispatch(&s));
    assert!(step(&q));
    assert_eq!((ring.read_index(), value(&s)), (1, 0));
}

#[test]
fn a_written_packet_is_not_run_until_its_doorbell_is_rung() {
    // ROCclr writes AQLprofile's vendor packets as one struct copy, header first, and rings the
    // doorbell after: a command processor reading on the header alone could read the start packet
    // torn, arm nothing, and the application's counters would read 0 (docs/gpu-emu.md).
    let mut ring = Ring::new(8, false);
    let q = ring.queue();
    let s = new_signal(1);
    ring.push_unrung(PacketType::KernelDispatch, dispatch(&s));
    assert!(!step(&q), "run before the doorbell");
    assert_eq!((ring.read_index(), value(&s)), (0, 1));
    ring.ring();
    assert!(step(&q));
    assert_eq!((ring.read_index(), value(&s)), (1, 0));
    assert!(!step(&q), "nothing past the doorbell's index");
}

#[test]
fn a_queue_error_reaches_the_inactive_signal_and_stops_the_queue() {
    let mut ring = Ring::new(8, false);
    let inactive = new_signal(0);
    ring.amd.queue_inactive_signal.handle = handle(&inactive);
    let q = ring.queue();
    let s = new_signal(1);
    ring.push(PacketType::Other(7), [0; 8]);
    ring.push(PacketType::KernelDispatch, dispatch(&s));
    assert!(step(&q));
    assert_eq!(value(&inactive), crate::faults::QUEUE_ERROR_INVALID_PACKET);
    assert!(!step(&q), "a halted queue runs nothing");
    assert_eq!((ring.read_index(), value(&s)), (0, 1));
}

#[test]
fn a_kernel_that_faults_halts_its_queue_with_an_illegal_instruction_error() {
    let mut ring = Ring::new(8, false);
    let inactive = new_signal(0);
    ring.amd.queue_inactive_signal.handle = handle(&inactive);
    let q = ring.queue();
    let (s, after) = (new_signal(1), new_signal(1));
    // An instruction the shader core does not implement: an illegal instruction.
    ring.push(PacketType::KernelDispatch, dispatch_of(kernel(&[V_CUBEID_F32[0], V_CUBEID_F32[1], S_ENDPGM]), &s));
    ring.push(PacketType::KernelDispatch, dispatch(&after));
    assert!(step(&q));
    assert_eq!(value(&inactive), 0x4000_0000, "QUEUE_ERROR_ILLEGAL_INSTRUCTION");
    assert!(!step(&q), "a halted queue runs nothing");
    assert_eq!((ring.read_index(), value(&s), value(&after)), (0, 1, 1));
}

#[test]
fn a_kernel_object_in_no_allocation_is_a_memory_fault() {
    let mut ring = Ring::new(8, false);
    let inactive = new_signal(0);
    ring.amd.queue_inactive_signal.handle = handle(&inactive);
    let q = ring.queue();
    let s = new_signal(1);
    ring.push(PacketType::KernelDispatch, dispatch_of(0x1000, &s));
    assert!(step(&q));
    assert!(q.halted.load(Ordering::Acquire));
    assert_eq!(value(&inactive), 0, "a memory fault is KFD's event, not a queue error");
    assert_eq!((ring.read_index(), value(&s)), (0, 1));
}

#[test]
fn completion_raises_the_signals_event_through_its_mailbox() {
    let mut desc = HsaEventDescriptor { EventType: HSA_EVENTTYPE_SIGNAL, ..Default::default() };
    let mut ev: *mut HsaEvent = std::ptr::null_mut();
    assert_eq!(crate::events::hsaKmtCreateEvent(&mut desc, false, false, &mut ev), 0);
    // SAFETY: the event just created.
    let (id, mailbox) = unsafe { ((*ev).EventId, (*ev).EventData.HWData2) };
    let mut s = new_signal(1);
    s.event_id = id;
    s.event_mailbox_ptr = mailbox;
    let mut ring = Ring::new(8, false);
    let q = ring.queue();
    ring.push(PacketType::KernelDispatch, dispatch(&s));
    assert!(step(&q));
    assert_eq!(crate::events::hsaKmtWaitOnEvent(ev, 0), 0, "the event is set");
    // SAFETY: the mailbox slot handed out with the event.
    assert_eq!(unsafe { (*(mailbox as *const AtomicU64)).load(Ordering::Acquire) }, u64::from(id));
    assert_eq!(crate::events::hsaKmtDestroyEvent(ev), 0);
}

#[test]
fn barriers_wait_on_another_queues_signals() {
    let mut first = Ring::new(8, false);
    let mut second = Ring::new(8, false);
    let (gate, opened, ran, joined) = (new_signal(1), new_signal(1), new_signal(1), new_signal(1));
    let (left, right, either) = (new_signal(1), new_signal(1), new_signal(1));
    // Queue 1: a dispatch behind a host-held gate. Queue 2: AND on queue 1's dispatch, then OR.
    first.push(PacketType::BarrierAnd, barrier_of(&[&gate], &opened));
    first.push(PacketType::KernelDispatch, dispatch(&ran));
    second.push(PacketType::BarrierAnd, barrier_of(&[&ran], &joined));
    second.push(PacketType::BarrierOr, barrier_of(&[&left, &right], &either));
    let q1 = crate::queues::start(first.slots.as_ptr() as usize, 8 * 64, first.read_ptr());
    let q2 = crate::queues::start(second.slots.as_ptr() as usize, 8 * 64, second.read_ptr());
    first.ring_on(&q1);
    second.ring_on(&q2);
    assert_eq!((value(&ran), value(&joined)), (1, 1), "nothing passes a closed gate");
    Signal::from_handle(handle(&gate)).unwrap().complete(None);
    wait_until("barrier-AND on the other queue's dispatch", || value(&joined) == 0);
    assert_eq!(value(&either), 1, "barrier-OR with neither signal at 0");
    Signal::from_handle(handle(&right)).unwrap().complete(None);
    wait_until("barrier-OR on one of two", || value(&either) == 0);
    assert_eq!(value(&left), 1);
    assert_eq!((first.read_index(), second.read_index()), (2, 2));
    assert!(crate::queues::stop(q1.id) && crate::queues::stop(q2.id));
}
