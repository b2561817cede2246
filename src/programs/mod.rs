//! Program dumps and the build-options override (`CLTAP_DUMP_PROGRAMS`,
//! `CLTAP_DUMP_BINARIES`, `CLTAP_BUILD_OPTIONS[_APPEND]`): what an
//! application built, written to `<output>/programs/`, and the options the
//! driver sees instead of the application's. The layer asks the driver;
//! this module numbers programs, names and writes their files, and says
//! what it did in the API log (a [`KIND_NOTE`] record per event).
//!
//! Only the calls that create, build, compile or link a program (and
//! load an HSA code object) reach it, and only when a control is on: one
//! relaxed load otherwise.

pub mod files;
pub mod registry;

use crate::config::programs::Programs;
use cltap_formats::cltrace::record::KIND_NOTE;
use std::path::PathBuf;

static SETTINGS: crate::switched::Switched<Settings> = crate::switched::Switched::new();

/// What the controls asked for, and where the files go.
#[derive(Debug, Clone)]
pub struct Settings {
    pub controls: Programs,
    /// `<output>/programs`.
    pub dir: PathBuf,
}

/// At start-up, once the process is known to be recorded.
pub fn configure(controls: &Programs, output: &std::path::Path) {
    if !controls.any() {
        return;
    }
    let s = Settings { controls: controls.clone(), dir: output.join("programs") };
    SETTINGS.set(s);
}

/// Whether any program control is on (the only cost to a program call
/// when none is).
#[inline(always)]
pub fn on() -> bool {
    SETTINGS.on()
}

/// The settings, when on.
pub fn settings() -> Option<&'static Settings> {
    SETTINGS.get()
}

/// Whether sources, logs (and binaries) are written.
pub fn dumps() -> bool {
    settings().is_some_and(|s| s.controls.dump)
}

/// Whether binaries are written too.
pub fn binaries() -> bool {
    settings().is_some_and(|s| s.controls.binaries)
}

/// The options the driver is to see instead of `app` (`None`: the
/// application's stand).
pub fn replaced_options(app: Option<&[u8]>) -> Option<std::ffi::CString> {
    let s = settings()?;
    if !s.controls.overrides() {
        return None;
    }
    let app = app.map(|b| String::from_utf8_lossy(b).into_owned());
    let o = s.controls.options_for(app.as_deref())?;
    std::ffi::CString::new(o).ok()
}

/// One line of cltap's own in the API log, on this thread, after the
/// records before it.
pub fn note(text: &str) {
    let t = crate::trace::tsc::now();
    crate::trace::local::record_kind::<KIND_NOTE>(0, t, t, &[], Some(text));
}
