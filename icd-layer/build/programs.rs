//! Program dumps and the build-options override in the wrappers of the
//! calls that make and build programs (`icd-layer/src/opencl/programs.rs`);
//! no other wrapper has any of it.

use super::*;

enum Hook {
    Source,
    Il,
    Build(&'static str),
    Link,
    /// A call after which a pending build's log is taken (before it).
    Settle,
}

fn hook(f: &Function) -> Option<Hook> {
    Some(match f.name.as_str() {
        "clCreateProgramWithSource" => Hook::Source,
        "clCreateProgramWithIL" | "clCreateProgramWithILKHR" => Hook::Il,
        "clBuildProgram" => Hook::Build("build"),
        "clCompileProgram" => Hook::Build("compile"),
        "clLinkProgram" => Hook::Link,
        "clCreateKernel" | "clCreateKernelsInProgram" | "clGetProgramBuildInfo" | "clReleaseProgram" => Hook::Settle,
        _ => return None,
    })
}

/// Whether the wrapper has any of the program hooks.
pub(crate) fn has_program_hook(f: &Function) -> bool {
    hook(f).is_some()
}

fn index(f: &Function, name: &str) -> usize {
    f.param_index(name).unwrap_or_else(|| panic!("{}: no parameter {name}", f.name))
}

/// Before the call (handles are the driver's): the options the driver is
/// to see (builds and compiles), or a pending build's log.
pub(crate) fn programs_pre(s: &mut String, f: &Function) {
    match hook(f) {
        // Linker options are another set (OpenCL 3.0 §5.8.7): only builds
        // and compiles take the replaced options.
        Some(Hook::Build(_)) => {
            writeln!(s, "    let __opts = crate::opencl::programs::options(options as _);").unwrap();
            writeln!(s, "    let options = __opts.as_ref().map_or(options, |c| c.as_ptr() as _);").unwrap();
        }
        Some(Hook::Settle) => writeln!(s, "    crate::opencl::programs::settle(program as _);").unwrap(),
        _ => {}
    }
}

/// Right after the call, before ICD mode wraps the result: the files
/// written, and the lines for the API log kept for after the call's record.
pub(crate) fn programs_post(s: &mut String, f: &Function) {
    let call = match hook(f) {
        Some(Hook::Source) => "from_source(r as _, count, strings as _, lengths as _)".to_string(),
        Some(Hook::Il) => "from_il(r as _, il as _, length)".to_string(),
        Some(Hook::Build(what)) => format!(
            "built({what:?}, program as _, __app[{}], __opts.as_ref(), __app[{}] != 0)",
            index(f, "options"),
            index(f, "pfn_notify")
        ),
        Some(Hook::Link) => {
            format!("linked(r as _, __app[{}], None, __app[{}] != 0)", index(f, "options"), index(f, "pfn_notify"))
        }
        _ => return,
    };
    writeln!(s, "    let __notes = crate::opencl::programs::{call};").unwrap();
}

/// After the call's record: the lines [`programs_post`] kept.
pub(crate) fn programs_notes(s: &mut String, f: &Function) {
    if matches!(hook(f), Some(Hook::Source | Hook::Il | Hook::Build(_) | Hook::Link)) {
        writeln!(s, "    crate::opencl::programs::notes(__notes);").unwrap();
    }
}
