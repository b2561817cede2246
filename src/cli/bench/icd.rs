//! The cheap calls in ICD mode: cltap as the loader's driver, loading the
//! real one itself. `cltap run` picks this mode where the application's
//! loader ignores `OPENCL_LAYERS` (CUDA's own `libOpenCL` does), so on
//! such GPU servers it is what users get by default.

use super::{clean, only, trace_size, Spawn};
use std::collections::BTreeMap;
use std::path::Path;

/// Prints each cheap call's ns in ICD mode, trace only, and what it adds
/// over the no-layer run (`base`), and the trace's bytes per record. The
/// application's handles are cltap's there, so the driver's own entry
/// cannot be timed beside the call as in layer mode: the figures are over
/// the no-layer run, another process. Fails if the run wrote no trace,
/// which would mean that cltap never came between the calls and the
/// driver.
pub(super) fn icd_table(
    spawn: &Spawn,
    layer: &Path,
    driver: &Path,
    iterations: u64,
    base: &BTreeMap<String, f64>,
    out: &Path,
) -> Result<(), String> {
    let (layer, driver) = (layer.to_string_lossy(), driver.to_string_lossy());
    let env = [
        ("OCL_ICD_VENDORS", layer.as_ref()),
        ("OCL_ICD_FILENAMES", layer.as_ref()),
        ("CLTAP_ICD_FILENAMES", driver.as_ref()),
        ("CLTAP_RENDER", "0"),
    ];
    let text = spawn("calls", &env, false, iterations).map_err(|e| format!("ICD mode: {e}"))?;
    let size = only(out, "cltrace").and_then(|t| trace_size(&t)).map(|s| s.per_record());
    let _ = clean(out);
    let size = size.ok_or("ICD mode: the run wrote no trace (cltap was not the loader's driver)")?;
    println!();
    println!("ICD mode (cltap as the loader's driver, as `cltap run` puts it where the loader ignores OPENCL_LAYERS), trace only: ns per call (added over no layer)");
    for l in text.lines() {
        let Some((call, v)) = l.split_once(' ') else { continue };
        let Some(b) = base.get(call) else { continue };
        let v: f64 = v.parse().unwrap_or(f64::NAN);
        println!("{call:<26}{:>20}", format!("{v:.1} (+{:.1})", v - b));
    }
    println!("{:<26}{:>20}", "bytes per record (trace)", format!("{size:.1}"));
    Ok(())
}
