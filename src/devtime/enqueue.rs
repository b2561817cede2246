//! What is recorded of an enqueue: the work it launched, read from the
//! application's arguments when the call returns, and the command's fate
//! once its times are read. The layer reads the driver's answers.

use super::{record, untimed, Command, CommandRef};
use crate::meta::FnMeta;
use crate::trace::names::execution_status_text;
use std::sync::{Arc, OnceLock};

/// What the records need of a queue, looked up once per queue.
#[derive(Debug, Clone, Default)]
pub struct QueueDesc {
    /// The context, as the application sees it.
    pub context: u64,
    /// The device's name.
    pub device: Arc<str>,
    /// See [`Command::to_host`].
    pub to_host: Option<i64>,
}

/// Up to three sizes of an array the application passed, kept in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sizes {
    n: u8,
    v: [usize; 3],
}

impl Sizes {
    pub fn of(s: &[usize]) -> Sizes {
        let mut v = [0; 3];
        let n = s.len().min(3);
        v[..n].copy_from_slice(&s[..n]);
        Sizes { n: n as u8, v }
    }

    pub fn as_slice(&self) -> &[usize] {
        &self.v[..self.n as usize]
    }
}

/// The work an enqueue launched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launch {
    /// The application's kernel handle, for a kernel launch.
    pub kernel: Option<u64>,
    pub global: Sizes,
    pub local: Option<Sizes>,
    /// Bytes moved, for a transfer.
    pub bytes: Option<u64>,
}

/// Up to three sizes of an array the application passed.
///
/// # Safety
/// `p` is 0 or the address of at least `n.min(3)` readable `size_t`s.
unsafe fn words(p: u64, n: usize) -> Sizes {
    if p == 0 {
        return Sizes::default();
    }
    // SAFETY: a non-zero `p` holds `n.min(3)` readable size_ts (# Safety).
    Sizes::of(unsafe { std::slice::from_raw_parts(p as *const usize, n.min(3)) })
}

/// Where an enqueue function keeps what [`launch`] reads: argument
/// indices, found by name once per function rather than per enqueue.
#[derive(Debug, Clone, Copy)]
enum Shape {
    NdRange { dim: Option<u8>, global: Option<u8>, local: Option<u8> },
    Task,
    Transfer { bytes: Option<u8> },
}

fn shape(f: &FnMeta) -> Shape {
    let arg = |name: &str| f.params.iter().position(|p| p.name == name).map(|i| i as u8);
    match f.name {
        "clEnqueueNDRangeKernel" => {
            Shape::NdRange { dim: arg("work_dim"), global: arg("global_work_size"), local: arg("local_work_size") }
        }
        "clEnqueueTask" => Shape::Task,
        _ => Shape::Transfer { bytes: arg("cb").or_else(|| arg("size")) },
    }
}

fn shape_of(f: &FnMeta) -> Shape {
    static SHAPES: OnceLock<Vec<Shape>> = OnceLock::new();
    let all = SHAPES.get_or_init(|| crate::meta::FUNCTIONS.iter().map(shape).collect());
    match all.get(f.id as usize) {
        Some(s) if std::ptr::eq(&crate::meta::FUNCTIONS[f.id as usize], f) => *s,
        _ => shape(f),
    }
}

/// The work launched by a call to `f` with the application's arguments `app`.
///
/// # Safety
/// `app` are the arguments of a call to `f` that succeeded.
pub unsafe fn launch(f: &FnMeta, app: &[u64]) -> Launch {
    let at = |i: Option<u8>| i.map(|i| app[i as usize]);
    let mut l = Launch { kernel: None, global: Sizes::default(), local: None, bytes: None };
    match shape_of(f) {
        Shape::NdRange { dim, global, local } => {
            let dim = at(dim).unwrap_or(0) as usize;
            l.kernel = Some(app[1]);
            // SAFETY: the call succeeded (# Safety), so its size arrays hold `dim` entries.
            l.global = unsafe { words(at(global).unwrap_or(0), dim) };
            // SAFETY: as for the global sizes.
            l.local = at(local).filter(|&p| p != 0).map(|p| unsafe { words(p, dim) });
        }
        Shape::Task => {
            l.kernel = Some(app[1]);
            l.global = Sizes::of(&[1]);
        }
        Shape::Transfer { bytes } => l.bytes = at(bytes),
    }
    l
}

/// An enqueued command waiting for its times, as the enqueue keeps it:
/// nothing on the heap, the kernel's name by its interned index
/// ([`super::kernels::id`]).
#[derive(Debug, Clone, Copy)]
pub struct Enqueued {
    pub cmd_id: u64,
    pub api: &'static str,
    /// Host thread that enqueued it.
    pub tid: u32,
    /// The application's queue handle.
    pub queue: u64,
    pub kernel: Option<u32>,
    pub launch: Launch,
    pub enqueue_tsc: u64,
    pub enqueue_end_tsc: u64,
}

impl Enqueued {
    /// Command `cmd_id`, just enqueued by `api` on the application's
    /// `queue`; the caller sets the thread and the enqueue call's TSC
    /// readings.
    pub fn new(cmd_id: u64, api: &'static str, queue: u64, kernel: Option<u32>, launch: Launch) -> Enqueued {
        Enqueued { cmd_id, api, tid: 0, queue, kernel, launch, enqueue_tsc: 0, enqueue_end_tsc: 0 }
    }
}

impl Command {
    /// The record of `e`, enqueued on the queue `q` describes; its counters
    /// come when it completes.
    pub fn enqueued(e: &Enqueued, q: &QueueDesc) -> Command {
        Command {
            cmd_id: e.cmd_id,
            api: e.api,
            tid: e.tid,
            queue: e.queue,
            context: q.context,
            device: q.device.clone(),
            cmd_type: 0,
            to_host: q.to_host,
            kernel: e.kernel.and_then(super::kernels::name_of).map(|n| n.to_string()),
            global: e.launch.global.as_slice().to_vec(),
            local: e.launch.local.map(|l| l.as_slice().to_vec()),
            bytes: e.launch.bytes,
            queued: 0,
            submit: 0,
            start: 0,
            end: 0,
            status: 0,
            enqueue_tsc: e.enqueue_tsc,
            enqueue_end_tsc: e.enqueue_end_tsc,
        }
    }
}

/// The four profiling counters of a completed command, as the driver gave them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Counters {
    /// QUEUED, SUBMIT, START, END.
    Read([u64; 4]),
    /// The driver refused one, with this status (as text).
    Refused(String),
    /// The driver has no `clGetEventProfilingInfo`.
    Absent,
}

/// What becomes of a completed command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Timed(Command),
    /// Its counters could not be read: command id, API, why.
    Untimed(u64, &'static str, String),
    Lost,
}

/// A command completed with `status`; `cmd_type` is its
/// `CL_EVENT_COMMAND_TYPE` where the driver said.
pub fn outcome(mut cmd: Command, status: i32, cmd_type: Option<u32>, counters: Counters) -> Outcome {
    cmd.status = status;
    if let Some(t) = cmd_type {
        cmd.cmd_type = t;
    }
    match counters {
        Counters::Read(t) => match no_times(status, t) {
            Some(why) => Outcome::Untimed(cmd.cmd_id, cmd.api, why),
            None => {
                [cmd.queued, cmd.submit, cmd.start, cmd.end] = t;
                Outcome::Timed(cmd)
            }
        },
        // A command that failed has no times to give (OpenCL defines them for
        // completed commands only): its status says why better than the refusal.
        Counters::Refused(why) if status < 0 => Outcome::Untimed(
            cmd.cmd_id,
            cmd.api,
            format!("it ended with {} (profiling info refused: {why})", execution_status_text(status)),
        ),
        Counters::Refused(why) => Outcome::Untimed(cmd.cmd_id, cmd.api, format!("profiling info refused ({why})")),
        Counters::Absent => Outcome::Lost,
    }
}

/// Whether the driver gave the command a START: a read that finds none
/// asks the command's status, which the times alone would otherwise say
/// is complete (Oclgrind gives a failed command its QUEUED time and zeros).
pub fn has_start([_, _, start, _]: [u64; 4]) -> bool {
    start != 0
}

/// Why four times the driver gave a command that ended with `status` are
/// not its times: Oclgrind gives a failed launch its QUEUED time and zeros;
/// Intel's CPU runtime completes a launch whose wait list failed with a
/// START of 0 (its END a real time), which would put a day-long command in
/// the kernel table.
fn no_times(status: i32, t @ [_, _, start, end]: [u64; 4]) -> Option<String> {
    if status < 0 && !has_start(t) {
        return Some(format!("it ended with {} (its START is 0)", execution_status_text(status)));
    }
    (start == 0 && end != 0 || end < start)
        .then(|| format!("the driver's times are not a command's (START {start}, END {end})"))
}

/// The record of `e`, completed with `status` and its four `times`, as
/// [`outcome`] makes a [`Command`] of it, borrowed.
fn borrowed<'a>(
    e: &'a Enqueued,
    q: &'a QueueDesc,
    kernel: Option<&'a str>,
    status: i32,
    cmd_type: Option<u32>,
    [queued, submit, start, end]: [u64; 4],
) -> CommandRef<'a> {
    CommandRef {
        cmd_id: e.cmd_id,
        api: e.api,
        tid: e.tid,
        queue: e.queue,
        context: q.context,
        device: &q.device,
        cmd_type: cmd_type.unwrap_or(0),
        kernel,
        global: e.launch.global.as_slice(),
        local: e.launch.local.as_ref().map(Sizes::as_slice),
        bytes: e.launch.bytes,
        queued,
        submit,
        start,
        end,
        status,
        enqueue_tsc: e.enqueue_tsc,
        enqueue_end_tsc: e.enqueue_end_tsc,
        to_host: q.to_host,
    }
}

/// Records a completed command of the queue `q` describes (see [`outcome`]).
pub fn completed(e: &Enqueued, q: &QueueDesc, status: i32, cmd_type: Option<u32>, counters: Counters) {
    if let &Counters::Read(times) = &counters {
        if no_times(status, times).is_none() {
            let kernel = e.kernel.and_then(super::kernels::name_of);
            super::record_ref(&borrowed(e, q, kernel.as_deref(), status, cmd_type, times));
            return;
        }
    }
    match outcome(Command::enqueued(e, q), status, cmd_type, counters) {
        Outcome::Timed(c) => record(c),
        Outcome::Untimed(id, api, why) => untimed(id, api, why),
        Outcome::Lost => {}
    }
}

/// The text of a string an info query answered in `buf` with length `n`
/// (its terminator included).
pub fn info_string(buf: &[u8], n: usize) -> String {
    String::from_utf8_lossy(&buf[..n.saturating_sub(1).min(buf.len())]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(name: &str) -> &'static FnMeta {
        crate::meta::FUNCTIONS.iter().find(|f| f.name == name).unwrap()
    }

    fn args(f: &FnMeta, set: &[(&str, u64)]) -> Vec<u64> {
        f.params.iter().map(|p| set.iter().find(|(n, _)| *n == p.name).map_or(0, |(_, v)| *v)).collect()
    }

    #[test]
    fn kernel_launches_give_their_sizes() {
        let f = meta("clEnqueueNDRangeKernel");
        let (global, local) = ([1024usize, 8, 0, 0], [64usize, 1]);
        let a = args(
            f,
            &[
                ("kernel", 0x4B),
                ("work_dim", 2),
                ("global_work_size", global.as_ptr() as u64),
                ("local_work_size", local.as_ptr() as u64),
            ],
        );
        let l = unsafe { launch(f, &a) };
        assert_eq!(
            l,
            Launch { kernel: Some(0x4B), global: Sizes::of(&[1024, 8]), local: Some(Sizes::of(&[64, 1])), bytes: None }
        );
        let a = args(f, &[("kernel", 0x4B), ("work_dim", 5), ("global_work_size", global.as_ptr() as u64)]);
        let l = unsafe { launch(f, &a) };
        assert_eq!(
            (l.global.as_slice(), l.local),
            (&[1024, 8, 0][..], None),
            "at most three sizes; a NULL local size stays NULL"
        );
    }

    #[test]
    fn tasks_and_transfers() {
        let f = meta("clEnqueueTask");
        let l = unsafe { launch(f, &args(f, &[("kernel", 7)])) };
        assert_eq!((l.kernel, l.global.as_slice()), (Some(7), &[1][..]));
        let f = meta("clEnqueueReadBuffer");
        assert_eq!(unsafe { launch(f, &args(f, &[("size", 4096)])) }.bytes, Some(4096));
        let f = meta("clEnqueueSVMMemcpy");
        assert_eq!(unsafe { launch(f, &args(f, &[("size", 12)])) }.bytes, Some(12));
        let f = meta("clEnqueueMarkerWithWaitList");
        assert_eq!(
            unsafe { launch(f, &args(f, &[])) },
            Launch { kernel: None, global: Sizes::default(), local: None, bytes: None }
        );
    }

    fn enqueued() -> Command {
        let q = QueueDesc { context: 3, device: Arc::from("dev"), to_host: Some(-5) };
        let l = Launch { kernel: Some(1), global: Sizes::of(&[16]), local: None, bytes: None };
        let k = super::super::kernels::id(0x5EED_2001, || Some("k".into()));
        Command::enqueued(&Enqueued::new(42, "clEnqueueNDRangeKernel", 2, k, l), &q)
    }

    #[test]
    fn an_enqueued_command_waits_for_its_counters() {
        let c = enqueued();
        assert_eq!((c.cmd_id, c.queue, c.context, &*c.device, c.to_host), (42, 2, 3, "dev", Some(-5)));
        assert_eq!((c.kernel.as_deref(), c.global.as_slice(), c.local.as_deref()), (Some("k"), &[16][..], None));
        assert_eq!((c.queued, c.end, c.status, c.cmd_type), (0, 0, 0, 0));
    }

    #[test]
    fn completed_commands_are_timed_or_say_why_not() {
        match outcome(enqueued(), 0, Some(0x11F0), Counters::Read([1, 2, 3, 4])) {
            Outcome::Timed(c) => {
                assert_eq!((c.queued, c.submit, c.start, c.end, c.cmd_type, c.status), (1, 2, 3, 4, 0x11F0, 0))
            }
            o => panic!("{o:?}"),
        }
        match outcome(enqueued(), -5, None, Counters::Read([1, 2, 3, 4])) {
            Outcome::Timed(c) => assert_eq!((c.status, c.cmd_type), (-5, 0)),
            o => panic!("{o:?}"),
        }
        match outcome(enqueued(), -1, None, Counters::Refused("CL_PROFILING_INFO_NOT_AVAILABLE".into())) {
            Outcome::Untimed(_, _, why) => assert_eq!(
                why,
                "it ended with status -1 (CL_DEVICE_NOT_FOUND) (profiling info refused: CL_PROFILING_INFO_NOT_AVAILABLE)"
            ),
            o => panic!("{o:?}"),
        }
        match outcome(enqueued(), 0, None, Counters::Refused("CL_PROFILING_INFO_NOT_AVAILABLE".into())) {
            Outcome::Untimed(42, "clEnqueueNDRangeKernel", why) => {
                assert_eq!(why, "profiling info refused (CL_PROFILING_INFO_NOT_AVAILABLE)")
            }
            o => panic!("{o:?}"),
        }
        assert_eq!(outcome(enqueued(), 0, None, Counters::Absent), Outcome::Lost);
        for t in [[0, 0, 0, 35_394_000_000_000], [1, 2, 9, 8]] {
            match outcome(enqueued(), 0, None, Counters::Read(t)) {
                Outcome::Untimed(42, _, why) => {
                    assert!(why.starts_with("the driver's times are not a command's"), "{why}")
                }
                o => panic!("{t:?}: {o:?}"),
            }
        }
        assert!(
            matches!(outcome(enqueued(), 0, None, Counters::Read([0; 4])), Outcome::Timed(_)),
            "no times at all: 0 ns"
        );
        match outcome(enqueued(), -1, None, Counters::Read([7, 0, 0, 0])) {
            Outcome::Untimed(42, _, why) => {
                assert_eq!(why, "it ended with status -1 (CL_DEVICE_NOT_FOUND) (its START is 0)")
            }
            o => panic!("{o:?}"),
        }
    }

    /// A read hands its command over borrowed: the very command
    /// [`outcome`] would make, for a kernel and for a transfer.
    #[test]
    fn a_completed_command_borrowed_is_the_command_made_of_it() {
        let q = QueueDesc { context: 0xC7, device: Arc::from("gpu0"), to_host: Some(-12) };
        let k = super::super::kernels::id(0x5EED_4001, || Some("saxpy".into()));
        let launches = [
            (
                "clEnqueueNDRangeKernel",
                Launch {
                    kernel: Some(1),
                    global: Sizes::of(&[1024, 8]),
                    local: Some(Sizes::of(&[64, 2])),
                    bytes: None,
                },
            ),
            ("clEnqueueReadBuffer", Launch { kernel: None, global: Sizes::default(), local: None, bytes: Some(4096) }),
        ];
        for (api, l) in launches {
            let kid = l.kernel.and(k);
            let e = Enqueued { tid: 7, enqueue_tsc: 11, enqueue_end_tsc: 13, ..Enqueued::new(42, api, 0xA1, kid, l) };
            let Outcome::Timed(made) =
                outcome(Command::enqueued(&e, &q), -5, Some(0x11F0), Counters::Read([1, 2, 3, 4]))
            else {
                panic!("not timed")
            };
            let name = kid.and_then(super::super::kernels::name_of);
            let lent = borrowed(&e, &q, name.as_deref(), -5, Some(0x11F0), [1, 2, 3, 4]);
            assert_eq!(lent, made.as_ref());
            assert_eq!(lent.to_command(), made);
        }
    }

    #[test]
    fn info_strings_lose_their_terminator() {
        assert_eq!(info_string(b"add\0xxxx", 4), "add");
        assert_eq!(info_string(b"add", 0), "");
        assert_eq!(info_string(b"abc", 99), "abc");
    }
}
