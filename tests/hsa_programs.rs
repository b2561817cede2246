//! Our own HSA programs (`tests/hsa/programs.c`) on Debian's real ROCr over
//! the emulated gfx906 (`gpu-emu/`), each run without cltap, with `HSA_TOOLS_LIB` only, and with
//! `ROCP_HSA_INTERCEPT=1` and `=2`: the same output and exit code every
//! time, the calls in the API log; the dispatch times of `=2` ordered and
//! serial; memory flat over 100,000 dispatches; and the same failure with
//! and without cltap on Debian's real ROCr, which finds no GPU here.

mod common;
use cltap_formats::apilog::{self, Entry};
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

fn programs() -> &'static Path {
    hsa_programs()
}

fn kernels() -> String {
    hsa_kernels().display().to_string()
}

/// A command running the program with `args`, from `dir`, in an environment
/// cleaned of tool and cltap settings: on the emulated GPU, or (`emulated`
/// false) on Debian's ROCr with no GPU at all (no emulator under it).
fn program(args: &[&str], dir: &Path, emulated: bool) -> Command {
    if emulated {
        let mut c = on_hsa(programs(), dir);
        c.args(args);
        return c;
    }
    let mut c = Command::new("timeout");
    c.arg("60").arg(programs()).args(args).current_dir(dir);
    for (k, _) in std::env::vars() {
        if k.starts_with("HSA_")
            || k.starts_with("CLTAP_")
            || k.starts_with("ROCP_")
            || k == "LD_PRELOAD"
            || k == "LD_LIBRARY_PATH"
        {
            c.env_remove(k);
        }
    }
    c
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum How {
    Plain,
    Tool,
    Intercept(u8),
}

fn with(c: &mut Command, how: How, out: &Path) {
    if how != How::Plain {
        c.env("HSA_TOOLS_LIB", layer());
        c.env("CLTAP_OUTPUT_DIR", out);
    }
    if let How::Intercept(n) = how {
        c.env("ROCP_HSA_INTERCEPT", n.to_string());
    }
}

fn only(dir: &Path, ext: &str) -> PathBuf {
    only_file(dir, ext)
}

/// Runs `args` the four ways; checks stdout and exit code are the same and
/// that each traced run's API log holds `names`. Returns the plain stdout.
fn four_ways(tag: &str, args: &[&str], names: &[&str]) -> String {
    four_ways_with(&[], tag, args, names)
}

/// [`four_ways`] with the settings `env` in every run.
fn four_ways_with(env: &[(&str, &str)], tag: &str, args: &[&str], names: &[&str]) -> String {
    let program = |args: &[&str], dir: &Path| {
        let mut c = program(args, dir, true);
        c.envs(env.iter().copied());
        c
    };
    let plain_dir = scratch(&format!("hsa-prog-{tag}-plain"));
    let plain = run(program(args, &plain_dir));
    assert_eq!(plain.code, Some(0), "{tag} failed without cltap:\n{}\n{}", plain.stdout, plain.stderr);
    assert!(std::fs::read_dir(&*plain_dir).unwrap().next().is_none(), "nothing is written without cltap");
    for how in [How::Tool, How::Intercept(1), How::Intercept(2)] {
        let out = scratch(&format!("hsa-prog-{tag}"));
        let mut c = program(args, &out);
        with(&mut c, how, &out);
        let o = run(c);
        assert_eq!(o.code, plain.code, "{tag} {how:?}: exit code; stderr:\n{}", o.stderr);
        assert_eq!(o.stdout, plain.stdout, "{tag} {how:?}: stdout differs");
        let text = std::fs::read_to_string(only(&out, ".apilog")).unwrap();
        let entries = apilog::read(&text).unwrap_or_else(|e| panic!("{tag} {how:?}: {e}"));
        let logged: Vec<&str> =
            entries.iter().filter_map(|e| if let Entry::Call(c) = e { Some(c.name.as_ref()) } else { None }).collect();
        for n in ["hsa_init", "hsa_shut_down"].iter().chain(names) {
            assert!(logged.contains(n), "{tag} {how:?}: {n} is not in the API log");
        }
        let dispatch_lines = text.lines().filter(|l| l.starts_with("# dispatch ")).count();
        if how == How::Tool {
            assert_eq!(dispatch_lines, 0, "{tag}: no dispatch records without ROCP_HSA_INTERCEPT");
        }
    }
    plain.stdout
}

#[test]
fn agents_regions_and_pools() {
    let out = four_ways(
        "info",
        &["info"],
        &[
            "hsa_iterate_agents",
            "hsa_agent_get_info",
            "hsa_agent_iterate_regions",
            "hsa_region_get_info",
            "hsa_amd_memory_pool_get_info",
        ],
    );
    // gpu-emu's agents, as ROCr names them.
    assert!(out.contains("agent gfx906 vendor=\"AMD\" type=1 cus=60 wavefront=64"), "{out}");
    assert!(out.contains("agent CPU (gpu-emu host) vendor=\"CPU\" type=0"), "{out}");
    assert!(out.ends_with("info done\n"), "{out}");
}

#[test]
fn many_dispatches() {
    let out = four_ways(
        "many",
        &["many", &kernels()],
        &["hsa_queue_create", "hsa_signal_wait_scacquire", "hsa_memory_allocate", "hsa_queue_destroy"],
    );
    assert_eq!(out, "many: dispatches=200 read_index=200 write_index=200\n");
}

#[test]
fn barrier_and_and_barrier_or() {
    let out = four_ways(
        "barriers",
        &["barriers", &kernels()],
        &["hsa_queue_create", "hsa_signal_store_screlease", "hsa_signal_wait_scacquire"],
    );
    assert_eq!(
        out,
        "barriers: first dispatch 0\nbarriers: behind AND before release: 1\nbarriers: AND done 0, second dispatch 0\n\
         barriers: behind OR before release: 1\nbarriers: OR done 0, third dispatch 0, never 1\n"
    );
}

#[test]
fn signals_waited_on_from_several_threads() {
    let out = four_ways(
        "threads",
        &["threads"],
        &["hsa_signal_create", "hsa_signal_wait_scacquire", "hsa_signal_add_screlease", "hsa_signal_destroy"],
    );
    let want: String = (0..6).map(|i| format!("threads: waiter {i} saw 7\n")).collect();
    assert_eq!(out, want);
}

/// Two async copies, the second waiting for the first, through ROCr's blit kernels.
#[test]
fn async_copy_bytes() {
    let out = four_ways(
        "copy",
        &["copy"],
        &["hsa_amd_memory_pool_allocate", "hsa_amd_memory_async_copy", "hsa_amd_memory_pool_free"],
    );
    assert_eq!(out, "copy: signals 0 0\ncopy: 1048576 bytes, identical=1 sum=133693440\n");
}

/// A rectangle too, with gpu-emu's SDMA engine (`GPU_EMU_SDMA=1`; ROCr copies rectangles only
/// with an SDMA engine, and without one answers HSA_STATUS_ERROR_OUT_OF_RESOURCES); the program
/// reads the rectangle's copy times back with the same status and order under cltap.
#[test]
fn async_copy_rect_bytes_through_the_sdma_engine() {
    let out = four_ways_with(
        &[("GPU_EMU_SDMA", "1")],
        "copy-rect",
        &["copy", "rect"],
        &["hsa_amd_memory_async_copy", "hsa_amd_memory_async_copy_rect", "hsa_amd_profiling_get_async_copy_time"],
    );
    assert_eq!(
        out,
        "copy: signals 0 0\ncopy: 1048576 bytes, identical=1 sum=133693440\ncopy: rect 100x20x3 identical=1\n\
         copy: rect time status=0 ordered=1\n"
    );
}

#[test]
fn one_completion_signal_for_several_dispatches() {
    let out = four_ways("shared", &["shared", &kernels()], &["hsa_signal_create", "hsa_signal_wait_scacquire"]);
    assert_eq!(out, "shared: 10 dispatches, signal ends at 0\nshared: read_index=10\n");
}

#[test]
fn queue_destroyed_with_dispatches_in_flight() {
    // ROCr destroys the queue and gpu-emu stops its command processor: the five dispatches held back
    // behind a barrier never run, and their shared signal stays at 5.
    let out = four_ways("destroy", &["destroy", &kernels()], &["hsa_queue_destroy", "hsa_queue_create"]);
    assert_eq!(
        out,
        "destroy: first dispatch 0\ndestroy: hsa_queue_destroy 0\ndestroy: new queue dispatch 0\n\
         destroy: held-back dispatches left the signal at 5\n"
    );
}

/// dispatch, begin, end, complete of each `# dispatch` line, in log order.
fn dispatch_times(log: &Path) -> Vec<(u64, u64, u64, u64)> {
    let text = std::fs::read_to_string(log).unwrap();
    let after = |l: &str, key: &str| -> u64 {
        let at = l.find(key).unwrap_or_else(|| panic!("{key} not in {l}")) + key.len();
        l[at..].split(' ').next().unwrap().parse().unwrap_or_else(|e| panic!("{key} in {l}: {e}"))
    };
    text.lines()
        .filter(|l| l.starts_with("# dispatch "))
        .map(|l| {
            assert!(l.ends_with(" ns"), "{l}");
            (after(l, ", dispatch "), after(l, " begin "), after(l, " end "), after(l, " complete "))
        })
        .collect()
}

#[test]
fn dispatch_times_are_ordered_and_serial() {
    let n = 200;
    let out = scratch("hsa-prog-times");
    let mut c = program(&["many", &kernels(), &n.to_string()], &out, true);
    with(&mut c, How::Intercept(2), &out);
    let o = run(c);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    let mut t = dispatch_times(&only(&out, ".apilog"));
    assert_eq!(t.len(), n, "one dispatch line per dispatch");
    // Dispatch and complete are host times, begin and end the GPU's converted by ROCr (it
    // interpolates between sampled clock pairs, with an error): only times of one clock are
    // ordered with each other.
    for (i, &(d, b, e, c)) in t.iter().enumerate() {
        assert!(d <= c && b <= e, "dispatch {i}: dispatch {d} begin {b} end {e} complete {c}");
    }
    // One queue: the packet processor runs them one after the other.
    t.sort_by_key(|x| x.1);
    for w in t.windows(2) {
        assert!(w[1].1 >= w[0].2, "a dispatch begins at {} before the previous one ends at {}", w[1].1, w[0].2);
    }
}

#[test]
fn a_hundred_thousand_dispatches_keep_memory_flat() {
    let peak = |n: u32| {
        let out = scratch("hsa-prog-peak");
        let mut c = program(&["many", &kernels(), &n.to_string()], &out, true);
        with(&mut c, How::Intercept(2), &out);
        let (status, kib) = peak_kib(c);
        assert_eq!(status, 0, "{n} dispatches: wait status {status}");
        let lines = std::fs::read_to_string(only(&out, ".apilog"))
            .unwrap()
            .lines()
            .filter(|l| l.starts_with("# dispatch "))
            .count();
        assert_eq!(lines, n as usize, "{n} dispatches recorded");
        kib
    };
    let small = peak(1_000);
    let large = peak(100_000);
    assert!(large <= small + 16 * 1024, "peak {large} KiB for 100,000 dispatches, {small} KiB for 1,000");
}

#[test]
fn without_a_gpu_the_real_runtime_fails_the_same_with_cltap() {
    let real = ["/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1", "/lib/x86_64-linux-gnu/libhsa-runtime64.so.1"];
    assert!(
        real.iter().any(|p| Path::new(p).exists()),
        "Debian's libhsa-runtime64.so.1 is missing: install the package libhsa-runtime64-1 (a dependency of libhsa-runtime-dev)"
    );
    let plain_dir = scratch("hsa-prog-real-plain");
    let plain = run(program(&["info"], &plain_dir, false));
    assert_ne!(plain.code, Some(0), "hsa_init succeeds on the real runtime here?\n{}", plain.stdout);
    assert!(plain.stdout.contains("hsa_init() returned"), "it fails in hsa_init:\n{}\n{}", plain.stdout, plain.stderr);
    let out = scratch("hsa-prog-real");
    let mut c = program(&["info"], &out, false);
    with(&mut c, How::Tool, &out);
    let o = run(c);
    assert_eq!(o, plain, "the same failure with HSA_TOOLS_LIB=libcltap_layer.so");
}
