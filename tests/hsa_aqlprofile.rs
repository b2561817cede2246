//! The AMD loader and AQLprofile extensions of the HSA runtime test double,
//! and its timed kernels. Everything here runs against the HSA runtime test
//! double (`hsa-double/`), not real ROCm: the counter values are the
//! double's invented model (hsa-double/README.md, "AQLprofile double"),
//! which this file computes again from the dispatch shapes.
//!
//! One run of `hsa-double/tests/aqlprofile_client.c` resolves kernel
//! objects through the loader extension, checks AQLprofile's validation,
//! profiles dispatches of six shapes in three passes (on a plain queue, with
//! a read packet, in legacy form, through an intercept queue's writer and
//! from three threads on their own queues) and prints every sample and
//! every dispatch's profiling time; the tests below check those lines.

mod common;
use common::*;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

/// hsa_ven_amd_aqlprofile_block_name_t values of the modelled blocks.
mod block {
    pub const CPC: u32 = 0;
    pub const CPF: u32 = 1;
    pub const GRBM: u32 = 3;
    pub const SPI: u32 = 5;
    pub const SQ: u32 = 6;
    pub const TA: u32 = 10;
    pub const TCA: u32 = 11;
    pub const TCC: u32 = 12;
    pub const TCP: u32 = 13;
    pub const TD: u32 = 14;
}
const SHADER_ENGINES: u64 = 4;
const INSTANCES: u64 = 16;

#[derive(Debug, thiserror::Error)]
enum LineError {
    #[error("no field `{field}` in {line:?}")]
    Missing { field: &'static str, line: String },
    #[error("field `{field}` of {line:?} is not a number list")]
    Number { field: &'static str, line: String },
}

/// The value of `field=` in a client line: numbers separated by `,` or `+`.
fn numbers(line: &str, field: &'static str) -> Result<Vec<u64>, LineError> {
    let v = line
        .split_whitespace()
        .find_map(|w| w.strip_prefix(field).and_then(|r| r.strip_prefix('=')))
        .ok_or_else(|| LineError::Missing { field, line: line.to_string() })?;
    v.split([',', '+']).map(|n| n.parse().map_err(|_| LineError::Number { field, line: line.to_string() })).collect()
}

fn number(line: &str, field: &'static str) -> Result<u64, LineError> {
    Ok(numbers(line, field)?[0])
}

fn text<'a>(line: &'a str, field: &'static str) -> Result<&'a str, LineError> {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(field).and_then(|r| r.strip_prefix('=')))
        .ok_or_else(|| LineError::Missing { field, line: line.to_string() })
}

/// A dispatch as the double models it (dispatch_model.c).
#[derive(Debug, Clone, Copy)]
struct Shape {
    grid: [u64; 3],
    wg: [u64; 3],
    dims: usize,
    group: u64,
}

impl Shape {
    fn parse(line: &str) -> Result<Shape, LineError> {
        let g = numbers(line, "grid")?;
        let w = numbers(line, "wg")?;
        Ok(Shape {
            grid: [g[0], g[1], g[2]],
            wg: [w[0], w[1], w[2]],
            dims: number(line, "dims")? as usize,
            group: number(line, "group")?,
        })
    }
    fn work_items(&self) -> u64 {
        self.grid[..self.dims].iter().product()
    }
    fn workgroups(&self) -> u64 {
        (0..self.dims).map(|d| self.grid[d].div_ceil(self.wg[d])).product()
    }
    fn waves_per_group(&self) -> u64 {
        self.wg[..self.dims].iter().product::<u64>().div_ceil(64)
    }
    fn waves(&self) -> u64 {
        self.workgroups() * self.waves_per_group()
    }
    fn nominal_ns(&self) -> u64 {
        (2000 + self.work_items() / 16).min(1_000_000)
    }
}

/// Instance `i`'s part of `total` over `n`: equal parts, the remainder to
/// the lowest instances.
fn share(total: u64, i: u64, n: u64) -> u64 {
    total / n + u64::from(i < total % n)
}

/// What one dispatch adds to a sample, by the double's invented model.
fn model(s: &Shape, mhz: u64, block: u32, index: u64, counter: u32, sample: u64) -> u64 {
    let grbm = s.nominal_ns() * mhz / 1000;
    let w_se = share(s.workgroups(), sample, SHADER_ENGINES) * s.waves_per_group();
    let (wi, w) = (s.work_items(), s.waves());
    match (block, counter) {
        (block::GRBM, 0) => grbm,
        (block::GRBM, 2) => grbm.saturating_sub(100),
        (block::SQ, 4) => w_se,
        (block::SQ, 26) => 12 * w_se,
        (block::SQ, 27) => w_se,
        (block::SQ, 28) => 2 * w_se,
        (block::SQ, 30) => 5 * w_se,
        (block::SQ, 31) => 3 * w_se,
        (block::SQ, 34) if s.group > 0 => 4 * w_se,
        (block::SQ, 71) => 48 * w_se,
        (block::SQ, 85) => share(12 * wi, sample, SHADER_ENGINES),
        (block::TA, 15) if index < s.workgroups().min(INSTANCES) => grbm / 2,
        (block::TA, 101) => share(2 * w, index, INSTANCES),
        (block::TA, 102) => share(w, index, INSTANCES),
        (block::TCC, 20) => share(wi / 4, index, INSTANCES),
        (block::TCC, 22) | (block::TCC, 41) => share(wi / 16, index, INSTANCES),
        (block::TCC, 29) => share(wi / 64, index, INSTANCES),
        _ => 0,
    }
}

#[derive(Debug)]
struct Sample {
    tag: String,
    dispatches: Vec<u64>,
    block: u32,
    index: u64,
    counter: u32,
    sample: u64,
    value: u64,
}

impl Sample {
    fn parse(line: &str) -> Result<Sample, LineError> {
        Ok(Sample {
            tag: text(line, "tag")?.to_string(),
            dispatches: numbers(line, "dispatches")?,
            block: number(line, "block")? as u32,
            index: number(line, "index")?,
            counter: number(line, "counter")? as u32,
            sample: number(line, "sample")?,
            value: number(line, "value")?,
        })
    }
}

struct Run {
    out: String,
    mhz: u64,
    shapes: Vec<Shape>,
    samples: Vec<Sample>,
}

impl Run {
    fn lines<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.out.lines().filter_map(move |l| l.strip_prefix(prefix))
    }
    fn expected(&self, s: &Sample) -> u64 {
        s.dispatches
            .iter()
            .map(|&d| model(&self.shapes[d as usize], self.mhz, s.block, s.index, s.counter, s.sample))
            .sum()
    }
    /// The samples of a tag (and dispatch list), keyed by (block, index, counter, sample).
    fn profile(&self, tag: &str, dispatches: &[u64]) -> BTreeMap<(u32, u64, u32, u64), u64> {
        self.samples
            .iter()
            .filter(|s| s.tag == tag && s.dispatches == dispatches)
            .map(|s| ((s.block, s.index, s.counter, s.sample), s.value))
            .collect()
    }
}

fn client(dir: &std::path::Path) -> std::process::Command {
    let mut c = on_hsa_double(&hsa_double().join("aqlprofile_client"), dir);
    c.arg(hsa_kernels());
    c
}

fn assert_passed(o: &Outcome) {
    assert_eq!(o.code, Some(0), "client failed\nstdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
    assert!(o.stdout.contains("client: all checks passed"), "stdout:\n{}", o.stdout);
    assert!(!o.stdout.contains("FAIL"), "stdout:\n{}", o.stdout);
}

/// The client's one run, shared by the tests.
fn the_run() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = scratch("hsa-aqlprofile");
        let o = run(client(&dir));
        assert_passed(&o);
        let out = o.stdout;
        let mhz = number_after(&out, "client: agent max_clock_mhz=");
        let mut shapes = Vec::new();
        let mut samples = Vec::new();
        for l in out.lines() {
            if let Some(rest) = l.strip_prefix("client: shape ") {
                assert_eq!(number(rest, "dispatch").unwrap(), shapes.len() as u64, "shapes in order");
                shapes.push(Shape::parse(rest).unwrap());
            } else if let Some(rest) = l.strip_prefix("client: pmc ") {
                samples.push(Sample::parse(rest).unwrap());
            }
        }
        Run { out, mhz, shapes, samples }
    })
}

#[test]
fn loader_extension_resolves_kernel_objects_to_executables_and_names() {
    let r = the_run();
    for (tag, name) in [
        ("exe1-add_one", "add_one.kd"),
        ("exe1-scale", "scale.kd"),
        ("exe2-add_one", "add_one.kd"),
        ("dispatched", "add_one.kd"),
    ] {
        assert!(r.out.contains(&format!("client: loader {tag} resolved name={name}\n")), "{tag}:\n{}", r.out);
    }
    // A file reader's URI names the file; a memory reader's the double's copy.
    // The double names the file by its real path: canonical (target/ may be a symlink).
    let kernels = std::fs::canonicalize(hsa_kernels()).unwrap();
    assert!(r.out.contains(&format!("client: loader exe1 storage=1 uri=file://{}\n", kernels.display())), "{}", r.out);
    assert!(r.out.contains("client: loader exe2 storage=2 uri=memory://"), "{}", r.out);
    assert!(number_after(&r.out, "client: loader segments=") >= 2);
}

#[test]
fn every_counter_sample_follows_the_model() {
    let r = the_run();
    assert_eq!(r.mhz, 1725, "the double's gfx906 clock");
    assert_eq!(r.shapes.len(), 6);
    let wrong: Vec<String> = r
        .samples
        .iter()
        .filter(|s| s.value != r.expected(s))
        .map(|s| format!("{s:?}: want {}", r.expected(s)))
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} samples differ from the model:\n{}",
        wrong.len(),
        r.samples.len(),
        wrong.join("\n")
    );
    // The numbers are not all zero: the model counted something.
    assert!(r.samples.iter().filter(|s| s.value > 0).count() > r.samples.len() / 3);
}

#[test]
fn each_profile_delivers_its_events_with_one_sample_per_shader_engine_for_sq() {
    let r = the_run();
    let profiles: Vec<(String, Vec<u64>, u64, u64)> = r
        .lines("client: profile ")
        .map(|l| {
            (
                text(l, "tag").unwrap().to_string(),
                numbers(l, "dispatches").unwrap(),
                number(l, "events").unwrap(),
                number(l, "samples").unwrap(),
            )
        })
        .collect();
    // 3 passes x 6 shapes, read + readstop, legacy, 3 intercepted, 3 threads x 4 rounds.
    assert_eq!(profiles.len(), 18 + 2 + 1 + 3 + 12, "{}", r.out);
    for (tag, d, events, samples) in &profiles {
        let got = r.profile(tag, d);
        let distinct: BTreeSet<(u32, u64, u32)> = got.keys().map(|k| (k.0, k.1, k.2)).collect();
        assert_eq!(distinct.len() as u64, *events, "{tag} {d:?}: events");
        assert_eq!(got.len() as u64, *samples, "{tag} {d:?}: samples");
        for (b, i, c) in distinct {
            let n = if b == block::SQ { SHADER_ENGINES } else { 1 };
            let ids: Vec<u64> = got.keys().filter(|k| (k.0, k.1, k.2) == (b, i, c)).map(|k| k.3).collect();
            assert_eq!(ids, (0..n).collect::<Vec<_>>(), "{tag} {d:?}: sample ids of ({b}, {i}, {c})");
        }
    }
    // Every modelled block was read, and every non-zero rule was exercised.
    let blocks: BTreeSet<u32> = r.samples.iter().map(|s| s.block).collect();
    for b in [
        block::CPC,
        block::CPF,
        block::GRBM,
        block::SPI,
        block::SQ,
        block::TA,
        block::TCA,
        block::TCC,
        block::TCP,
        block::TD,
    ] {
        assert!(blocks.contains(&b), "block {b} never read");
    }
    for (b, c) in [
        (block::GRBM, 0),
        (block::GRBM, 2),
        (block::SQ, 4),
        (block::SQ, 34),
        (block::SQ, 71),
        (block::SQ, 85),
        (block::TA, 15),
        (block::TA, 102),
        (block::TCC, 29),
    ] {
        assert!(r.samples.iter().any(|s| s.block == b && s.counter == c && s.value > 0), "({b}, {c}) never counted");
    }
}

#[test]
fn sq_waves_split_over_shader_engines_by_work_group() {
    let r = the_run();
    // Shape 1: 1000 work-items in groups of 64 = 16 groups of one wave, 4 per engine;
    // shape 4: 100 in groups of 30 = 4 groups, one per engine; shape 0: one group, engine 0.
    let waves = |d: u64| -> Vec<u64> { (0..4).map(|se| r.profile("pass0", &[d])[&(block::SQ, 0, 4, se)]).collect() };
    assert_eq!(waves(1), [4, 4, 4, 4]);
    assert_eq!(waves(4), [1, 1, 1, 1]);
    assert_eq!(waves(0), [1, 0, 0, 0]);
    // 3-D shape 3: 4 x 4 x 15 = 240 groups of 128 items, 2 waves each.
    assert_eq!(waves(3).iter().sum::<u64>(), 480);
}

#[test]
fn a_read_packet_gives_the_counts_so_far_and_the_stop_the_total() {
    let r = the_run();
    let read = r.profile("read", &[1]);
    let total = r.profile("readstop", &[1, 2]);
    assert!(!read.is_empty() && read.len() == total.len());
    let key = (block::SQ, 0, 4, 0);
    assert_eq!(read[&key], r.profile("pass0", &[1])[&key], "the read holds dispatch 1 alone");
    assert_eq!(total[&key], r.profile("pass0", &[1])[&key] + r.profile("pass0", &[2])[&key], "the stop holds both");
}

#[test]
fn legacy_intercepted_and_threaded_profiles_get_their_own_dispatchs_values() {
    let r = the_run();
    // The same events and dispatch profiled other ways read the same.
    let plain = |d: u64| r.profile("pass0", &[d]);
    assert_eq!(r.profile("legacy", &[3]), plain(3));
    for d in [4, 0, 2] {
        assert_eq!(r.profile("intercept", &[d]), plain(d), "intercepted dispatch of shape {d}");
    }
    // Three threads on three queues at once, four rounds each.
    for (t, d) in [(0, 0), (1, 2), (2, 3)] {
        for round in 0..4 {
            assert_eq!(r.profile(&format!("thread{t}-{round}"), &[d]), plain(d), "thread {t} round {round}");
        }
    }
}

#[test]
fn dispatches_last_at_least_their_nominal_duration() {
    let r = the_run();
    let times: Vec<(u64, u64)> =
        r.lines("client: time ").map(|l| (number(l, "dispatch").unwrap(), number(l, "ns").unwrap())).collect();
    assert_eq!(times.len(), 18);
    for (d, ns) in times {
        let t = r.shapes[d as usize].nominal_ns();
        assert!(ns >= t, "dispatch of shape {d}: {ns} ns between begin and end, nominal {t} ns");
    }
    // The largest shape runs into the cap.
    assert_eq!(r.shapes[5].nominal_ns(), 1_000_000);
}

#[test]
fn aqlprofile_can_be_made_absent() {
    let dir = scratch("hsa-aqlprofile-absent");
    let mut c = client(&dir);
    c.env("CLTAP_HSA_DOUBLE_AQLPROFILE", "0");
    let o = run(c);
    assert_passed(&o);
    assert!(o.stdout.contains("client: aqlprofile absent\n"), "{}", o.stdout);
    assert!(!o.stdout.contains("client: pmc "), "{}", o.stdout);
}
