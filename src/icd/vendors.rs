//! Where the real drivers come from in ICD mode: `CLTAP_ICD_FILENAMES`, or
//! else the vendor files the loaders read (`OCL_ICD_VENDORS`, then
//! `/etc/OpenCL/vendors`), with cltap itself left out.

use std::path::{Path, PathBuf};

pub const DEFAULT_VENDOR_DIR: &str = "/etc/OpenCL/vendors";

/// One candidate driver and where its name came from, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// A path, or a bare library name for the dynamic linker to find.
    pub library: PathBuf,
    pub source: String,
}

/// The `.icd` files of a directory, sorted by name: an order to show that
/// does not depend on the file system (ocl-icd 2.3 orders the platforms by
/// its own rule, the Khronos loader takes the folder's entries as read).
fn icd_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "icd")).collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn from_icd_file(path: &Path) -> Option<Candidate> {
    let text = std::fs::read_to_string(path).ok()?;
    let lib = text.lines().next()?.trim();
    (!lib.is_empty()).then(|| Candidate { library: PathBuf::from(lib), source: path.display().to_string() })
}

/// Candidates named by an `OCL_ICD_VENDORS` value: a directory of `.icd`
/// files, one `.icd` file, or a library.
fn from_vendors_value(v: &str) -> Vec<Candidate> {
    let p = Path::new(v);
    if p.is_dir() {
        icd_files(p).iter().filter_map(|f| from_icd_file(f)).collect()
    } else if v.ends_with(".icd") {
        from_icd_file(p).into_iter().collect()
    } else {
        vec![Candidate { library: p.to_path_buf(), source: "OCL_ICD_VENDORS".into() }]
    }
}

/// The drivers to load, in order, before removing cltap itself.
pub fn candidates(
    icd_filenames: Option<&[PathBuf]>,
    ocl_icd_vendors: Option<&str>,
    vendor_dir: &Path,
) -> Vec<Candidate> {
    if let Some(list) = icd_filenames {
        return list.iter().map(|p| Candidate { library: p.clone(), source: "CLTAP_ICD_FILENAMES".into() }).collect();
    }
    let mut v = ocl_icd_vendors.map(from_vendors_value).unwrap_or_default();
    if v.is_empty() || (ocl_icd_vendors.is_some() && v.iter().all(|c| is_self(&c.library))) {
        // OCL_ICD_VENDORS naming only cltap (how ocl-icd users select it)
        // leaves the system's drivers as the real ones.
        v = icd_files(vendor_dir).iter().filter_map(|f| from_icd_file(f)).collect();
    }
    v
}

/// Whether `lib` is cltap's own layer library.
pub fn is_self(lib: &Path) -> bool {
    let name = lib.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name.starts_with("libcltap_layer") {
        return true;
    }
    match (std::fs::canonicalize(lib), self_path()) {
        (Ok(a), Some(b)) => a == b,
        _ => false,
    }
}

/// The file cltap's layer was loaded from.
pub fn self_path() -> Option<PathBuf> {
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr only reads the loader's tables for an address of ours.
    let ok = unsafe { libc::dladdr(self_path as *const libc::c_void, &mut info) };
    if ok == 0 || info.dli_fname.is_null() {
        return None;
    }
    let p = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) };
    std::fs::canonicalize(p.to_str().ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
        let d = tempfile::Builder::new().prefix("cltap-vendors-").tempdir().unwrap();
        for (n, c) in files {
            std::fs::write(d.path().join(n), c).unwrap();
        }
        d
    }

    #[test]
    fn explicit_list_wins() {
        let d = dir_with(&[("a.icd", "liba.so\n")]);
        let v = candidates(Some(&[PathBuf::from("/x/libpocl.so.2")]), Some("/whatever"), d.path());
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].library, PathBuf::from("/x/libpocl.so.2"));
    }

    #[test]
    fn vendor_dir_sorted_and_cltap_named_alone_falls_back() {
        let d = dir_with(&[("b.icd", "libb.so\n"), ("a.icd", "  liba.so  \n"), ("readme.txt", "x")]);
        let v = candidates(None, None, d.path());
        assert_eq!(v.iter().map(|c| c.library.to_str().unwrap()).collect::<Vec<_>>(), ["liba.so", "libb.so"]);
        let v = candidates(None, Some("/opt/libcltap_layer.so"), d.path());
        assert_eq!(v.len(), 2, "OCL_ICD_VENDORS naming only cltap uses the vendor dir");
        let v = candidates(None, Some("/usr/lib/libpocl.so.2"), d.path());
        assert_eq!(v[0].library, PathBuf::from("/usr/lib/libpocl.so.2"));
    }
}
