//! The performance-counter model of the emulated gfx906: which blocks exist (instances and counter
//! slots), which events are valid, and what each counter reads after a dispatch. The SQ counters of
//! waves and instructions are what the shader core ran, per shader engine (`gfx906::Counts`);
//! the SQ cycle counters are those counts times a fixed cost. Counters that would need a timing or
//! cache model are an INVENTED model — deterministic functions of the dispatch packet's shape,
//! chosen so that a test can compute every derived metric by hand (the model of cltap's retired
//! HSA test double), not what a GPU would count. Event ids are gfx9's, as in rocprofiler's metrics
//! files.

use cltap::hsa::packet::KernelDispatch;
use gfx906::Counts;

/// `hsa_ven_amd_aqlprofile_block_name_t` values of the modelled blocks.
pub mod block {
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

/// Counter ids of every modelled block are below this (gfx906's TCC has EA1 events from 256).
pub const COUNTER_LIMIT: u32 = 512;
/// SQ counters give one sample per shader engine, as on gfx9.
pub const SHADER_ENGINES: u32 = 4;
/// GRBM_COUNT ticks at the GPU's maximum engine clock.
const CLOCK_MHZ: u64 = 1725;
/// Cycles a VALU instruction keeps a SIMD busy: 64 lanes on 16 ALUs.
const VALU_CYCLES: u64 = 4;
/// GRBM_GUI_ACTIVE lags GRBM_COUNT by this many cycles.
const GUI_IDLE_CYCLES: u64 = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    pub id: u32,
    pub name: &'static str,
    pub instances: u32,
    /// Counters one instance counts at once.
    pub slots: u32,
    /// One sample per shader engine.
    pub per_se: bool,
}

const BLOCKS: [Block; 10] = [
    Block { id: block::GRBM, name: "GRBM", instances: 1, slots: 2, per_se: false },
    Block { id: block::SQ, name: "SQ", instances: 1, slots: 8, per_se: true },
    Block { id: block::TA, name: "TA", instances: 16, slots: 2, per_se: false },
    Block { id: block::TD, name: "TD", instances: 16, slots: 2, per_se: false },
    Block { id: block::TCP, name: "TCP", instances: 16, slots: 4, per_se: false },
    Block { id: block::TCC, name: "TCC", instances: 16, slots: 4, per_se: false },
    Block { id: block::TCA, name: "TCA", instances: 2, slots: 4, per_se: false },
    Block { id: block::SPI, name: "SPI", instances: 1, slots: 4, per_se: false },
    Block { id: block::CPC, name: "CPC", instances: 1, slots: 2, per_se: false },
    Block { id: block::CPF, name: "CPF", instances: 1, slots: 2, per_se: false },
];

/// `hsa_ven_amd_aqlprofile_event_t`: (block, instance, counter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    pub block: u32,
    pub index: u32,
    pub counter: u32,
}

pub fn block(id: u32) -> Option<&'static Block> {
    BLOCKS.iter().find(|b| b.id == id)
}

pub fn block_named(name: &str) -> Option<&'static Block> {
    BLOCKS.iter().find(|b| b.name == name)
}

/// None when the event is valid on the emulated gfx906, else why not.
pub fn problem(e: &Event) -> Option<&'static str> {
    let Some(b) = block(e.block) else {
        return Some("block not modelled on the emulated gfx906");
    };
    if e.index >= b.instances {
        return Some("block index not below the block's instance count");
    }
    (e.counter >= COUNTER_LIMIT).then_some("counter id not below 512")
}

/// Samples a valid event delivers: one, or one per shader engine.
pub fn samples(e: &Event) -> u32 {
    if block(e.block).is_some_and(|b| b.per_se) {
        SHADER_ENGINES
    } else {
        1
    }
}

pub fn sample_count(events: &[Event]) -> u32 {
    events.iter().map(samples).sum()
}

/// What a dispatch "did", from its packet alone (the dimensions its setup names; a work-group size
/// of 0 counts as 1; products saturate):
/// WI = product of the grid sizes, WG = product of ceil(grid / work-group), WGS = product of the
/// work-group sizes, W = WG × ceil(WGS / 64), T = min(2000 + WI / 16, 1000000) ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub work_items: u64,
    pub workgroups: u64,
    pub waves_per_group: u64,
    pub waves: u64,
    pub nominal_ns: u64,
    pub group_segment_size: u32,
}

impl Shape {
    pub fn of(d: &KernelDispatch) -> Shape {
        let dims = d.dimensions().clamp(1, 3) as usize;
        let (mut items, mut groups, mut group_size) = (1u64, 1u64, 1u64);
        for i in 0..dims {
            let w = u64::from(d.workgroup_size[i].max(1));
            let g = u64::from(d.grid_size[i]);
            items = items.saturating_mul(g);
            groups = groups.saturating_mul(g.div_ceil(w));
            group_size = group_size.saturating_mul(w);
        }
        let waves_per_group = group_size.div_ceil(64);
        Shape {
            work_items: items,
            workgroups: groups,
            waves_per_group,
            waves: groups.saturating_mul(waves_per_group),
            nominal_ns: (2000 + items / 16).min(1_000_000),
            group_segment_size: d.group_segment_size,
        }
    }
}

/// Instance `i`'s part of `total` spread over `n`: equal parts, the remainder one each to the lowest.
fn share(total: u64, i: u32, n: u32) -> u64 {
    total / u64::from(n) + u64::from(u64::from(i) < total % u64::from(n))
}

/// A dispatch as the counters see it: its packet's shape and what each shader engine ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dispatched {
    pub shape: Shape,
    pub engines: [Counts; SHADER_ENGINES as usize],
}

fn grbm_count(s: &Shape) -> u64 {
    s.nominal_ns * CLOCK_MHZ / 1000
}

/// Shader engine `se`'s sample of SQ counter `counter` (work-group g runs on engine g % 4).
fn sq_value(counter: u32, se: u32, engines: &[Counts; SHADER_ENGINES as usize]) -> u64 {
    let Some(c) = engines.get(se as usize) else { return 0 };
    match counter {
        4 => c.waves,               // SQ_WAVES
        26 => c.valu,               // SQ_INSTS_VALU
        27 => c.vmem_wr,            // SQ_INSTS_VMEM_WR
        28 => c.vmem_rd,            // SQ_INSTS_VMEM_RD
        30 => c.salu,               // SQ_INSTS_SALU
        31 => c.smem,               // SQ_INSTS_SMEM
        32 => c.flat,               // SQ_INSTS_FLAT
        34 => c.lds,                // SQ_INSTS_LDS
        35 => c.gds,                // SQ_INSTS_GDS
        71 => VALU_CYCLES * c.valu, // SQ_ACTIVE_INST_VALU
        // SQ_THREAD_CYCLES_VALU: cycles times active lanes, every lane counted active.
        85 => VALU_CYCLES * 64 * c.valu,
        _ => 0,
    }
}

/// What one dispatch adds to sample `sample` of a valid event.
pub fn value(e: &Event, sample: u32, d: &Dispatched) -> u64 {
    let n = block(e.block).map_or(1, |b| b.instances);
    let s = &d.shape;
    match (e.block, e.counter) {
        (block::GRBM, 0) => grbm_count(s),
        (block::GRBM, 2) => grbm_count(s).saturating_sub(GUI_IDLE_CYCLES),
        (block::SQ, c) => sq_value(c, sample, &d.engines),
        // TA_TA_BUSY: busy half the time on as many instances as there are work-groups.
        (block::TA, 15) if u64::from(e.index) < s.workgroups => grbm_count(s) / 2,
        (block::TA, 101) => share(2 * s.waves, e.index, n), // TA_FLAT_READ_WAVEFRONTS
        (block::TA, 102) => share(s.waves, e.index, n),     // TA_FLAT_WRITE_WAVEFRONTS
        (block::TCC, 20) => share(s.work_items / 4, e.index, n), // TCC_HIT
        (block::TCC, 22) => share(s.work_items / 16, e.index, n), // TCC_MISS
        (block::TCC, 41) => share(s.work_items / 16, e.index, n), // TCC_EA_RDREQ
        (block::TCC, 29) => share(s.work_items / 64, e.index, n), // TCC_EA_WRREQ
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(grid: u32, wg: u16) -> Shape {
        let d = KernelDispatch { setup: 1, workgroup_size: [wg, 1, 1], grid_size: [grid, 1, 1], ..Default::default() };
        Shape::of(&d)
    }

    #[test]
    fn the_shape_follows_the_packet() {
        let s = shape(1000, 64);
        assert_eq!((s.work_items, s.workgroups, s.waves_per_group, s.waves), (1000, 16, 1, 16));
        assert_eq!(s.nominal_ns, 2000 + 1000 / 16);
    }

    /// What the shader core might report: engine `se` ran `waves[se]` waves of 3 VALU, 2 SALU,
    /// 1 VMEM read and (engine 2 only) 5 LDS instructions each.
    fn dispatched(s: Shape, waves: [u64; 4]) -> Dispatched {
        let engines = std::array::from_fn(|se| Counts {
            waves: waves[se],
            valu: 3 * waves[se],
            salu: 2 * waves[se],
            vmem_rd: waves[se],
            lds: if se == 2 { 5 * waves[se] } else { 0 },
            ..Default::default()
        });
        Dispatched { shape: s, engines }
    }

    #[test]
    fn sq_counters_read_the_engines_counts() {
        let d = dispatched(shape(1000, 64), [4, 4, 4, 3]);
        let sq = |counter: u32, se: u32| value(&Event { block: block::SQ, index: 0, counter }, se, &d);
        let per_engine = |counter: u32| (0..4).map(|se| sq(counter, se)).collect::<Vec<_>>();
        assert_eq!(per_engine(4), [4, 4, 4, 3]);
        assert_eq!(per_engine(26), [12, 12, 12, 9]);
        assert_eq!(per_engine(30), [8, 8, 8, 6]);
        assert_eq!(per_engine(28), [4, 4, 4, 3]);
        assert_eq!(per_engine(27), [0, 0, 0, 0]);
        assert_eq!(per_engine(34), [0, 0, 20, 0]);
        assert_eq!(per_engine(71), [48, 48, 48, 36]);
        assert_eq!(per_engine(85), [12 * 256, 12 * 256, 12 * 256, 9 * 256]);
        assert_eq!(sq(4, 4), 0, "no fifth engine");
    }

    #[test]
    fn values_spread_over_engines_and_instances() {
        let s = shape(1000, 64);
        let d = dispatched(s, [4, 4, 4, 4]);
        let hits: u64 = (0..16).map(|i| value(&Event { block: block::TCC, index: i, counter: 20 }, 0, &d)).sum();
        assert_eq!(hits, 250);
        let grbm = value(&Event { block: block::GRBM, index: 0, counter: 0 }, 0, &d);
        assert_eq!(grbm, (2000 + 62) * 1725 / 1000);
        assert_eq!(
            problem(&Event { block: 99, index: 0, counter: 0 }),
            Some("block not modelled on the emulated gfx906")
        );
        assert!(problem(&Event { block: block::TA, index: 16, counter: 0 }).is_some());
        assert_eq!(
            sample_count(&[
                Event { block: block::SQ, index: 0, counter: 4 },
                Event { block: block::TA, index: 0, counter: 15 }
            ]),
            5
        );
    }
}
