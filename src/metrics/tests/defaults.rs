//! The shipped `metrics/gfx9.xml`: it loads for every GPU it is for, without
//! warnings, with the counter ids of rocprofiler's gfx_metrics.xml.

use crate::metrics::{gfx9_defaults, gfx9_defaults_for, Block, Catalog, Consts, Event, MetricKind};
use std::collections::HashMap;

fn default_for(gpu: &str) -> Catalog {
    Catalog::load(None, gpu, &gfx9_defaults_for(gpu)).unwrap_or_else(|e| panic!("{gpu}: {e}"))
}

fn id(cat: &Catalog, name: &str) -> (Block, u32) {
    let c = cat.metric(name).and_then(|m| m.counter()).unwrap_or_else(|| panic!("{}: no counter {name}", cat.gpu()));
    (c.block, c.event)
}

#[test]
fn gfx9_ids() {
    use Block::*;
    let cat = default_for("gfx900");
    assert_eq!(cat.section(), "gfx9");
    let want = [
        ("GRBM_COUNT", GRBM, 0),
        ("GRBM_GUI_ACTIVE", GRBM, 2),
        ("SQ_WAVES", SQ, 4),
        ("SQ_INSTS_VALU", SQ, 26),
        ("SQ_INSTS_VMEM_WR", SQ, 27),
        ("SQ_INSTS_VMEM_RD", SQ, 28),
        ("SQ_INSTS_SALU", SQ, 30),
        ("SQ_INSTS_SMEM", SQ, 31),
        ("SQ_INSTS_FLAT", SQ, 32),
        ("SQ_INSTS_LDS", SQ, 34),
        ("SQ_INSTS_GDS", SQ, 35),
        ("SQ_WAIT_INST_LDS", SQ, 63),
        ("SQ_ACTIVE_INST_VALU", SQ, 71),
        ("SQ_INST_CYCLES_SALU", SQ, 84),
        ("SQ_THREAD_CYCLES_VALU", SQ, 85),
        ("SQ_LDS_BANK_CONFLICT", SQ, 93),
        ("TA_TA_BUSY", TA, 15),
        ("TA_FLAT_READ_WAVEFRONTS", TA, 101),
        ("TA_FLAT_WRITE_WAVEFRONTS", TA, 102),
        ("TCC_HIT", TCC, 20),
        ("TCC_MISS", TCC, 22),
        ("TCC_EA_WRREQ", TCC, 29),
        ("TCC_EA_WRREQ_64B", TCC, 30),
        ("TCC_EA_WRREQ_STALL", TCC, 33),
        ("TCC_EA_RDREQ", TCC, 41),
        ("TCC_EA_RDREQ_32B", TCC, 42),
        ("TCP_TCP_TA_DATA_STALL_CYCLES", TCP, 6),
    ];
    for (name, block, event) in want {
        assert_eq!(id(&cat, name), (block, event), "{name}");
    }
    assert!(cat.metric("TCC_EA1_RDREQ").is_none());
}

#[test]
fn per_gpu_ids() {
    let vega20 = default_for("gfx906:sramecc+:xnack-");
    assert_eq!(vega20.section(), "gfx906");
    assert_eq!(id(&vega20, "SQ_WAVES"), (Block::SQ, 4));
    for (name, event) in [
        ("TCC_EA1_WRREQ", 256),
        ("TCC_EA1_WRREQ_64B", 257),
        ("TCC_EA1_WRREQ_STALL", 260),
        ("TCC_EA1_RDREQ", 267),
        ("TCC_EA1_RDREQ_32B", 268),
    ] {
        assert_eq!(id(&vega20, name), (Block::TCC, event), "{name}");
    }
    let mi100 = default_for("gfx908");
    assert_eq!(id(&mi100, "TCC_HIT"), (Block::TCC, 17));
    assert_eq!(id(&mi100, "SQ_INSTS_SALU"), (Block::SQ, 31));
    assert_eq!(id(&mi100, "SQ_WAVES"), (Block::SQ, 4));
    assert_eq!(mi100.metric("TCC_HIT").unwrap().counter().unwrap().instances, 32);
    let mi200 = default_for("gfx90a");
    assert_eq!(id(&mi200, "SQ_INSTS_SALU"), (Block::SQ, 56));
    assert_eq!(id(&mi200, "SQ_LDS_BANK_CONFLICT"), (Block::SQ, 121));
    assert_eq!(id(&mi200, "TCC_EA_RDREQ"), (Block::TCC, 38), "inherited from gfx908");
    assert_eq!(id(&mi200, "TA_TA_BUSY"), (Block::TA, 15), "inherited from gfx9");
    // The TCC reductions of gfx908/gfx90a cover 32 channels.
    assert_eq!(mi200.events("TCC_HIT_sum").unwrap().len(), 32);
    assert_eq!(vega20.events("TCC_HIT_sum").unwrap().len(), 16);
}

#[test]
fn every_metric_resolves_and_evaluates_without_warnings() {
    let consts = Consts { cu_num: 60, simd_num: 240, se_num: 4, xcc_num: 1, max_wave_size: 64 };
    for gpu in ["gfx900", "gfx906", "gfx908", "gfx90a"] {
        let cat = default_for(gpu);
        assert!(cat.warnings().is_empty(), "{gpu}: {:?}", cat.warnings());
        let derived = cat.iter().filter(|m| matches!(m.kind, MetricKind::Derived(_))).count();
        assert!(derived >= 30, "{gpu}: {derived} derived metrics");
        for m in cat.iter() {
            let values: HashMap<Event, u64> = cat.events(&m.name).unwrap().into_iter().map(|e| (e, 7)).collect();
            let v = cat.evaluate(&m.name, &values, &consts);
            assert!(v.is_some_and(f64::is_finite), "{gpu} {}: {v:?}", m.name);
        }
        // Every global metric the brief names is there.
        for name in [
            "GPUBusy",
            "Wavefronts",
            "VALUInsts",
            "SALUInsts",
            "VFetchInsts",
            "VWriteInsts",
            "LDSInsts",
            "VALUUtilization",
            "VALUBusy",
            "SALUBusy",
            "L2CacheHit",
            "MemUnitBusy",
            "WriteSize",
            "FetchSize",
        ] {
            assert_eq!(cat.metric(name).map(|m| m.section.as_str()), Some("global"), "{gpu} {name}");
        }
    }
}

#[test]
fn known_values() {
    let cat = default_for("gfx906");
    let consts = Consts { cu_num: 60, simd_num: 240, se_num: 4, xcc_num: 1, max_wave_size: 64 };
    let mut values: HashMap<Event, u64> = HashMap::new();
    let mut set = |name: &str, v: u64| {
        for e in cat.events(name).unwrap() {
            values.insert(e, v);
        }
    };
    set("GRBM_GUI_ACTIVE", 1000);
    set("GRBM_COUNT", 4000);
    set("TCC_HIT", 3);
    set("TCC_MISS", 1);
    set("SQ_ACTIVE_INST_VALU", 30_000);
    set("SQ_THREAD_CYCLES_VALU", 960_000);
    assert_eq!(cat.evaluate("GPUBusy", &values, &consts), Some(25.0));
    assert_eq!(cat.evaluate("L2CacheHit", &values, &consts), Some(75.0));
    // 100 * 30000 * 4 / 240 / 1000
    assert_eq!(cat.evaluate("VALUBusy", &values, &consts), Some(50.0));
    // 100 * 960000 / (30000 * 64)
    assert_eq!(cat.evaluate("VALUUtilization", &values, &consts), Some(50.0));
    let plan = cat.plan(&["GPUBusy", "L2CacheHit", "VALUBusy", "VALUUtilization"]).unwrap();
    assert_eq!(plan.passes().len(), 1);
}

#[test]
fn instance_counts_written_in_the_file_must_fit_the_gpu() {
    // gfx908's sums cover 32 TCC channels; with gfx906's 16 the file is refused.
    let e = Catalog::load(None, "gfx908", &gfx9_defaults()).unwrap_err().to_string();
    assert!(e.starts_with("builtin:metrics/gfx9.xml:"), "{e}");
    assert!(e.ends_with("sum(TCC_HIT,32) needs 32 instances of TCC; gfx908 has 16"), "{e}");
}
