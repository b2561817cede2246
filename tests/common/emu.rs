//! The real ROCm stack on cltap's emulated gfx906 (`gpu-emu/`, a GPU emulator for tests, never a
//! driver): Debian's ROCr 5.2.3 and HIP 5.2.3 with the emulator's `libhsakmt.so.1` under ROCr, through
//! `scripts/gpu-emu.sh`. The client programs of `tests/gpu_emu/` are built once per test binary.

use super::root;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Runs one build step, failing with its stderr.
fn step(what: &str, c: &mut Command) {
    let o = c.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(o.status.success(), "{what} failed:\n{}", String::from_utf8_lossy(&o.stderr));
}

/// The HSA test programs written in C (`tests/gpu_emu/*.c`) and their gfx906 code objects
/// (`kernels.co` from `tests/gpu_emu/kernels.cl`, `hsa_kernels.co` from `tests/hsa/kernels.cl`),
/// built once per test binary into `target/gpu-emu/tests` with the emulator's libraries. The code
/// objects need clang-15 and lld-15 (scripts/setup.sh installs them): a missing one is a failure.
pub fn c_clients() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let out = root().join("target/gpu-emu/tests");
        std::fs::create_dir_all(&out).unwrap();
        let src = root().join("tests/gpu_emu");
        for (cl, co) in
            [(src.join("kernels.cl"), "kernels.co"), (root().join("tests/hsa/kernels.cl"), "hsa_kernels.co")]
        {
            step(
                "clang-15 (scripts/setup.sh installs it)",
                Command::new("clang-15")
                    .args(["-target", "amdgcn-amd-amdhsa", "-mcpu=gfx906", "-nogpulib", "-cl-std=CL2.0", "-O2"])
                    .arg(cl)
                    .arg("-o")
                    .arg(out.join(co)),
            );
        }
        for client in ["emu_client", "aql_client", "hsa_client"] {
            step(
                &format!("gcc {client}.c"),
                Command::new("gcc")
                    .args(["-O1", "-Wall", "-Werror"])
                    .arg(src.join(format!("{client}.c")))
                    .arg("-o")
                    .arg(out.join(client))
                    .args(["-lhsa-runtime64", "-lpthread"]),
            );
        }
        emulator();
        out
    })
}

/// [`c_clients`] and the HIP program (`tests/gpu_emu/hip_client.hip`, built with Debian's hipcc).
pub fn built() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let out = c_clients().to_path_buf();
        let src = root().join("tests/gpu_emu");
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

/// `program args…` on the emulated GPU (under a 60 s timeout), with `GPU_EMU_LOG=1`, the
/// watchdog's report at 50 s and an environment cleaned of HSA, HIP and cltap settings.
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
    // A program still running 10 s before the timeout writes the emulator's state and every
    // thread's stack to stderr (docs/gpu-emu.md#the-watchdog): a hang seen once names its place.
    c.env("GPU_EMU_WATCHDOG_S", "50");
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

/// One packet the emulated command processor ran, from its log (`GPU_EMU_LOG=1`): an independent
/// witness of what reached the GPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmuPacket {
    /// The emulator's queue number.
    pub queue: u64,
    /// `dispatch`, `BarrierAnd`, `BarrierOr`, `VendorSpecific`, …
    pub kind: String,
    /// A dispatch's kernel (`add_one`, `ROCr blit CopyAligned`, …); empty for other packets.
    pub kernel: String,
}

/// The packets of an emulator log (`gpu-emu: queue Q packet I: WHAT`), in the order they ran.
pub fn emu_packets(stderr: &str) -> Vec<EmuPacket> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("gpu-emu: queue "))
        .filter_map(|l| {
            let (queue, rest) = l.split_once(" packet ")?;
            let (_, what) = rest.split_once(": ")?;
            let (kind, kernel) = match what.strip_prefix("dispatch ") {
                Some(k) => ("dispatch", k.rsplit_once(" grid=").map_or(k, |(n, _)| n)),
                None => (what.split_whitespace().next().unwrap_or(""), ""),
            };
            Some(EmuPacket { queue: queue.parse().ok()?, kind: kind.to_string(), kernel: kernel.to_string() })
        })
        .collect()
}

/// The packets of the queue that ran `kernel` (one queue only), in order.
pub fn queue_of(packets: &[EmuPacket], kernel: &str) -> Vec<EmuPacket> {
    let mut queues: Vec<u64> = packets.iter().filter(|p| p.kernel == kernel).map(|p| p.queue).collect();
    queues.sort();
    queues.dedup();
    assert_eq!(queues.len(), 1, "{kernel} ran on one queue: {packets:?}");
    packets.iter().filter(|p| p.queue == queues[0]).cloned().collect()
}

/// `stderr` without the emulator's own lines.
pub fn without_emu_log(stderr: &str) -> String {
    stderr.lines().filter(|l| !l.starts_with("gpu-emu: ")).map(|l| format!("{l}\n")).collect()
}
