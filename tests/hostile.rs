//! Hostile and broken files given to cltap's readers (`tests/hostile/`, each
//! one a failure found by fuzzing, README.md there): each gives its clean
//! outcome, one clear line or correct output, with no panic, no write
//! outside `--output`, and within a time and memory bound (every command
//! runs under `timeout` and a 1 GiB address-space limit, so a hang or a
//! blowup fails the test instead of stalling the suite).

mod common;
use common::bounded::{cltap, said};
use common::*;
use std::path::{Path, PathBuf};

fn hostile(name: &str) -> PathBuf {
    root().join("tests/hostile").join(name)
}

fn render(trace: &Path, out: &Path) -> Outcome {
    cltap(&[&"render", &trace, &"--output", &out, &"--threads", &"2"])
}

fn apilog_of(dir: &Path) -> PathBuf {
    only_file(dir, "apilog")
}

#[test]
fn chunk_sizes_that_wrap_or_exceed_the_file_are_one_error_line() {
    let d = scratch("hostile-chunks");
    for (name, why) in [
        ("render_used_wrap_panic.cltrace", "do not fit"),
        ("render_used_wrap_panic_full.cltrace", "do not fit"),
        ("render_chunk4g_used4g_memory.cltrace", "cut short"),
    ] {
        let out = d.join(name);
        let o = render(&hostile(name), &out);
        let errors: Vec<&str> = said(&o).into_iter().filter(|l| l.contains(why)).collect();
        assert_eq!(errors.len(), 1, "{name}: {}", o.stderr);
        // The rest of the trace is still rendered, and says it is short: a
        // chunk whose header does not fit gives nothing; one cut short keeps
        // the records before the cut (and its damage) and counts the rest lost.
        let log = std::fs::read_to_string(apilog_of(&out)).unwrap();
        let end = log.lines().last().unwrap();
        match why {
            "cut short" => assert!(
                end.starts_with("# end: 32 records, 0 dropped, ") && end.contains(" bytes of records lost"),
                "{name}: {end}"
            ),
            _ => assert!(end.starts_with("# end: 0 records"), "{name}: {log}"),
        }
    }
}

#[test]
fn a_sparse_terabyte_trace_costs_what_its_data_costs() {
    let d = scratch("hostile-sparse");
    let trace = d.join("sparse.cltrace");
    std::fs::copy(hostile("render_sparse_header_4096.bin"), &trace).unwrap();
    std::fs::OpenOptions::new().write(true).open(&trace).unwrap().set_len(1 << 40).unwrap();
    let o = render(&trace, &d.join("out"));
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let log = std::fs::read_to_string(apilog_of(&d.join("out"))).unwrap();
    assert!(log.ends_with("# end: 0 records, 0 dropped\n"), "{log}");
}

#[test]
fn a_stem_that_leads_outside_the_output_folder_is_refused() {
    let d = scratch("hostile-stem");
    let outer = d.join("outer");
    let o = render(&hostile("render_stem_dotdot_escape.cltrace"), &outer.join("x"));
    assert_eq!(o.code, Some(1));
    assert_eq!(said(&o).len(), 1, "{}", o.stderr);
    assert!(o.stderr.contains("\"../ESCAPED_dotdot\", which is not a plain file name"), "{}", o.stderr);
    let written: Vec<_> = walk(&outer);
    assert!(written.is_empty(), "written: {written:?}");
    let o = render(&hostile("render_stem_absolute_escape.cltrace"), &d.join("abs"));
    assert_eq!((o.code, said(&o).len()), (Some(1), 1), "{}", o.stderr);
    assert!(walk(&d.join("abs")).is_empty());
    assert!(!Path::new("/tmp/fuzz/crafted/trace").exists());
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if e.path().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}

#[test]
fn drop_counts_that_overflow_stay_at_the_maximum() {
    let d = scratch("hostile-drops");
    let o = render(&hostile("render_drops_wrap_zero.cltrace"), &d);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let log = std::fs::read_to_string(apilog_of(&d)).unwrap();
    assert!(log.ends_with(&format!(" records, {} dropped\n", u64::MAX)), "{}", log.lines().last().unwrap());
}

#[test]
fn damaged_captures_and_headers_render_as_logs_cltap_reads_back() {
    for name in [
        "render_out_capture_short_panic.cltrace",
        "render_localsize_tag.cltrace",
        "render_cmdline_newline_header.cltrace",
    ] {
        let d = scratch("hostile-captures");
        let o = render(&hostile(name), &d);
        assert_eq!(o.code, Some(0), "{name}: {}", o.stderr);
        let log = apilog_of(&d);
        let n = cltap(&[&"normalize", &log]);
        assert_eq!(n.code, Some(0), "{name}: {}", n.stderr);
        let text = std::fs::read_to_string(&log).unwrap();
        if name.contains("newline") {
            // The command line's line break is kept, escaped, on its line.
            let app = text.lines().find(|l| l.starts_with("# application:")).unwrap();
            assert!(app.contains("\\n"), "{app}");
        }
        if name.contains("short") {
            assert!(text.contains("(not written)"), "the short capture is shown as not written");
        }
    }
}

#[test]
fn a_character_across_the_duration_field_is_one_error_line_in_every_command() {
    let f = hostile("apilog_duration_utf8_panic.apilog");
    for args in [vec!["normalize"], vec!["report"], vec!["diff", f.to_str().unwrap()]] {
        let mut a: Vec<&dyn AsRef<std::ffi::OsStr>> = args.iter().map(|s| s as _).collect();
        a.push(&f);
        let o = cltap(&a);
        assert_eq!(o.code, Some(2), "{args:?}");
        let lines = said(&o);
        assert_eq!(lines.len(), 1, "{args:?}: {}", o.stderr);
        assert!(lines[0].ends_with(":1: line ends inside DURATION, or DURATION is not 18 characters"), "{}", lines[0]);
    }
}

#[test]
fn long_names_and_huge_durations_make_a_correct_table() {
    let o = cltap(&[&"report", &hostile("report_longname_panic.apilog")]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(o.stdout.lines().any(|l| l.starts_with("clFxxxxxxxx") && l.len() > 65_535), "the name is whole");
    for atp in ["text_atp_report_16a825e75f.atp", "text_atp_report_0cdcaae4b7.atp"] {
        let o = cltap(&[&"report", &hostile(atp)]);
        assert_eq!(o.code, Some(0), "{atp}: {}", o.stderr);
        assert!(o.stdout.contains("device time per kernel"), "{atp}");
    }
    // Two durations whose sum passes u64: the total stays at the maximum.
    let o = cltap(&[&"report", &hostile("report_duration_wrap.apilog")]);
    let row: Vec<&str> = o.stdout.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!((row[0], row[1], row[3]), ("clFinish", "2", "18446744073709551616.000"), "{}", o.stdout);
}

/// A call line as cltap writes it.
fn line(tid: u64, name: &str, args: &str) -> String {
    format!("TID {tid:>9}    START TIME 0x{:016x}    DURATION 0x{:016x}{:25}{name}({args}) = CL_SUCCESS\n", 1, 1, "")
}

#[test]
fn diff_stays_linear_in_threads_lines_and_arguments() {
    let d = scratch("hostile-diff");
    // 50,000 threads of one call each, against itself.
    let threads: String = (0..50_000).map(|i| line(100_000 + i, "clFinish", "cl_command_queue q = 0")).collect();
    std::fs::write(d.join("threads.apilog"), threads).unwrap();
    let o = cltap(&[&"diff", &d.join("threads.apilog"), &d.join("threads.apilog")]);
    assert_eq!((o.code, o.stdout.as_str()), (Some(0), ""), "{}", o.stderr);
    // Two logs of 50,000 lines that differ on every line.
    let log = |k: u64| -> String { (0..50_000).map(|i| line(1, "clFlush", &format!("int n = {}", i + k))).collect() };
    std::fs::write(d.join("a.apilog"), log(0)).unwrap();
    std::fs::write(d.join("b.apilog"), log(1_000_000)).unwrap();
    let o = cltap(&[&"diff", &d.join("a.apilog"), &d.join("b.apilog")]);
    assert_eq!(o.code, Some(1));
    assert_eq!(said(&o).len(), 1, "one note: {}", o.stderr);
    assert!(o.stderr.contains("50000 and 50000 calls differ"), "{}", o.stderr);
    assert_eq!(o.stdout.lines().count(), 100_000);
    // One call with 60,000 arguments, each changed.
    let args = |k: u64| (0..60_000).map(|i| format!("int a{i} = {}", i + k)).collect::<Vec<_>>().join(", ");
    std::fs::write(d.join("x.apilog"), line(1, "clFoo", &args(0))).unwrap();
    std::fs::write(d.join("y.apilog"), line(1, "clFoo", &args(1))).unwrap();
    let o = cltap(&[&"diff", &d.join("x.apilog"), &d.join("y.apilog")]);
    assert_eq!(o.code, Some(1), "{}", o.stderr);
    assert_eq!(o.stdout.lines().count(), 60_001);
}

#[test]
fn report_reads_cltaps_own_results_and_occupancy_files() {
    use cltap_formats::perf::{write_occupancy, write_results, OccupancyFile, OccupancyRow, ResultsCsv, ResultsRow};
    let d = scratch("hostile-report");
    let results = ResultsCsv {
        counters: vec!["SQ_WAVES".into()],
        timestamps: false,
        rows: [4.0, 6.0]
            .iter()
            .enumerate()
            .map(|(i, v)| ResultsRow {
                index: i as u64,
                kernel_name: "vadd".into(),
                values: vec![Some(*v)],
                ..Default::default()
            })
            .collect(),
    };
    std::fs::write(d.join("app.1.results.csv"), write_results(&results)).unwrap();
    let o = cltap(&[&"report", &d.join("app.1.results.csv")]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let row = o.stdout.lines().find(|l| l.trim_start().starts_with("vadd")).unwrap();
    assert_eq!(row.split_whitespace().collect::<Vec<_>>(), ["vadd", "2", "10", "5"]);
    let occ = OccupancyFile {
        header: vec![],
        rows: vec![OccupancyRow {
            kernel: "vadd".into(),
            device: "gfx906".into(),
            occupancy: Some(50.0),
            ..Default::default()
        }],
    };
    std::fs::write(d.join("app.occupancy"), write_occupancy(&occ)).unwrap();
    let o = cltap(&[&"report", &d.join("app.occupancy")]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let row = o.stdout.lines().find(|l| l.trim_start().starts_with("vadd")).unwrap();
    assert_eq!(row.split_whitespace().take(4).collect::<Vec<_>>(), ["vadd", "1", "50", "50"]);
}

fn metrics(args: &[&str], file: &Path) -> Outcome {
    let mut a: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"metrics"];
    a.extend(args.iter().map(|s| s as &dyn AsRef<std::ffi::OsStr>));
    a.push(&"--file");
    a.push(&file);
    cltap(&a)
}

#[test]
fn metrics_files_that_nest_include_or_share_without_end_are_bounded() {
    let m = |n: &str| hostile("metrics").join(n);
    for (args, file, why) in [
        (vec!["list"], m("expr_parens_100k.xml"), "parentheses nested more than 64 deep"),
        (vec!["list"], m("incbomb.xml"), "more than 256 includes in all"),
        (vec!["list"], m("inc_devzero.xml"), "cannot read included file '/dev/zero': not a regular file"),
        (vec!["list"], m("inc_stdin.xml"), "cannot read included file '/dev/stdin': not a regular file"),
    ] {
        let o = metrics(&args, &file);
        assert_eq!(o.code, Some(1), "{file:?}");
        assert_eq!(said(&o).len(), 1, "{}", o.stderr);
        assert!(o.stderr.contains(why), "{file:?}: {}", o.stderr);
    }
    // Shared sub-metrics: each is expanded once.
    for (n, file) in [(20, "diamond20.xml"), (40, "diamond40.xml")] {
        let o = metrics(&["explain", &format!("M{n}")], &m(file));
        assert_eq!(o.code, Some(0), "{}", o.stderr);
        // Linear: a few lines per metric, where a tree would have 2^n.
        assert!(o.stdout.lines().count() < 10 * n, "{}", o.stdout);
        for k in 0..n {
            let shown = [format!("M{k}  = "), format!("\nM{k} = ")];
            assert!(shown.iter().any(|s| o.stdout.contains(s.as_str())), "M{k} is explained: {}", o.stdout);
        }
    }
    // base= diamonds: every level adds its own metric once.
    for file in ["basediamond16.xml", "basediamond20.xml", "basediamond22.xml", "basediamond.xml"] {
        let o = metrics(&["list"], &m(file));
        assert_eq!(o.code, Some(0), "{file}: {}", o.stderr);
        assert!(o.stdout.contains("SQ_WAVES"), "{file}");
    }
}

#[test]
fn long_expressions_and_deep_metric_chains_are_one_error_line() {
    let d = scratch("hostile-metrics");
    let head = "<gfx906>\n  <metric name=\"SQ_WAVES\" block=SQ event=4 descr=\"w\"></metric>\n";
    let plus = vec!["SQ_WAVES"; 110_000].join("+");
    std::fs::write(d.join("plus.xml"), format!("{head}  <metric name=\"P\" expr=\"{plus}\"></metric>\n</gfx906>\n"))
        .unwrap();
    let o = metrics(&["list"], &d.join("plus.xml"));
    assert_eq!((o.code, said(&o).len()), (Some(1), 1), "{}", o.stderr);
    assert!(o.stderr.contains("more than 256 operators in one expression"), "{}", o.stderr);
    let chain = |n: usize| -> String {
        let mut s = format!("{head}  <metric name=\"C0\" expr=SQ_WAVES descr=\"d\"></metric>\n");
        for k in 1..n {
            s += &format!("  <metric name=\"C{k}\" expr=C{}+1 descr=\"d\"></metric>\n", k - 1);
        }
        s + "</gfx906>\n"
    };
    std::fs::write(d.join("chain.xml"), chain(10_000)).unwrap();
    let o = metrics(&["explain", "C9999"], &d.join("chain.xml"));
    assert_eq!((o.code, said(&o).len()), (Some(1), 1), "{}", o.stderr);
    assert!(o.stderr.contains("is built on derived metrics more than 64 levels deep"), "{}", o.stderr);
    // Within the bound, a deep tree is cut into trees below the first, each
    // metric explained once.
    std::fs::write(d.join("chain60.xml"), chain(60)).unwrap();
    let o = metrics(&["explain", "C59"], &d.join("chain60.xml"));
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    for k in 0..59 {
        let shown = o.stdout.lines().filter(|l| l.contains(&format!("C{k}  = ")) || l.starts_with(&format!("C{k} ")));
        assert!(shown.count() >= 1, "C{k} is explained: {}", o.stdout);
    }
    assert!(o.stdout.lines().all(|l| l.len() < 200), "no line grows with the chain");
}
