//! LLVM's side of the oracle: compiling the suite's sources to gfx906 code objects (clang-15,
//! hipcc), and LLVM's own reading of machine code (llvm-objdump-15, llvm-mc-15).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::sources::{Lang, Source};

const BITCODE: &str = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode";
/// The device libraries a gfx906 OpenCL build links, with the defaults comgr picks for
/// OpenCL C (no DAZ, finite math off, unsafe math off, correctly rounded sqrt, wave64).
const LIBS: [&str; 10] = [
    "opencl",
    "ocml",
    "ockl",
    "oclc_isa_version_906",
    "oclc_abi_version_400",
    "oclc_daz_opt_off",
    "oclc_finite_only_off",
    "oclc_unsafe_math_off",
    "oclc_correctly_rounded_sqrt_on",
    "oclc_wavefrontsize64_on",
];

/// One compilation: a source at an optimisation level.
pub struct Build<'a> {
    pub source: &'a Source,
    pub opt: &'static str,
    pub out: PathBuf,
}

/// Compiles every build, as many at a time as there are cores; the error text of each that
/// failed.
pub fn compile_all(builds: &[Build], dir: &Path) -> Vec<Result<(), String>> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<(), String>>>> = Mutex::new(vec![None; builds.len()]);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).min(8);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(b) = builds.get(i) else { break };
                let r = compile(b, dir, i);
                results.lock().unwrap()[i] = Some(r);
            });
        }
    });
    results.into_inner().unwrap().into_iter().map(|r| r.expect("every build ran")).collect()
}

fn compile(b: &Build, dir: &Path, i: usize) -> Result<(), String> {
    let (ext, mut cmd) = match b.source.lang {
        Lang::OpenCl => {
            let mut c = Command::new("clang-15");
            c.args(["-target", "amdgcn-amd-amdhsa", "-mcpu=gfx906", "-cl-std=CL2.0", "-nogpulib", b.opt]);
            // programs.c builds with -DOFFSET=...; harmless to the others.
            c.arg("-DOFFSET=3");
            for lib in LIBS {
                c.args(["-Xclang", "-mlink-builtin-bitcode", "-Xclang"]).arg(format!("{BITCODE}/{lib}.bc"));
            }
            ("cl", c)
        }
        Lang::Hip => {
            let list = dir.join("targets.lst");
            std::fs::write(&list, "gfx906\n").map_err(|e| e.to_string())?;
            let mut c = Command::new("hipcc");
            c.env("ROCM_TARGET_LST", &list);
            c.args(["--offload-arch=gfx906", "--cuda-device-only", "--no-gpu-bundle-output", "-c", b.opt]);
            ("hip", c)
        }
    };
    let src = dir.join(format!("src{i}.{ext}"));
    std::fs::write(&src, &b.source.text).map_err(|e| e.to_string())?;
    let out = cmd.arg(&src).arg("-o").arg(&b.out).output().map_err(|e| format!("{cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).lines().take(4).collect::<Vec<_>>().join("\n"))
    }
}

/// One instruction as LLVM's disassembler read it.
#[derive(Debug, Clone)]
pub struct LlvmInst {
    pub addr: u64,
    pub words: Vec<u32>,
    /// The mnemonic, without `_e32`/`_e64`/`_sdwa`/`_dpp`.
    pub name: String,
    /// The whole line as LLVM printed it.
    pub text: String,
}

/// Drops the encoding suffix LLVM's printer adds.
pub fn normalise(mnemonic: &str) -> &str {
    for s in ["_e32", "_e64", "_sdwa", "_dpp"] {
        if let Some(base) = mnemonic.strip_suffix(s) {
            return base;
        }
    }
    mnemonic
}

/// `llvm-objdump-15 -d --mcpu=gfx906` of each file, one call for all: the instructions of each.
pub fn objdump(files: &[PathBuf]) -> Vec<Vec<LlvmInst>> {
    if files.is_empty() {
        return Vec::new();
    }
    let out = Command::new("llvm-objdump-15")
        .args(["-d", "--mcpu=gfx906"])
        .args(files)
        .output()
        .expect("llvm-objdump-15 runs (scripts/setup.sh installs llvm-15)");
    assert!(out.status.success(), "llvm-objdump-15: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let mut per_file: Vec<Vec<LlvmInst>> = Vec::new();
    for line in text.lines() {
        if line.ends_with("file format elf64-amdgpu") {
            per_file.push(Vec::new());
            continue;
        }
        let (Some(cur), Some(inst)) = (per_file.last_mut(), objdump_line(line)) else { continue };
        cur.push(inst);
    }
    assert_eq!(per_file.len(), files.len(), "one listing per code object");
    per_file
}

/// `\tmnemonic operands  // 000000001000: C0060002 00000000 <label>`.
fn objdump_line(line: &str) -> Option<LlvmInst> {
    let body = line.strip_prefix('\t')?;
    let (asm, comment) = body.rsplit_once("// ")?;
    let (addr, rest) = comment.split_once(": ")?;
    let addr = u64::from_str_radix(addr.trim(), 16).ok()?;
    let words: Vec<u32> =
        rest.split_whitespace().take_while(|w| w.len() == 8).map_while(|w| u32::from_str_radix(w, 16).ok()).collect();
    let mnemonic = asm.split_whitespace().next().unwrap_or("");
    Some(LlvmInst { addr, words, name: normalise(mnemonic).to_string(), text: asm.trim().to_string() })
}

/// Assembles `source` with `llvm-mc-15 -show-encoding`: each instruction's words and text.
pub fn assemble(source: &str) -> Vec<(Vec<u32>, String)> {
    let out = run_mc(&["-show-encoding"], source);
    assert!(out.1.is_empty() || !out.1.contains("error"), "llvm-mc-15 failed:\n{}", out.1);
    let mut v = Vec::new();
    for line in out.0.lines() {
        let Some((asm, enc)) = line.split_once("; encoding: [") else { continue };
        let bytes: Vec<u8> = enc
            .trim_end_matches(']')
            .split(',')
            .map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).expect("a byte"))
            .collect();
        assert!(bytes.len().is_multiple_of(4), "{line}");
        let words = bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        v.push((words, asm.trim().to_string()));
    }
    v
}

/// LLVM's disassembler on each instruction (one bracketed line each): its text, None where it
/// found no instruction.
pub fn disassemble(insts: &[Vec<u32>]) -> Vec<Option<String>> {
    let mut input = String::new();
    for w in insts {
        input.push('[');
        for b in w.iter().flat_map(|w| w.to_le_bytes()) {
            input += &format!("0x{b:02x} ");
        }
        input += "]\n";
    }
    let (stdout, stderr) = run_mc(&["-disassemble"], &input);
    let bad: std::collections::HashSet<usize> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("<stdin>:")?.split(':').next()?.parse::<usize>().ok())
        .map(|n| n - 1)
        .collect();
    let mut printed = stdout.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('.'));
    (0..insts.len()).map(|i| if bad.contains(&i) { None } else { printed.next().map(str::to_string) }).collect()
}

fn run_mc(args: &[&str], input: &str) -> (String, String) {
    let mut child = Command::new("llvm-mc-15")
        .args(["-arch=amdgcn", "-mcpu=gfx906"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("llvm-mc-15 runs (scripts/setup.sh installs llvm-15)");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}
