//! `cltap metrics list|explain` as a user types them: the built-in gfx9 file,
//! a file of one's own, and the one-line errors.

use std::path::Path;
use std::process::Command;

/// (exit code, stdout, stderr)
fn cltap(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_cltap")).args(args).output().expect("run cltap");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

/// The line of `out` that starts (after indentation) with `name` and a space.
fn row<'a>(out: &'a str, name: &str) -> Vec<&'a str> {
    out.lines()
        .find(|l| l.trim_start().starts_with(&format!("{name} ")))
        .unwrap_or_else(|| panic!("no row for {name} in\n{out}"))
        .split_whitespace()
        .collect()
}

#[test]
fn list_shows_counters_and_derived_metrics() {
    let (rc, out, err) = cltap(&["metrics", "list"]);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(err, "", "the built-in file gives no warnings");
    assert!(out.starts_with("# builtin:metrics/gfx9.xml for gfx906 (section <gfx906>"), "{out}");
    assert_eq!(row(&out, "SQ_WAVES")[..4], ["SQ_WAVES", "SQ", "4", "1"]);
    assert_eq!(row(&out, "TCC_EA1_RDREQ_32B")[..4], ["TCC_EA1_RDREQ_32B", "TCC", "268", "16"]);
    assert_eq!(row(&out, "GPUBusy")[..2], ["GPUBusy", "100*GRBM_GUI_ACTIVE/GRBM_COUNT"]);
    assert!(out.contains("\nDerived metrics ("), "{out}");

    let (rc, out, _) = cltap(&["metrics", "list", "--gpu", "gfx90a:sramecc+:xnack-"]);
    assert_eq!(rc, 0);
    assert_eq!(row(&out, "SQ_INSTS_SALU")[..4], ["SQ_INSTS_SALU", "SQ", "56", "1"]);
    assert_eq!(row(&out, "TCC_HIT")[..4], ["TCC_HIT", "TCC", "17", "32"]);
    assert!(!out.contains("TCC_EA1_"), "gfx906 only");
}

#[test]
fn explain_prints_the_tree_and_the_passes() {
    let (rc, out, err) = cltap(&["metrics", "explain", "GPUBusy"]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.starts_with("GPUBusy = 100*GRBM_GUI_ACTIVE/GRBM_COUNT\n"), "{out}");
    assert!(out.contains("GRBM_GUI_ACTIVE  counter GRBM (block 3) event 2, 1 instance\n"), "{out}");
    assert!(out.contains("GRBM_COUNT  counter GRBM (block 3) event 0, 1 instance\n"), "{out}");
    assert!(
        out.contains("1 pass on gfx906:\n  pass 1:\n    GRBM[0]: 0 GRBM_COUNT, 2 GRBM_GUI_ACTIVE (2 of 2 slots)\n"),
        "{out}"
    );

    // Several names, some shared events: still one pass here.
    let (rc, out, _) = cltap(&["metrics", "explain", "GPUBusy,SQ_WAVES", "L2CacheHit"]);
    assert_eq!(rc, 0);
    assert!(out.contains("SQ_WAVES counter SQ (block 6) event 4, 1 instance\n"), "{out}");
    assert!(
        out.contains("sum(TCC_HIT,16)  over TCC_HIT[0..15]: counter TCC (block 12) event 20, 16 instances"),
        "{out}"
    );
    assert!(out.contains("    TCC[0..15]: 20 TCC_HIT, 22 TCC_MISS (2 of 4 slots each)\n"), "{out}");
    assert!(out.contains("1 pass on gfx906:"), "{out}");
}

#[test]
fn explain_a_file_of_ones_own_with_passes_and_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("m.xml");
    let mut text = String::from("<gfx9>\n");
    for i in 0..9 {
        text += &format!("  <metric name=S{i} block=SQ event={i}></metric>\n");
    }
    text += "  <metric name=ALL expr=S0+S1+S2+S3+S4+S5+S6+S7+S8></metric>\n  <metric name=ODD expr=S0-S1+S2></metric>\n</gfx9>\n";
    std::fs::write(&file, text).unwrap();
    let f = file.to_str().unwrap();
    let (rc, out, err) = cltap(&["metrics", "explain", "ALL", "--gpu", "gfx906", "--file", f]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("2 passes on gfx906:"), "{out}");
    assert!(
        out.contains("note: ALL needs events from passes 1, 2: its value joins counts from different runs"),
        "{out}"
    );
    // The warning about rocprofiler's reading of ODD, once, on stderr.
    assert_eq!(
        err,
        format!("{}:12:25: warning: metric 'ODD': 'S0-S1+S2' is computed as ((S0 - S1) + S2) (standard precedence); rocprofiler v1 computes (S0 - (S1 + S2))\n", f)
    );
}

#[test]
fn errors_are_one_line_and_fail() {
    let (rc, out, err) = cltap(&["metrics", "explain", "GPUBusi"]);
    assert_eq!(rc, 1);
    assert_eq!(out, "");
    assert_eq!(err, "cltap metrics: unknown metric 'GPUBusi' (did you mean 'GPUBusy'?)\n");

    let (rc, _, err) = cltap(&["metrics", "list", "--gpu", "gfx1100"]);
    assert_eq!(rc, 1);
    assert_eq!(err, "cltap metrics: builtin:metrics/gfx9.xml: no section for GPU 'gfx1100' (sections: gfx9, gfx906, gfx908, gfx90a)\n");

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.xml");
    std::fs::write(&bad, "<gfx9>\n  <metric name=A block=SQQ event=1></metric>\n</gfx9>\n").unwrap();
    let (rc, _, err) = cltap(&["metrics", "list", "--gpu", "gfx9", "--file", bad.to_str().unwrap()]);
    assert_eq!(rc, 1);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!(
            "cltap metrics: {}:2:24: unknown block name 'SQQ' (AQLprofile blocks: CPC CPF",
            bad.display()
        )),
        "{err}"
    );

    let missing = Path::new("/nonexistent/metrics.xml");
    let (rc, _, err) = cltap(&["metrics", "list", "--file", missing.to_str().unwrap()]);
    assert_eq!(rc, 1);
    assert!(err.starts_with("cltap metrics: /nonexistent/metrics.xml: No such file"), "{err}");
}
