//! Tests of the `.atp` writer and reader: round trips, RCP's golden lines,
//! damaged files.

mod args;
mod generated;
mod golden;
mod hsa;
mod numbers;
mod reader;
mod roundtrip;
mod sample;

use super::*;

const Q: u64 = 0x55d0_c8a3_b2c0;
const CTX: u64 = 0x55d0_c8a1_f010;
const K: u64 = 0x55d0_c8b4_0a80;

fn call(ret: &str, name: &str, args: &[&str]) -> ApiCall {
    ApiCall { ret: ret.into(), name: name.into(), args: args.iter().map(|a| a.to_string()).collect() }
}

fn ts(name: &str, start: u64, end: u64, enqueue: Option<Enqueue>) -> Timestamp {
    Timestamp { api_type: api_type(name), name: name.into(), start, end, enqueue }
}

fn enq(cmd_type: u32, cmd_name: &str, t0: u64, device: &str, detail: Detail) -> Enqueue {
    Enqueue {
        cmd_type,
        cmd_name: cmd_name.into(),
        queued: t0,
        submit: t0 + 500,
        start: t0 + 7_000,
        end: t0 + 90_000,
        queue_id: 1,
        queue: Q,
        context_id: 1,
        context: CTX,
        device: device.into(),
        detail,
    }
}

fn kernel(name: &str, global: &[u64], local: Option<&[u64]>) -> Detail {
    Detail::Kernel { handle: K, name: name.into(), global: global.to_vec(), local: local.map(<[u64]>::to_vec) }
}

fn begin(name: &str, time: u64, group: &str) -> Marker {
    Marker::Begin { name: name.into(), time, group: group.into() }
}

fn one_line(f: impl FnOnce(&mut String)) -> String {
    let mut s = String::new();
    f(&mut s);
    s
}

/// Reading `text` fails at `line` for a reason that contains `reason`.
fn fails_at(text: &str, line: usize, reason: &str) {
    let e = read(text).expect_err("malformed input was accepted");
    assert_eq!(e.line, line, "{e}");
    assert!(e.reason.contains(reason), "{e}");
}

/// `atp` reads back from its text, and the text is a fixed point: reading
/// what was read and writing it again changes nothing.
fn assert_round_trip(atp: &Atp) -> String {
    let text = write(atp);
    assert_eq!(read(&text).unwrap(), *atp);
    assert_eq!(write(&read(&text).unwrap()), text);
    text
}

fn hsa_ts(name: &str, start: u64, end: u64, copy: Option<AsyncCopy>) -> HsaTimestamp {
    HsaTimestamp { api_type: hsa_api_type(name), name: name.into(), start, end, copy }
}

const AGENT: u64 = 94_215_731_018_240;
const SIGNAL: u64 = 139_887_310_213_120;

fn dispatch(kernel_name: &str, start: u64, queue_index: u64, packet_id: u64) -> KernelDispatch {
    KernelDispatch {
        kernel_name: kernel_name.into(),
        kernel_handle: 0x7f3a_2c00_1040 + packet_id * 0x40,
        start,
        end: start + 54_000,
        agent_name: "gfx90a".into(),
        agent_handle: AGENT,
        queue_index,
        agent_index: 0,
        packet_type: "HSA_PACKET_TYPE_KERNEL_DISPATCH".into(),
        packet_id,
        packet: format!("{{770,3,256,1,1,0,1048576,1,1,0,0,139887310000192,139887309000000,0,{{{SIGNAL}}}}}"),
    }
}
