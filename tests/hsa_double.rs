//! The HSA runtime test double (`hsa-double/`): a stand-in for ROCr's
//! `libhsa-runtime64.so.1` on machines without an AMD GPU. These tests build
//! it with its Makefile (into `target/hsa-double`) and check that it keeps
//! Debian 12's ROCr 5.2.3 ABI, that a real HSA client (`rocminfo`) runs on it,
//! and that its queues, packet processor, profiling, copies, tool loading
//! and intercept queues behave as the programs and tools cltap will meet
//! expect.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

fn built() -> &'static Path {
    hsa_double()
}

/// The gfx906 code object built with clang-15 and lld-15, which
/// scripts/setup.sh installs: its absence is a failure, not a skip.
fn kernels() -> Option<PathBuf> {
    Some(built().join("kernels.co"))
}

fn on_double(program: &Path, dir: &Path) -> Command {
    on_hsa_double(program, dir)
}

fn client(dir: &Path) -> Command {
    let mut c = on_double(&built().join("client"), dir);
    if let Some(co) = kernels() {
        c.arg(co);
    }
    c
}

fn assert_passed(o: &Outcome) {
    assert_eq!(o.code, Some(0), "client failed\nstdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
    assert!(o.stdout.contains("client: all checks passed"), "stdout:\n{}", o.stdout);
    assert!(!o.stdout.contains("FAIL"), "stdout:\n{}", o.stdout);
}

fn field(out: &str, key: &str) -> u64 {
    number_after(out, key)
}

#[test]
fn layout_check_compiles_against_debians_header() {
    let d = root().join("hsa-double");
    let o = Command::new("g++")
        .args(["-std=c++17", "-fsyntax-only", "-Wall", "-DAMD_INTERNAL_BUILD", "-I/usr/include/hsa", "-Iinclude"])
        .arg("layout_check.cpp")
        .current_dir(&d)
        .output()
        .expect("run g++");
    assert!(
        Path::new("/usr/include/hsa/hsa_api_trace.h").is_file(),
        "libhsa-runtime-dev is not installed (run scripts/setup.sh)"
    );
    assert!(o.status.success(), "layout_check.cpp does not compile:\n{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn exports_every_table_function_with_rocr_1() {
    let lib = built().join("libhsa-runtime64.so.1");
    let list = std::fs::read_to_string(root().join("hsa-double/include/hsa_double_api_list.h")).unwrap();
    let names: Vec<&str> = list
        .lines()
        .filter(|l| ["DBL_CORE(", "DBL_AMD(", "DBL_FIN(", "DBL_IMG("].iter().any(|p| l.starts_with(p)))
        .map(|l| l.split(", ").nth(1).unwrap())
        .collect();
    assert_eq!(names.len(), 192, "the four tables of hsa_api_trace.h have 192 entries");
    let o = Command::new("objdump").arg("-T").arg(&lib).output().expect("run objdump");
    let dynsym = String::from_utf8_lossy(&o.stdout);
    let exported: Vec<(&str, &str)> = dynsym
        .lines()
        .filter(|l| l.contains(" DF ") && !l.contains("*UND*"))
        .filter_map(|l| {
            let mut w = l.split_whitespace().rev();
            let name = w.next()?;
            let version = w.next()?;
            Some((name, version))
        })
        .collect();
    for n in &names {
        assert!(exported.contains(&(n, "ROCR_1")), "{n} is not exported as {n}@ROCR_1");
    }
    // The deprecated names rocr exports beside the tables.
    for n in ["hsa_signal_wait_acquire", "hsa_signal_load_acquire", "hsa_queue_add_write_index_acq_rel"] {
        assert!(exported.contains(&(n, "ROCR_1")), "{n}@ROCR_1 missing");
    }
    // Nothing else leaks out but the test hooks.
    for (n, v) in &exported {
        assert!(
            (n.starts_with("hsa_") && *v == "ROCR_1") || (n.starts_with("cltap_double_") && *v == "CLTAP_HSA_DOUBLE"),
            "unexpected export {n}@{v}"
        );
    }
    let o = Command::new("objdump").arg("-p").arg(&lib).output().expect("run objdump");
    assert!(String::from_utf8_lossy(&o.stdout).contains("SONAME               libhsa-runtime64.so.1"));
}

#[test]
fn rocminfo_lists_the_double_agents() {
    built();
    let rocminfo = Path::new("/usr/bin/rocminfo");
    assert!(rocminfo.is_file(), "rocminfo is not installed (run scripts/setup.sh)");
    let dir = scratch("hsa-rocminfo");
    let mut c = Command::new("timeout");
    c.arg("60").arg(root().join("scripts/hsa-double.sh")).arg("--").arg(rocminfo).current_dir(&dir);
    for (k, _) in std::env::vars() {
        if k.starts_with("HSA_") || k == "LD_PRELOAD" || k == "LD_LIBRARY_PATH" || k == "CLTAP_HSA_DOUBLE_OUT" {
            c.env_remove(k);
        }
    }
    let o = run(c);
    assert_eq!(o.code, Some(0), "rocminfo failed\nstdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
    // Compare lines with their runs of spaces (and colour codes) squeezed.
    let lines: Vec<String> = o
        .stdout
        .lines()
        .map(|l| l.replace("\x1b[37m", "").replace("\x1b[0m", "").split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    for want in [
        "ROCk module is loaded",
        "Name: gfx906",
        "Marketing Name: cltap HSA test double (gfx906)",
        "Vendor Name: cltap HSA test double",
        "Device Type: GPU",
        "Device Type: CPU",
        "Compute Unit: 60",
        "Wavefront Size: 64(0x40)",
        "Name: amdgcn-amd-amdhsa--gfx906",
        "Feature: KERNEL_DISPATCH",
        "*** Done ***",
    ] {
        assert!(lines.iter().any(|l| l == want), "rocminfo printed no line {want:?}:\n{}", o.stdout);
    }
    assert_eq!(lines.iter().filter(|l| l.starts_with("Agent ")).count(), 2, "two agents:\n{}", o.stdout);
}

#[test]
fn client_dispatches_profiles_and_copies() {
    let dir = scratch("hsa-client");
    let mut c = client(&dir);
    c.env("CLIENT_DISPATCHES", "12");
    let o = run(c);
    assert_passed(&o);
    assert_eq!(field(&o.stdout, "dispatches="), 12);
    assert_eq!(field(&o.stdout, "after barrier packets_seen="), 13);
    assert!(o.stdout.contains("client: profiling times ordered"), "{}", o.stdout);
    if kernels().is_some() {
        assert_eq!(field(&o.stdout, "host_runs="), 12);
        assert!(o.stdout.contains("client: symbol add_one.kd (kernel)"), "{}", o.stdout);
        assert!(o.stdout.contains("client: symbol dbl_counter (variable)"), "{}", o.stdout);
        assert_eq!(field(&o.stdout, " kernarg="), 8, "add_one takes one pointer");
    }
}

#[test]
fn tools_load_in_order_and_see_the_clients_calls() {
    let dir = scratch("hsa-tools");
    let missing = dir.join("libnot-there.so");
    let fail = built().join("libtool_fail.so");
    let count = built().join("libtool_count.so");
    let mut c = client(&dir);
    c.env("HSA_TOOLS_LIB", format!("{} {} {}", missing.display(), fail.display(), count.display()));
    c.env("HSA_TOOLS_REPORT_LOAD_FAILURE", "1");
    let o = run(c);
    assert_passed(&o);
    let out = &o.stdout;
    // The failed tool is reported to the next; the library that could not be
    // opened is only reported on stderr (ROCr 5.2.3 LoadTools).
    assert!(out.contains("tool_fail: OnLoad failed_tool_count=0: returning false"), "{out}");
    assert_eq!(field(out, "tool_count: OnLoad runtime_version="), 1);
    assert_eq!(field(out, "failed_tool_count="), 0, "first OnLoad sees no failures");
    assert_eq!(field(out, "tool_count: OnLoad runtime_version=1 failed_tool_count="), 1);
    assert!(out.contains(&format!("tool_count: failed tool: {}\n", fail.display())), "{out}");
    assert!(!out.contains("libnot-there"), "{out}");
    assert!(o.stderr.contains(&format!("Tool lib \"{}\" failed to load.", missing.display())), "{}", o.stderr);
    assert!(out.contains("tool_count: OnLoad done"), "{out}");
    // The tool saw exactly the client's calls, and unloaded at hsa_shut_down.
    assert_eq!(field(out, "tool_count: OnUnload queue_create="), field(out, "queue_create calls="));
    assert_eq!(field(out, "agent_get_info="), field(out, "client: agent_get_info calls="));
    assert!(field(out, "agent_get_info=") >= 5, "{out}");
    let unload = out.find("tool_count: OnUnload").unwrap();
    assert!(unload > out.find("client: agent_get_info calls=").unwrap(), "OnUnload before hsa_shut_down:\n{out}");
}

#[test]
fn tool_without_onload_stays_and_unloads_in_reverse_order() {
    let dir = scratch("hsa-bare-tool");
    let src = dir.join("bare.c");
    std::fs::write(
        &src,
        "#include <stdio.h>\n\
         __attribute__((visibility(\"default\"))) void OnUnload(void) { printf(\"bare: OnUnload\\n\"); fflush(stdout); }\n",
    )
    .unwrap();
    let lib = dir.join("libbare.so");
    let st = Command::new("gcc").args(["-shared", "-fPIC", "-o"]).arg(&lib).arg(&src).status().expect("run gcc");
    assert!(st.success());
    let mut c = client(&dir);
    c.env("HSA_TOOLS_LIB", format!("{} {}", lib.display(), built().join("libtool_count.so").display()));
    let o = run(c);
    assert_passed(&o);
    assert_eq!(field(&o.stdout, "failed_tool_count="), 0);
    let (count, bare) = (o.stdout.find("tool_count: OnUnload").unwrap(), o.stdout.find("bare: OnUnload").unwrap());
    assert!(count < bare, "OnUnload runs in reverse load order:\n{}", o.stdout);
}

#[test]
fn intercept_handler_adds_a_barrier_after_each_dispatch() {
    let dir = scratch("hsa-intercept-extra");
    let mut c = client(&dir);
    c.env("HSA_TOOLS_LIB", built().join("libtool_intercept.so"));
    c.env("CLTAP_TEST_INTERCEPT", "extra");
    c.env("CLIENT_MODE", "intercept-extra");
    c.env("CLIENT_DISPATCHES", "8");
    let o = run(c);
    assert_passed(&o);
    let out = &o.stdout;
    // 8 dispatches and the client's own barrier went through the handler;
    // the processor saw each dispatch, the 8 added barriers and the client's.
    assert_eq!(field(out, "tool_intercept: OnUnload handled="), 9);
    assert_eq!(field(out, " written="), 17);
    assert_eq!(field(out, " dropped="), 0);
    assert_eq!(field(out, " bad_index="), 0, "user_pkt_index counts the application's packets");
    assert_eq!(field(out, "dispatches="), 8);
    assert_eq!(field(out, "after barrier packets_seen="), 17);
    assert_eq!(field(out, " barriers_seen="), 9);
}

#[test]
fn intercept_handler_that_writes_nothing_drops_the_packet() {
    let dir = scratch("hsa-intercept-drop");
    let mut c = client(&dir);
    c.env("HSA_TOOLS_LIB", built().join("libtool_intercept.so"));
    c.env("CLTAP_TEST_INTERCEPT", "drop");
    c.env("CLIENT_MODE", "intercept-drop");
    c.env("CLIENT_DISPATCHES", "8");
    let o = run(c);
    assert_passed(&o);
    let out = &o.stdout;
    assert_eq!(field(out, "tool_intercept: OnUnload handled="), 9);
    assert_eq!(field(out, " written="), 1, "only the client's barrier");
    assert_eq!(field(out, " dropped="), 8);
    assert_eq!(field(out, "dispatches="), 0, "no dispatch reached the processor");
    assert_eq!(field(out, "after barrier packets_seen="), 1);
}
