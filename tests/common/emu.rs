//! The real ROCm stack on cltap's emulated gfx906 (`gpu-emu/`, a GPU emulator for tests, never a
//! driver): Debian's ROCr 5.2.3 and HIP 5.2.3 with the emulator's `libhsakmt.so.1` under ROCr, through
//! `scripts/gpu-emu.sh`. The client programs of `tests/gpu_emu/` are built once per test binary.

use super::root;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The test programs, built once per test binary into `target/gpu-emu/tests`, and the emulator
/// library, built once by running the launcher on `true`.
pub fn built() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let out = root().join("target/gpu-emu/tests");
        std::fs::create_dir_all(&out).unwrap();
        let src = root().join("tests/gpu_emu");
        let step = |what: &str, c: &mut Command| {
            let o = c.output().unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(o.status.success(), "{what} failed:\n{}", String::from_utf8_lossy(&o.stderr));
        };
        step(
            "clang-15 (scripts/setup.sh installs it)",
            Command::new("clang-15")
                .args(["-target", "amdgcn-amd-amdhsa", "-mcpu=gfx906", "-nogpulib", "-cl-std=CL2.0", "-O2"])
                .arg(src.join("kernels.cl"))
                .arg("-o")
                .arg(out.join("kernels.co")),
        );
        step(
            "gcc emu_client.c",
            Command::new("gcc")
                .args(["-O1", "-Wall", "-Werror"])
                .arg(src.join("emu_client.c"))
                .arg("-o")
                .arg(out.join("emu_client"))
                .args(["-lhsa-runtime64", "-lpthread"]),
        );
        step(
            "gcc aql_client.c",
            Command::new("gcc")
                .args(["-O1", "-Wall", "-Werror"])
                .arg(src.join("aql_client.c"))
                .arg("-o")
                .arg(out.join("aql_client"))
                .arg("-lhsa-runtime64"),
        );
        // Without ROCM_TARGET_LST hipcc probes /sys/class/kfd for the targets.
        let targets = out.join("targets.lst");
        std::fs::write(&targets, "gfx906\n").unwrap();
        step(
            "hipcc (scripts/setup.sh installs hipcc and libamdhip64-dev)",
            Command::new("hipcc")
                .arg("--offload-arch=gfx906")
                .arg(src.join("hip_client.hip"))
                .arg("-o")
                .arg(out.join("hip_client"))
                .env("ROCM_TARGET_LST", &targets),
        );
        emulator();
        out
    })
}

/// The emulator's libraries, built once per test binary by running the launcher on `true`.
pub fn emulator() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let o = Command::new(root().join("scripts/gpu-emu.sh")).args(["--", "true"]).output().unwrap();
        assert!(o.status.success(), "scripts/gpu-emu.sh -- true failed:\n{}", String::from_utf8_lossy(&o.stderr));
    });
}

/// `program args…` on the emulated GPU (under a 60 s timeout), with `GPU_EMU_LOG=1` and an
/// environment cleaned of HSA, HIP and cltap settings.
pub fn on_emu(program: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(root().join("scripts/gpu-emu.sh"));
    c.arg("--").arg("timeout").arg("60").arg(program).args(args);
    for (k, _) in std::env::vars() {
        if ["HSA_", "HIP_", "CLTAP_", "ROCP_", "GPU_EMU_"].iter().any(|p| k.starts_with(p)) {
            c.env_remove(k);
        }
    }
    c.env_remove("LD_PRELOAD");
    c.env("GPU_EMU_LOG", "1");
    c
}

/// `cltap run --no-summary --hsa OPTIONS… --output DIR -- APP ARGS…` on the emulated GPU, from `dir`.
pub fn cltap_on_emu(dir: &Path, options: &[&str], app: &Path, args: &[&str]) -> Command {
    let mut all = vec!["run", "--no-summary", "--hsa"];
    all.extend_from_slice(options);
    all.extend_from_slice(&["--output", dir.to_str().unwrap(), "--", app.to_str().unwrap()]);
    all.extend_from_slice(args);
    let mut c = on_emu(Path::new(env!("CARGO_BIN_EXE_cltap")), &all);
    c.current_dir(dir);
    c
}
