//! A finished [`Pass`] (one run's, or several joined) as the three counter
//! files: RCP's `<stem>.csv` and `<stem>.occupancy`, and rocprofiler v1's
//! `<stem>.results.csv`. Requested metrics are evaluated here, from the
//! rows' event values, with the metrics catalog of the GPU counted on;
//! anything a device could not count reads `NA` (`None` in results.csv).

use super::row::{Pass, Row};
use crate::metrics::{Block, Catalog, Consts, Event, StaticBlocks};
use crate::occupancy::{occupancy, DeviceLimits, KernelUse, Launch};
use cltap_formats::perf::{self, Api, CsvHeaderInfo, OccupancyHeaderInfo, PerfRow, ResultsRow};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The `.csv` column of `CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE`.
pub const PREFERRED_MULTIPLE: &str = "PreferredWorkGroupSizeMultiple";

/// What the file headers say of the process.
#[derive(Debug, Clone, Default)]
pub struct Process {
    pub application: String,
    pub args: String,
    pub cwd: String,
    pub os: String,
}

/// The metrics catalog of the GPU the pass counted on.
fn catalog(pass: &Pass) -> Option<Catalog> {
    let g = pass.gpu.as_ref()?;
    let blocks = StaticBlocks::new(
        &g.blocks
            .iter()
            .filter_map(|(id, inst, slots)| Some((Block::from_aql_id(*id)?, *inst, *slots)))
            .collect::<Vec<_>>(),
    );
    Catalog::load(pass.metrics_file.as_deref(), &g.name, &blocks).ok()
}

/// Whether each requested name is a derived metric (an expression of
/// counters) rather than a hardware counter; `false` where unknown.
pub fn derived(pass: &Pass) -> Vec<bool> {
    let cat = catalog(pass);
    pass.names.iter().map(|n| cat.as_ref().and_then(|c| c.metric(n)).is_some_and(|m| m.derived().is_some())).collect()
}

/// The values of the requested names for each row; `None` where unknown.
pub fn values(pass: &Pass) -> Vec<Vec<Option<f64>>> {
    let evaluator = pass.gpu.as_ref().and_then(|g| {
        let cat = catalog(pass)?;
        let plan = cat.plan(&pass.names).ok()?;
        let consts = Consts {
            cu_num: g.compute_units,
            simd_num: g.compute_units * g.simds_per_cu,
            se_num: g.shader_engines,
            xcc_num: 1,
            max_wave_size: g.wave_size,
        };
        Some((plan, consts))
    });
    pass.rows
        .iter()
        .map(|r| {
            let counted = r.hsa.is_some() && !r.events.is_empty();
            let Some((plan, consts)) = evaluator.as_ref().filter(|_| counted) else {
                return vec![None; pass.names.len()];
            };
            let values: HashMap<Event, u64> = r
                .events
                .iter()
                .filter_map(|(k, v)| Some((Event::from_aql(&crate::hsa::aqlprofile::unpack(*k))?, *v)))
                .collect();
            pass.names.iter().map(|n| plan.evaluate(n, &values, consts)).collect()
        })
        .collect()
}

/// The device's limits for the occupancy model.
fn limits(r: &Row) -> DeviceLimits {
    let l = &r.limits;
    let cu = l.compute_units.map(|c| c as u32);
    let mut d = match (&l.gfx_ip, cu) {
        (Some(ip), Some(cu)) => DeviceLimits::amd(&r.device, ip, cu, l.max_wg_size.unwrap_or(1024)),
        _ => DeviceLimits::generic(&r.device, cu, l.max_wg_size, l.lds_per_cu),
    };
    if let Some(w) = l.wave_size {
        d.wave_size = Some(w as u32);
    }
    if let Some(s) = l.simds_per_cu {
        d.simds_per_cu = Some(s as u32);
    }
    d
}

/// Writes the three files into `dir` as `<stem>.csv`, `<stem>.occupancy`
/// and `<stem>.results.csv`; returns their paths.
pub fn write(dir: &Path, stem: &str, pass: &Pass, process: &Process) -> std::io::Result<Vec<PathBuf>> {
    let mut values = values(pass);
    // What an OpenCL driver tells beyond the standard columns: one extra
    // column, after the requested ones.
    let mut names = pass.names.clone();
    if pass.rows.iter().any(|r| r.preferred_multiple.is_some()) {
        names.push(PREFERRED_MULTIPLE.to_string());
        for (r, v) in pass.rows.iter().zip(values.iter_mut()) {
            v.push(r.preferred_multiple.map(|m| m as f64));
        }
    }
    let api = if pass.rows.iter().all(|r| r.hsa.is_some() && r.cmd_id.is_none()) && !pass.rows.is_empty() {
        Api::Hsa
    } else {
        Api::OpenCl
    };
    let info = CsvHeaderInfo {
        profiler_version: format!("cltap {}", env!("CARGO_PKG_VERSION")),
        api,
        application: process.application.clone(),
        application_args: process.args.clone(),
        working_directory: process.cwd.clone(),
        full_environment: false,
        env_vars: Vec::new(),
        devices: Vec::new(),
        os_version: process.os.clone(),
        display_name: String::new(),
        force_single_pass: (api == Api::OpenCl).then_some(pass.passes <= 1),
        kernels_profiled: Vec::new(),
        max_kernels: None,
    };
    let header = info.to_header();
    let sep = perf::list_separator(&header);

    // RCP numbers each cl_kernel and each GPU device once per session.
    let mut kernel_ids: HashMap<u64, u32> = HashMap::new();
    let mut device_numbers: HashMap<String, u32> = HashMap::new();
    let mut csv = String::new();
    perf::write_csv_head(&mut csv, &header, &names);
    let mut occ = String::new();
    perf::write_occupancy_head(
        &mut occ,
        &OccupancyHeaderInfo {
            profiler_version: env!("CARGO_PKG_VERSION").to_string(),
            application: process.application.clone(),
            application_args: process.args.clone(),
        }
        .to_header(pass.rows.len()),
    );
    let mut res = String::new();
    let timestamps = pass.rows.iter().any(|r| r.hsa.as_ref().is_some_and(|h| h.begin != 0));
    perf::write_results_head(&mut res, &pass.names, timestamps);
    for (i, (r, vals)) in pass.rows.iter().zip(&values).enumerate() {
        let method = match (r.cmd_id, r.kernel_handle) {
            (Some(_), Some(k)) => {
                let n = kernel_ids.len() as u32;
                let id = *kernel_ids.entry(k).or_insert(n);
                let dn = device_numbers.len() as u32;
                let num = if r.limits.cpu { None } else { Some(*device_numbers.entry(r.device.clone()).or_insert(dn)) };
                let device = if r.limits.cpu { "CPU".to_string() } else { r.device.replace(' ', "_") };
                perf::ocl_method(&r.kernel, id, &device, num)
            }
            _ => perf::hsa_method(&r.kernel, &r.device),
        };
        let row = PerfRow {
            method,
            execution_order: i as u64 + 1,
            thread_id: r.tid as u64,
            call_index: r.call_index,
            global: r.global,
            local: r.local,
            time_ms: r.time_ns.map(|ns| ns as f64 / 1e6),
            lds: r.lds,
            vgprs: r.vgprs,
            sgprs: r.sgprs,
            scratch: r.scratch,
            values: vals.clone(),
        };
        perf::write_csv_row(&mut csv, sep, names.len(), &row);
        let o = occupancy(
            &limits(r),
            &KernelUse { vgprs: r.vgprs.map(|v| v as u32), sgprs: r.sgprs.map(|v| v as u32), lds_bytes: r.lds },
            &Launch { wg_size: r.wg_size().unwrap_or(0), global_size: r.global_size() },
        );
        perf::write_occupancy_row(&mut occ, sep, &o.to_row(r.tid as u64, &r.kernel, &r.device));
        // Without an HSA dispatch (an OpenCL driver other than AMD's) there
        // is no agent, queue, signal or kernel object: those cells are
        // absent, never 0.
        let h = r.hsa.as_ref();
        let rr = ResultsRow {
            index: i as u64,
            kernel_name: r.kernel.clone(),
            gpu_id: h.map(|h| h.gpu_index),
            // rocprofiler v1 numbers its intercept queues from 0.
            queue_id: h.map(|h| h.queue_number),
            queue_index: h.map(|h| h.queue_index),
            pid: pass.pid as u64,
            tid: r.tid as u64,
            grd: r.global_size(),
            wgr: r.wg_size(),
            lds: r.lds,
            scr: r.scratch,
            vgpr: r.vgprs,
            sgpr: r.sgprs.map(|s| rocprof_sgprs(s, r.limits.gfx_ip.as_deref())),
            // 0 on code object v3+ (see docs/counter-files.md); unknown
            // without a kernel descriptor.
            fbar: h.map(|_| 0),
            sig: h.map(|h| h.signal),
            obj: h.map(|h| h.kernel_object),
            values: vals[..pass.names.len()].to_vec(),
            times: r.hsa.as_ref().filter(|h| h.begin != 0).map(|h| perf::DispatchTimes {
                dispatch: h.dispatch,
                begin: h.begin,
                end: h.end,
                complete: h.complete,
            }),
        };
        perf::write_results_row(&mut res, pass.names.len(), timestamps, &rr);
    }
    let paths = [
        dir.join(format!("{stem}.csv")),
        dir.join(format!("{stem}.occupancy")),
        dir.join(format!("{stem}.results.csv")),
    ];
    for (p, text) in paths.iter().zip([csv, occ, res]) {
        std::fs::write(p, text)?;
    }
    Ok(paths.to_vec())
}

/// rocprof's `sgpr` from cltap's SGPRs per wave (`(granule + 1) * 8`):
/// rocprofiler 5.2.3's tool prints `(granule + 2) * 8`, `(granule + 1) * 8`
/// on gfx8 (`HsaRsrcFactory`'s `sgpr_block_dflt`; `Kd::rocprof_v1_sgprs`).
fn rocprof_sgprs(sgprs: u64, gfx_ip: Option<&str>) -> u64 {
    if gfx_ip.is_some_and(|g| g.starts_with("gfx8")) {
        sgprs
    } else {
        sgprs + 8
    }
}

/// A pass kept for a later join: `<stem>.pass<N>.json`.
pub fn pass_path(dir: &Path, stem: &str, pass: u32) -> PathBuf {
    dir.join(format!("{stem}.pass{pass}.json"))
}

pub fn save_pass(path: &Path, pass: &Pass) -> std::io::Result<()> {
    std::fs::write(path, serde_json::to_vec(pass)?)
}

pub fn load_pass(path: &Path) -> std::io::Result<Pass> {
    Ok(serde_json::from_slice(&std::fs::read(path)?)?)
}

/// One line per OpenCL device in the rows that gave no counters (drivers
/// have none through OpenCL): its cells read `NA`, never a made-up number.
/// (Where an HSA agent could not count, `OnLoad` already said why.)
pub fn unavailable(pass: &Pass) {
    if pass.names.is_empty() {
        return;
    }
    let mut devices: Vec<&str> = pass.rows.iter().filter(|r| r.hsa.is_none()).map(|r| r.device.as_str()).collect();
    devices.sort_unstable();
    devices.dedup();
    for d in devices {
        crate::warn!("counters: {} cannot be counted on {d} (no hardware counters reachable there); those cells read NA, the kernel statistics are the driver's", pass.names.join(", "));
    }
}
