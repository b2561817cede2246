//! Debian's real ROCr 5.2.3, `rocminfo` and HIP 5.2.3 on cltap's emulated gfx906 (`gpu-emu/`, a GPU
//! emulator for tests, never a driver), through `scripts/gpu-emu.sh`. The programs under
//! `tests/gpu_emu/` are ordinary HSA and HIP applications: they link Debian's libraries, and only
//! the thunk under ROCr (`libhsakmt.so.1`) is the emulator's. Their kernels are real gfx906 code
//! objects (clang-15, hipcc), and the emulated GPU runs their machine code (`gpu-emu/isa`).

mod common;
use common::emu::{built, on_emu};
use common::*;
use std::path::Path;
use std::process::Command;

fn client(args: &[&str]) -> Command {
    let co = built().join("kernels.co");
    let mut all = vec![co.to_str().unwrap()];
    all.extend_from_slice(args);
    on_emu(&built().join("emu_client"), &all)
}

fn faulting(args: &[&str], fault: &str) -> Command {
    let mut c = client(args);
    c.env("GPU_EMU_FAULT", fault);
    c
}

fn passed(o: &Outcome, who: &str) {
    assert_eq!(o.code, Some(0), "{who} failed\nstdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
    assert!(o.stdout.contains(&format!("{who}: all checks passed")), "stdout:\n{}", o.stdout);
    assert!(!o.stdout.contains("FAIL"), "stdout:\n{}", o.stdout);
}

/// Both ways of meeting rocminfo's driver checks: the private mount namespace (as root) and the
/// LD_PRELOAD shim (`GPU_EMU_SHIM=1`, what the launcher uses without root).
#[test]
fn rocminfo_lists_a_cpu_and_a_gfx906_agent() {
    let _ = built();
    for shim in ["0", "1"] {
        let mut c = on_emu(Path::new("rocminfo"), &[]);
        c.env("GPU_EMU_SHIM", shim);
        let o = run(c);
        assert_eq!(o.code, Some(0), "shim {shim}\nstdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
        let lines: Vec<&str> = o.stdout.lines().map(str::trim).collect();
        assert!(lines.contains(&"Device Type:             CPU"), "{}", o.stdout);
        assert!(lines.contains(&"Device Type:             GPU"), "{}", o.stdout);
        assert!(lines.contains(&"Name:                    gfx906"), "{}", o.stdout);
        assert!(lines.contains(&"Marketing Name:          gfx906 emulated by cltap gpu-emu"), "{}", o.stdout);
        assert!(lines.contains(&"Compute Unit:            60"), "{}", o.stdout);
        assert!(
            lines.iter().any(|l| l.starts_with("Name:") && l.contains("amdgcn-amd-amdhsa--gfx906")),
            "{}",
            o.stdout
        );
    }
}

#[test]
fn an_hsa_program_runs_on_debians_rocr_with_dispatches_barriers_copies_and_waits() {
    let o = run(client(&[]));
    passed(&o, "emu_client");
    // Debian's ROCr, and the emulator's thunk under it.
    let loaded: Vec<&str> = o.stdout.lines().filter_map(|l| l.strip_prefix("emu_client: loaded ")).collect();
    assert!(loaded.iter().any(|p| p.starts_with("/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1")), "{loaded:?}");
    assert!(loaded.iter().any(|p| p.ends_with("/gpu-emu/libhsakmt.so.1")), "{loaded:?}");
    assert!(!loaded.iter().any(|p| p.contains("libhsa-runtime64") && !p.starts_with("/usr/lib/")), "{loaded:?}");
    // What the command processor ran: the client's kernels, ROCr's three blit kernels for the
    // copies and the fill, both barrier kinds and ROCr's PM4 packets.
    for what in [
        "dispatch vadd_f32 grid=[1024, 1, 1]",
        "dispatch minus_one grid=[1024, 1, 1]",
        "dispatch ROCr blit CopyAligned",
        "dispatch ROCr blit CopyMisaligned",
        "dispatch ROCr blit Fill",
        ": BarrierAnd",
        ": BarrierOr",
        ": VendorSpecific",
    ] {
        assert!(o.stderr.contains(what), "{what:?} not in the emulator's log:\n{}", o.stderr);
    }
}

#[test]
fn a_memory_fault_on_demand_is_reported_by_rocr_which_aborts() {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    let mut c = faulting(&["fault"], "memory@vadd_f32");
    // SAFETY: only setrlimit between fork and exec: no core file from the expected abort.
    unsafe {
        c.pre_exec(|| {
            let none = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
            libc::setrlimit(libc::RLIMIT_CORE, &none);
            Ok(())
        });
    }
    let out = c.output().unwrap();
    let o = Outcome {
        code: out.status.code(),
        signal: out.status.signal(),
        stdout: String::from_utf8_lossy(&out.stdout).into(),
        stderr: String::from_utf8_lossy(&out.stderr).into(),
    };
    // SIGABRT (timeout passes its child's signal on by raising it).
    assert_eq!(out.status.signal(), Some(libc::SIGABRT), "stdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
    assert!(o.stdout.contains("emu_client: dispatched"), "{}", o.stdout);
    assert!(
        o.stderr.contains("Memory access fault by GPU node-1")
            && o.stderr.contains("on address 0x1000. Reason: Page not present or supervisor privilege."),
        "{}",
        o.stderr
    );
}

#[test]
fn a_memory_fault_reaches_the_applications_system_event_handler() {
    let o = run(faulting(&["fault-handled"], "memory@vadd_f32"));
    assert_eq!(o.code, Some(0), "stdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
    assert!(o.stdout.contains("emu_client: memory fault event at 0x1000, reason mask 0x1\n"), "{}", o.stdout);
    // The faulted dispatch never completes.
    assert!(o.stdout.contains("emu_client: dispatch signal 1\n"), "{}", o.stdout);
}

#[test]
fn queue_errors_on_demand_reach_the_queues_error_callback() {
    for (fault, line) in [
        ("illegal-instruction@vadd_f32", "queue error 0x2a: HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION"),
        ("aperture@vadd_f32#1", "queue error 0x29: HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION"),
    ] {
        let o = run(faulting(&["fault"], fault));
        assert_eq!(o.code, Some(0), "{fault}\nstdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
        assert!(o.stdout.contains(line), "{fault}: {}", o.stdout);
        assert!(o.stdout.contains("emu_client: dispatch signal 1\n"), "{fault}: {}", o.stdout);
    }
}

#[test]
fn a_bad_fault_setting_is_one_line_and_nothing_faults() {
    let o = run(faulting(&[], "explode@vadd_f32"));
    passed(&o, "emu_client");
    let lines: Vec<&str> = o.stderr.lines().filter(|l| l.contains("GPU_EMU_FAULT")).collect();
    assert_eq!(lines.len(), 1, "{}", o.stderr);
    assert!(lines[0].contains("\"explode@vadd_f32\"") && lines[0].contains("memory|illegal-instruction|aperture"));
}

#[test]
fn a_hip_program_runs_on_debians_hip_with_rocclr_copy_and_fill_kernels() {
    let o = run(on_emu(&built().join("hip_client"), &[]));
    passed(&o, "hip_client");
    for what in [
        "dispatch vadd_f32 grid=[4096, 1, 1]",
        "dispatch __amd_rocclr_fillBufferAligned",
        "dispatch __amd_rocclr_copyBuffer",
    ] {
        assert!(o.stderr.contains(what), "{what:?} not in the emulator's log:\n{}", o.stderr);
    }
    // The kernel launched 10,000 times reached the command processor as 10,000 dispatches.
    let launches = o.stderr.matches(": dispatch inc_u32 grid=[256, 1, 1]\n").count();
    assert_eq!(launches, 10_000);
}

/// The emulated AQLprofile under Debian's ROCr: two profiled vadd_f32 dispatches of 1024 work-items
/// in work-groups of 64, between a start and a stop packet the client writes itself.
#[test]
fn rocr_serves_the_emulated_aqlprofile_and_the_command_processor_counts() {
    let co = built().join("kernels.co");
    let o = run(on_emu(&built().join("aql_client"), &[co.to_str().unwrap()]));
    passed(&o, "aql_client");
    // The counter model (docs/gpu-emu.md, gpu-emu/src/pmc.rs) for one such dispatch.
    let (items, waves) = (1024u64, 1024u64 / 64);
    let nominal_ns = (2000 + items / 16).min(1_000_000);
    let grbm_count = nominal_ns * 1725 / 1000;
    let share = |total: u64, i: u64, n: u64| total / n + u64::from(i < total % n);
    for (event, samples, per_dispatch) in [
        ("block=6 index=0 counter=4", 4, waves),
        ("block=3 index=0 counter=0", 1, grbm_count),
        ("block=12 index=3 counter=20", 1, share(items / 4, 3, 16)),
        ("block=10 index=0 counter=101", 1, share(2 * waves, 0, 16)),
    ] {
        let line = format!("aql_client: event {event} samples={samples} sum={}\n", 2 * per_dispatch);
        assert!(o.stdout.contains(&line), "{line:?} not in:\n{}", o.stdout);
    }
    // ROCr's own PM4 packets pass through the same command processor untouched.
    assert!(o.stderr.contains(": VendorSpecific"), "{}", o.stderr);
}

/// The AQLprofile client ten times with the command processor slowed (GPU_EMU_PACKET_DELAY_US): every
/// wait of the client, and ROCr's queue and runtime teardown after it, then sleeps in the emulated
/// KFD and is woken by an event set, where the one hang seen under load was (docs/gpu-emu.md#the-watchdog).
/// Each run must end, within the launcher's timeout, and pass.
#[test]
fn the_aqlprofile_client_ends_every_time_when_the_command_processor_is_slow() {
    let co = built().join("kernels.co");
    for delay in ["300", "1000", "3000", "10000", "30000"].iter().cycle().take(10) {
        let mut c = on_emu(&built().join("aql_client"), &[co.to_str().unwrap()]);
        c.env("GPU_EMU_PACKET_DELAY_US", delay);
        let o = run(c);
        assert_eq!(o.code, Some(0), "delay {delay} us\nstdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
        passed(&o, "aql_client");
    }
}

/// The watchdog (GPU_EMU_WATCHDOG_S) reports a program still running at its time, here held up by a
/// command processor that waits a second before each packet: the emulator's events and queues, and
/// every thread's stack from gdb, the client's main thread among them. The program goes on and passes.
#[test]
fn the_watchdog_reports_a_program_still_running_and_lets_it_finish() {
    let co = built().join("kernels.co");
    let mut c = on_emu(&built().join("aql_client"), &[co.to_str().unwrap()]);
    c.env("GPU_EMU_WATCHDOG_S", "1");
    // ROCr's two packets at load and the client's four, a second each: running long past 1 s.
    c.env("GPU_EMU_PACKET_DELAY_US", "1000000");
    let o = run(c);
    passed(&o, "aql_client");
    let report: Vec<&str> = o.stderr.lines().filter(|l| l.starts_with("gpu-emu: watchdog:")).collect();
    assert_eq!(
        report.first(),
        Some(&"gpu-emu: watchdog: still running 1 s after opening KFD (GPU_EMU_WATCHDOG_S); the emulator's state and every thread's stack follow"),
        "{}",
        o.stderr
    );
    assert!(!o.stderr.contains("watchdog: no gdb"), "scripts/setup.sh installs gdb\n{}", o.stderr);
    // gdb's stacks: the client's own main thread, wherever it was.
    let main = o.stderr.lines().filter(|l| l.starts_with('#') && l.contains(" in main (")).count();
    assert_eq!(main, 1, "{}", o.stderr);
}

/// A bad GPU_EMU_WATCHDOG_S is one stderr line naming the variable, the value and what is accepted;
/// the program runs as without it.
#[test]
fn a_bad_watchdog_setting_is_one_line_and_nothing_else() {
    let co = built().join("kernels.co");
    let mut c = on_emu(&built().join("aql_client"), &[co.to_str().unwrap()]);
    c.env("GPU_EMU_WATCHDOG_S", "0");
    let o = run(c);
    passed(&o, "aql_client");
    let lines: Vec<&str> = o.stderr.lines().filter(|l| l.contains("GPU_EMU_WATCHDOG_S")).collect();
    assert_eq!(lines, ["gpu-emu: GPU_EMU_WATCHDOG_S=0: not a number of seconds from 1 to 3600; no watchdog report"]);
}

#[test]
fn without_the_emulated_aqlprofile_rocr_has_no_extension() {
    let co = built().join("kernels.co");
    let mut c = on_emu(&built().join("aql_client"), &[co.to_str().unwrap()]);
    c.env("GPU_EMU_AQLPROFILE", "0");
    let o = run(c);
    assert_eq!(o.code, Some(0), "stdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
    assert!(o.stdout.contains("aql_client: no aqlprofile extension\n"), "{}", o.stdout);
}

/// cltap itself on the real stack: `cltap run --hsa --hsa-intercept 2 --counters …` on the HIP
/// program, through Debian's HIP and ROCr, ROCr's intercept queues and the emulated AQLprofile. Every
/// dispatch is named and holds the counter model's values for its packet.
#[test]
fn cltap_counts_a_hip_program_through_rocrs_aqlprofile_extension() {
    let _ = layer();
    let out = scratch("gpu-emu-cltap-counters");
    let mut c = on_emu(Path::new(env!("CARGO_BIN_EXE_cltap")), &[]);
    c.args(["run", "--no-summary", "--hsa", "--hsa-intercept", "2", "--counters", "SQ_WAVES,GRBM_COUNT", "--output"])
        .arg(&*out)
        .arg("--")
        .arg(built().join("hip_client"));
    let o = run(c);
    passed(&o, "hip_client");
    let file = std::fs::read_dir(&*out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".results.csv"))
        .unwrap_or_else(|| panic!("no .results.csv\nstdout:\n{}\nstderr:\n{}", o.stdout, o.stderr));
    let r = cltap_formats::perf::read_results(&std::fs::read_to_string(file).unwrap()).unwrap();
    assert_eq!(r.counters, ["SQ_WAVES", "GRBM_COUNT"]);
    let names: Vec<&str> = r.rows.iter().map(|x| x.kernel_name.as_str()).collect();
    assert_eq!(names.iter().filter(|n| **n == "vadd_f32.kd").count(), 3, "{names:?}");
    assert!(names.contains(&"__amd_rocclr_fillBufferAligned.kd"), "{names:?}");
    assert!(names.contains(&"__amd_rocclr_copyBuffer.kd"), "{names:?}");
    for x in &r.rows {
        // One-dimensional dispatches: waves of 64 per work-group, T = min(2000 + WI / 16, 1e6) ns.
        let wgr = x.wgr.expect("an HSA dispatch's work-group size");
        let waves = x.grd.div_ceil(wgr) * wgr.div_ceil(64);
        let grbm = (2000 + x.grd / 16).min(1_000_000) * 1725 / 1000;
        assert_eq!(x.values, [Some(waves as f64), Some(grbm as f64)], "{}", x.kernel_name);
        let t = x.times.expect("ROCP_HSA_INTERCEPT=2 gives the times");
        assert!(t.begin <= t.end, "{}: {t:?}", x.kernel_name);
    }
}

/// `emu_client … burst` under cltap with the command processor slowed (`GPU_EMU_PACKET_DELAY_US`)
/// so that it drains next to nothing while packets are handed over: three bursts of 40 dispatches,
/// each written into a 64-packet queue and rung in with one doorbell store. ROCr 5.2.3's intercept
/// queue hands them to cltap one after another in that one store and copies what cltap writes into
/// a hidden queue of 64; a second packet of one store that finds no room there aborts the program
/// (`overflow buffer not empty`), unless cltap waits for room (docs/counters.md#a-full-queue).
/// Returns the output folder, after checking that the program passed.
fn burst(name: &str, options: &[&str]) -> Scratch {
    let _ = layer();
    let out = scratch(name);
    let co = built().join("kernels.co");
    let mut c = on_emu(Path::new(env!("CARGO_BIN_EXE_cltap")), &[]);
    c.env("GPU_EMU_PACKET_DELAY_US", "20000");
    c.args(["run", "--no-summary", "--hsa"]).args(options).arg("--output").arg(&*out).arg("--");
    c.arg(built().join("emu_client")).arg(&co).arg("burst");
    let o = run(c);
    passed(&o, "emu_client");
    assert!(!o.stderr.contains("Use of non-host signal"), "{}", o.stderr);
    out
}

/// The text of the one file in `dir` whose name ends with `suffix`.
fn file_ending(dir: &Path, suffix: &str) -> String {
    let file = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(suffix))
        .unwrap_or_else(|| panic!("no {suffix} in {}", dir.display()));
    std::fs::read_to_string(file).unwrap()
}

/// Counted, each dispatch becomes `[start, dispatch, stop]`: 360 packets for a hidden queue of 64.
/// Every dispatch ran and every one was counted.
#[test]
fn cltap_counts_a_burst_bigger_than_rocrs_hidden_queue() {
    let out = burst("gpu-emu-cltap-burst", &["--hsa-intercept", "2", "--counters", "SQ_WAVES"]);
    let r = cltap_formats::perf::read_results(&file_ending(&out, ".results.csv")).unwrap();
    let rows: Vec<_> = r.rows.into_iter().filter(|x| x.kernel_name == "vadd_f32.kd").collect();
    assert_eq!(rows.len(), 120, "{:?}", rows.iter().map(|x| &x.kernel_name).collect::<Vec<_>>());
    for x in rows {
        let wgr = x.wgr.expect("an HSA dispatch's work-group size");
        let waves = x.grd.div_ceil(wgr) * wgr.div_ceil(64);
        assert_eq!(x.values, [Some(waves as f64)], "{}", x.kernel_name);
    }
}

/// Intercepted without timing or counters, the application's packets go unchanged, so none of them
/// tells cltap how far the device has read: cltap adds a marker of its own (a barrier-AND with no
/// dependencies and no barrier bit) whenever a quarter of the queue has gone by unwatched. Before,
/// the second burst aborted the program in ROCr every time with this delay.
#[test]
fn cltap_intercepts_bursts_bigger_than_rocrs_hidden_queue_without_timing() {
    let out = burst("gpu-emu-cltap-burst-1", &["--hsa-intercept", "1"]);
    // The API log's dispatch lines: every one of the application's packets, at its own index.
    let log = file_ending(&out, ".apilog");
    let indices: Vec<u64> = log
        .lines()
        .filter(|l| l.starts_with("# dispatch ") && l.contains(" kernel vadd_f32.kd "))
        .map(|l| l.split(" index ").nth(1).and_then(|t| t.split(':').next()).unwrap().parse().unwrap())
        .collect();
    assert_eq!(indices, (0..120).collect::<Vec<u64>>(), "every dispatch recorded at its place");
}
