//! Test harness: instructions assembled by LLVM's own assembler (`llvm-mc-15 -mcpu=gfx906`), run
//! on one wave with memory the test owns.

#![allow(dead_code)]

use std::process::Command;

use gfx906::exec::{self, Ctx, Flow};
use gfx906::{Code, Counts, Fault, Ranges, Wave};

/// The machine words of `source` (gfx906 assembly, one instruction a line), as llvm-mc encodes
/// them.
pub fn assemble(source: &str) -> Vec<u32> {
    let out = Command::new("llvm-mc-15")
        .args(["-arch=amdgcn", "-mcpu=gfx906", "-show-encoding"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(source.as_bytes())?;
            c.wait_with_output()
        })
        .expect("llvm-mc-15 runs (scripts/setup.sh installs llvm-15)");
    assert!(out.status.success(), "llvm-mc-15 failed on:\n{source}\n{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let mut bytes = Vec::new();
    for line in text.lines() {
        let Some(at) = line.find("encoding: [") else { continue };
        let list = &line[at + 11..line[at..].find(']').unwrap() + at];
        for b in list.split(',') {
            bytes.push(u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).unwrap());
        }
    }
    assert!(bytes.len() % 4 == 0);
    bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// One wave's run: the wave after it, the counts, and how it stopped.
pub struct Run {
    pub wave: Wave,
    pub counts: Counts,
    pub result: Result<Flow, Fault>,
    pub lds: Vec<u8>,
}

/// Runs `source` (an `s_endpgm` is appended) on a wave with all 64 lanes on, after `setup` has
/// set its registers; `mem` is what memory instructions may touch, `lds_bytes` the LDS.
pub fn run_with(source: &str, mem: &Ranges, lds_bytes: usize, setup: impl FnOnce(&mut Wave)) -> Run {
    run_stride(source, mem, lds_bytes, 0, setup)
}

/// As [`run_with`], with a scratch lane stride.
pub fn run_stride(source: &str, mem: &Ranges, lds_bytes: usize, stride: u32, setup: impl FnOnce(&mut Wave)) -> Run {
    let code = Code::from_words(assemble(&format!("{source}\ns_endpgm\n")));
    let mut wave = Wave::new(256);
    wave.set_exec(u64::MAX);
    wave.pc = code.start();
    setup(&mut wave);
    let mut counts = Counts::default();
    let mut lds = vec![0u8; lds_bytes];
    let result = {
        let mut ctx = Ctx { mem, code: &code, lds: &mut lds, scratch_lane_stride: stride, counts: &mut counts };
        exec::run(&mut wave, &mut ctx, 1_000_000)
    };
    Run { wave, counts, result, lds }
}

/// GPU memory for a test: 8-byte aligned (atomics need it), read and written as dwords.
pub struct Mem(Vec<u64>);

impl Mem {
    pub fn new(dwords: usize) -> Mem {
        Mem(vec![0; dwords.div_ceil(2)])
    }
    pub fn addr(&self) -> u64 {
        self.0.as_ptr() as u64
    }
    pub fn ranges(&self) -> Ranges {
        Ranges::new(vec![(self.addr(), self.addr() + self.0.len() as u64 * 8)])
    }
    pub fn get(&self, i: usize) -> u32 {
        (self.0[i / 2] >> (32 * (i % 2))) as u32
    }
    pub fn set(&mut self, i: usize, v: u32) {
        let sh = 32 * (i % 2);
        self.0[i / 2] = (self.0[i / 2] & !(0xFFFF_FFFFu64 << sh)) | u64::from(v) << sh;
    }
}

/// Runs `source` with no memory and no LDS; panics unless the wave reaches `s_endpgm`.
pub fn run(source: &str, setup: impl FnOnce(&mut Wave)) -> Wave {
    let r = run_with(source, &Ranges::default(), 0, setup);
    assert_eq!(r.result, Ok(Flow::End), "{source}");
    r.wave
}
