//! A bounded fuzz run of every reader (`cltap::fuzz::TARGETS`): each seed
//! of `fuzz/corpus/<target>/` as it is, then deterministic mutations of them
//! (a fixed seed, so every run tries the same inputs). An input that panics,
//! or runs past a generous bound (a hang, not a slow machine), fails the test
//! and is saved under `target/fuzz-findings/` to replay with
//! `cargo fuzz run <target> FILE` or this test. docs/fuzzing.md has the
//! long runs.
//!
//! `CLTAP_FUZZ_ITERATIONS` (default 2000 per target) and `CLTAP_FUZZ_SEED`
//! change the run.

mod common;
use cltap::fuzz::mutate::{mutate, Rng};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Far above any input's cost in this suite: only a hang or a blowup gets here.
const HANG: Duration = Duration::from_secs(20);

fn env_u64(var: &str, default: u64) -> u64 {
    std::env::var(var).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn seeds(target: &str) -> Vec<Vec<u8>> {
    let dir = common::root().join("fuzz/corpus").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let v: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    assert!(!v.is_empty(), "no seeds in {}", dir.display());
    v
}

fn save(target: &str, i: u64, input: &[u8]) -> PathBuf {
    let d = common::root().join("target/fuzz-findings");
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(format!("{target}-{i}.bin"));
    std::fs::write(&p, input).unwrap();
    p
}

fn fuzz(target: &str) {
    // A memory bound for the whole test process: an allocation sized by a
    // file's claim fails here instead of taking the machine.
    let r = libc::rlimit { rlim_cur: 8 << 30, rlim_max: 8 << 30 };
    // SAFETY: plain setrlimit on this process.
    unsafe { libc::setrlimit(libc::RLIMIT_AS, &r) };
    let f = cltap::fuzz::TARGETS.iter().find(|(n, _)| *n == target).unwrap().1;
    let seeds = seeds(target);
    let mut rng = Rng::new(env_u64("CLTAP_FUZZ_SEED", 0x5eed_c1a9) ^ target.len() as u64);
    let n = env_u64("CLTAP_FUZZ_ITERATIONS", 2000);
    let inputs = seeds.iter().cloned().map(Some).chain((0..n).map(|_| None));
    for (i, given) in inputs.enumerate() {
        let input = given.unwrap_or_else(|| {
            let s = &seeds[rng.below(seeds.len())];
            let o = &seeds[rng.below(seeds.len())];
            mutate(s, o, &mut rng)
        });
        let t = Instant::now();
        let r = std::panic::catch_unwind(|| f(&input));
        let took = t.elapsed();
        if r.is_err() || took > HANG {
            let p = save(target, i as u64, &input);
            panic!(
                "{target}: input {i} {} ({took:?}); saved as {}",
                if r.is_err() { "panicked" } else { "hung" },
                p.display()
            );
        }
    }
}

#[test]
fn fuzz_trace() {
    fuzz("trace");
}

#[test]
fn fuzz_apilog() {
    fuzz("apilog");
}

#[test]
fn fuzz_atp() {
    fuzz("atp");
}

#[test]
fn fuzz_counters() {
    fuzz("counters");
}

#[test]
fn fuzz_metrics() {
    fuzz("metrics");
}

#[test]
fn fuzz_rocp_input() {
    fuzz("rocp_input");
}

#[test]
fn fuzz_memory() {
    fuzz("memory");
}

#[test]
fn fuzz_rocpd() {
    fuzz("rocpd");
}
