//! What is recorded of an enqueue: the work it launched, read from the
//! application's arguments when the call returns, and the command's fate
//! once its times are read. The layer reads the driver's answers.

use super::{record, untimed, Command};
use crate::meta::FnMeta;
use std::sync::Arc;

/// What the records need of a queue, looked up once per queue.
#[derive(Debug)]
pub struct QueueInfo {
    /// The context, as the application sees it.
    pub context: u64,
    /// The device's name.
    pub device: Arc<str>,
    /// See [`Command::to_host`].
    pub to_host: Option<i64>,
    /// The queue's events held until their times are read.
    pub list: Arc<super::pending::QueueList>,
}

/// The work an enqueue launched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    /// The application's kernel handle, for a kernel launch.
    pub kernel: Option<u64>,
    pub global: Vec<usize>,
    pub local: Option<Vec<usize>>,
    /// Bytes moved, for a transfer.
    pub bytes: Option<u64>,
}

/// Up to three sizes of an array the application passed.
///
/// # Safety
/// `p` is 0 or the address of the application's array of at least `n` `size_t`.
unsafe fn words(p: u64, n: usize) -> Vec<usize> {
    if p == 0 {
        return Vec::new();
    }
    // SAFETY: `p` is the application's array of at least `n` sizes (# Safety); at most three are read.
    unsafe { std::slice::from_raw_parts(p as *const usize, n.min(3)) }.to_vec()
}

/// The work launched by a call to `f` with the application's arguments `app`.
///
/// # Safety
/// `app` are the arguments of a call to `f` that succeeded.
pub unsafe fn launch(f: &FnMeta, app: &[u64]) -> Launch {
    let arg = |name: &str| f.params.iter().position(|p| p.name == name).map(|i| app[i]);
    let mut l = Launch { kernel: None, global: Vec::new(), local: None, bytes: None };
    if f.name == "clEnqueueNDRangeKernel" {
        let dim = arg("work_dim").unwrap_or(0) as usize;
        l.kernel = Some(app[1]);
        // SAFETY: `words`'s # Safety follows from this fn's: `app` are the arguments of a call to `f` that succeeded
        // (# Safety).
        l.global = unsafe { words(arg("global_work_size").unwrap_or(0), dim) };
        // SAFETY: `words`'s # Safety follows from this fn's.
        l.local = arg("local_work_size").filter(|&p| p != 0).map(|p| unsafe { words(p, dim) });
    } else if f.name == "clEnqueueTask" {
        l.kernel = Some(app[1]);
        l.global = vec![1];
    } else {
        l.bytes = arg("cb").or_else(|| arg("size"));
    }
    l
}

impl Command {
    /// Command `cmd_id`, just enqueued by `api` on the application's
    /// `queue`; its counters come when it completes. The caller sets the
    /// thread and the enqueue call's TSC readings.
    pub fn enqueued(
        cmd_id: u64,
        api: &'static str,
        queue: u64,
        qi: &QueueInfo,
        kernel: Option<String>,
        l: Launch,
    ) -> Command {
        Command {
            cmd_id,
            api,
            tid: 0,
            queue,
            context: qi.context,
            device: qi.device.clone(),
            cmd_type: 0,
            to_host: qi.to_host,
            kernel,
            global: l.global,
            local: l.local,
            bytes: l.bytes,
            queued: 0,
            submit: 0,
            start: 0,
            end: 0,
            status: 0,
            enqueue_tsc: 0,
            enqueue_end_tsc: 0,
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
        Counters::Read(t) => {
            [cmd.queued, cmd.submit, cmd.start, cmd.end] = t;
            Outcome::Timed(cmd)
        }
        Counters::Refused(why) => Outcome::Untimed(cmd.cmd_id, cmd.api, format!("profiling info refused ({why})")),
        Counters::Absent => Outcome::Lost,
    }
}

/// Records a completed command (see [`outcome`]).
pub fn completed(cmd: Command, status: i32, cmd_type: Option<u32>, counters: Counters) {
    match outcome(cmd, status, cmd_type, counters) {
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
        assert_eq!(l, Launch { kernel: Some(0x4B), global: vec![1024, 8], local: Some(vec![64, 1]), bytes: None });
        let a = args(f, &[("kernel", 0x4B), ("work_dim", 5), ("global_work_size", global.as_ptr() as u64)]);
        let l = unsafe { launch(f, &a) };
        assert_eq!((l.global, l.local), (vec![1024, 8, 0], None), "at most three sizes; a NULL local size stays NULL");
    }

    #[test]
    fn tasks_and_transfers() {
        let f = meta("clEnqueueTask");
        let l = unsafe { launch(f, &args(f, &[("kernel", 7)])) };
        assert_eq!((l.kernel, l.global), (Some(7), vec![1]));
        let f = meta("clEnqueueReadBuffer");
        assert_eq!(unsafe { launch(f, &args(f, &[("size", 4096)])) }.bytes, Some(4096));
        let f = meta("clEnqueueSVMMemcpy");
        assert_eq!(unsafe { launch(f, &args(f, &[("size", 12)])) }.bytes, Some(12));
        let f = meta("clEnqueueMarkerWithWaitList");
        assert_eq!(
            unsafe { launch(f, &args(f, &[])) },
            Launch { kernel: None, global: vec![], local: None, bytes: None }
        );
    }

    fn enqueued() -> Command {
        let qi = QueueInfo { context: 3, device: Arc::from("dev"), to_host: Some(-5), list: Default::default() };
        let l = Launch { kernel: Some(1), global: vec![16], local: None, bytes: None };
        Command::enqueued(42, "clEnqueueNDRangeKernel", 2, &qi, Some("k".into()), l)
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
        match outcome(enqueued(), 0, None, Counters::Refused("CL_PROFILING_INFO_NOT_AVAILABLE".into())) {
            Outcome::Untimed(42, "clEnqueueNDRangeKernel", why) => {
                assert_eq!(why, "profiling info refused (CL_PROFILING_INFO_NOT_AVAILABLE)")
            }
            o => panic!("{o:?}"),
        }
        assert_eq!(outcome(enqueued(), 0, None, Counters::Absent), Outcome::Lost);
    }

    #[test]
    fn info_strings_lose_their_terminator() {
        assert_eq!(info_string(b"add\0xxxx", 4), "add");
        assert_eq!(info_string(b"add", 0), "");
        assert_eq!(info_string(b"abc", 99), "abc");
    }
}
