//! Counters on OpenCL. On real drivers without hardware counters through
//! OpenCL (PoCL, Intel), `CLTAP_COUNTERS` gives each NDRange's kernel
//! statistics, `NA` for every hardware counter with one line saying so, and
//! changes nothing the application sees. On AMD's OpenCL runtime, where cltap
//! is an OpenCL layer and an HSA tool at once and each NDRange's row carries
//! the counters of the HSA dispatch it became, see `tests/amd_ndranges.rs`.

mod common;

use cltap_formats::perf::{self, PerfCsv};
use common::*;
use std::path::Path;

fn csv(dir: &Path) -> PerfCsv {
    rcp_csv(dir)
}

fn column(c: &PerfCsv, name: &str) -> usize {
    c.counters.iter().position(|n| n == name).unwrap_or_else(|| panic!("no {name} column: {:?}", c.counters))
}

#[test]
fn pocl_intel_and_oclgrind_give_kernel_statistics_and_na_for_hardware_counters() {
    let vecadd = programs().join("vecadd");
    for d in [Driver::Pocl, Driver::Intel, Driver::Oclgrind] {
        let plain = run(command(&vecadd, &args_for("vecadd", d), &[d], Loader::OclIcd, Mode::Plain));
        assert_eq!(plain.code, Some(0), "{d:?}: {}", plain.stderr);
        let out = scratch(&format!("counters-ocl-{}", d.name()));
        let mut c = command(&vecadd, &args_for("vecadd", d), &[d], Loader::OclIcd, Mode::Layer);
        c.env("CLTAP_COUNTERS", "SQ_WAVES,GPUBusy").env("CLTAP_OUTPUT_DIR", &out);
        let o = run(c);
        assert_eq!(
            (o.code, &o.stdout),
            (plain.code, &plain.stdout),
            "{d:?}: the application saw something else:\n{}",
            o.stderr
        );
        let lines: Vec<&str> = o.stderr.lines().filter(|l| l.contains("cannot be counted on")).collect();
        assert_eq!(lines.len(), 1, "{d:?}: one line for the one device:\n{}", o.stderr);
        assert!(lines[0].contains("SQ_WAVES, GPUBusy"), "{}", lines[0]);

        let p = csv(&out);
        assert_eq!(p.rows.len(), 2, "{d:?}: vecadd's two NDRanges");
        let (waves, busy, multiple) =
            (column(&p, "SQ_WAVES"), column(&p, "GPUBusy"), column(&p, "PreferredWorkGroupSizeMultiple"));
        for r in &p.rows {
            assert_eq!((r.values[waves], r.values[busy]), (None, None), "{d:?}: never made up");
            assert!(r.values[multiple].is_some_and(|m| m >= 1.0), "{d:?}: {r:?}");
            assert!(r.time_ms.is_some_and(|t| t > 0.0), "{d:?}: device time: {r:?}");
            assert!(r.call_index.is_some() && r.lds.is_some() && r.scratch.is_some(), "{d:?}: {r:?}");
            assert_eq!(r.vgprs, None, "{d:?}: registers are not known through OpenCL");
        }
        let names: Vec<&str> =
            p.rows.iter().map(|r| perf::split_method(&r.method, perf::Api::OpenCl).unwrap().kernel).collect();
        assert_eq!(names, ["vecadd", "partial_sums"], "{d:?}");
        // partial_sums takes a __local buffer: the driver's local memory size.
        assert!(p.rows[1].lds.unwrap() > 0, "{d:?}: {:?}", p.rows[1]);
        // results.csv says what the .csv says: what the driver gave, and
        // `None` (rocprof's absent value) where the .csv has NA; no agent,
        // queue, signal or kernel object exists without an HSA dispatch.
        let text = std::fs::read_to_string(only_file(&out, ".results.csv")).unwrap();
        let res = perf::read_results(&text).unwrap();
        assert_eq!(res.rows.len(), p.rows.len(), "{d:?}");
        for (x, r) in res.rows.iter().zip(&p.rows) {
            assert_eq!((x.lds, x.scr, x.vgpr, x.sgpr), (r.lds, r.scratch, r.vgprs, r.sgprs.map(|s| s + 8)), "{d:?}");
            assert_eq!(
                (x.gpu_id, x.queue_id, x.queue_index, x.fbar, x.sig, x.obj),
                (None, None, None, None, None, None),
                "{d:?}: never made up: {text}"
            );
            assert_eq!(x.values, [None, None], "{d:?}");
        }
        let occ = perf::read_occupancy(&std::fs::read_to_string(only_file(&out, ".occupancy")).unwrap()).unwrap();
        assert_eq!(occ.rows.len(), 2);
        assert!(
            occ.rows.iter().all(|r| r.compute_units.is_some() && r.vgprs_used.is_none() && r.occupancy.is_none()),
            "{d:?}: {:?}",
            occ.rows[0]
        );
    }
}
