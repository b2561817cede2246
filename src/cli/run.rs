//! `cltap run`: sets the activation variables for the chosen mode and runs
//! the application, passing its exit status through.

use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// Loader-layer mode (both supported loaders load layers).
    Auto,
    /// cltap poses as the driver and loads the real ones (`--driver`).
    Icd,
    /// cltap is an OPENCL_LAYERS layer.
    Layer,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// How cltap is put between the application and the driver.
    #[arg(long, value_enum, default_value = "auto")]
    pub mode: Mode,
    /// A real OpenCL driver library (ICD mode; repeatable). Default: the
    /// drivers the loaders' vendor files name.
    #[arg(long = "driver", value_name = "PATH")]
    pub drivers: Vec<PathBuf>,
    /// The cltap layer library. Default: next to this executable, or $CLTAP_LAYER.
    #[arg(long, value_name = "PATH")]
    pub layer: Option<PathBuf>,
    /// Do not print the table of calls at exit.
    #[arg(long)]
    pub no_summary: bool,
    /// The application and its arguments.
    #[arg(last = true, required = true, value_name = "APP")]
    pub app: Vec<String>,
}

/// Where the layer library is: `--layer`, `$CLTAP_LAYER`, or beside `cltap`.
pub fn find_layer(explicit: Option<&Path>) -> Result<PathBuf, String> {
    let mut tried = Vec::new();
    let mut cands: Vec<PathBuf> = Vec::new();
    if let Some(p) = explicit {
        cands.push(p.to_path_buf());
    } else {
        if let Some(p) = std::env::var_os("CLTAP_LAYER") {
            cands.push(PathBuf::from(p));
        }
        if let Ok(exe) = std::env::current_exe() {
            if let Some(dir) = exe.parent() {
                cands.push(dir.join("libcltap_layer.so"));
                cands.push(dir.join("../lib/libcltap_layer.so"));
            }
        }
    }
    for c in cands {
        if c.is_file() {
            return std::fs::canonicalize(&c).map_err(|e| format!("{}: {e}", c.display()));
        }
        tried.push(c.display().to_string());
    }
    Err(format!("cannot find libcltap_layer.so (looked for: {}); build it with `cargo build --release` or pass --layer", tried.join(", ")))
}

/// The environment `cltap run` adds for `mode`.
pub fn activation(mode: Mode, layer: &Path, drivers: &[PathBuf]) -> Vec<(String, String)> {
    let l = layer.display().to_string();
    let mut env = Vec::new();
    match mode {
        Mode::Auto | Mode::Layer => env.push(("OPENCL_LAYERS".into(), l)),
        Mode::Icd => {
            // ocl-icd reads OCL_ICD_VENDORS (a library path selects just it);
            // the Khronos loader reads OCL_ICD_FILENAMES and takes
            // OCL_ICD_VENDORS as a directory, where a file path finds nothing.
            env.push(("OCL_ICD_VENDORS".into(), l.clone()));
            env.push(("OCL_ICD_FILENAMES".into(), l));
            if !drivers.is_empty() {
                let list: Vec<String> = drivers.iter().map(|d| d.display().to_string()).collect();
                env.push(("CLTAP_ICD_FILENAMES".into(), list.join(":")));
            }
        }
    }
    env
}

pub fn run(a: RunArgs) -> i32 {
    let layer = match find_layer(a.layer.as_deref()) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("cltap: {e}");
            return 127;
        }
    };
    let mut cmd = Command::new(&a.app[0]);
    cmd.args(&a.app[1..]);
    for (k, v) in activation(a.mode, &layer, &a.drivers) {
        cmd.env(k, v);
    }
    if !a.no_summary {
        cmd.env("CLTAP_SUMMARY", "1");
    }
    match cmd.status() {
        Ok(st) => {
            use std::os::unix::process::ExitStatusExt;
            st.code().unwrap_or_else(|| 128 + st.signal().unwrap_or(0))
        }
        Err(e) => {
            eprintln!("cltap: cannot run {}: {e}", a.app[0]);
            127
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn icd_mode_sets_both_loaders_and_the_drivers() {
        let env = activation(Mode::Icd, Path::new("/l/libcltap_layer.so"), &[PathBuf::from("/d/a.so"), PathBuf::from("/d/b.so")]);
        assert!(env.contains(&("OCL_ICD_VENDORS".into(), "/l/libcltap_layer.so".into())));
        assert!(env.contains(&("OCL_ICD_FILENAMES".into(), "/l/libcltap_layer.so".into())));
        assert!(env.contains(&("CLTAP_ICD_FILENAMES".into(), "/d/a.so:/d/b.so".into())));
    }

    #[test]
    fn layer_mode_sets_opencl_layers_only() {
        let env = activation(Mode::Auto, Path::new("/l.so"), &[]);
        assert_eq!(env, vec![("OPENCL_LAYERS".to_string(), "/l.so".to_string())]);
    }

    #[test]
    fn missing_layer_says_where_it_looked() {
        let e = find_layer(Some(Path::new("/nope/libcltap_layer.so"))).unwrap_err();
        assert!(e.contains("/nope/libcltap_layer.so"), "{e}");
    }
}
