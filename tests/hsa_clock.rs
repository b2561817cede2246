//! HSA times on the calls' clock on a machine that has slept. ROCr's
//! `HSA_SYSTEM_INFO_TIMESTAMP`, and the dispatch times derived from GPU
//! ticks, are the KFD system counter: `CLOCK_BOOTTIME`, ahead of the
//! calls' `CLOCK_MONOTONIC` by the time the machine slept since boot. The
//! emulator pretends 10 s of sleep (`GPU_EMU_SUSPENDED_NS`); every dispatch
//! must still lie, on the timeline and in the `.pftrace`, between the
//! doorbell store that submitted it and the wait that saw it complete.
//!
//! Correlated by identity, never by time: the submitting store is the call
//! the dispatch record names (the arrow's start); the completion wait is
//! the one the client makes for that dispatch's signal, after all five
//! submissions and in their order (`tests/gpu_emu/hsa_client.c` waits for
//! `done[i]`, i = 0‥N−1), so the k-th dispatch submitted is awaited by the
//! k-th `hsa_signal_wait_scacquire` that follows the last submission on
//! that thread.

mod common;
use cltap_formats::cltrace::{Reader, INFO_HSA_CLOCK_OFFSET};
use common::checks::perfetto_slices;
use common::*;
use serde_json::Value;

const DISPATCHES: usize = 5;
const SLEPT_NS: u64 = 10_000_000_000;

fn now(clock: libc::clockid_t) -> i64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: writes only `t`.
    unsafe { libc::clock_gettime(clock, &mut t) };
    t.tv_sec * 1_000_000_000 + t.tv_nsec
}

/// A host call or a dispatch, as both outputs give them: where it lies (ns
/// or µs, the output's unit) and what identifies it.
#[derive(Debug, Clone)]
struct Slice {
    name: String,
    /// The thread (timeline tid, .pftrace track) for calls.
    lane: String,
    begin: f64,
    end: f64,
    /// Timeline: the arrow's id (1<<62 | dispatch); .pftrace: the flow ids.
    flows: Vec<u64>,
}

/// For each dispatch, in the order submitted: (dispatch, its submitting
/// store, its completion wait). `calls` in each thread's record order.
fn pair(calls: &[Slice], dispatches: &[Slice]) -> Vec<(Slice, Slice, Slice)> {
    assert_eq!(dispatches.len(), DISPATCHES, "{dispatches:?}");
    // The store each dispatch names: the call that starts its flow.
    let mut by_store: Vec<(usize, Slice)> = dispatches
        .iter()
        .map(|d| {
            let at = calls
                .iter()
                .position(|c| c.name.starts_with("hsa_signal_store_") && c.flows.iter().any(|f| d.flows.contains(f)))
                .unwrap_or_else(|| panic!("no store starts the flow of {d:?}"));
            (at, d.clone())
        })
        .collect();
    by_store.sort_by_key(|(at, _)| *at);
    let (last, lane) = (by_store[DISPATCHES - 1].0, calls[by_store[DISPATCHES - 1].0].lane.clone());
    assert!(by_store.iter().all(|(at, _)| calls[*at].lane == lane), "all submitted on one thread");
    let waits: Vec<&Slice> = calls[last + 1..]
        .iter()
        .filter(|c| c.lane == lane && c.name == "hsa_signal_wait_scacquire")
        .take(DISPATCHES)
        .collect();
    assert_eq!(waits.len(), DISPATCHES, "a wait per dispatch after the submissions");
    by_store.into_iter().zip(waits).map(|((at, d), w)| (d, calls[at].clone(), w.clone())).collect()
}

/// Each dispatch begins after its store began, and ends before its wait
/// returned (`slack`: the output's rounding).
fn check_within(what: &str, pairs: &[(Slice, Slice, Slice)], slack: f64) {
    for (d, store, wait) in pairs {
        assert!(d.begin + slack >= store.begin, "{what}: dispatch begins before its submitting call: {d:?} {store:?}");
        assert!(d.end <= wait.end + slack, "{what}: dispatch ends after the wait that saw it complete: {d:?} {wait:?}");
        assert!(d.begin <= d.end, "{what}: {d:?}");
    }
}

#[test]
fn dispatches_lie_within_their_calls_on_a_machine_that_slept() {
    let out = scratch("hsa-clock");
    let mut c = hsa_client(&out, DISPATCHES as u64);
    c.env("HSA_TOOLS_LIB", layer());
    c.env("CLTAP_OUTPUT_DIR", &*out);
    c.env("ROCP_HSA_INTERCEPT", "2");
    c.env("CLTAP_TIMELINE", "1");
    c.env("CLTAP_PFTRACE", "1");
    c.env("GPU_EMU_SUSPENDED_NS", SLEPT_NS.to_string());
    let o = run(c);
    assert_eq!(o.code, Some(0), "stdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
    assert!(o.stdout.contains("client: all checks passed"), "{}", o.stdout);

    // The offset measured at OnLoad: the pretended sleep plus this
    // machine's own (CLOCK_BOOTTIME − CLOCK_MONOTONIC), to within a
    // millisecond of the bracket and of the clocks' slewing.
    let r = Reader::open(&only_file(&out, ".cltrace")).unwrap();
    let offset: i64 = r.info(INFO_HSA_CLOCK_OFFSET).expect("the trace records the HSA clock's offset").parse().unwrap();
    let own = now(libc::CLOCK_BOOTTIME) - now(libc::CLOCK_MONOTONIC);
    assert!((offset - SLEPT_NS as i64 - own).abs() < 1_000_000, "offset {offset}, slept {SLEPT_NS}, own {own}");

    // The timeline (µs, ns precision).
    let path = std::fs::read_dir(&*out).unwrap().map(|e| e.unwrap().path()).find(|p| {
        let n = p.to_string_lossy();
        n.ends_with(".json") && !n.ends_with(".summary.json")
    });
    let json: Value = serde_json::from_str(&std::fs::read_to_string(path.expect("a timeline")).unwrap()).unwrap();
    let events = json["traceEvents"].as_array().unwrap();
    let f = |e: &Value, k: &str| e[k].as_f64().unwrap();
    let flow_start =
        |id: u64| events.iter().find(|e| e["cat"] == "flow" && e["ph"] == "s" && e["id"].as_u64() == Some(id)).cloned();
    let calls: Vec<Slice> = events
        .iter()
        .filter(|e| e["ph"] == "X" && e["cat"] == "api")
        .map(|e| {
            // A store starts the arrows whose start lies on its slice.
            let flows = events
                .iter()
                .filter(|s| s["cat"] == "flow" && s["ph"] == "s" && s["tid"] == e["tid"] && s["ts"] == e["ts"])
                .map(|s| s["id"].as_u64().unwrap())
                .collect();
            Slice {
                name: e["name"].as_str().unwrap().into(),
                lane: e["tid"].to_string(),
                begin: f(e, "ts"),
                end: f(e, "ts") + f(e, "dur"),
                flows,
            }
        })
        .collect();
    let dispatches: Vec<Slice> = events
        .iter()
        .filter(|e| e["ph"] == "X" && e["cat"] == "hsa_dispatch")
        .map(|e| {
            let id = (1u64 << 62) | e["args"]["dispatch"].as_u64().unwrap();
            assert!(flow_start(id).is_some(), "the dispatch has an arrow: {e}");
            Slice {
                name: e["name"].as_str().unwrap().into(),
                lane: String::new(),
                begin: f(e, "ts"),
                end: f(e, "ts") + f(e, "dur"),
                flows: vec![id],
            }
        })
        .collect();
    assert!(dispatches.iter().all(|d| d.name == "add_one.kd"), "{dispatches:?}");
    check_within("timeline", &pair(&calls, &dispatches), 0.0015);

    // The .pftrace (ns).
    let slices = perfetto_slices(&only_file(&out, ".pftrace"));
    let slice = |s: &Value| Slice {
        name: s["name"].as_str().unwrap().into(),
        lane: s["track"].to_string(),
        begin: f(s, "ts"),
        end: f(s, "end"),
        flows: s["flows"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect(),
    };
    let calls: Vec<Slice> = slices.iter().filter(|s| s["cat"] == "hsa").map(slice).collect();
    let dispatches: Vec<Slice> = slices.iter().filter(|s| s["cat"] == "hsa_dispatch").map(slice).collect();
    assert!(dispatches.iter().all(|d| d.name == "add_one.kd" && d.flows.len() == 1), "{dispatches:?}");
    check_within(".pftrace", &pair(&calls, &dispatches), 0.0);
}
