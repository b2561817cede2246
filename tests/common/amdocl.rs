//! AMD's OpenCL runtime (ROCm 5.2.3, `libamdocl64.so`, unmodified) as the OpenCL driver, on Debian's
//! ROCr over the emulated gfx906 (docs/amd-opencl.md). `scripts/amdocl.sh` builds it once per
//! machine, outside the clone (scripts/setup.sh runs it), and is the one place that knows where:
//! these helpers ask it.

use super::{layer, root, Mode};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// What `scripts/amdocl.sh FLAG` prints: a path in its cache, or the script's own line saying what
/// is missing, as the test's failure.
fn cached(flag: &str) -> PathBuf {
    let o = Command::new(root().join("scripts/amdocl.sh")).arg(flag).output().expect("run scripts/amdocl.sh");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr).trim());
    PathBuf::from(String::from_utf8_lossy(&o.stdout).trim())
}

/// `libamdocl64.so`, built by scripts/setup.sh.
pub fn amdocl() -> &'static Path {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| cached("--path"))
}

/// AMD's own `clinfo` (`tools/clinfo` of the same tree), built beside the library.
pub fn amd_clinfo() -> &'static Path {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| cached("--clinfo"))
}

/// The folder of AMD's `ocltst` (`tests/ocltst` of the same tree): the program, its log library
/// and its test modules (`liboclruntime.so`, `liboclperf.so`), built beside the library.
pub fn ocltst_dir() -> &'static Path {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| cached("--ocltst"))
}

/// `program args…` run from `dir` through Debian's ocl-icd with AMD's runtime as the only driver,
/// on Debian's ROCr over gpu-emu, with cltap in `mode` (its files in `dir`), in an environment
/// cleaned of loader, HSA, cltap and emulator settings.
pub fn on_amd(program: &Path, args: &[&str], mode: Mode, dir: &Path) -> Command {
    let mut c = super::on_hsa(program, dir);
    c.args(args);
    for (k, _) in std::env::vars() {
        if k.starts_with("OCL_ICD") || k.starts_with("OPENCL_LAYER") {
            c.env_remove(k);
        }
    }
    match mode {
        Mode::Plain => c.env("OCL_ICD_VENDORS", amdocl()),
        Mode::Layer => c.env("OCL_ICD_VENDORS", amdocl()).env("OPENCL_LAYERS", layer()),
        Mode::Icd => c.env("OCL_ICD_VENDORS", layer()).env("CLTAP_ICD_FILENAMES", amdocl()),
    };
    if mode != Mode::Plain {
        c.env("CLTAP_OUTPUT_DIR", dir);
    }
    c
}
