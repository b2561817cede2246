//! One typed decoder per record kind that is not a call: a record's words
//! become a struct with named fields here, and nowhere else is a record
//! indexed by position. A short record (a damaged trace) reads its missing
//! words as 0, as every reader always did.

use cltap_formats::cltrace::record::{self as rec, View};

fn word(v: &View<'_>, i: usize) -> u64 {
    v.args.get(i).copied().unwrap_or(0)
}

fn three(v: &View<'_>, i: usize) -> [u64; 3] {
    [word(v, i), word(v, i + 1), word(v, i + 2)]
}

/// An HSA kernel dispatch (`KIND_HSA_DISPATCH`): the header's `cmd_id` is
/// the dispatch number, `t0`/`t1` its begin and end (the runtime's clock).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Dispatch {
    pub agent: u64,
    pub queue_id: u64,
    pub queue_index: u64,
    pub kernel_object: u64,
    pub grid: [u64; 3],
    pub workgroup: [u64; 3],
    pub private_segment: u64,
    pub group_segment: u64,
    /// When the packet was submitted; 0 when not taken.
    pub time_dispatch: u64,
    /// When its completion was seen; 0 when not taken.
    pub time_complete: u64,
    /// The thread that submitted it.
    pub tid: u32,
    pub signal: u64,
    pub queue_number: u64,
    /// The submitting HSA call's number on `tid` (0: no recorded call).
    pub call: u64,
}

impl Dispatch {
    pub fn of(v: &View<'_>) -> Dispatch {
        Dispatch {
            agent: word(v, rec::DISPATCH_AGENT),
            queue_id: word(v, rec::DISPATCH_QUEUE_ID),
            queue_index: word(v, rec::DISPATCH_QUEUE_INDEX),
            kernel_object: word(v, rec::DISPATCH_KERNEL_OBJECT),
            grid: three(v, rec::DISPATCH_GRID),
            workgroup: three(v, rec::DISPATCH_WORKGROUP),
            private_segment: word(v, rec::DISPATCH_PRIVATE_SEGMENT),
            group_segment: word(v, rec::DISPATCH_GROUP_SEGMENT),
            time_dispatch: word(v, rec::DISPATCH_TIME_DISPATCH),
            time_complete: word(v, rec::DISPATCH_TIME_COMPLETE),
            tid: word(v, rec::DISPATCH_TID) as u32,
            signal: word(v, rec::DISPATCH_SIGNAL),
            queue_number: word(v, rec::DISPATCH_QUEUE_NUMBER),
            call: word(v, rec::DISPATCH_CALL),
        }
    }

    /// The record's words (tests build records from a struct).
    pub fn words(&self) -> [u64; rec::DISPATCH_WORDS] {
        let mut w = [0u64; rec::DISPATCH_WORDS];
        w[rec::DISPATCH_AGENT] = self.agent;
        w[rec::DISPATCH_QUEUE_ID] = self.queue_id;
        w[rec::DISPATCH_QUEUE_INDEX] = self.queue_index;
        w[rec::DISPATCH_KERNEL_OBJECT] = self.kernel_object;
        w[rec::DISPATCH_GRID..rec::DISPATCH_GRID + 3].copy_from_slice(&self.grid);
        w[rec::DISPATCH_WORKGROUP..rec::DISPATCH_WORKGROUP + 3].copy_from_slice(&self.workgroup);
        w[rec::DISPATCH_PRIVATE_SEGMENT] = self.private_segment;
        w[rec::DISPATCH_GROUP_SEGMENT] = self.group_segment;
        w[rec::DISPATCH_TIME_DISPATCH] = self.time_dispatch;
        w[rec::DISPATCH_TIME_COMPLETE] = self.time_complete;
        w[rec::DISPATCH_TID] = self.tid as u64;
        w[rec::DISPATCH_SIGNAL] = self.signal;
        w[rec::DISPATCH_QUEUE_NUMBER] = self.queue_number;
        w[rec::DISPATCH_CALL] = self.call;
        w
    }
}

/// An HSA agent (`KIND_HSA_AGENT`); its name is the record's string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Agent {
    pub handle: u64,
    /// Its index among the agents of its type (GPU 0, GPU 1, …).
    pub index: u64,
    /// `hsa_device_type_t`: 0 CPU, 1 GPU, 2 DSP.
    pub device: u64,
    pub compute_units: u64,
    pub simds_per_cu: u64,
    pub shader_engines: u64,
    pub wavefront_size: u64,
    pub max_waves_per_cu: u64,
    pub max_clock_mhz: u64,
    pub workgroup_max: u64,
}

impl Agent {
    pub fn of(v: &View<'_>) -> Agent {
        Agent {
            handle: word(v, rec::AGENT_HANDLE),
            index: word(v, rec::AGENT_INDEX),
            device: word(v, rec::AGENT_DEVICE),
            compute_units: word(v, rec::AGENT_COMPUTE_UNITS),
            simds_per_cu: word(v, rec::AGENT_SIMDS_PER_CU),
            shader_engines: word(v, rec::AGENT_SHADER_ENGINES),
            wavefront_size: word(v, rec::AGENT_WAVEFRONT_SIZE),
            max_waves_per_cu: word(v, rec::AGENT_MAX_WAVES_PER_CU),
            max_clock_mhz: word(v, rec::AGENT_MAX_CLOCK_MHZ),
            workgroup_max: word(v, rec::AGENT_WORKGROUP_MAX),
        }
    }
}

/// An async copy's times (`KIND_HSA_COPY`): `t0`/`t1` of the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Copy {
    /// The thread whose call started the copy.
    pub tid: u32,
    /// That thread's count of such calls, from 0.
    pub ordinal: u64,
    /// `COPY_PLAIN` or `COPY_RECT`.
    pub which: u64,
}

impl Copy {
    pub fn of(v: &View<'_>) -> Copy {
        Copy {
            tid: word(v, rec::COPY_TID) as u32,
            ordinal: word(v, rec::COPY_ORDINAL),
            which: v.args.get(rec::COPY_FN).copied().unwrap_or(rec::COPY_PLAIN),
        }
    }
}

/// A dispatch's hardware counters (`KIND_HSA_COUNTERS`): the header's
/// `cmd_id` is the dispatch number.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Counters {
    pub pass: u64,
    /// `(packed event, value)`: `hsa::aqlprofile::unpack` names the event.
    pub values: Vec<(u64, u64)>,
}

impl Counters {
    pub fn of(v: &View<'_>) -> Counters {
        Counters {
            pass: word(v, 0),
            values: v.args.get(1..).unwrap_or(&[]).chunks_exact(2).map(|p| (p[0], p[1])).collect(),
        }
    }
}

/// The counter request (`KIND_COUNTER_PLAN`): the header's `cmd_id` is the
/// pass; the record's string names the counters.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Plan {
    /// 0: no device can count them.
    pub passes: u32,
    pub agent: u64,
    pub blocks: Vec<u64>,
}

impl Plan {
    pub fn of(v: &View<'_>) -> Plan {
        Plan {
            passes: word(v, rec::PLAN_PASSES) as u32,
            agent: word(v, rec::PLAN_AGENT),
            blocks: v.args.get(rec::PLAN_BLOCKS..).unwrap_or(&[]).to_vec(),
        }
    }
}

/// An NDRange's kernel statistics (`KIND_KERNEL_INFO`); `None`: the driver
/// did not say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KernelInfo {
    pub local_mem: Option<u64>,
    pub private_mem: Option<u64>,
    pub preferred_multiple: Option<u64>,
    pub work_group_size: Option<u64>,
    pub device_cus: Option<u64>,
    pub device_local_mem: Option<u64>,
    pub device_max_wg: Option<u64>,
    pub device_type: Option<u64>,
}

impl KernelInfo {
    pub fn of(v: &View<'_>) -> KernelInfo {
        let w = |i: usize| v.args.get(i).copied().filter(|x| *x != u64::MAX);
        KernelInfo {
            local_mem: w(rec::KINFO_LOCAL_MEM),
            private_mem: w(rec::KINFO_PRIVATE_MEM),
            preferred_multiple: w(rec::KINFO_PREFERRED_MULTIPLE),
            work_group_size: w(rec::KINFO_WORK_GROUP_SIZE),
            device_cus: w(rec::KINFO_DEVICE_CUS),
            device_local_mem: w(rec::KINFO_DEVICE_LOCAL_MEM),
            device_max_wg: w(rec::KINFO_DEVICE_MAX_WG),
            device_type: w(rec::KINFO_DEVICE_TYPE),
        }
    }
}

/// An OpenCL command's device times (`KIND_CL_COMMAND`), as device timing
/// delivered it; `None` for a record of another function table.
pub fn command(v: &View<'_>) -> Option<crate::devtime::Command> {
    use rec::*;
    let h = &v.header;
    let api = crate::meta::FUNCTIONS.get(h.fn_id as usize)?.name;
    let has = word(v, COMMAND_HAS);
    let sizes = |at: usize, n: u64| (0..n.min(3) as usize).map(|i| word(v, at + i) as usize).collect::<Vec<_>>();
    let name = v.kernel_name().unwrap_or_default();
    let (device, kernel) = match name.split_once('\t') {
        Some((d, k)) => (d, Some(k.to_string())),
        None => (name.as_str(), None),
    };
    Some(crate::devtime::Command {
        cmd_id: h.cmd_id,
        api,
        tid: word(v, COMMAND_TID) as u32,
        queue: word(v, COMMAND_QUEUE),
        context: word(v, COMMAND_CONTEXT),
        device: device.into(),
        cmd_type: word(v, COMMAND_TYPE) as u32,
        kernel: kernel.filter(|_| has & COMMAND_HAS_KERNEL != 0),
        global: sizes(COMMAND_GLOBAL, word(v, COMMAND_GLOBAL_DIMS)),
        local: (has & COMMAND_HAS_LOCAL != 0).then(|| sizes(COMMAND_LOCAL, word(v, COMMAND_LOCAL_DIMS))),
        bytes: (has & COMMAND_HAS_BYTES != 0).then(|| word(v, COMMAND_BYTES)),
        queued: word(v, COMMAND_QUEUED),
        submit: word(v, COMMAND_SUBMIT),
        start: word(v, COMMAND_START),
        end: word(v, COMMAND_END),
        status: h.ret as i32,
        enqueue_tsc: h.t0,
        enqueue_end_tsc: h.t1,
        to_host: (has & COMMAND_HAS_TO_HOST != 0).then(|| word(v, COMMAND_TO_HOST) as i64),
    })
}

/// A command's record words, as [`command`] reads them.
pub fn command_ref_words(c: &crate::devtime::CommandRef) -> [u64; rec::COMMAND_WORDS] {
    use rec::*;
    let mut w = [0u64; COMMAND_WORDS];
    w[COMMAND_QUEUE] = c.queue;
    w[COMMAND_CONTEXT] = c.context;
    [w[COMMAND_QUEUED], w[COMMAND_SUBMIT], w[COMMAND_START], w[COMMAND_END]] = [c.queued, c.submit, c.start, c.end];
    w[COMMAND_TID] = c.tid as u64;
    w[COMMAND_TYPE] = c.cmd_type as u64;
    let bit = |on: bool, b: u64| if on { b } else { 0 };
    w[COMMAND_HAS] = bit(c.to_host.is_some(), COMMAND_HAS_TO_HOST)
        | bit(c.bytes.is_some(), COMMAND_HAS_BYTES)
        | bit(c.kernel.is_some(), COMMAND_HAS_KERNEL)
        | bit(c.local.is_some(), COMMAND_HAS_LOCAL);
    w[COMMAND_TO_HOST] = c.to_host.unwrap_or(0) as u64;
    w[COMMAND_BYTES] = c.bytes.unwrap_or(0);
    let global = &c.global[..c.global.len().min(3)];
    let local = c.local.unwrap_or(&[]);
    let local = &local[..local.len().min(3)];
    w[COMMAND_GLOBAL_DIMS] = global.len() as u64;
    w[COMMAND_LOCAL_DIMS] = local.len() as u64;
    for (i, g) in global.iter().enumerate() {
        w[COMMAND_GLOBAL + i] = *g as u64;
    }
    for (i, l) in local.iter().enumerate() {
        w[COMMAND_LOCAL + i] = *l as u64;
    }
    w
}

/// A command's name capture, appended to `out`: the device's name, and a
/// tab and the kernel's name for a kernel.
pub fn command_name_into(device: &str, kernel: Option<&str>, out: &mut Vec<u8>) {
    out.extend_from_slice(device.as_bytes());
    if let Some(k) = kernel {
        out.push(b'\t');
        out.extend_from_slice(k.as_bytes());
    }
}

/// A command's record: its words and its name capture, as [`command`]
/// reads them.
pub fn command_words(c: &crate::devtime::Command) -> ([u64; rec::COMMAND_WORDS], String) {
    let mut name = Vec::new();
    command_name_into(&c.device, c.kernel.as_deref(), &mut name);
    (command_ref_words(&c.as_ref()), String::from_utf8_lossy(&name).into_owned())
}

/// A captured array's elements of `elem` bytes (1 to 8), as words.
pub fn words(b: &[u8], elem: usize) -> Vec<u64> {
    b.chunks_exact(elem.clamp(1, 8))
        .map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_ne_bytes(w)
        })
        .collect()
}

/// A kernel object's descriptor (`KIND_HSA_KERNEL`): its first 64 bytes,
/// as the record's words hold them.
pub fn kernel_descriptor(v: &View<'_>) -> crate::hsa::kd::KernelDescriptor {
    let mut b = [0u8; crate::hsa::kd::KD_SIZE];
    for (i, w) in v.args.iter().take(crate::hsa::kd::KD_SIZE / 8).enumerate() {
        b[i * 8..i * 8 + 8].copy_from_slice(&w.to_le_bytes());
    }
    crate::hsa::kd::decode(&b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cltap_formats::cltrace::record::{encode, records, Header, FLAG_DONE, KIND_HSA_DISPATCH};

    #[test]
    fn a_dispatch_goes_through_its_words_and_back() {
        let d = Dispatch {
            agent: 0xa9,
            queue_id: 2,
            queue_index: 7,
            kernel_object: 0x1000,
            grid: [256, 2, 1],
            workgroup: [64, 1, 1],
            private_segment: 16,
            group_segment: 512,
            time_dispatch: 5,
            time_complete: 9,
            tid: 41,
            signal: 0x77,
            queue_number: 3,
            call: 12,
        };
        let b = encode(&Header { kind: KIND_HSA_DISPATCH, flags: FLAG_DONE, ..Default::default() }, &d.words(), &[]);
        let v = records(&b).next().unwrap();
        assert_eq!(Dispatch::of(&v), d);
    }

    #[test]
    fn a_command_goes_through_its_record_and_back() {
        use cltap_formats::cltrace::record::{Capture, Tag, FLAG_OK, KIND_CL_COMMAND, NAME_PARAM};
        let mut c = crate::devtime::Command {
            cmd_id: 9,
            api: "clEnqueueNDRangeKernel",
            tid: 4,
            queue: 0x10,
            context: 0x20,
            device: "cpu".into(),
            cmd_type: 0x11F0,
            kernel: Some("add".into()),
            global: vec![1024, 2],
            local: Some(vec![64, 1]),
            bytes: None,
            queued: 1,
            submit: 2,
            start: 3,
            end: 4,
            status: -5,
            enqueue_tsc: 100,
            enqueue_end_tsc: 200,
            to_host: Some(-7),
        };
        let read = |c: &crate::devtime::Command| {
            let (w, name) = command_words(c);
            let h = Header {
                kind: KIND_CL_COMMAND,
                fn_id: crate::meta::by_name(c.api).unwrap() as u16,
                flags: FLAG_DONE | FLAG_OK,
                cmd_id: c.cmd_id,
                t0: c.enqueue_tsc,
                t1: c.enqueue_end_tsc,
                ret: c.status as i64 as u64,
                ..Default::default()
            };
            let cap = Capture {
                param: NAME_PARAM,
                tag: Tag::Str as u8,
                _pad: 0,
                bytes: name.len() as u32,
                total: name.len() as u64,
            };
            let b = encode(&h, &w, &[(cap, name.as_bytes())]);
            let v = records(&b).next().unwrap();
            command(&v).unwrap()
        };
        assert_eq!(read(&c), c);
        (c.api, c.kernel, c.local, c.bytes, c.to_host, c.global) =
            ("clEnqueueReadBuffer", None, None, Some(4096), None, vec![]);
        assert_eq!(read(&c), c);
    }

    #[test]
    fn a_short_record_reads_its_missing_words_as_zero() {
        let b = encode(&Header { kind: KIND_HSA_DISPATCH, flags: FLAG_DONE, ..Default::default() }, &[5, 6], &[]);
        let v = records(&b).next().unwrap();
        let d = Dispatch::of(&v);
        assert_eq!((d.agent, d.queue_id, d.kernel_object, d.call), (5, 6, 0, 0));
    }
}
