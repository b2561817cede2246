//! What is active in a process, from its environment: how cltap was put
//! in place (the activation), the OpenCL drivers the loader is pointed at,
//! and the settings given (`CLTAP_*`, `ROCP_*`). The launcher says it in
//! one line before the application starts; the trace keeps it for the
//! API log's header.

use super::vendors::{candidates, is_self, DEFAULT_VENDOR_DIR};
use std::path::{Path, PathBuf};

/// Whether a variable's value names cltap's layer library (one path, or
/// a list separated by `:` or spaces).
fn names_cltap(value: &str) -> bool {
    value.split([':', ' ', '"']).filter(|p| !p.is_empty()).any(|p| is_self(Path::new(p)))
}

/// How cltap is in place: `layer (OPENCL_LAYERS)`, `ICD (OCL_ICD_VENDORS)`,
/// `HSA tool (HSA_TOOLS_LIB)`, joined by ` + `; `none` where no variable
/// names it (a library preloaded another way).
pub fn activation(get: &dyn Fn(&str) -> Option<String>) -> String {
    let mut v = Vec::new();
    if get("OPENCL_LAYERS").is_some_and(|l| names_cltap(&l)) {
        v.push("layer (OPENCL_LAYERS)");
    } else if get("OCL_ICD_VENDORS").is_some_and(|l| names_cltap(&l))
        || get("OCL_ICD_FILENAMES").is_some_and(|l| names_cltap(&l))
    {
        v.push("ICD (OCL_ICD_VENDORS, OCL_ICD_FILENAMES)");
    }
    if get("HSA_TOOLS_LIB").is_some_and(|l| names_cltap(&l)) {
        v.push("HSA tool (HSA_TOOLS_LIB)");
    }
    if v.is_empty() {
        "none named by OPENCL_LAYERS, OCL_ICD_VENDORS or HSA_TOOLS_LIB".into()
    } else {
        v.join(" + ")
    }
}

/// The OpenCL drivers the application's loader (or cltap, in ICD mode)
/// loads: `CLTAP_ICD_FILENAMES`, else `OCL_ICD_FILENAMES` or
/// `OCL_ICD_VENDORS`, else the system's vendor files; cltap left out.
pub fn drivers(get: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    let split = |v: String| v.split(':').filter(|p| !p.is_empty()).map(PathBuf::from).collect::<Vec<_>>();
    let icd = get("CLTAP_ICD_FILENAMES").map(split);
    let khronos = get("OCL_ICD_FILENAMES").map(split).filter(|l| l.iter().any(|p| !is_self(p)));
    let list = match (icd, khronos) {
        (Some(l), _) | (None, Some(l)) => candidates(Some(&l), None, Path::new(DEFAULT_VENDOR_DIR)),
        (None, None) => candidates(None, get("OCL_ICD_VENDORS").as_deref(), Path::new(DEFAULT_VENDOR_DIR)),
    };
    list.into_iter().filter(|c| !is_self(&c.library)).map(|c| c.library.display().to_string()).collect()
}

/// The settings given: every `CLTAP_*` and `ROCP_*` variable, `NAME=value`,
/// sorted (the others are at their defaults), but `CLTAP_ICD_FILENAMES`,
/// which [`drivers`] shows.
pub fn settings(vars: impl Iterator<Item = (String, String)>) -> Vec<String> {
    let mut v: Vec<String> = vars
        .filter(|(k, _)| (k.starts_with("CLTAP_") && k != "CLTAP_ICD_FILENAMES") || k.starts_with("ROCP_"))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    v.sort();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_activation_and_drivers_are_read_from_the_variables() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
        };
        let layer = env(&[("OPENCL_LAYERS", "/x/libcltap_layer.so"), ("OCL_ICD_FILENAMES", "/d/libpocl.so")]);
        assert_eq!(activation(&layer), "layer (OPENCL_LAYERS)");
        assert_eq!(drivers(&layer), ["/d/libpocl.so"]);
        let icd = env(&[
            ("OCL_ICD_VENDORS", "/x/libcltap_layer.so"),
            ("HSA_TOOLS_LIB", "/x/libcltap_layer.so"),
            ("CLTAP_ICD_FILENAMES", "/d/liboclgrind-rt-icd.so:/d/libpocl.so"),
        ]);
        assert_eq!(activation(&icd), "ICD (OCL_ICD_VENDORS, OCL_ICD_FILENAMES) + HSA tool (HSA_TOOLS_LIB)");
        assert_eq!(drivers(&icd), ["/d/liboclgrind-rt-icd.so", "/d/libpocl.so"]);
        assert!(activation(&env(&[])).starts_with("none"));
        let s = settings(
            [("CLTAP_ICD_FILENAMES", "x"), ("CLTAP_ATP", "1"), ("PATH", "/bin"), ("ROCP_HSA_INTERCEPT", "2")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string())),
        );
        assert_eq!(s, ["CLTAP_ATP=1", "ROCP_HSA_INTERCEPT=2"]);
    }
}
