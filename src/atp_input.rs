//! An `.atp` read back for the driver-CI commands: the host tally and the
//! device commands for `cltap report`, and the normalized calls for
//! `cltap normalize`/`diff`.

use crate::devtime::Command;
use crate::report::Row;
use cltap_formats::atp::{Atp, Detail};
use std::collections::HashMap;

/// Whether an API line's status result, or its `[errcode]` output, is an
/// error.
fn failed(name: &str, ret: &str, args: &[String]) -> bool {
    let bad = |v: &str| v.starts_with("CL_") && v != "CL_SUCCESS";
    let errcode = crate::meta::by_name(name)
        .and_then(|i| crate::meta::FUNCTIONS[i].params.iter().position(|p| p.kind == crate::meta::Kind::Errcode))
        .and_then(|i| args.get(i))
        .and_then(|a| a.strip_prefix('[').and_then(|x| x.strip_suffix(']')));
    bad(ret) || errcode.is_some_and(bad)
}

/// Per API, over all the traces: calls, errors and host time in
/// nanoseconds, busiest first.
pub fn host_tally(atps: &[Atp]) -> Vec<Row> {
    let mut m: HashMap<&str, Row> = HashMap::new();
    let blocks = atps.iter().flat_map(|a| a.api.iter().zip(&a.timestamps));
    for (api, ts) in blocks {
        for (c, t) in api.items.iter().zip(&ts.items) {
            let r =
                m.entry(&t.name).or_insert_with(|| Row { name: t.name.clone(), min_us: u64::MAX, ..Row::default() });
            let ns = t.end.saturating_sub(t.start);
            r.calls += 1;
            r.errors += failed(&c.name, &c.ret, &c.args) as u64;
            r.total_us = r.total_us.saturating_add(ns);
            r.min_us = r.min_us.min(ns);
            r.max_us = r.max_us.max(ns);
        }
    }
    let mut v: Vec<Row> = m.into_values().collect();
    v.sort_by(|a, b| b.total_us.cmp(&a.total_us).then(b.calls.cmp(&a.calls)).then(a.name.cmp(&b.name)));
    v
}

/// The perf markers of the traces' marker sections: the marker calls made
/// (begins, ends), and per marker name its ranges (a begin and the end that
/// closes it on its thread) as rows, times in ns. The section keeps when
/// each call was made, not how long it took: the calls have counts only.
pub fn markers(atps: &[Atp]) -> ((u64, u64), Vec<Row>) {
    use cltap_formats::atp::Marker;
    let (mut begins, mut ends) = (0u64, 0u64);
    let mut m: HashMap<&str, Row> = HashMap::new();
    for block in atps.iter().flat_map(|a| &a.markers) {
        // Markers nest: an end closes the latest begin still open.
        let mut open: Vec<(&str, u64)> = Vec::new();
        for mk in &block.items {
            match mk {
                Marker::Begin { name, time, .. } => {
                    begins += 1;
                    open.push((name, *time));
                }
                Marker::End { time } => {
                    ends += 1;
                    let Some((name, start)) = open.pop() else { continue };
                    let ns = time.saturating_sub(start);
                    let r = m.entry(name).or_insert_with(|| Row {
                        name: name.to_string(),
                        min_us: u64::MAX,
                        ..Row::default()
                    });
                    r.calls += 1;
                    r.total_us = r.total_us.saturating_add(ns);
                    r.min_us = r.min_us.min(ns);
                    r.max_us = r.max_us.max(ns);
                }
            }
        }
    }
    let mut v: Vec<Row> = m.into_values().collect();
    v.sort_by(|a, b| b.total_us.cmp(&a.total_us).then(a.name.cmp(&b.name)));
    ((begins, ends), v)
}

/// The device commands of the traces' timestamp sections, for the kernel
/// and transfer tables. Times are already on the host's clock.
pub fn commands(atps: &[Atp]) -> Vec<Command> {
    let mut out = Vec::new();
    for block in atps.iter().flat_map(|a| &a.timestamps) {
        for t in &block.items {
            let Some(e) = &t.enqueue else { continue };
            let api = crate::meta::by_name(&t.name).map_or("clEnqueue?", |i| crate::meta::FUNCTIONS[i].name);
            let (kernel, global, local, bytes) = match &e.detail {
                Detail::Kernel { name, global, local, .. } => (
                    Some(name.clone()),
                    global.iter().map(|&x| x as usize).collect(),
                    local.as_ref().map(|l| l.iter().map(|&x| x as usize).collect()),
                    None,
                ),
                Detail::Transfer { bytes } => (None, Vec::new(), None, Some(*bytes)),
                Detail::None => (None, Vec::new(), None, None),
            };
            out.push(Command {
                cmd_id: out.len() as u64 + 1,
                api,
                tid: block.tid as u32,
                queue: e.queue,
                context: e.context,
                device: e.device.as_str().into(),
                cmd_type: e.cmd_type,
                kernel,
                global,
                local,
                bytes,
                queued: e.queued,
                submit: e.submit,
                start: e.start,
                end: e.end,
                status: 0,
                enqueue_tsc: t.start,
                enqueue_end_tsc: t.end,
                to_host: Some(0),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cltap_formats::atp::{ApiCall, Block, Enqueue, Timestamp};

    fn sample() -> Atp {
        let call = |ret: &str, name: &str, args: &[&str]| ApiCall {
            ret: ret.into(),
            name: name.into(),
            args: args.iter().map(|s| s.to_string()).collect(),
        };
        let ts = |name: &str, start: u64, end: u64, enqueue: Option<Enqueue>| Timestamp {
            api_type: 0,
            name: name.into(),
            start,
            end,
            enqueue,
        };
        let enq = |detail: Detail, start: u64, end: u64| Enqueue {
            cmd_type: 0x11F0,
            cmd_name: "CL_COMMAND_NDRANGE_KERNEL".into(),
            queued: start - 20,
            submit: start - 10,
            start,
            end,
            queue_id: 1,
            queue: 0x10,
            context_id: 1,
            context: 0x20,
            device: "cpu".into(),
            detail,
        };
        Atp {
            header: vec![("TraceFileVersion".into(), "3.2".into())],
            api: vec![Block {
                tid: 7,
                items: vec![
                    call(
                        "CL_SUCCESS",
                        "clEnqueueNDRangeKernel",
                        &["0x10", "0x30", "1", "NULL", "[64]", "NULL", "0", "NULL", "NULL"],
                    ),
                    call(
                        "NULL",
                        "clCreateBuffer",
                        &["0x20", "CL_MEM_READ_WRITE", "4", "NULL", "[CL_INVALID_BUFFER_SIZE]"],
                    ),
                    call("CL_SUCCESS", "clEnqueueReadBuffer", &["0x10"]),
                ],
            }],
            timestamps: vec![Block {
                tid: 7,
                items: vec![
                    ts(
                        "clEnqueueNDRangeKernel",
                        100,
                        400,
                        Some(enq(
                            Detail::Kernel { handle: 0x30, name: "add".into(), global: vec![64], local: None },
                            1000,
                            3000,
                        )),
                    ),
                    ts("clCreateBuffer", 500, 600, None),
                    ts("clEnqueueReadBuffer", 700, 900, Some(enq(Detail::Transfer { bytes: 4000 }, 4000, 6000))),
                ],
            }],
            markers: vec![],
            ..Atp::default()
        }
    }

    #[test]
    fn tallies_hosts_errors_and_device_commands() {
        let a = [sample()];
        let rows = host_tally(&a);
        assert_eq!(rows[0].name, "clEnqueueNDRangeKernel");
        assert_eq!((rows[0].calls, rows[0].total_us), (1, 300));
        let cb = rows.iter().find(|r| r.name == "clCreateBuffer").unwrap();
        assert_eq!(cb.errors, 1, "the [errcode] output counts as an error");
        let c = commands(&a);
        assert_eq!(c.len(), 2);
        let k = crate::devtime::kernel_table(&c);
        assert_eq!((k[0].kernel.as_str(), k[0].total_ns), ("add", 2000));
        let t = crate::devtime::transfer_table(&c);
        assert_eq!((t[0].direction, t[0].bytes, t[0].total_ns), ("device to host", 4000, 2000));
    }
}
