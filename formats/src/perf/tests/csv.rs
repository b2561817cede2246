use super::*;

fn header(api: Api) -> Vec<(String, String)> {
    CsvHeaderInfo {
        profiler_version: "cltap 0.1.0".into(),
        api,
        application: "/usr/bin/app".into(),
        application_args: "-n 4".into(),
        working_directory: "/tmp".into(),
        full_environment: false,
        env_vars: vec![],
        devices: vec![],
        os_version: "Linux 6.1".into(),
        display_name: "session1".into(),
        force_single_pass: (api == Api::OpenCl).then_some(false),
        kernels_profiled: vec![],
        max_kernels: None,
    }
    .to_header()
}

fn row(method: &str, order: u64) -> PerfRow {
    PerfRow {
        method: method.into(),
        execution_order: order,
        thread_id: 4242,
        call_index: Some(17),
        global: [1024, 1, 1],
        local: Some([256, 1, 1]),
        time_ms: Some(0.01234),
        lds: Some(0),
        vgprs: Some(4),
        sgprs: Some(16),
        scratch: Some(0),
        values: vec![Some(16.0), Some(37.5)],
    }
}

/// The text as RCP's `CSVFileWriter` would lay it out, from the format
/// strings in `CLGPAProfiler::DumpKernelStats` and `DumpSession`.
const GOLDEN: &str = "\
#ProfileFileVersion=5.6
#ProfilerVersion=cltap 0.1.0
#API=OpenCL
#Application=/usr/bin/app
#ApplicationArgs=-n 4
#WorkingDirectory=/tmp
#OS Version=Linux 6.1
#DisplayName=session1
#ListSeparator=,
#ForceSinglePass=False
Method, ExecutionOrder, ThreadID, CallIndex, GlobalWorkSize, WorkGroupSize, Time, LocalMemSize, VGPRs, SGPRs, ScratchRegs, Wavefronts, VALUBusy
add_one__k1_gfx9061, 1, 4242, 17, {   1024       1       1}, {  256     1     1},         0.01234, 0, 4, 16, 0, 16,        37.50
\"void f<int, float>(int*)__k2_CPU\", 2, 4242, NA, NULL, NULL, NA, NA, NA, NA, NA, NA, NA
";

fn golden_csv() -> PerfCsv {
    let mut unknown = row("void f<int, float>(int*)__k2_CPU", 2);
    unknown.call_index = None;
    unknown.global = [0; 3];
    unknown.local = None;
    unknown.time_ms = None;
    unknown.lds = None;
    unknown.vgprs = None;
    unknown.sgprs = None;
    unknown.scratch = None;
    unknown.values = vec![None, None];
    PerfCsv {
        header: header(Api::OpenCl),
        counters: vec!["Wavefronts".into(), "VALUBusy".into()],
        rows: vec![row(&ocl_method("add_one", 1, "gfx906", Some(1)), 1), unknown],
    }
}

#[test]
fn writes_rcp_layout() {
    assert_eq!(write_csv(&golden_csv()), GOLDEN);
}

#[test]
fn reads_back_what_it_wrote() {
    let csv = golden_csv();
    assert_eq!(read_csv(GOLDEN).unwrap(), csv);
}

#[test]
fn streaming_pieces_make_the_whole_file() {
    let csv = golden_csv();
    let mut s = String::new();
    write_csv_head(&mut s, &csv.header, &csv.counters);
    for r in &csv.rows {
        write_csv_row(&mut s, ',', csv.counters.len(), r);
    }
    assert_eq!(s, write_csv(&csv));
}

#[test]
fn reads_rcp_hsa_layout_without_call_index_time_or_scratch() {
    // HSAGPAProfiler::InitHeader's columns.
    let text = "#ProfileFileVersion=5.6\n#API=HSA\n#ListSeparator=,\n\
                Method, ExecutionOrder, ThreadID, GlobalWorkSize, WorkGroupSize, LocalMemSize, VGPRs, SGPRs, SQ_WAVES\n\
                add_one_gfx906, 1, 77, {     64       1       1}, {   64     1     1}, 0, 8, 16, 1\n";
    let csv = read_csv(text).unwrap();
    assert_eq!(Api::from_header(&csv.header), Some(Api::Hsa));
    assert_eq!(csv.counters, ["SQ_WAVES"]);
    let r = &csv.rows[0];
    assert_eq!((r.call_index, r.time_ms, r.scratch), (None, None, None));
    assert_eq!((r.global, r.local, r.vgprs), ([64, 1, 1], Some([64, 1, 1]), Some(8)));
    assert_eq!(r.values, [Some(1.0)]);
    let parts = split_method(&r.method, Api::Hsa).unwrap();
    assert_eq!((parts.kernel, parts.device), ("add_one", "gfx906"));
}

#[test]
fn honours_another_list_separator() {
    let mut csv = golden_csv();
    for (k, v) in &mut csv.header {
        if k == "ListSeparator" {
            *v = ";".into();
        }
    }
    csv.counters.push("a,b".into());
    csv.rows[0].values.push(Some(1.0));
    csv.rows[1].values.push(None);
    let text = write_csv(&csv);
    assert!(text.contains("Method; ExecutionOrder;"), "{text}");
    assert!(text.contains("; a,b\n"), "{text}");
    assert!(text.contains("\nvoid f<int, float>(int*)__k2_CPU; 2;"), "{text}");
    assert_eq!(read_csv(&text).unwrap(), csv);
}

#[test]
fn method_names_split_back() {
    let m = ocl_method("a__k7_b", 12, "gfx906", Some(2));
    assert_eq!(m, "a__k7_b__k12_gfx9062");
    let p = split_method(&m, Api::OpenCl).unwrap();
    assert_eq!((p.kernel, p.kernel_id, p.device), ("a__k7_b", Some(12), "gfx9062"));
    let cpu = ocl_method("k", 3, "CPU", None);
    let p = split_method(&cpu, Api::OpenCl).unwrap();
    assert_eq!((p.kernel, p.kernel_id, p.device), ("k", Some(3), "CPU"));
    assert_eq!(split_method("plain", Api::OpenCl), None);
    assert_eq!(split_method("k__kx_dev", Api::OpenCl), None);
    let hsa = hsa_method("my_kernel", "gfx90a");
    let p = split_method(&hsa, Api::Hsa).unwrap();
    assert_eq!((p.kernel, p.device), ("my_kernel", "gfx90a"));
}

fn random_row(r: &mut Rng, order: u64, counters: usize) -> PerfRow {
    let size = |r: &mut Rng| [1 + r.below(1 << 24), 1 + r.below(64), 1 + r.below(4)];
    PerfRow {
        method: match r.below(3) {
            0 => ocl_method(&pick_name(r), r.below(99) as u32, "gfx906", Some(1)),
            1 => hsa_method(&pick_name(r), "gfx90a"),
            _ => pick_name(r),
        },
        execution_order: order,
        thread_id: r.next(),
        call_index: opt(r, |r| r.next() >> r.below(64)),
        global: if r.below(8) == 0 { [0; 3] } else { size(r) },
        local: opt(r, size),
        // What %15.5lf keeps: 10 ns steps.
        time_ms: opt(r, |r| r.below(1 << 40) as f64 / 100_000.0),
        lds: opt(r, |r| r.below(65537)),
        vgprs: opt(r, |r| r.below(257)),
        sgprs: opt(r, |r| r.below(113)),
        scratch: opt(r, |r| r.next() >> 40),
        values: (0..counters).map(|_| opt(r, rcp_value)).collect(),
    }
}

#[test]
fn generated_files_round_trip() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    for case in 0..300 {
        let counters: Vec<String> = (0..r.below(6)).map(|_| pick_name(&mut r)).collect();
        let mut header = header(if case % 2 == 0 { Api::OpenCl } else { Api::Hsa });
        header.push((pick_name(&mut r), pick_name(&mut r)));
        let rows = (0..r.below(5)).map(|i| random_row(&mut r, i + 1, counters.len())).collect();
        let csv = PerfCsv { header, counters, rows };
        let text = write_csv(&csv);
        let back = read_csv(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(back, csv, "{text}");
        assert_eq!(write_csv(&back), text);
    }
}

#[test]
fn damaged_files_name_the_line() {
    fails_at(read_csv("#API=OpenCL\n#no equals sign\n"), 2, "without '='");
    fails_at(read_csv("#API=OpenCL\nThreadID, Time\n"), 2, "no Method column");
    let head = "#API=OpenCL\nMethod, ExecutionOrder, ThreadID, GlobalWorkSize\n";
    fails_at(read_csv(&format!("{head}k, 1, 2, {{1 1 1}}, 9\n")), 3, "5 cells, but 4 columns");
    fails_at(read_csv(&format!("{head}k, x, 2, NULL\n")), 3, "ExecutionOrder");
    fails_at(read_csv(&format!("{head}k, 1, 2, {{1 2 3 4}}\n")), 3, "1 to 3 sizes");
    fails_at(read_csv(&format!("{head}k, 1, 2, 1024\n")), 3, "GlobalWorkSize");
    fails_at(read_csv(&format!("{head}\"k, 1, 2, NULL\n")), 3, "unclosed quote");
    fails_at(read_csv(&format!("{head}\n\nNA, 1, 2, NULL\n")), 5, "without a method");
}

#[test]
fn short_rows_leave_the_rest_unknown() {
    let text = "#API=OpenCL\nMethod, ExecutionOrder, ThreadID, Time, X\nk, 1, 2\n";
    let csv = read_csv(text).unwrap();
    assert_eq!(csv.rows[0].time_ms, None);
    assert_eq!(csv.rows[0].values, [None]);
}
