//! cltap as an HSA tool (`HSA_TOOLS_LIB=libcltap_layer.so`) on Debian's real ROCr over the
//! emulated gfx906 (`gpu-emu/`), with the HSA client (`tests/gpu_emu/hsa_client.c`) and
//! `rocminfo`: every HSA call recorded into the binary
//! trace and rendered in the API log and the summary, the application
//! unchanged; `OnLoad` on tables smaller than cltap's; a bad setting; a
//! death mid-run by SIGKILL and one by ROCr's abort.

mod common;
use cltap_formats::apilog::{self, Call, Entry};
use common::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Dispatches the client makes: its signal and wait counts follow from it.
const DISPATCHES: u64 = 5;

/// The HSA client on Debian's ROCr over gpu-emu, the emulator's packet log on its stderr.
fn client(dir: &Path) -> Command {
    hsa_client(dir, DISPATCHES)
}

/// What the emulated GPU ran on the client's queue (the queue of its add_one dispatches).
fn client_queue(stderr: &str) -> Vec<(String, String)> {
    emu::queue_of(&emu::emu_packets(stderr), "add_one").into_iter().map(|p| (p.kind, p.kernel)).collect()
}

/// cltap as the tool, its outputs into `out`.
fn with_cltap(c: &mut Command, out: &Path) {
    c.env("HSA_TOOLS_LIB", layer());
    c.env("CLTAP_OUTPUT_DIR", out);
}

fn field(out: &str, key: &str) -> u64 {
    number_after(out, key)
}

fn only(dir: &Path, ext: &str) -> PathBuf {
    only_file(dir, ext)
}

/// The calls of an API log, in its order.
fn calls(path: &Path) -> Vec<Call> {
    let text = std::fs::read_to_string(path).unwrap();
    let entries = apilog::read(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(text.lines().last().is_some_and(|l| l.starts_with("# end: ")), "no trailer in {}", path.display());
    entries.into_iter().filter_map(|e| if let Entry::Call(c) = e { Some(c) } else { None }).collect()
}

fn count(calls: &[Call], name: &str) -> u64 {
    calls.iter().filter(|c| c.name == name).count() as u64
}

/// 16 hex digits, as handles and pointers are printed.
fn is_hex16(s: &str) -> bool {
    s.len() == 16 && s.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_lowercase())
}

/// Per API, the calls the summary counted.
fn summary_counts(path: &Path) -> BTreeMap<String, u64> {
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["host"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["api"].as_str().unwrap().to_string(), r["calls"].as_u64().unwrap()))
        .collect()
}

#[test]
fn the_clients_calls_are_all_in_the_log_and_the_summary() {
    let plain_dir = scratch("hsa-trace-plain");
    let plain = run(client(&plain_dir));
    assert_eq!(plain.code, Some(0), "client failed without cltap:\n{}\n{}", plain.stdout, plain.stderr);
    let out = scratch("hsa-trace-client");
    let mut c = client(&out);
    with_cltap(&mut c, &out);
    c.env("CLTAP_SUMMARY", "1");
    let o = run(c);
    assert_eq!(o.code, plain.code, "stderr:\n{}", o.stderr);
    assert_eq!(o.stdout, plain.stdout, "the client saw something else under cltap");
    assert!(o.stdout.contains("client: all checks passed"), "{}", o.stdout);
    assert!(std::fs::read_dir(&*plain_dir).unwrap().next().is_none(), "nothing is written without cltap");
    // The emulated GPU ran the same packets on the client's queue: its dispatches and its barrier.
    let mut want = vec![("dispatch".to_string(), "add_one".to_string()); DISPATCHES as usize];
    want.push(("BarrierAnd".to_string(), String::new()));
    assert_eq!(client_queue(&plain.stderr), want, "{}", plain.stderr);
    assert_eq!(client_queue(&o.stderr), want, "{}", o.stderr);

    let log = calls(&only(&out, ".apilog"));
    // The application's own thread: the one that called hsa_init.
    let main_tid = log.iter().find(|c| c.name == "hsa_init").expect("hsa_init is in the log").tid;
    let main: Vec<&Call> = log.iter().filter(|c| c.tid == main_tid).collect();
    for c in &log {
        assert!(c.name.starts_with("hsa_"), "only HSA calls: {}", c.name);
        assert!(c.returned(), "{} did not return", c.name);
    }
    // In the thread's order (a callback's calls come before the call that
    // made them, as the callback's calls return first).
    let order = [
        "hsa_init",
        "hsa_agent_get_info",
        "hsa_iterate_agents",
        "hsa_queue_create",
        "hsa_signal_create",
        "hsa_signal_wait_scacquire",
        "hsa_amd_memory_async_copy",
        "hsa_queue_destroy",
        "hsa_shut_down",
    ];
    let mut at = 0;
    for name in order {
        let i = main[at..]
            .iter()
            .position(|c| c.name == name)
            .unwrap_or_else(|| panic!("{name} is not in the log after {}", main[at.saturating_sub(1)].name));
        at += i + 1;
    }
    assert_eq!(main.last().unwrap().name, "hsa_shut_down", "the last call recorded is the last hsa_shut_down");

    // Every call the client made after the runtime loaded cltap: the first
    // hsa_init (recorded from OnLoad) and the second; both hsa_shut_downs
    // before the runtime put its table back (the third answers
    // NOT_INITIALIZED from the runtime's own table).
    let n = DISPATCHES;
    assert_eq!(count(&log, "hsa_init"), 2);
    assert_eq!(count(&log, "hsa_shut_down"), 2);
    assert_eq!(count(&log, "hsa_iterate_agents"), 1, "the call before hsa_init is the runtime's alone");
    assert_eq!(count(&log, "hsa_agent_get_info"), field(&o.stdout, "client: agent_get_info calls="));
    assert_eq!(count(&log, "hsa_queue_create"), field(&o.stdout, "queue_create calls="));
    assert_eq!(count(&log, "hsa_signal_create"), n + 6);
    assert_eq!(count(&log, "hsa_signal_destroy"), n + 6);
    assert_eq!(count(&log, "hsa_signal_wait_scacquire"), n + 4);
    assert_eq!(count(&log, "hsa_memory_allocate"), n);
    assert_eq!(count(&log, "hsa_amd_memory_async_copy"), 1);
    assert_eq!(count(&log, "hsa_queue_destroy"), 1);
    // Statuses by name, outputs after success only.
    let qc: Vec<&Call> = log.iter().filter(|c| c.name == "hsa_queue_create").collect();
    let results: Vec<&str> = qc.iter().map(|c| c.result.as_deref().unwrap()).collect();
    // As the client saw them: 0x1001 and 0x1000, then its queue.
    assert!(o.stdout.contains("client: queue_create refused 0x1001 0x1000\n"), "{}", o.stdout);
    assert_eq!(results, ["HSA_STATUS_ERROR_INVALID_ARGUMENT", "HSA_STATUS_ERROR", "HSA_STATUS_SUCCESS"]);
    let ok = qc[2];
    assert_eq!((&*ok.args[0].c_type, &*ok.args[0].name), ("hsa_agent_t", "agent"));
    assert!(is_hex16(&ok.args[0].value), "{:?}", ok.args[0]);
    assert_eq!(ok.args[1].value, "64");
    assert_eq!(ok.args[7].c_type, "hsa_queue_t**");
    assert_eq!(ok.outs.len(), 1);
    assert_eq!(ok.outs[0].0, "queue");
    assert!(is_hex16(&ok.outs[0].1) && ok.outs[0].1 != "0000000000000000", "{:?}", ok.outs);
    assert_eq!(qc[0].outs, [("queue".into(), "(not written)".to_string())]);
    // The queue the runtime made is the one destroyed.
    let destroy = log.iter().find(|c| c.name == "hsa_queue_destroy").unwrap();
    assert_eq!(destroy.args[0].value, ok.outs[0].1);
    for c in log.iter().filter(|c| c.name == "hsa_signal_create") {
        assert_eq!(c.result.as_deref(), Some("HSA_STATUS_SUCCESS"));
        assert!(c.outs[0].0 == "signal" && is_hex16(&c.outs[0].1), "{c:?}");
    }
    let unknown = log.iter().find(|c| c.name == "hsa_executable_get_symbol_by_name").unwrap();
    assert_eq!(unknown.result.as_deref(), Some("HSA_STATUS_ERROR_INVALID_SYMBOL_NAME"));
    for c in &log {
        if ["hsa_init", "hsa_shut_down", "hsa_signal_create", "hsa_agent_get_info", "hsa_queue_create"]
            .contains(&&*c.name)
        {
            assert!(c.result.as_deref().unwrap().starts_with("HSA_STATUS_"), "{c:?}");
        }
    }
    // hsa_signal_value_t results are values; void functions have none.
    assert!(log
        .iter()
        .filter(|c| c.name == "hsa_signal_wait_scacquire")
        .all(|c| c.result.as_deref().is_some_and(|r| r.parse::<i64>().is_ok())));
    assert!(log.iter().filter(|c| c.name == "hsa_signal_store_screlease").all(|c| c.result.is_none()));

    // The summary counts what the log holds, function by function.
    let summary = summary_counts(&only(&out, ".summary.json"));
    let mut in_log: BTreeMap<String, u64> = BTreeMap::new();
    for c in &log {
        *in_log.entry(c.name.to_string()).or_default() += 1;
    }
    assert_eq!(summary, in_log);
    assert!(o.stderr.contains("cltap:   hsa_signal_create "), "the table on stderr:\n{}", o.stderr);
}

#[test]
fn the_log_filter_takes_hsa_names() {
    let out = scratch("hsa-trace-filter");
    let mut c = client(&out);
    with_cltap(&mut c, &out);
    c.env("CLTAP_LOG_FILTER", "hsa_signal_*,-hsa_signal_wait_*");
    let o = run(c);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    let log = calls(&only(&out, ".apilog"));
    assert!(
        log.iter().all(|c| c.name.starts_with("hsa_signal_") && !c.name.starts_with("hsa_signal_wait_")),
        "{:?}",
        log.iter().map(|c| &c.name).collect::<Vec<_>>()
    );
    assert_eq!(count(&log, "hsa_signal_create"), DISPATCHES + 6);
}

#[test]
fn without_a_trace_the_summary_counts_hsa_calls() {
    let out = scratch("hsa-trace-counted");
    let mut c = client(&out);
    with_cltap(&mut c, &out);
    c.env("CLTAP_API_LOG", "0");
    c.env("CLTAP_SUMMARY", "1");
    let o = run(c);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    // Nothing records calls: no trace, no log; the tally is counted.
    assert!(!o.stderr.contains("total µs"), "{}", o.stderr);
    let files: Vec<String> =
        std::fs::read_dir(&*out).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(files.iter().all(|f| f.ends_with(".summary.json")), "{files:?}");
    let counts = summary_counts(&only(&out, ".summary.json"));
    assert_eq!(counts.get("hsa_signal_create"), Some(&(DISPATCHES + 6)));
    assert_eq!(counts.get("hsa_init"), Some(&2));
    assert_eq!(counts.get("hsa_queue_create"), Some(&3));
}

/// `rocminfo` on Debian's ROCr over gpu-emu, through scripts/gpu-emu.sh.
fn rocminfo(dir: &Path, cltap: bool) -> Outcome {
    let rocminfo = Path::new("/usr/bin/rocminfo");
    assert!(rocminfo.is_file(), "rocminfo is not installed (run scripts/setup.sh)");
    common::emu::emulator();
    let mut c = Command::new(root().join("scripts/gpu-emu.sh"));
    c.arg("--").arg("timeout").arg("60").arg(rocminfo).current_dir(dir);
    for (k, _) in std::env::vars() {
        if k.starts_with("HSA_")
            || k.starts_with("CLTAP_")
            || k.starts_with("GPU_EMU_")
            || k == "LD_PRELOAD"
            || k == "LD_LIBRARY_PATH"
        {
            c.env_remove(k);
        }
    }
    if cltap {
        with_cltap(&mut c, dir);
    }
    run(c)
}

#[test]
fn rocminfo_prints_the_same_and_its_calls_are_logged() {
    let plain_dir = scratch("hsa-trace-rocminfo-plain");
    let plain = rocminfo(&plain_dir, false);
    assert_eq!(plain.code, Some(0), "{}\n{}", plain.stdout, plain.stderr);
    let out = scratch("hsa-trace-rocminfo");
    let o = rocminfo(&out, true);
    assert_eq!(o.code, plain.code, "{}", o.stderr);
    assert_eq!(o.stdout, plain.stdout, "rocminfo printed something else under cltap");
    assert!(o.stdout.contains("*** Done ***"));
    let log = calls(&only(&out, ".apilog"));
    let names: Vec<&str> = log.iter().map(|c| &*c.name).collect();
    for want in
        ["hsa_init", "hsa_iterate_agents", "hsa_agent_get_info", "hsa_amd_agent_iterate_memory_pools", "hsa_shut_down"]
    {
        assert!(names.contains(&want), "{want} is not in rocminfo's log: {names:?}");
    }
    assert_eq!(names.first(), Some(&"hsa_init"));
    assert_eq!(names.last(), Some(&"hsa_shut_down"));
    assert_eq!(count(&log, "hsa_amd_agent_iterate_memory_pools"), 2, "one per agent");
    assert!(
        log.iter().all(|c| c.result.as_deref().is_some_and(|r| r.starts_with("HSA_STATUS_"))),
        "every call returns a status"
    );
}

/// `tests/hsa/onload_table.c`: calls OnLoad with tables made there.
fn onload_table() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let exe = root().join("target/ctests/hsa_onload_table");
        std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
        let st = Command::new("gcc")
            .args(["-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-I/usr/include/hsa"])
            .arg(format!("-I{}", root().join("hsa-api").display()))
            .arg(root().join("tests/hsa/onload_table.c"))
            .arg("-o")
            .arg(&exe)
            .arg("-ldl")
            .status()
            .expect("run gcc");
        assert!(st.success(), "building tests/hsa/onload_table.c failed");
        exe
    })
}

fn call_onload(core_bytes: u32, out: &Path, extra: &[(&str, &str)]) -> Outcome {
    let mut c = on_hsa(onload_table(), out);
    c.arg(layer()).arg(core_bytes.to_string());
    c.env("CLTAP_OUTPUT_DIR", out);
    for (k, v) in extra {
        c.env(k, v);
    }
    run(c)
}

#[test]
fn onload_replaces_only_the_entries_a_smaller_table_has() {
    // 40 bytes: the version and 3 entries (hsa_init, hsa_shut_down,
    // hsa_system_get_info); the other 122 core entries are past its end.
    let out = scratch("hsa-trace-onload-small");
    let o = call_onload(40, &out, &[]);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    let s = &o.stdout;
    assert!(
        s.contains("onload: returned=1 priority=25 core changed_in=3 same_in=0 changed_out=0 same_out=122 second=0"),
        "{s}"
    );
    // The AMD table whole but its NULL entry; a table of another major
    // version and a NULL table left alone.
    assert!(s.contains("onload: amd replaced=47 null_kept=1 fin untouched=1"), "{s}");
    // Said once: the second OnLoad of the same image does nothing again.
    assert_eq!(
        o.stderr.lines().filter(|l| l.contains("finalizer table has major version 7")).count(),
        1,
        "{}",
        o.stderr
    );
    // The wrapper forwards to the entry it replaced and returns its result,
    // even after a second OnLoad on the same table (no wrapper of a wrapper).
    assert!(s.contains("onload: system_get_info=0x1234 value=77"), "{s}");
    let log = calls(&only(&out, ".apilog"));
    let gi: Vec<&Call> = log.iter().filter(|c| c.name == "hsa_system_get_info").collect();
    assert_eq!(gi.len(), 1);
    assert_eq!(gi[0].result.as_deref(), Some("0x1234"), "an unknown status in hex");
    assert_eq!(gi[0].args[0].value, "2");

    let out = scratch("hsa-trace-onload-whole");
    let o = call_onload(1016, &out, &[]);
    assert!(o.stdout.contains("core changed_in=125 same_in=0 changed_out=0 same_out=0 second=0"), "{}", o.stdout);

    // A core table of another major version: OnLoad says why, touches no
    // entry of any table and returns false (the runtime then unloads cltap).
    let out = scratch("hsa-trace-onload-core-major");
    let o = call_onload(1016, &out, &[("ONLOAD_CORE_MAJOR", "2")]);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    let s = &o.stdout;
    assert!(
        s.contains("onload: returned=0 priority=25 core changed_in=0 same_in=125 changed_out=0 same_out=0 second=0"),
        "{s}"
    );
    assert!(s.contains("onload: amd replaced=0 null_kept=1 fin untouched=1"), "{s}");
    assert!(s.contains("onload: refused, nothing replaced"), "{s}");
    let why: Vec<&str> =
        o.stderr.lines().filter(|l| l.contains("core table has major version 2, cltap knows 1")).collect();
    assert_eq!(why.len(), 1, "one line, the second OnLoad answers as the first:\n{}", o.stderr);
    assert!(why[0].starts_with("cltap: "), "{}", why[0]);
    assert!(!o.stderr.contains("finalizer table"), "nothing else is looked at:\n{}", o.stderr);

    // A root table too small to hold the core table's pointer: the same.
    let out = scratch("hsa-trace-onload-root-small");
    let o = call_onload(1016, &out, &[("ONLOAD_ROOT_BYTES", "16")]);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert!(o.stdout.contains("onload: returned=0 priority=25 core changed_in=0 same_in=125"), "{}", o.stdout);
    assert!(o.stdout.contains("onload: refused, nothing replaced"), "{}", o.stdout);
    assert!(o.stderr.contains("too small to hold the core table"), "{}", o.stderr);
}

#[test]
fn a_struct_passed_by_value_is_forwarded_whole() {
    // hsa_ext_program_finalize takes a 144-byte hsa_ext_control_directives_t
    // by value ([struct=144]): through cltap's wrapper, the function gets
    // every field, and the call is logged with its options and output.
    let out = scratch("hsa-trace-onload-finalize");
    let o = call_onload(1016, &out, &[("ONLOAD_FIN_MAJOR", "1")]);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert!(o.stdout.contains("fin untouched=0"), "{}", o.stdout);
    assert!(o.stdout.contains("onload: finalize=0x4321 code_object=99"), "{}", o.stdout);
    let log = calls(&only(&out, ".apilog"));
    let f = log.iter().find(|c| c.name == "hsa_ext_program_finalize").expect("finalize is logged");
    assert_eq!(f.result.as_deref(), Some("0x4321"));
    let args: Vec<(&str, &str)> = f.args.iter().map(|a| (&*a.c_type, a.value.as_str())).collect();
    assert_eq!(args[0], ("hsa_ext_program_t", "000000000000000B"));
    assert_eq!(args[2], ("int32_t", "-1"));
    assert_eq!(args[3], ("hsa_ext_control_directives_t", "{…}"));
    assert_eq!(args[5], ("hsa_code_object_type_t", "0"));
    // A status cltap does not know is no success: the output is not read.
    assert_eq!(f.outs, [("code_object".into(), "(not written)".to_string())]);
}

#[test]
fn a_bad_setting_is_one_line_and_a_pass_through() {
    let out = scratch("hsa-trace-bad-onload");
    let o = call_onload(1016, &out, &[("CLTAP_BUFFER_POLICY", "bogus")]);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert!(
        o.stdout
            .contains("onload: returned=1 priority=25 core changed_in=0 same_in=125 changed_out=0 same_out=0 second=0"),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("onload: amd replaced=0 null_kept=1 fin untouched=1"), "{}", o.stdout);
    let lines: Vec<&str> = o.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line:\n{}", o.stderr);
    assert!(
        lines[0].starts_with("cltap: ") && lines[0].contains("CLTAP_BUFFER_POLICY") && lines[0].contains("bogus"),
        "{}",
        lines[0]
    );
    assert!(std::fs::read_dir(&*out).unwrap().next().is_none(), "a pass-through writes nothing");

    // The client the same way: its output unchanged, nothing written.
    let plain = run(client(&out));
    let mut c = client(&out);
    with_cltap(&mut c, &out);
    c.env("CLTAP_BUFFER_POLICY", "bogus");
    let o = run(c);
    assert_eq!((o.code, &o.stdout), (plain.code, &plain.stdout));
    assert_eq!(emu::without_emu_log(&o.stderr).lines().count(), 1, "{}", o.stderr);
    assert!(std::fs::read_dir(&*out).unwrap().next().is_none(), "a pass-through writes nothing");
}

#[test]
fn a_client_killed_mid_run_leaves_a_trace_that_renders() {
    // A tool loaded before cltap makes hsa_queue_destroy kill the process:
    // cltap's wrapper, outermost, has opened its record when it dies.
    let out = scratch("hsa-trace-death");
    let src = out.join("killer.c");
    std::fs::write(
        &src,
        "#include <signal.h>\n#include \"hsa_api_trace_c.h\"\n\
         static hsa_status_t die(hsa_queue_t* q) { (void)q; raise(SIGKILL); return HSA_STATUS_ERROR; }\n\
         __attribute__((visibility(\"default\"))) bool OnLoad(HsaApiTable* t, uint64_t v, uint64_t n, const char* const* f) {\n\
           (void)v; (void)n; (void)f; t->core_->hsa_queue_destroy_fn = die; return true; }\n",
    )
    .unwrap();
    let killer = out.join("libkiller.so");
    let st = Command::new("gcc")
        .args(["-std=c11", "-shared", "-fPIC", "-Wall", "-Werror", "-I/usr/include/hsa"])
        .arg(format!("-I{}", root().join("hsa-api").display()))
        .arg("-o")
        .arg(&killer)
        .arg(&src)
        .status()
        .expect("run gcc");
    assert!(st.success());
    let traces = out.join("traces");
    std::fs::create_dir(&traces).unwrap();
    let mut c = client(&out);
    c.env("HSA_TOOLS_LIB", format!("{} {}", killer.display(), layer().display()));
    c.env("CLTAP_OUTPUT_DIR", &traces);
    let o = run(c);
    assert_ne!(o.code, Some(0), "the client was to die:\n{}", o.stdout);
    assert!(!o.stdout.contains("all checks passed"));
    let trace = only(&traces, ".cltrace");
    let rendered = out.join("rendered");
    let r = Command::new(root().join("target/release/cltap"))
        .arg("render")
        .arg(&trace)
        .arg("--output")
        .arg(&rendered)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{stderr}");
    assert!(stderr.contains("cltap: hsa_queue_destroy did not return"), "{stderr}");
    let log = calls(&only(&rendered, ".apilog"));
    let main_tid = log.iter().find(|c| c.name == "hsa_init").expect("hsa_init").tid;
    let main: Vec<&Call> = log.iter().filter(|c| c.tid == main_tid).collect();
    let last = main.last().unwrap();
    assert_eq!((&*last.name, last.returned(), last.duration_us), ("hsa_queue_destroy", false, 0));
    // Everything before it is there, returned. (Another thread may be in a
    // call of its own at the kill: ROCr's async-handler thread runs the
    // client's handler, which stores a signal the main thread waits for, and
    // may not have left that call.)
    assert_eq!(main.iter().filter(|c| !c.returned()).count(), 1);
    assert_eq!(count(&log, "hsa_signal_create"), DISPATCHES + 6);
    assert_eq!(count(&log, "hsa_signal_destroy"), DISPATCHES + 6);
    assert_eq!(count(&log, "hsa_amd_memory_async_copy"), 1);
    assert_eq!(count(&log, "hsa_shut_down"), 1, "only the first, before the death");
}

#[test]
fn a_client_aborted_by_rocr_mid_run_leaves_a_trace_that_renders() {
    // The emulated GPU faults the client's one dispatch (GPU_EMU_FAULT, docs/gpu-emu.md): ROCr's
    // fault handler prints the fault and aborts the process while the client waits for it.
    let faulted = |dir: &Path| {
        use std::os::unix::process::CommandExt;
        let mut c = hsa_client(dir, 1);
        c.env("GPU_EMU_FAULT", "memory@add_one");
        // SAFETY: only setrlimit between fork and exec: no core file from the expected abort.
        unsafe {
            c.pre_exec(|| {
                let none = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
                libc::setrlimit(libc::RLIMIT_CORE, &none);
                Ok(())
            });
        }
        c
    };
    let plain = run(faulted(&scratch("hsa-trace-abort-plain")));
    assert_eq!(plain.signal, Some(libc::SIGABRT), "{}\n{}", plain.stdout, plain.stderr);
    let out = scratch("hsa-trace-abort");
    let traces = out.join("traces");
    std::fs::create_dir(&traces).unwrap();
    let mut c = faulted(&out);
    with_cltap(&mut c, &traces);
    let o = run(c);
    assert_eq!((o.signal, &o.stdout), (plain.signal, &plain.stdout), "{}", o.stderr);
    let fault = "Memory access fault by GPU node-1";
    assert!(plain.stderr.contains(fault) && o.stderr.contains(fault), "{}", o.stderr);
    let rendered = render_left_trace(&traces);
    let log = calls(&only(&rendered, ".apilog"));
    let main_tid = log.iter().find(|c| c.name == "hsa_init").expect("hsa_init").tid;
    let main: Vec<&Call> = log.iter().filter(|c| c.tid == main_tid).collect();
    // The abort comes from ROCr's own thread once the dispatch has faulted. gpu-emu's command
    // processor polls the ring, not the doorbell (docs/gpu-emu.md), so the dispatch may run as
    // soon as the client stores its header: the client may not have reached the doorbell yet
    // (its last call then reserved the slot, and returned), or be ringing it, or be waiting.
    // Seen under load on 2 cores (12 of 88 runs in one batch), with every earlier record there.
    let last = main.last().unwrap();
    let ringing = ["hsa_signal_store_screlease", "hsa_signal_wait_scacquire"].contains(&&*last.name);
    let before = last.name == "hsa_queue_add_write_index_screlease" && last.returned();
    assert!(ringing || before, "{last:?}");
    assert!(main[..main.len() - 1].iter().all(|c| c.returned()), "only the last call may be in flight");
    assert_eq!(count(&log, "hsa_signal_create"), 1, "the dispatch's signal, nothing after");
    assert_eq!(count(&log, "hsa_memory_allocate"), 1);
    assert_eq!(count(&log, "hsa_shut_down"), 1, "the first only");
    assert_eq!(count(&log, "hsa_executable_freeze"), 1);
}
