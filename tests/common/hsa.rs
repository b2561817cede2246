//! The HSA side of the harness: HSA programs on Debian's real ROCr 5.2.3 over the emulated gfx906
//! (`gpu-emu/`, through `scripts/gpu-emu.sh`), their code objects, and the OpenCL program that
//! runs on AMD's OpenCL runtime over them.

use super::{emu, root};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The HSA client (`tests/gpu_emu/hsa_client.c`) with its gfx906 code object, run from `dir` on
/// Debian's ROCr over gpu-emu for `dispatches` add_one dispatches, with the emulator's packet log
/// on its stderr (`GPU_EMU_LOG=1`, read with [`emu::emu_packets`]), in an environment cleaned of
/// HSA, cltap, client and emulator settings.
pub fn hsa_client(dir: &Path, dispatches: u64) -> Command {
    let mut c = on_hsa(&emu::c_clients().join("hsa_client"), dir);
    c.arg(hsa_kernels());
    c.env("CLIENT_DISPATCHES", dispatches.to_string());
    c.env("GPU_EMU_LOG", "1");
    c
}

/// The gfx906 code object of `tests/hsa/kernels.cl` (add_one, scale and a variable).
pub fn hsa_kernels() -> PathBuf {
    emu::c_clients().join("hsa_kernels.co")
}

/// Debian's ROCr's folder, first on the library path of every HSA program (scripts/gpu-emu.sh puts
/// the emulator's thunk before it): no library of the project stands in for ROCr.
pub const SYSTEM_LIBS: &str = "/usr/lib/x86_64-linux-gnu";

/// `program` run from `dir` on Debian's ROCr over gpu-emu (under a 60 s timeout), in an
/// environment cleaned of HSA, cltap, ROCP, client and emulator settings.
pub fn on_hsa(program: &Path, dir: &Path) -> Command {
    emu::emulator();
    let mut c = Command::new(root().join("scripts/gpu-emu.sh"));
    c.args(["--", "timeout", "60"]).arg(program).current_dir(dir);
    for (k, _) in std::env::vars() {
        if k.starts_with("HSA_")
            || k.starts_with("CLTAP_")
            || k.starts_with("CLIENT_")
            || k.starts_with("ROCP_")
            || k.starts_with("GPU_EMU_")
            || k == "LD_PRELOAD"
        {
            c.env_remove(k);
        }
    }
    c.env("LD_LIBRARY_PATH", SYSTEM_LIBS);
    c
}

/// The decimal number right after the first `key` in `out`.
pub fn number_after(out: &str, key: &str) -> u64 {
    let at = out.find(key).unwrap_or_else(|| panic!("{key} not in:\n{out}")) + key.len();
    out[at..].chars().take_while(|c| c.is_ascii_digit()).collect::<String>().parse().unwrap()
}

/// The one file in `dir` whose name ends with `suffix`.
pub fn only_file(dir: &Path, suffix: &str) -> PathBuf {
    let found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    assert_eq!(found.len(), 1, "one {suffix} in {}: {found:?}", dir.display());
    found.into_iter().next().unwrap()
}

/// `tests/hsa/programs.c`, linked against Debian's ROCr by its soname (no rpath).
pub fn hsa_programs() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let exe = root().join("target/ctests/hsa_programs");
        std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
        let st = Command::new("gcc")
            .args(["-std=c11", "-O1", "-Wall", "-Werror", "-pthread", "-I/usr/include/hsa"])
            .arg(root().join("tests/hsa/programs.c"))
            .arg("-o")
            .arg(&exe)
            .arg("-lhsa-runtime64")
            .status()
            .expect("run gcc");
        assert!(st.success(), "building tests/hsa/programs.c failed");
        exe
    })
}

// The counter model of gpu-emu's AQLprofile (docs/gpu-emu.md#aqlprofile), for the tests that
// check counter values computed by hand: tests/counters_hsa.rs and tests/rocprofiler_v1.rs.

/// The shapes `programs sizes` dispatches, in order: grid, work-group,
/// group segment bytes (tests/hsa/programs.c `SHAPES`).
pub const SHAPES: [([u64; 3], [u64; 3], u64); 8] = [
    ([64, 1, 1], [64, 1, 1], 0),
    ([256, 1, 1], [64, 1, 1], 0),
    ([1000, 1, 1], [100, 1, 1], 0),
    ([128, 4, 1], [32, 2, 1], 0),
    ([4096, 1, 1], [256, 1, 1], 1024),
    ([32, 32, 2], [8, 8, 1], 0),
    ([100000, 1, 1], [64, 1, 1], 0),
    ([64, 1, 1], [1, 1, 1], 512),
];
/// The emulated gfx906's `MAX_CLOCK_FREQUENCY`, MHz.
pub const CLK: u64 = 1725;

/// The model of one dispatch (docs/gpu-emu.md#aqlprofile).
pub struct Model {
    /// Work-items.
    pub wi: u64,
    /// Waves.
    pub w: u64,
    pub grbm_count: u64,
}

impl Model {
    pub fn of(grid: [u64; 3], wg: [u64; 3]) -> Model {
        let wi: u64 = grid.iter().product();
        let groups: u64 = (0..3).map(|i| grid[i].div_ceil(wg[i])).product();
        let wgs: u64 = wg.iter().product();
        let w = groups * wgs.div_ceil(64);
        let t = (2000 + wi / 16).min(1_000_000);
        Model { wi, w, grbm_count: t * CLK / 1000 }
    }

    /// X spread over n instances, the remainder to the lowest.
    pub fn share(x: u64, i: u64, n: u64) -> u64 {
        x / n + u64::from(i < x % n)
    }
}

/// `cltap run --no-summary --hsa OPTIONS… --output DIR -- APP…` on Debian's ROCr over gpu-emu under
/// a 120 s timeout, from `dir`, in an environment cleaned of HSA, cltap, ROCP, loader and emulator
/// settings.
pub fn cltap_run_hsa<I, S>(dir: &Path, options: &[&str], app: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    emu::emulator();
    let mut c = Command::new(root().join("scripts/gpu-emu.sh"));
    c.args(["--", "timeout", "120"]).arg(env!("CARGO_BIN_EXE_cltap")).args(["run", "--no-summary", "--hsa"]);
    c.args(options).arg("--output").arg(dir).arg("--").args(app).current_dir(dir);
    for (k, _) in std::env::vars() {
        if ["HSA_", "CLTAP_", "ROCP_", "OCL_ICD", "OPENCL_LAYER", "GPU_EMU_"].iter().any(|p| k.starts_with(p)) {
            c.env_remove(k);
        }
    }
    c.env("LD_LIBRARY_PATH", SYSTEM_LIBS);
    c
}

/// The RCP counter `.csv` in `dir` (not the `.results.csv` beside it), read.
pub fn rcp_csv(dir: &Path) -> cltap_formats::perf::PerfCsv {
    let p: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".csv") && !p.to_string_lossy().ends_with(".results.csv"))
        .collect();
    assert_eq!(p.len(), 1, "{p:?}");
    cltap_formats::perf::read_csv(&std::fs::read_to_string(&p[0]).unwrap()).unwrap()
}

/// `tests/hsa/ndranges.c`, linked against the OpenCL loader only (AMD's OpenCL runtime is picked by
/// OCL_ICD_VENDORS; see [`super::amdocl`]).
pub fn ndranges_program() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let exe = root().join("target/ctests/ndranges");
        std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
        let st = Command::new("gcc")
            .args(["-std=c11", "-O1", "-Wall", "-Werror", "-pthread"])
            .arg(root().join("tests/hsa/ndranges.c"))
            .arg("-o")
            .arg(&exe)
            .arg("-lOpenCL")
            .status()
            .expect("run gcc");
        assert!(st.success(), "building tests/hsa/ndranges.c failed");
        exe
    })
}

/// `hsa_programs sizes` run from `out` under cltap as the HSA tool, with timed dispatches, two
/// counters (`SQ_WAVES`, `GRBM_COUNT`), the summary, and `extra` settings (the output a test
/// looks at).
pub fn counted_sizes(out: &Path, extra: &[(&str, &str)]) -> super::Outcome {
    let mut c = on_hsa(hsa_programs(), out);
    c.arg("sizes").arg(hsa_kernels());
    c.env("HSA_TOOLS_LIB", super::layer())
        .env("ROCP_HSA_INTERCEPT", "2")
        .env("CLTAP_COUNTERS", "SQ_WAVES,GRBM_COUNT")
        .env("CLTAP_OUTPUT_DIR", out)
        .env("CLTAP_SUMMARY", "1");
    for (k, v) in extra {
        c.env(k, v);
    }
    super::run(c)
}

/// What one wave of a straight-line kernel issues, counted from LLVM's disassembly of the code
/// object (`llvm-objdump-15`), from the kernel's symbol to its `s_endpgm`, by the classes the SQ
/// block counts (docs/counters.md#exact-and-modelled-counters): an independent count of what the emulated
/// shader core must have run.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct PerWave {
    pub valu: u64,
    pub salu: u64,
    pub smem: u64,
    pub vmem_rd: u64,
    pub vmem_wr: u64,
    pub flat: u64,
    pub lds: u64,
}

impl PerWave {
    pub fn of(code_object: &Path, kernel: &str) -> PerWave {
        let o = Command::new("llvm-objdump-15").args(["-d", "--mcpu=gfx906"]).arg(code_object).output().unwrap();
        assert!(o.status.success(), "llvm-objdump-15: {}", String::from_utf8_lossy(&o.stderr));
        let text = String::from_utf8(o.stdout).unwrap();
        let body =
            text.split(&format!("<{kernel}>:\n")).nth(1).unwrap_or_else(|| panic!("no {kernel} in the disassembly"));
        let mut n = PerWave::default();
        for line in body.lines() {
            let m = line.split_whitespace().next().unwrap_or("");
            let branchy = m.starts_with("s_cbranch") || m == "s_branch" || m.ends_with("pc_b64");
            assert!(!branchy && !m.is_empty(), "{kernel} is not straight-line code: {line}");
            let (load, store) = (m.contains("load"), m.contains("store") || m.contains("atomic"));
            match m {
                "s_endpgm" => return n,
                _ if m.starts_with("v_") => n.valu += 1,
                _ if m.starts_with("s_load") || m.starts_with("s_buffer") || m.starts_with("s_store") => n.smem += 1,
                // The program-control instructions (SOPP) are neither SALU nor memory.
                "s_waitcnt" | "s_nop" | "s_barrier" | "s_sendmsg" => {}
                _ if m.starts_with("s_") => n.salu += 1,
                _ if m.starts_with("ds_") => n.lds += 1,
                _ if m.starts_with("global_") || m.starts_with("flat_") || m.starts_with("scratch_") => {
                    n.flat += 1;
                    n.vmem_rd += u64::from(load || m.contains("atomic"));
                    n.vmem_wr += u64::from(store);
                }
                _ => panic!("{kernel}: no class for {line}"),
            }
        }
        panic!("{kernel} has no s_endpgm")
    }
}
