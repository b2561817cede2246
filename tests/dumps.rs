//! Argument dumps, injection, capture and replay on real drivers
//! (`tests/c/special/dumps.c`, four kernel enqueues of which the second
//! computes one element wrong and the fourth reads an image): the
//! before/after dumps of that one enqueue find the wrong element; its
//! capture on PoCL (buffers, scalars, local memory, an image) replays on
//! Oclgrind and Intel's CPU runtime with the same results, and one on AMD's
//! runtime over the emulated gfx906 replays on PoCL (and back); an injected
//! file changes what the kernel reads and the API log says so; the
//! application's own output is the same with and without the controls, in
//! layer and ICD mode, with both loaders; limits and bad settings get their
//! one line.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

const N: usize = 256;

fn program() -> PathBuf {
    special("dumps.c", "dumps")
}

/// The application's output without cltap (PoCL, ocl-icd).
fn plain() -> String {
    let o = run(command(&program(), &[], &[Driver::Pocl], Loader::OclIcd, Mode::Plain));
    assert_eq!(o.code, Some(0), "{o:?}");
    assert!(o.stdout.contains("wrong result: A[77]"), "{}", o.stdout);
    o.stdout
}

/// The program under cltap with `env`, its files in a fresh folder; the
/// application must print what it prints without cltap.
fn dumped(driver: Driver, loader: Loader, mode: Mode, env: &[(&str, &str)], want: &str) -> (Scratch, Outcome) {
    let dir = scratch("dumps");
    let mut c = command(&program(), &[], &[driver], loader, mode);
    c.env("CLTAP_OUTPUT_DIR", &*dir).envs(env.iter().copied());
    let o = run(c);
    assert_eq!(o.code, Some(0), "{o:?}");
    assert_eq!(o.stdout, want, "{driver:?} {loader:?} {mode:?}: the application saw other results");
    (dir, o)
}

/// The one entry of `dir` whose name ends with `suffix`.
fn one(dir: &Path, suffix: &str) -> PathBuf {
    let v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().ends_with(suffix))
        .collect();
    assert_eq!(v.len(), 1, "{suffix} in {}: {v:?}", dir.display());
    v.into_iter().next().unwrap()
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

fn ints(p: &Path) -> Vec<i32> {
    std::fs::read(p).unwrap().chunks_exact(4).map(|c| i32::from_ne_bytes(c.try_into().unwrap())).collect()
}

fn notes(dir: &Path) -> Vec<String> {
    let log = std::fs::read_to_string(one(dir, ".apilog")).unwrap();
    log.lines().filter_map(|l| l.strip_prefix("# cltap: ")).map(str::to_string).collect()
}

fn cltap(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Outcome {
    let mut c = Command::new(cltap_exe());
    for a in args {
        c.arg(a);
    }
    c.env("LD_LIBRARY_PATH", intel_lib());
    run(c)
}

#[test]
fn a_wrong_result_is_found_by_the_dumps_of_one_enqueue() {
    let want = plain();
    let env = [("CLTAP_DUMP_ARGS", "both"), ("CLTAP_DUMP_ENQUEUES", "2"), ("CLTAP_SUMMARY", "1")];
    let (dir, o) = dumped(Driver::Pocl, Loader::OclIcd, Mode::Layer, &env, &want);
    let dumps = one(&dir, ".dumps");
    let (before, after) = (dumps.join("before"), dumps.join("after"));
    // Enqueue 2 alone, each argument by index and memory object number.
    let files = ["e000002-scale.a0.m1.bin", "e000002-scale.a1.m2.bin", "e000002-scale.a2.scalar.bin"];
    assert_eq!(names(&before), files);
    assert_eq!(names(&after), files);
    // `cltap dumps diff`: the output buffer changed, the input and the scalar did not.
    let d = cltap(&[&"dumps", &"diff", &before, &after]);
    assert_eq!(d.code, Some(1), "{d:?}");
    let changed: Vec<&str> = d.stdout.lines().filter(|l| l.contains(": changed:")).collect();
    assert_eq!(changed.len(), 1, "{}", d.stdout);
    assert!(changed[0].starts_with("e000002-scale.a1.m2.bin: changed: first difference at byte "), "{}", d.stdout);
    assert!(d.stdout.ends_with("1 files differ, 2 are the same\n"), "{}", d.stdout);
    // What the kernel should have made of what it read: the input as the
    // fill left it, times the scalar; one element is not.
    let input = ints(&before.join(files[0]));
    assert_eq!(input, (0..N as i32).map(|i| 1000 + i).collect::<Vec<_>>());
    let k = ints(&before.join(files[2]))[0];
    assert_eq!(k, 3);
    let out = ints(&after.join(files[1]));
    let wrong: Vec<usize> = (0..N).filter(|&i| out[i] != input[i] * k).collect();
    assert_eq!(wrong, [77]);
    assert_eq!(ints(&after.join(files[0])), input, "the input is unchanged after");
    // The API log names the files after the enqueue; the summary counts the wait.
    let n = notes(&dir);
    for phase in ["before", "after"] {
        let l = n.iter().find(|l| l.starts_with(&format!("enqueue 2 scale {phase}: "))).expect(phase);
        assert!(l.contains("a1 buffer 2 (1024 bytes) e000002-scale.a1.m2.bin"), "{l}");
        assert!(l.contains("a2 scalar (4 bytes)"), "{l}");
    }
    assert!(!n.iter().any(|l| l.starts_with("enqueue 1 ") || l.starts_with("enqueue 3 ")), "{n:#?}");
    let line = o.stderr.lines().find(|l| l.starts_with("cltap: dumps: ")).unwrap_or_else(|| panic!("{}", o.stderr));
    assert!(line.starts_with("cltap: dumps: 1 enqueues dumped, 6 files, 4104 bytes in "), "{line}");
    assert!(line.contains("; the application's threads waited "), "{line}");
    // The summary's JSON has the same counts, the bytes those of the files,
    // and the wait the line states; `cltap render` gives both again from
    // the trace.
    let s = summary_json(&dir);
    let d = &s["dumps"];
    let on_disk: u64 =
        [&before, &after].iter().flat_map(|p| files.map(|f| std::fs::metadata(p.join(f)).unwrap().len())).sum();
    assert_eq!(
        (d["enqueues_dumped"].as_u64(), d["files"].as_u64(), d["bytes"].as_u64()),
        (Some(1), Some(6), Some(4104))
    );
    assert_eq!(on_disk, 4104);
    assert_eq!(d["folder"].as_str().map(PathBuf::from), Some(dumps.clone()), "{d}");
    let ns = d["waited_ns"].as_u64().unwrap();
    assert!(ns > 0, "a finish and six reads took no time: {d}");
    assert!(line.ends_with(&format!(" waited {:.3} ms for the dumps' reads and writes", ns as f64 / 1e6)), "{line}");
    let again = dir.join("again");
    let r = cltap(&[&"render", &"-o", &again, &one(&dir, ".cltrace")]);
    assert_eq!(r.code, Some(0), "{r:?}");
    assert_eq!(summary_json(&again)["dumps"], *d);
    assert!(r.stderr.lines().any(|l| l == line), "{line:?} not in {}", r.stderr);
}

#[test]
fn the_application_sees_the_same_in_both_modes_and_loaders() {
    let want = plain();
    let env = [("CLTAP_DUMP_ARGS", "both"), ("CLTAP_CAPTURE", "1"), ("CLTAP_DUMP_KERNELS", "^fill$")];
    for (loader, mode) in [(Loader::OclIcd, Mode::Layer), (Loader::Khronos, Mode::Layer), (Loader::OclIcd, Mode::Icd)] {
        let (dir, _) = dumped(Driver::Pocl, loader, mode, &env, &want);
        let dumps = one(&dir, ".dumps");
        // fill's local-memory argument has no contents: named, not written.
        assert_eq!(names(&dumps.join("after")), ["e000001-fill.a0.m1.bin", "e000001-fill.a1.scalar.bin"]);
        assert_eq!(names(&dumps.join("before")), names(&dumps.join("after")));
        let n = notes(&dir);
        assert!(n.iter().any(|l| l.contains("a2: local memory (64 bytes), no contents")), "{n:#?}");
        let cap = one(&dir, ".capture").join("e000001-fill");
        assert!(cap.join("capture.json").is_file(), "{loader:?} {mode:?}");
    }
}

#[test]
fn a_capture_on_pocl_replays_on_oclgrind_and_intel() {
    let want = plain();
    let env = [("CLTAP_CAPTURE", "1"), ("CLTAP_DUMP_ENQUEUES", "1-2,4")];
    let (dir, _) = dumped(Driver::Pocl, Loader::OclIcd, Mode::Layer, &env, &want);
    let caps = one(&dir, ".capture");
    assert_eq!(names(&caps), ["e000001-fill", "e000002-scale", "e000004-twice"]);
    let scale = caps.join("e000002-scale");
    let m: serde_json::Value = serde_json::from_slice(&std::fs::read(scale.join("capture.json")).unwrap()).unwrap();
    assert_eq!(m["kernel"], "scale");
    assert_eq!(m["program"]["kind"], "source");
    assert_eq!(m["program"]["options"], "-DUNUSED=1");
    assert_eq!(m["global"], serde_json::json!([N]));
    assert!(std::fs::read_to_string(scale.join("program.cl")).unwrap().contains("__kernel void scale("));
    // An image argument: its type, format (CL_R, CL_SIGNED_INT32) and region.
    let t: serde_json::Value =
        serde_json::from_slice(&std::fs::read(caps.join("e000004-twice/capture.json")).unwrap()).unwrap();
    assert_eq!(t["args"][0]["kind"], "image");
    assert_eq!(t["args"][0]["image"]["mem_type"], 0x10F1);
    assert_eq!(t["args"][0]["image"]["format"], serde_json::json!([0x10B0, 0x10D9]));
    assert_eq!(t["args"][0]["image"]["region"], serde_json::json!([16, 16, 1]));
    for driver in [Driver::Oclgrind, Driver::Intel, Driver::Pocl] {
        for cap in ["e000001-fill", "e000002-scale", "e000004-twice"] {
            let out = scratch("replay-out");
            let r = cltap(&[&"replay", &caps.join(cap), &"--driver", &driver.library(), &"--out", &out]);
            assert_eq!(r.code, Some(0), "{driver:?} {cap}: {r:?}");
            assert!(r.stdout.ends_with("replay: the results match the capture\n"), "{}", r.stdout);
            if cap == "e000002-scale" {
                // The same wrong element everywhere: the kernel's, not a driver's.
                let got = ints(&out.join("after/a1.bin"));
                assert_eq!(got[77], 3 * 1077 + 1, "{driver:?}");
            }
        }
    }
    // A capture whose result differs: exit 1 and the first difference.
    let bad = scratch("replay-bad");
    copy_dir(&scale, &bad);
    let mut after = std::fs::read(bad.join("after/a1.bin")).unwrap();
    after[308] ^= 0xff;
    std::fs::write(bad.join("after/a1.bin"), after).unwrap();
    let r = cltap(&[&"replay", &&*bad, &"--driver", &Driver::Oclgrind.library()]);
    assert_eq!(r.code, Some(1), "{r:?}");
    assert!(
        r.stdout.contains("replay: the results differ; first: argument 1: changed: first difference at byte 308"),
        "{}",
        r.stdout
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn an_injected_file_replaces_an_argument_and_the_log_says_so() {
    let inject = scratch("inject");
    // Enqueue 2's input all zeros: its output is 0 but for the wrong
    // element (1), enqueue 3 doubles that (3 at 77), and the image of B
    // that enqueue 4 doubles holds the 1.
    std::fs::write(inject.join("e2-scale.a0.bin"), vec![0u8; N * 4]).unwrap();
    let want = "twice 2\nsum 4\nA[0] 0 B[0] 0\nwrong result: A[0] = 0, want 6000\n";
    let env = [("CLTAP_INJECT", inject.to_str().unwrap())];
    for mode in [Mode::Layer, Mode::Icd] {
        let (dir, _) = dumped(Driver::Pocl, Loader::OclIcd, mode, &env, want);
        let n = notes(&dir);
        let l = format!(
            "enqueue 2 scale: argument 0: memory object 1 injected from {}",
            inject.join("e2-scale.a0.bin").display()
        );
        assert!(n.iter().any(|x| x.starts_with(&l)), "{mode:?}: {n:#?}");
    }
}

#[test]
fn the_limits_say_what_they_left_out() {
    let want = plain();
    let env = [("CLTAP_DUMP_ARGS", "after"), ("CLTAP_DUMP_MAX", "512")];
    let (dir, _) = dumped(Driver::Pocl, Loader::OclIcd, Mode::Layer, &env, &want);
    let n = notes(&dir);
    assert!(n.iter().any(|l| l.contains("a0: 1024 bytes, over CLTAP_DUMP_MAX=512: not read")), "{n:#?}");
    // Room for two buffers in the whole run: the rest is left out, said once.
    let env = [("CLTAP_DUMP_ARGS", "after"), ("CLTAP_DUMP_TOTAL", "2048")];
    let (dir, o) = dumped(Driver::Pocl, Loader::OclIcd, Mode::Layer, &env, &want);
    let full: Vec<&str> = o.stderr.lines().filter(|l| l.contains("CLTAP_DUMP_TOTAL=2048 reached")).collect();
    assert_eq!(full.len(), 1, "{}", o.stderr);
    let after = one(&dir, ".dumps").join("after");
    let bytes: u64 = names(&after).iter().map(|f| std::fs::metadata(after.join(f)).unwrap().len()).sum();
    assert!(bytes <= 2048, "{bytes}");
    assert!(notes(&dir).iter().any(|l| l.contains("not written, CLTAP_DUMP_TOTAL reached")));
}

#[test]
fn bad_settings_are_refused_before_the_application_starts() {
    for (args, env, line) in [
        (&["--dump-enqueues", "0-2"][..], None, "cltap: --dump-enqueues 0-2: "),
        (&["--dump-kernels", "sc("][..], None, "cltap: --dump-kernels sc(: "),
        (&[][..], Some(("CLTAP_DUMP_ARGS", "sometimes")), "cltap: CLTAP_DUMP_ARGS=\"sometimes\" is not valid"),
        (&[][..], Some(("CLTAP_INJECT", "/no/such/folder")), "cltap: CLTAP_INJECT=\"/no/such/folder\" is not valid"),
    ] {
        let d = scratch("dumps-validation");
        let mut c = cltap_on_pocl(&d);
        c.arg("run").args(args).envs(env).arg("--").arg(program());
        let o = run(c);
        assert_eq!(o.code, Some(2), "{args:?} {env:?}: {o:?}");
        assert_eq!(o.stdout, "", "the application did not run");
        assert!(o.stderr.starts_with(line), "{}", o.stderr);
    }
}

#[test]
fn a_capture_on_amds_runtime_over_the_emulated_gfx906_replays_on_pocl_and_back() {
    use common::amdocl::{amdocl, on_amd};
    let want = plain();
    // Captured on AMD's OpenCL runtime over gpu-emu: the same wrong element.
    let dir = scratch("dumps-amd");
    let mut c = on_amd(&program(), &[], Mode::Layer, &dir);
    c.envs([("CLTAP_CAPTURE", "1"), ("CLTAP_DUMP_ENQUEUES", "2")]);
    let o = run(c);
    assert_eq!(o.code, Some(0), "{o:?}");
    assert_eq!(o.stdout, want, "the application saw other results on AMD's runtime");
    let cap = one(&dir, ".capture").join("e000002-scale");
    let m: serde_json::Value = serde_json::from_slice(&std::fs::read(cap.join("capture.json")).unwrap()).unwrap();
    assert!(m["device"].as_str().unwrap().starts_with("gfx906"), "{m}");
    let r = cltap(&[&"replay", &cap, &"--driver", &Driver::Pocl.library()]);
    assert_eq!(r.code, Some(0), "{r:?}");
    assert!(r.stdout.ends_with("replay: the results match the capture\n"), "{}", r.stdout);
    // And a PoCL capture replayed on AMD's runtime over gpu-emu.
    let (pocl, _) = dumped(Driver::Pocl, Loader::OclIcd, Mode::Layer, &[("CLTAP_CAPTURE", "1")], &want);
    let pcap = one(&pocl, ".capture").join("e000002-scale");
    let mut c = on_hsa(&cltap_exe(), &dir);
    c.arg("replay").arg(&pcap).arg("--driver").arg(amdocl());
    let r = run(c);
    assert_eq!(r.code, Some(0), "{r:?}");
    assert!(r.stdout.starts_with("replay on gfx906"), "{}", r.stdout);
    assert!(r.stdout.ends_with("replay: the results match the capture\n"), "{}", r.stdout);
}

/// `tests/c/special/dumps_more.c`: an SVM pointer into its allocation, a
/// sampler and a 1D image over a buffer, dumped and captured on PoCL (and
/// the SVM pointer on Intel's CPU runtime), replayed on the drivers that
/// have what each needs.
#[test]
fn svm_pointers_samplers_and_1d_buffer_images_are_dumped_and_replayed() {
    let exe = special("dumps_more.c", "dumps_more");
    let plain = run(command(&exe, &[], &[Driver::Pocl], Loader::OclIcd, Mode::Plain));
    assert_eq!(plain.code, Some(0), "{plain:?}");
    assert!(plain.stdout.starts_with("svm "), "PoCL has coarse-grain SVM: {}", plain.stdout);
    let mut usm_seen = false;
    for driver in [Driver::Pocl, Driver::Intel] {
        let dir = scratch("dumps-more");
        let mut c = command(&exe, &[], &[driver], Loader::OclIcd, Mode::Layer);
        c.env("CLTAP_OUTPUT_DIR", &*dir).envs([("CLTAP_DUMP_ARGS", "both"), ("CLTAP_CAPTURE", "1")]);
        let o = run(c);
        assert_eq!(o.code, Some(0), "{o:?}");
        let own = run(command(&exe, &[], &[driver], Loader::OclIcd, Mode::Plain));
        assert_eq!(own.code, Some(0), "{own:?}");
        assert_eq!(o.stdout, own.stdout, "{driver:?}: the application saw other results");
        let dumps = one(&dir, ".dumps");
        // The SVM pointer 16 elements into its allocation: read from it to the end.
        let input = ints(&dumps.join("before/e000001-svmscale.a0.svm.bin"));
        assert_eq!(input, (0..N as i32).map(|i| 116 + i).collect::<Vec<_>>(), "{driver:?}");
        let out = ints(&dumps.join("after/e000001-svmscale.a1.svm.bin"));
        assert_eq!(out, input.iter().map(|v| v * 3).collect::<Vec<_>>(), "{driver:?}");
        // The sampler's modes: unnormalised, clamp to edge, nearest.
        let s = ints(&dumps.join("before/e000002-sampled.a1.sampler.bin"));
        assert_eq!(s, [0, 0x1131, 0x1140], "{driver:?}");
        let n = notes(&dir);
        assert!(n.iter().any(|l| l.contains("a1 sampler (normalized 0, addressing 0x1131, filter 0x1140)")), "{n:#?}");
        let caps = one(&dir, ".capture");
        let m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(caps.join("e000003-lookup/capture.json")).unwrap()).unwrap();
        assert_eq!(m["args"][0]["kind"], "image");
        assert_eq!(m["args"][0]["image"]["mem_type"], 0x10F6);
        // Replays: SVM where the driver has it (Oclgrind has not, and says so).
        for (cap, replay_on) in [
            ("e000001-svmscale", &[Driver::Pocl, Driver::Intel][..]),
            ("e000002-sampled", &[Driver::Pocl, Driver::Oclgrind, Driver::Intel][..]),
            ("e000003-lookup", &[Driver::Pocl, Driver::Oclgrind, Driver::Intel][..]),
        ] {
            for d in replay_on {
                let r = cltap(&[&"replay", &caps.join(cap), &"--driver", &d.library()]);
                assert_eq!(r.code, Some(0), "{driver:?} capture {cap} on {d:?}: {r:?}");
                assert!(r.stdout.ends_with("replay: the results match the capture\n"), "{}", r.stdout);
            }
        }
        let r = cltap(&[&"replay", &caps.join("e000001-svmscale"), &"--driver", &Driver::Oclgrind.library()]);
        assert_ne!(r.code, Some(0), "{r:?}");
        assert!(r.stderr.contains("the replay's device has no SVM"), "{r:?}");
        // USM device allocations, where the driver has them (Intel's CPU
        // runtime; PoCL 3 has not): read through clEnqueueMemcpyINTEL from
        // the pointer to its allocation's end, and replayed.
        if own.stdout.lines().any(|l| l.starts_with("usm ")) {
            let input = ints(&dumps.join("before/e000004-usmscale.a0.usm.bin"));
            assert_eq!(input, (0..N as i32).map(|i| 116 + i).collect::<Vec<_>>(), "{driver:?}");
            let out = ints(&dumps.join("after/e000004-usmscale.a1.usm.bin"));
            assert_eq!(out, input.iter().map(|v| v * 3).collect::<Vec<_>>(), "{driver:?}");
            for d in [Driver::Pocl, Driver::Intel] {
                let r = cltap(&[&"replay", &caps.join("e000004-usmscale"), &"--driver", &d.library()]);
                assert_eq!(r.code, Some(0), "{driver:?} USM capture on {d:?}: {r:?}");
                assert!(r.stdout.ends_with("replay: the results match the capture\n"), "{}", r.stdout);
            }
            usm_seen = true;
        }
    }
    assert!(usm_seen, "no driver ran the USM kernel: Intel's CPU runtime has cl_intel_unified_shared_memory");
}
