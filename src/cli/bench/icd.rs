//! The cheap calls in ICD mode: cltap as the loader's driver, loading the
//! real one itself. `cltap run` picks this mode where the application's
//! loader ignores `OPENCL_LAYERS` (CUDA's own `libOpenCL` does), so on
//! such GPU servers it is what users get by default.

use super::{clean, only, readings, trace_size, Spawn};
use std::collections::BTreeMap;
use std::path::Path;

/// Prints each cheap call's ns in ICD mode, trace only, and what it adds
/// over the no-layer run (`base`: each call's ns there, and its loader's
/// share, the call over the driver's own entry); then the same within the
/// run, as the calls part measures layer mode. The application's handles
/// are cltap's there, so the driver's own entry is timed on objects of
/// its own, made on the driver loaded by itself in the same process
/// (`calls-driver:`). Fails if the run wrote no trace, which would mean
/// that cltap never came between the calls and the driver.
pub(super) fn icd_table(
    spawn: &Spawn,
    layer: &Path,
    driver: &Path,
    iterations: u64,
    base: &BTreeMap<String, (f64, f64)>,
    out: &Path,
) -> Result<(), String> {
    let (layer, driver) = (layer.to_string_lossy(), driver.to_string_lossy());
    let env = [
        ("OCL_ICD_VENDORS", layer.as_ref()),
        ("OCL_ICD_FILENAMES", layer.as_ref()),
        ("CLTAP_ICD_FILENAMES", driver.as_ref()),
        ("CLTAP_RENDER", "0"),
    ];
    let what = format!("calls-driver:{driver}");
    let text = spawn(&what, &env, false, iterations).map_err(|e| format!("ICD mode: {e}"))?;
    let size = only(out, "cltrace").and_then(|t| trace_size(&t)).map(|s| s.per_record());
    let _ = clean(out);
    let size = size.ok_or("ICD mode: the run wrote no trace (cltap was not the loader's driver)")?;
    let ns = readings(&text);
    println!();
    println!("ICD mode (cltap as the loader's driver, as `cltap run` puts it where the loader ignores OPENCL_LAYERS), trace only: ns per call (added over no layer), and within the run: the call over the driver's own entry on objects made on the driver loaded by itself, less the loader's share in the no-layer run");
    for (call, &v) in &ns {
        let Some(&(b, loader)) = base.get(call) else { continue };
        let within = ns.get(&format!("{call}.direct")).map_or("-".to_string(), |d| format!("{:+.1}", v - d - loader));
        println!("{call:<30}{:>20}{within:>12}", format!("{v:.1} (+{:.1})", v - b));
    }
    let floor = ns.get("rdtsc").map_or("-".to_string(), |t| format!("{:.1}", 2.0 * t + 15.0));
    println!("{:<30}{:>20}{floor:>12}", "2 x rdtsc + 15, this run", "");
    let pace = ns.get("clSetKernelArg.direct").map_or("-".to_string(), |t| format!("{t:.1}"));
    println!("{:<30}{:>20}{pace:>12}", "driver's clSetKernelArg", "");
    println!("{:<30}{:>20}", "bytes per record (trace)", format!("{size:.1}"));
    Ok(())
}
