//! `ROCP_TOOL_LIB`: tool libraries as rocprofiler v1 loads them. cltap
//! opens each library of the colon-separated list in order and calls
//! `OnLoadToolProp(rocprofiler_settings_t*)` if it exports it, else
//! `OnLoadTool()`; at the end it calls each one's `OnUnloadTool()` (when
//! exported) in the reverse order.
//!
//! Where cltap differs from rocprofiler 5.x, on purpose:
//! - several libraries, not one;
//! - `OnLoadToolProp` is preferred when a library exports both (rocprofiler
//!   5.2 calls `OnLoadTool` then);
//! - a library that cannot be opened or exports neither load function gets
//!   one stderr line and is skipped (rocprofiler aborts the process);
//! - `OnUnloadTool` is optional, and libraries are never closed: their
//!   threads and exit handlers may outlive the call.
//!
//! Before the first tool is opened, cltap's own library is made global
//! (`RTLD_GLOBAL`), so that a tool built without linking to it finds
//! `cltap_create_buffer` and the rest of `include/cltap_buffer.h`.

use super::toollib_settings::RocprofilerSettings;
use crate::fork::lock::Mutex;
use std::ffi::{c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolLibError {
    #[error("ROCP_TOOL_LIB: {}: no such file; this tool is not loaded, the application runs on without it", .0.display())]
    Missing(PathBuf),
    #[error("ROCP_TOOL_LIB: {}: cannot be loaded ({why}); this tool is not loaded, the application runs on without it", path.display())]
    Load { path: PathBuf, why: String },
    #[error("ROCP_TOOL_LIB: {}: exports neither OnLoadToolProp nor OnLoadTool; this tool is not loaded, the application runs on without it", .0.display())]
    NoEntry(PathBuf),
}

/// The libraries of a `ROCP_TOOL_LIB` value, in order (empty items skipped).
pub fn paths(value: &str) -> Vec<PathBuf> {
    value.split(':').map(str::trim).filter(|s| !s.is_empty()).map(PathBuf::from).collect()
}

type LoadProp = unsafe extern "C" fn(*mut RocprofilerSettings);
type Plain = unsafe extern "C" fn();

/// A tool that loaded.
struct Tool {
    path: PathBuf,
    on_unload: Option<Plain>,
}

static LOADED: Mutex<Vec<Tool>> = Mutex::new(Vec::new());

/// The prepare handler's part ([`crate::fork`]).
pub(crate) fn hold_for_fork() {
    crate::fork::kept::keep(LOADED.lock());
}
/// The HSA interception the tools asked for (see `toollib_settings`).
static REQUESTED_HSA_MODE: AtomicU8 = AtomicU8::new(0);
/// A tool left `hsa_intercepting` on: rocprofiler v1's HSA callbacks
/// (`rocprofiler_set_hsa_callbacks`' kernel symbols) are called.
static HSA_INTERCEPTING: AtomicBool = AtomicBool::new(false);
/// A tool left `opt_mode` on: rocprofiler v1's dispatch callback gets the
/// data of 5.2.3's optimised path (no kernel name, object, code, thread or
/// record: the tool names kernels from its `ksymbol` callback).
static OPT_MODE: AtomicBool = AtomicBool::new(false);

fn dlerror() -> String {
    // SAFETY: dlerror returns NULL or a string valid until the next dl call.
    let e = unsafe { libc::dlerror() };
    if e.is_null() {
        "unknown error".into()
    } else {
        unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
    }
}

fn symbol(handle: *mut c_void, name: &CStr) -> *mut c_void {
    // SAFETY: a handle from dlopen and a NUL-terminated name.
    unsafe { libc::dlsym(handle, name.as_ptr()) }
}

/// Makes the library holding this code global, so that tools resolve
/// cltap's symbols against it.
fn make_self_global() {
    let Some(me) = crate::icd::vendors::self_path() else { return };
    let Ok(c) = CString::new(me.as_os_str().as_encoded_bytes()) else { return };
    // SAFETY: re-opening a loaded library with NOLOAD only changes its flags.
    unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD | libc::RTLD_GLOBAL) };
}

/// Opens one tool and calls its load function with `settings`.
fn load_one(path: &Path, settings: &mut RocprofilerSettings) -> Result<Tool, ToolLibError> {
    let shown = path.to_path_buf();
    // A name without a slash is looked up as dlopen does (LD_LIBRARY_PATH…).
    if path.components().count() > 1 && !path.exists() {
        return Err(ToolLibError::Missing(shown));
    }
    let c = CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|_| ToolLibError::Load { path: shown.clone(), why: "the path holds a NUL byte".into() })?;
    // SAFETY: dlopen runs the library's constructors: that is loading a tool.
    let handle = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if handle.is_null() {
        return Err(ToolLibError::Load { path: shown, why: dlerror() });
    }
    let prop = symbol(handle, c"OnLoadToolProp");
    let plain = symbol(handle, c"OnLoadTool");
    let unload = symbol(handle, c"OnUnloadTool");
    // SAFETY: the symbols have the signatures rocprofiler v1 documents.
    unsafe {
        if !prop.is_null() {
            std::mem::transmute::<*mut c_void, LoadProp>(prop)(settings);
        } else if !plain.is_null() {
            std::mem::transmute::<*mut c_void, Plain>(plain)();
        } else {
            libc::dlclose(handle);
            return Err(ToolLibError::NoEntry(shown));
        }
    }
    let on_unload = (!unload.is_null()).then(|| unsafe { std::mem::transmute::<*mut c_void, Plain>(unload) });
    Ok(Tool { path: shown, on_unload })
}

/// Loads the tools of `paths` in order, each given `settings` as the
/// previous one left them. A tool that fails gets its line on stderr and
/// the others still load. Returns the paths loaded.
pub fn load_all(paths: &[PathBuf], mut settings: RocprofilerSettings) -> Vec<PathBuf> {
    if paths.is_empty() {
        return Vec::new();
    }
    make_self_global();
    let offered = settings;
    let mut loaded = Vec::new();
    for p in paths {
        match load_one(p, &mut settings) {
            Ok(t) => {
                loaded.push(t.path.clone());
                LOADED.lock().push(t);
            }
            Err(e) => crate::warn!("{e}"),
        }
    }
    if !loaded.is_empty() {
        REQUESTED_HSA_MODE.fetch_max(settings.requested_hsa_mode(&offered), Ordering::AcqRel);
        HSA_INTERCEPTING.store(settings.hsa_intercepting != 0, Ordering::Release);
        OPT_MODE.store(settings.opt_mode != 0, Ordering::Release);
    }
    loaded
}

/// The HSA interception mode the loaded tools asked for (0 when none did).
pub fn requested_hsa_mode() -> u8 {
    REQUESTED_HSA_MODE.load(Ordering::Acquire)
}

/// Whether the tools left `hsa_intercepting` on in their settings.
pub fn hsa_intercepting() -> bool {
    HSA_INTERCEPTING.load(Ordering::Acquire)
}

/// Whether the tools left `opt_mode` on in their settings.
pub fn opt_mode() -> bool {
    OPT_MODE.load(Ordering::Acquire)
}

/// Calls every loaded tool's `OnUnloadTool`, the last loaded first. Runs
/// each tool's once.
pub fn unload_all() {
    // Taken out first: a tool may call back into cltap meanwhile.
    let tools = std::mem::take(&mut *LOADED.lock());
    for t in tools.iter().rev() {
        if let Some(f) = t.on_unload {
            // SAFETY: the tool's own function, as rocprofiler calls it.
            unsafe { f() };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_split_on_colons_in_order() {
        assert_eq!(paths("/a.so::/b.so: "), vec![PathBuf::from("/a.so"), PathBuf::from("/b.so")]);
        assert!(paths("").is_empty());
    }

    #[test]
    fn failures_say_which_library_and_why() {
        let mut s = RocprofilerSettings::default();
        let e = load_one(Path::new("/nonexistent/tool.so"), &mut s).err().unwrap();
        assert_eq!(e, ToolLibError::Missing(PathBuf::from("/nonexistent/tool.so")));
        assert!(e.to_string().starts_with("ROCP_TOOL_LIB: /nonexistent/tool.so: no such file"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let text = dir.path().join("text.so");
        std::fs::write(&text, "not a library\n").unwrap();
        let e = load_one(&text, &mut s).err().unwrap().to_string();
        assert!(e.contains("text.so: cannot be loaded (") && !e.contains('\n'), "{e}");
        // libc exports neither load function.
        let e = load_one(Path::new("libc.so.6"), &mut s).err().unwrap();
        assert_eq!(e, ToolLibError::NoEntry(PathBuf::from("libc.so.6")));
    }
}
