//! OpenCL and HSA in one process on AMD's own OpenCL runtime (ROCm 5.2.3's `libamdocl64.so`,
//! docs/amd-opencl.md) over Debian's ROCr on the emulated gfx906: cltap in front of the OpenCL
//! runtime (layer mode and ICD mode) and loaded by ROCr as the HSA tool. The program
//! (`tests/hsa/ndranges.c`) runs 17 NDRanges on two queues and two threads, between buffer fills
//! and copies that ROCclr runs as its own blit kernels on the application's queue.
//!
//! What the GPU ran is witnessed by the emulator's packet log (`GPU_EMU_LOG=1`), not by cltap's
//! files: each NDRange's row must carry the dispatch the emulator ran for it, matched by identity
//! (kernel, grid, queue and the packet's place on its queue), never by time.

mod common;
use cltap_formats::apilog::{self, Entry};
use cltap_formats::perf::{self, PerfCsv, ResultsCsv};
use common::amdocl::{amdocl, on_amd};
use common::*;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// The NDRanges the program enqueues successfully, per thread, in order: (kernel, global size).
/// Queue A's 12 and the one of the program made from a binary on the main thread; queue B's 4 on
/// the second thread.
const MAIN: [(&str, [u64; 3]); 13] = [
    ("scale", [1024, 1, 1]),
    ("scale", [4096, 1, 1]),
    ("tile_sum", [64, 64, 1]),
    ("scale", [1000, 1, 1]),
    ("tile_sum", [128, 32, 1]),
    ("scale", [256, 1, 1]),
    ("tile_sum", [32, 32, 1]),
    ("scale", [64, 16, 1]),
    ("scale", [16, 8, 4]),
    ("tile_sum", [256, 4, 1]),
    ("scale", [2048, 1, 1]),
    ("scale", [8, 8, 8]),
    ("scale", [128, 1, 1]),
];
const SECOND: [(&str, [u64; 3]); 4] =
    [("scale", [512, 1, 1]), ("scale", [512, 1, 1]), ("scale", [32, 16, 1]), ("scale", [256, 1, 1])];
const NDRANGES: usize = MAIN.len() + SECOND.len();

fn is_app_kernel(k: &str) -> bool {
    k == "scale" || k == "tile_sum"
}

/// ROCclr's own kernels (its blits), as it names them.
fn is_rocclr(k: &str) -> bool {
    k.starts_with("__amd_rocclr_")
}

/// A dispatch the emulated GPU ran on a queue the application's kernels or ROCclr's blits went
/// through (ROCr's own blits run on its internal queues and are left out).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Ran {
    kernel: String,
    grid: [u64; 3],
}

/// The emulator's log (`gpu-emu: queue Q packet I: dispatch KERNEL grid=[X, Y, Z]`): per queue,
/// the dispatches in the order the GPU ran them.
fn emu_queues(stderr: &str) -> BTreeMap<u64, Vec<Ran>> {
    let mut q: BTreeMap<u64, Vec<Ran>> = BTreeMap::new();
    for l in stderr.lines().filter_map(|l| l.strip_prefix("gpu-emu: queue ")) {
        let Some((queue, rest)) = l.split_once(" packet ") else { continue };
        let Some((kernel, grid)) = rest.split_once(": dispatch ").and_then(|(_, d)| d.rsplit_once(" grid=")) else {
            continue;
        };
        if !is_app_kernel(kernel) && !is_rocclr(kernel) {
            continue;
        }
        let dims: Vec<u64> = grid.trim_matches(['[', ']']).split(", ").map(|d| d.parse().unwrap()).collect();
        q.entry(queue.parse().unwrap())
            .or_default()
            .push(Ran { kernel: kernel.to_string(), grid: [dims[0], dims[1], dims[2]] });
    }
    q
}

/// The program's stdout: the same with and without cltap, in every mode.
const EXPECTED: &str = include_str!("hsa/ndranges.out");

/// The program through ocl-icd on AMD's runtime with cltap in `mode`, the emulator's log on.
fn program(mode: Mode, dir: &Path) -> std::process::Command {
    let mut c = on_amd(ndranges_program(), &[], mode, dir);
    c.env("GPU_EMU_LOG", "1");
    c
}

/// Without cltap, in layer mode, in ICD mode, and in layer mode with cltap also ROCr's tool
/// (`HSA_TOOLS_LIB`, intercept queues): the same output and exit status, and the same dispatches
/// on the GPU, one per NDRange, ROCclr's blits beside them on queue A.
#[test]
fn the_program_runs_the_same_with_cltap_in_each_place() {
    let dir = scratch("amd-ndr-plain");
    let plain = run(program(Mode::Plain, &dir));
    assert_eq!(plain.code, Some(0), "{}\n{}", plain.stdout, plain.stderr);
    assert_eq!(plain.stdout, EXPECTED);
    let gpu = emu_queues(&plain.stderr);
    check_dispatches(&gpu);
    for (name, mode, tool) in [("layer", Mode::Layer, false), ("icd", Mode::Icd, false), ("tool", Mode::Layer, true)] {
        let dir = scratch(&format!("amd-ndr-{name}"));
        let mut c = program(mode, &dir);
        if tool {
            c.env("HSA_TOOLS_LIB", layer()).env("ROCP_HSA_INTERCEPT", "1");
        }
        let o = run(c);
        assert_eq!((o.code, o.stdout.as_str()), (plain.code, EXPECTED), "{name}:\n{}", o.stderr);
        assert_eq!(emu_queues(&o.stderr), gpu, "{name}: the GPU ran the same dispatches on the same queues");
        if tool {
            let log = std::fs::read_to_string(only_file(&dir, ".apilog")).unwrap();
            let dispatches = log.lines().filter(|l| l.starts_with("# dispatch ")).count();
            let blits: usize = gpu.values().flatten().filter(|r| is_rocclr(&r.kernel)).count();
            assert_eq!(dispatches, NDRANGES + blits, "one dispatch record per dispatch on the queues");
        }
    }
}

/// The emulator's witness of a run: one dispatch per NDRange, on the queue of its command queue in
/// the program's order; the fills and copies as ROCclr's kernels on queue A.
fn check_dispatches(gpu: &BTreeMap<u64, Vec<Ran>>) {
    let app =
        |q: &Vec<Ran>| q.iter().filter(|r| is_app_kernel(&r.kernel)).map(|r| (r.kernel.clone(), r.grid)).collect();
    let want = |l: &[(&str, [u64; 3])]| l.iter().map(|(k, g)| (k.to_string(), *g)).collect::<Vec<_>>();
    let mut seqs: Vec<Vec<(String, [u64; 3])>> = gpu.values().map(app).filter(|s: &Vec<_>| !s.is_empty()).collect();
    seqs.sort();
    let mut expect = vec![want(&MAIN), want(&SECOND)];
    expect.sort();
    assert_eq!(seqs, expect, "each command queue's NDRanges, in order, on a queue of its own:\n{gpu:#?}");
    let a = gpu.values().find(|q| q.iter().any(|r| r.grid == [16, 8, 4])).unwrap();
    let names: Vec<&str> = a.iter().filter(|r| is_rocclr(&r.kernel)).map(|r| r.kernel.as_str()).collect();
    assert!(names.iter().filter(|k| k.contains("fill")).count() >= 2, "the two fills: {names:?}");
    assert!(names.iter().filter(|k| k.contains("copy")).count() >= 2, "the two copies: {names:?}");
}

/// `cltap run --hsa --mode MODE --driver libamdocl64.so OPTIONS… -- ndranges` from `dir`, the
/// emulator's log on.
fn cltap(dir: &Path, mode: &str, options: &[&str]) -> Outcome {
    let driver = amdocl().display().to_string();
    let mut all = vec!["--mode", mode, "--driver", &driver];
    all.extend_from_slice(options);
    let mut c = cltap_run_hsa(dir, &all, [ndranges_program()]);
    c.env("GPU_EMU_LOG", "1");
    let o = run(c);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert!(o.stdout.starts_with(EXPECTED), "the program's output under cltap:\n{}", o.stdout);
    o
}

/// The waves of a launch: whole work-groups of 64-wide waves.
fn waves(global: [u64; 3], local: [u64; 3]) -> u64 {
    let groups: u64 = (0..3).map(|i| global[i].div_ceil(local[i])).product();
    groups * local.iter().product::<u64>().div_ceil(64)
}

fn column(c: &PerfCsv, name: &str) -> usize {
    c.counters.iter().position(|n| n == name).unwrap_or_else(|| panic!("no {name} column: {:?}", c.counters))
}

/// A row's kernel as its method names it, and whether it is an NDRange's (`name__kN_device`).
fn kernel_of(method: &str) -> (&str, bool) {
    match perf::split_method(method, perf::Api::OpenCl) {
        Some(m) => {
            assert_eq!(m.device, "gfx906:sramecc-:xnack-0", "{method}");
            (m.kernel, true)
        }
        None => (method.strip_suffix("_gfx906").unwrap_or_else(|| panic!("{method}")), false),
    }
}

/// The rows of one run's counter files checked against the program and against what the emulated
/// GPU ran (`gpu`: each queue's dispatches in order): one row per NDRange, joined with its own
/// dispatch, and one row per ROCclr blit, named as its code object names it, never an NDRange's.
fn check_rows(dir: &Path, gpu: &BTreeMap<u64, Vec<Ran>>) -> PerfCsv {
    let p = rcp_csv(dir);
    let r: ResultsCsv = perf::read_results(&std::fs::read_to_string(only_file(dir, ".results.csv")).unwrap()).unwrap();
    let blits = gpu.values().flatten().filter(|d| is_rocclr(&d.kernel)).count();
    assert_eq!(p.rows.len(), NDRANGES + blits, "a row per dispatch, none twice:\n{:#?}", p.rows);
    assert_eq!(r.rows.len(), p.rows.len());

    // NDRange rows first, in CMD ID order (the API log's), each thread's in its program order.
    let log = std::fs::read_to_string(only_file(dir, ".apilog")).unwrap();
    let mut calls: HashMap<u64, u64> = HashMap::new();
    let mut cmd_of: HashMap<(u64, u64), u64> = HashMap::new();
    for e in apilog::read(&log).unwrap() {
        if let Entry::Call(c) = e {
            let n = calls.entry(c.tid).or_insert(0);
            *n += 1;
            if c.name == "clEnqueueNDRangeKernel" && c.result.as_deref() == Some("CL_SUCCESS") {
                cmd_of.insert((c.tid, *n), c.cmd_id.expect("an NDRange has a CMD ID"));
            }
        }
    }
    assert_eq!(cmd_of.len(), NDRANGES);
    let (nd, rest) = p.rows.split_at(NDRANGES);
    let mut last = 0;
    let mut per_thread: BTreeMap<u64, Vec<(String, [u64; 3])>> = BTreeMap::new();
    for row in nd {
        let (k, is_nd) = kernel_of(&row.method);
        assert!(is_nd && is_app_kernel(k), "{row:?}");
        let cmd = cmd_of[&(row.thread_id, row.call_index.expect("an NDRange's row has its CallIndex"))];
        assert!(cmd > last, "NDRange rows in CMD ID order: {row:?}");
        last = cmd;
        per_thread.entry(row.thread_id).or_default().push((k.to_string(), row.global));
    }
    let want = |l: &[(&str, [u64; 3])]| l.iter().map(|(k, g)| (k.to_string(), *g)).collect::<Vec<_>>();
    let mut got: Vec<_> = per_thread.into_values().collect();
    got.sort();
    let mut expect = vec![want(&MAIN), want(&SECOND)];
    expect.sort();
    assert_eq!(got, expect, "each thread's NDRanges, in order");
    for row in rest {
        let (k, is_nd) = kernel_of(&row.method);
        assert!(!is_nd && row.call_index.is_none(), "a dispatch no NDRange claimed: {row:?}");
        let k = k.strip_suffix(".kd").unwrap_or(k);
        assert!(is_rocclr(k), "only ROCclr's blits are left unclaimed: {row:?}");
    }

    // Every row's dispatch, by its queue and place there, is the one the GPU ran at that place.
    let mut by_queue: BTreeMap<u64, Vec<(u64, Ran)>> = BTreeMap::new();
    for (row, res) in p.rows.iter().zip(&r.rows) {
        let kernel = kernel_of(&row.method).0;
        assert_eq!(res.kernel_name, kernel, "the same row in results.csv");
        assert_eq!(res.grd, row.global.iter().product::<u64>());
        let ran = Ran { kernel: kernel.strip_suffix(".kd").unwrap_or(kernel).to_string(), grid: row.global };
        let (queue, index) =
            (res.queue_id.expect("an HSA queue on AMD"), res.queue_index.expect("a packet index on AMD"));
        by_queue.entry(queue).or_default().push((index, ran));
    }
    let mut ours: Vec<Vec<Ran>> = by_queue
        .into_values()
        .map(|mut q| {
            q.sort_by_key(|(i, _)| *i);
            let n = q.len();
            q.dedup_by_key(|(i, _)| *i);
            assert_eq!(q.len(), n, "two rows of one packet");
            q.into_iter().map(|(_, d)| d).collect()
        })
        .collect();
    ours.sort();
    let mut theirs: Vec<Vec<Ran>> = gpu.values().cloned().collect();
    theirs.sort();
    assert_eq!(ours, theirs, "each queue's rows, by packet index, against the emulator's log");

    let occ = perf::read_occupancy(&std::fs::read_to_string(only_file(dir, ".occupancy")).unwrap()).unwrap();
    let names: Vec<&str> = occ.rows.iter().map(|o| o.kernel.as_str()).collect();
    let from_csv: Vec<&str> = p.rows.iter().map(|row| kernel_of(&row.method).0).collect();
    assert_eq!(names, from_csv, "an occupancy row per counter row, named alike");
    p
}

/// One pass of counters, with cltap as the OpenCL layer and then as the ICD, and as ROCr's tool:
/// each NDRange's row carries its own dispatch's counters.
#[test]
fn each_ndrange_is_joined_to_its_own_dispatch_in_both_modes() {
    for mode in ["layer", "icd"] {
        let out = scratch(&format!("amd-ndr-join-{mode}"));
        let o = cltap(&out, mode, &["--counters", "SQ_WAVES,GRBM_COUNT"]);
        let gpu = emu_queues(&o.stderr);
        check_dispatches(&gpu);
        let p = check_rows(&out, &gpu);
        let (sq, clk) = (column(&p, "SQ_WAVES"), column(&p, "GRBM_COUNT"));
        for row in &p.rows {
            let local = row.local.expect("the dispatch's work-group");
            assert_eq!(row.values[sq], Some(waves(row.global, local) as f64), "{mode}: {row:?}");
            assert!(row.values[clk].is_some_and(|v| v > 0.0), "{mode}: {row:?}");
            assert!(row.vgprs.is_some(), "{mode}: registers from the dispatch's kernel descriptor: {row:?}");
        }
    }
}

/// Each successful NDRange's command id → the (kernel, global size) the program enqueued: the
/// API log gives each thread's successful enqueues in order, the program says what they were
/// (the thread of 13 is the main thread's queue A, the other queue B's).
fn ndrange_of_cmd(dir: &Path) -> HashMap<u64, (String, [u64; 3])> {
    let log = std::fs::read_to_string(only_file(dir, ".apilog")).unwrap();
    let mut per_thread: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for e in apilog::read(&log).unwrap() {
        if let Entry::Call(c) = e {
            if c.name == "clEnqueueNDRangeKernel" && c.result.as_deref() == Some("CL_SUCCESS") {
                per_thread.entry(c.tid).or_default().push(c.cmd_id.expect("an NDRange has a CMD ID"));
            }
        }
    }
    let mut out = HashMap::new();
    for cmds in per_thread.values() {
        let program: &[(&str, [u64; 3])] = if cmds.len() == MAIN.len() { &MAIN } else { &SECOND };
        assert_eq!(cmds.len(), program.len(), "{per_thread:?}");
        for (c, (k, g)) in cmds.iter().zip(program) {
            out.insert(*c, (k.to_string(), *g));
        }
    }
    assert_eq!(out.len(), NDRANGES);
    out
}

/// Which emulator queue each of ours is: the one whose dispatches, in order, have the kernels
/// ours has at its packet indices, in order. `ours`: queue → (packet index, kernel) pairs.
fn same_queues(ours: &BTreeMap<u64, Vec<(u64, String)>>, gpu: &BTreeMap<u64, Vec<Ran>>) -> HashMap<u64, u64> {
    let mut map = HashMap::new();
    for (q, list) in ours {
        let mut list = list.clone();
        list.sort();
        let names: Vec<&str> = list.iter().map(|(_, k)| k.strip_suffix(".kd").unwrap_or(k)).collect();
        let found: Vec<u64> = gpu
            .iter()
            .filter(|(_, ran)| ran.iter().map(|r| r.kernel.as_str()).collect::<Vec<_>>() == names)
            .map(|(e, _)| *e)
            .collect();
        assert_eq!(found.len(), 1, "queue {q} ({names:?}) is one emulator queue: {gpu:#?}");
        map.insert(*q, found[0]);
    }
    map
}

/// The emulator's dispatch at `index` (in packet order) of queue `q`'s dispatches in `ours`.
fn ran_at<'a>(
    ours: &BTreeMap<u64, Vec<(u64, String)>>,
    gpu: &'a BTreeMap<u64, Vec<Ran>>,
    q: u64,
    e: u64,
    index: u64,
) -> &'a Ran {
    let mut indices: Vec<u64> = ours[&q].iter().map(|(i, _)| *i).collect();
    indices.sort();
    let pos = indices.iter().position(|i| *i == index).expect("its packet index");
    &gpu[&e][pos]
}

/// rocpd's kernel dispatches with counters, device timing and the dispatches' own times: one row
/// per dispatch the GPU ran on the application's queues. An NDRange that became a dispatch is one
/// row carrying both identities (the enqueue's command id as its correlation id and in
/// `extdata`, the HSA dispatch's number, queue and packet index), checked by identity against the
/// program and the emulator's packet log; counters carry their metric names.
#[test]
fn rocpd_has_one_row_per_dispatch_with_both_identities() {
    let out = scratch("amd-ndr-rocpd");
    let o = cltap(
        &out,
        "layer",
        &["--rocpd", "--hsa-intercept", "2", "--device-timing", "--counters", "SQ_WAVES,GRBM_COUNT"],
    );
    let gpu = emu_queues(&o.stderr);
    let expected = ndrange_of_cmd(&out);
    let db = rusqlite::Connection::open(only_file(&out, ".db")).unwrap();
    type DbRow = (i64, String, [u64; 3], [u64; 3], u64, String);
    let rows: Vec<DbRow> = db
        .prepare(
            "SELECT K.event_id, S.kernel_name, K.grid_size_x, K.grid_size_y, K.grid_size_z, K.workgroup_size_x, \
             K.workgroup_size_y, K.workgroup_size_z, E.correlation_id, K.extdata FROM rocpd_kernel_dispatch K \
             JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id JOIN rocpd_event E ON E.id = K.event_id",
        )
        .unwrap()
        .query_map([], |r| {
            let n = |i: usize| r.get::<_, i64>(i).map(|v| v as u64);
            Ok((r.get(0)?, r.get(1)?, [n(2)?, n(3)?, n(4)?], [n(5)?, n(6)?, n(7)?], n(8)?, r.get(9)?))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let blits = gpu.values().flatten().filter(|d| is_rocclr(&d.kernel)).count();
    assert_eq!(rows.len(), NDRANGES + blits, "one row per dispatch, none twice: {rows:#?}");

    let enqueues: std::collections::HashSet<u64> = db
        .prepare(
            "SELECT E.correlation_id FROM rocpd_region R JOIN rocpd_event E ON E.id = R.event_id \
             JOIN rocpd_string N ON N.id = R.name_id WHERE N.string = 'clEnqueueNDRangeKernel'",
        )
        .unwrap()
        .query_map([], |r| r.get::<_, i64>(0).map(|v| v as u64))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut ours: BTreeMap<u64, Vec<(u64, String)>> = BTreeMap::new();
    let mut cmds = Vec::new();
    for (_, kernel, grid, _, correlation, extdata) in &rows {
        let x: serde_json::Value = serde_json::from_str(extdata).unwrap();
        let h = &x["hsa"];
        let (q, i) =
            (h["queue_id"].as_u64().expect("every row is an HSA dispatch"), h["queue_index"].as_u64().unwrap());
        ours.entry(q).or_default().push((i, kernel.clone()));
        let k = kernel.strip_suffix(".kd").unwrap_or(kernel);
        match x["opencl"]["cmd_id"].as_u64() {
            Some(cmd) => {
                assert_eq!(&(k.to_string(), *grid), &expected[&cmd], "the row of CMD ID {cmd} is its NDRange's");
                assert_eq!(*correlation, cmd, "correlated with its enqueue");
                assert!(enqueues.contains(&cmd), "an enqueue region with correlation id {cmd}");
                cmds.push(cmd);
            }
            None => assert!(is_rocclr(k), "only ROCclr's blits are no NDRange's: {kernel}"),
        }
    }
    cmds.sort();
    let mut want: Vec<u64> = expected.keys().copied().collect();
    want.sort();
    assert_eq!(cmds, want, "every NDRange once");
    let queues = same_queues(&ours, &gpu);
    for (_, kernel, grid, _, _, extdata) in &rows {
        let x: serde_json::Value = serde_json::from_str(extdata).unwrap();
        let (q, i) = (x["hsa"]["queue_id"].as_u64().unwrap(), x["hsa"]["queue_index"].as_u64().unwrap());
        let ran = ran_at(&ours, &gpu, q, queues[&q], i);
        assert_eq!((ran.kernel.as_str(), ran.grid), (kernel.strip_suffix(".kd").unwrap_or(kernel), *grid));
    }

    // Counters by metric name, as rocprofv3 writes them: exact waves, and a clock count.
    let pmc: Vec<(i64, String, f64)> = db
        .prepare("SELECT P.event_id, I.name, P.value FROM rocpd_pmc_event P JOIN rocpd_info_pmc I ON I.id = P.pmc_id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(pmc.len(), 2 * rows.len(), "two metrics per dispatch: {pmc:?}");
    for (event, _, grid, wg, _, _) in &rows {
        let of = |n: &str| pmc.iter().find(|(e, m, _)| e == event && m == n).map(|p| p.2);
        assert_eq!(of("SQ_WAVES"), Some(waves(*grid, *wg) as f64), "{grid:?} {wg:?}");
        assert!(of("GRBM_COUNT").is_some_and(|v| v > 0.0));
    }
}

/// Nine SQ events: the emulated SQ has 8 counter slots, so two passes (the program runs twice).
const NINE_SQ: &str = "SQ_WAVES,SQ_INSTS_VALU,SQ_INSTS_VMEM_WR,SQ_INSTS_VMEM_RD,SQ_INSTS_SALU,SQ_INSTS_SMEM,\
SQ_INSTS_LDS,SQ_ACTIVE_INST_VALU,SQ_THREAD_CYCLES_VALU";

/// A request of two passes: the passes are joined row by row, and each `scale` NDRange (straight-line
/// code) has exactly the instructions LLVM's disassembly of AMD's own build of it counts, per wave.
#[test]
fn two_passes_count_each_ndranges_instructions_exactly() {
    let out = scratch("amd-ndr-passes");
    let o = cltap(&out, "layer", &["--counters", NINE_SQ, "--dump-binaries"]);
    assert!(o.stderr.contains("the request needs 2 passes") && o.stderr.contains("2 passes joined"), "{}", o.stderr);
    assert_eq!(o.stdout.matches("done\n").count(), 2, "the program ran twice");
    let p = rcp_csv(&out);
    assert_eq!(p.rows.iter().filter(|r| r.call_index.is_some()).count(), NDRANGES);
    // AMD's runtime's build of the program, as cltap dumped it (CL_PROGRAM_BINARIES).
    let bin = std::fs::read_dir(out.join("programs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|b| {
            b.to_string_lossy().ends_with(".b1.d0.bin") && std::fs::read(b).unwrap().windows(6).any(|w| w == b"\0scale")
        })
        .expect("the dumped code object of scale's program");
    let k = PerWave::of(&bin, "scale");
    assert!(k.valu > 0 && k.smem > 0 && k.vmem_rd == 1 && k.vmem_wr == 1, "{k:?}");
    let col = |n: &str| column(&p, n);
    let mut scales = 0;
    for row in p.rows.iter().filter(|r| r.method.starts_with("scale__k")) {
        let w = waves(row.global, row.local.unwrap());
        let got: Vec<u64> =
            NINE_SQ.split(',').map(|n| row.values[col(n)].expect("every pass's value") as u64).collect();
        let want = [
            w,
            k.valu * w,
            k.vmem_wr * w,
            k.vmem_rd * w,
            k.salu * w,
            k.smem * w,
            k.lds * w,
            4 * k.valu * w,
            256 * k.valu * w,
        ];
        assert_eq!(got, want, "{row:?}");
        scales += 1;
    }
    assert_eq!(scales, 13);
}

/// The `.atp` (its ocl and hsa sections), the timeline and Perfetto's trace of one run with
/// device timing, which reads AMD's own `cl_event` profiling, and the dispatches' own times
/// (`--hsa-intercept 2`).
#[test]
fn the_atp_timeline_and_pftrace_hold_both_apis_and_amds_event_times() {
    use cltap_formats::atp::{self, Detail};
    let out = scratch("amd-ndr-atp");
    let o = cltap(
        &out,
        "layer",
        &["--hsa-intercept", "2", "--atp", "--timeline", "--pftrace", "--device-timing", "--summary"],
    );
    let gpu = emu_queues(&o.stderr);
    let dispatched = gpu.values().map(Vec::len).sum::<usize>();
    let a = atp::read(&std::fs::read_to_string(only_file(&out, ".atp")).unwrap()).unwrap();
    let api = |blocks: &[atp::Block<atp::ApiCall>], name: &str| {
        blocks.iter().flat_map(|b| &b.items).filter(|c| c.name == name).count()
    };
    assert_eq!(api(&a.api, "clEnqueueNDRangeKernel"), NDRANGES + 2, "the ocl section: every NDRange, failed ones too");
    let log = std::fs::read_to_string(only_file(&out, ".apilog")).unwrap();
    let queues = log.lines().filter(|l| l.contains(" hsa_queue_create(")).count();
    assert!(queues >= gpu.len(), "ROCclr made a queue for each command queue: {queues}");
    assert_eq!(api(&a.hsa_api, "hsa_queue_create"), queues, "the hsa section: every queue ROCclr made");

    // Each NDRange's device times, from AMD's runtime's cl_event, in the program's order per thread.
    let mut kernels = Vec::new();
    for t in a.timestamps.iter().flat_map(|b| &b.items) {
        let Some(e) = &t.enqueue else { continue };
        if let Detail::Kernel { name, global, .. } = &e.detail {
            assert!(e.queued <= e.submit && e.submit <= e.start && e.start < e.end, "{t:?}");
            kernels.push((name.clone(), global.clone()));
        }
    }
    assert_eq!(kernels.len(), NDRANGES, "{kernels:?}");
    let hsa: Vec<&str> = a.kernel_dispatches.iter().map(|d| d.kernel_name.as_str()).collect();
    assert_eq!(hsa.len(), dispatched, "the hsa kernel section: every dispatch of the queues: {hsa:?}");
    assert_eq!(
        hsa.iter().filter(|k| is_rocclr(k)).count(),
        gpu.values().flatten().filter(|d| is_rocclr(&d.kernel)).count()
    );
    assert!(a.kernel_dispatches.iter().all(|d| d.start > 0 && d.start <= d.end), "every dispatch timed");

    // The timeline: each NDRange's enqueue starts a flow that ends at its command on the device;
    // each dispatch is joined to the doorbell store that submitted it.
    let timeline = std::fs::read_dir(&*out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".json") && !p.to_string_lossy().ends_with(".summary.json"))
        .expect("the timeline");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(timeline).unwrap()).unwrap();
    let events = json["traceEvents"].as_array().or(json.as_array()).unwrap();
    let flows = |name: &str, ph: &str| {
        events.iter().filter(|e| e["cat"] == "flow" && e["name"] == name && e["ph"] == ph).count()
    };
    let kernel_slices: Vec<&serde_json::Value> =
        events.iter().filter(|e| e["cat"] == "device" && e["args"]["api"] == "clEnqueueNDRangeKernel").collect();
    assert_eq!(kernel_slices.len(), NDRANGES);
    assert!(kernel_slices.iter().all(|e| is_app_kernel(e["name"].as_str().unwrap())), "{kernel_slices:?}");
    assert!(flows("enqueue", "f") >= NDRANGES && flows("enqueue", "s") == flows("enqueue", "f"));
    assert_eq!((flows("dispatch", "s"), flows("dispatch", "f")), (dispatched, dispatched));
    // Each NDRange's enqueue starts an arrow to the HSA dispatch it became, by identity: the
    // dispatch at that place of its queue is the one the GPU ran for the NDRange.
    let expected = ndrange_of_cmd(&out);
    let slices: Vec<&serde_json::Value> = events.iter().filter(|e| e["cat"] == "hsa_dispatch").collect();
    let mut ours: BTreeMap<u64, Vec<(u64, String)>> = BTreeMap::new();
    for d in &slices {
        let (q, i) = (d["tid"].as_u64().unwrap(), d["args"]["queue_index"].as_u64().unwrap());
        ours.entry(q).or_default().push((i, d["name"].as_str().unwrap().to_string()));
    }
    let queues = same_queues(&ours, &gpu);
    let arrows: Vec<&serde_json::Value> =
        events.iter().filter(|e| e["cat"] == "flow" && e["name"] == "ndrange").collect();
    assert_eq!(arrows.len(), 2 * NDRANGES, "an arrow per NDRange: {arrows:?}");
    let mut cmds = Vec::new();
    for s in arrows.iter().filter(|e| e["ph"] == "s") {
        let (cmd, seq) = (s["args"]["cmd"].as_u64().unwrap(), s["args"]["dispatch"].as_u64().unwrap());
        let call = events
            .iter()
            .find(|e| e["cat"] == "api" && e["args"]["cmd"].as_u64() == Some(cmd))
            .expect("the enqueue's slice");
        assert_eq!(
            (call["name"].as_str(), &call["tid"], &call["ts"]),
            (Some("clEnqueueNDRangeKernel"), &s["tid"], &s["ts"])
        );
        let f = arrows.iter().find(|e| e["ph"] == "f" && e["id"] == s["id"]).expect("its end");
        let d = slices.iter().find(|d| d["args"]["dispatch"].as_u64() == Some(seq)).expect("its dispatch");
        assert_eq!((&f["tid"], &f["pid"]), (&d["tid"], &d["pid"]), "the arrow ends on its dispatch's queue");
        assert!(f["ts"].as_f64() >= d["ts"].as_f64());
        let q = d["tid"].as_u64().unwrap();
        let ran = ran_at(&ours, &gpu, q, queues[&q], d["args"]["queue_index"].as_u64().unwrap());
        assert_eq!(
            (ran.kernel.clone(), ran.grid),
            expected[&cmd],
            "CMD ID {cmd}'s arrow ends at what the GPU ran for it"
        );
        cmds.push(cmd);
    }
    cmds.sort();
    cmds.dedup();
    assert_eq!(cmds.len(), NDRANGES);

    let c = &common::checks::perfetto_check(&[only_file(&out, ".pftrace")])[0];
    let s = summary_json(&out);
    let timed = s["commands"].as_array().unwrap().iter().filter(|x| x["start"].as_u64().unwrap_or(0) > 0).count();
    assert_eq!(c["by_category"]["hsa_dispatch"].as_u64(), Some(dispatched as u64), "{c}");
    assert_eq!(c["flows_joined"].as_u64(), Some((timed + dispatched + NDRANGES) as u64), "{c}");
    // In Perfetto's trace the arrow runs between two zero-length "NDRange" slices: one at the
    // start of the enqueue's call, one at the start of the dispatch (both written before the join
    // was known).
    let p = common::checks::perfetto_slices(&only_file(&out, ".pftrace"));
    let marks: Vec<&serde_json::Value> = p.iter().filter(|s| s["cat"] == "ndrange").collect();
    assert_eq!(marks.len(), 2 * NDRANGES);
    let at = |m: &serde_json::Value, cat: &str| {
        p.iter().find(|s| s["cat"] == cat && s["track"] == m["track"] && s["ts"] == m["ts"]).cloned()
    };
    let mut cmds = Vec::new();
    for m in &marks {
        let cmd = m["args"]["cmd"].as_u64().unwrap();
        if let Some(call) = at(m, "opencl") {
            assert_eq!(
                (call["name"].as_str(), call["args"]["cmd"].as_u64()),
                (Some("clEnqueueNDRangeKernel"), Some(cmd))
            );
            cmds.push(cmd);
        } else {
            let d = at(m, "hsa_dispatch").expect("at the start of a dispatch");
            assert_eq!(d["args"]["dispatch"], m["args"]["dispatch"]);
            let k = d["name"].as_str().unwrap();
            assert_eq!(k.strip_suffix(".kd").unwrap_or(k), expected[&cmd].0);
        }
    }
    cmds.sort();
    cmds.dedup();
    assert_eq!(cmds.len(), NDRANGES);
}

/// The Khronos loader (`OCL_ICD_FILENAMES`) loads AMD's runtime too, with cltap as its layer, and
/// the program prints the same.
#[test]
fn through_the_khronos_loader_too() {
    let dir = scratch("amd-ndr-khronos");
    let vendors = scratch("amd-ndr-no-vendors");
    let ld = [root().join(".deps/intel/khronos"), intel_lib(), std::path::PathBuf::from(SYSTEM_LIBS)];
    assert!(ld[0].join("libOpenCL.so.1").is_file(), "the Khronos loader is missing (run scripts/setup.sh)");
    let mut c = program(Mode::Layer, &dir);
    c.env("LD_LIBRARY_PATH", std::env::join_paths(ld).unwrap());
    c.env("OCL_ICD_VENDORS", &*vendors).env("OCL_ICD_FILENAMES", amdocl());
    let o = run(c);
    assert_eq!((o.code, o.stdout.as_str()), (Some(0), EXPECTED), "{}", o.stderr);
    let log = std::fs::read_to_string(only_file(&dir, ".apilog")).unwrap();
    assert_eq!(log.lines().filter(|l| l.contains(" clEnqueueNDRangeKernel(")).count(), NDRANGES + 2, "{log}");
    check_dispatches(&emu_queues(&o.stderr));
}
