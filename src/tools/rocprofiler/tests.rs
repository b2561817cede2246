//! The v1 API's logic without a runtime: contexts planned on the shipped
//! metrics file with gfx906's block counts, values handed in as the
//! counter backend would hand them, errors and info.

use super::abi::{self, status, Data, Feature, Group, Properties};
use super::collect::Collection;
use super::context::Context;
use super::error::{self, RocpError};
use super::info::InfoTable;
use super::registry;
use crate::hsa::aqlprofile;
use crate::metrics::{gfx9_defaults, Block, BlockInfo, Catalog, Consts, Event};
use std::collections::BTreeMap;
use std::ffi::{c_void, CStr, CString};
use std::sync::Arc;

fn catalog(blocks: &dyn BlockInfo) -> Catalog {
    Catalog::load(None, "gfx906", blocks).unwrap()
}

const CONSTS: Consts = Consts { cu_num: 60, simd_num: 240, se_num: 4, xcc_num: 1, max_wave_size: 64 };

/// Features named `names`, with the names kept alive beside them.
struct Features {
    _names: Vec<CString>,
    f: Vec<Feature>,
}

fn features(names: &[&str]) -> Features {
    let names: Vec<CString> = names.iter().map(|n| CString::new(*n).unwrap()).collect();
    let f = names.iter().map(|n| Feature::metric(n.as_ptr())).collect();
    Features { _names: names, f }
}

fn open(cat: &Catalog, fs: &mut Features, mode: u32, props: Option<&Properties>) -> Result<Context, RocpError> {
    // SAFETY: the features and their names live in `fs`, which outlives the context in each test.
    unsafe { Context::open(cat, CONSTS, 0x1000, fs.f.as_mut_ptr(), fs.f.len() as u32, mode, props) }
}

fn ev(block: Block, instance: u32, id: u32) -> aqlprofile::Event {
    Event { block, instance, id }.to_aql()
}

fn int(d: &Data) -> u64 {
    assert_eq!(d.kind, abi::DATA_KIND_INT64, "{d:?}");
    unsafe { d.value.result_int64 }
}

fn double(d: &Data) -> f64 {
    assert_eq!(d.kind, abi::DATA_KIND_DOUBLE, "{d:?}");
    unsafe { d.value.result_double }
}

fn names_of(g: &Group) -> Vec<String> {
    (0..g.feature_count as usize)
        .map(|i| unsafe { CStr::from_ptr((**g.features.add(i)).u.name) }.to_string_lossy().into_owned())
        .collect()
}

#[test]
fn a_counter_and_a_derived_metric_in_one_group_get_int64_and_double() {
    let cat = catalog(&gfx9_defaults());
    let mut fs = features(&["SQ_WAVES", "GPUBusy", "TCC_HIT"]);
    let ctx = open(&cat, &mut fs, 0, None).unwrap();
    assert_eq!(ctx.group_count(), 1);
    let g = ctx.group(0).unwrap();
    assert_eq!(names_of(&g), ["SQ_WAVES", "GPUBusy", "TCC_HIT"]);
    assert_eq!(g.context, &ctx as *const Context as *mut c_void);
    let events = ctx.events(0).unwrap();
    // SQ_WAVES, GRBM_COUNT, GRBM_GUI_ACTIVE, and TCC_HIT on each of 16 TCC instances.
    assert_eq!(events.len(), 3 + 16);
    assert!(
        events.contains(&ev(Block::SQ, 0, 4))
            && events.contains(&ev(Block::GRBM, 0, 0))
            && events.contains(&ev(Block::TCC, 15, 20))
    );

    let mut values: BTreeMap<aqlprofile::Event, u64> = BTreeMap::new();
    values.insert(ev(Block::SQ, 0, 4), 40);
    values.insert(ev(Block::GRBM, 0, 0), 4000);
    values.insert(ev(Block::GRBM, 0, 2), 3000);
    for i in 0..16 {
        values.insert(ev(Block::TCC, i, 20), 10 + i as u64);
    }
    assert!(!ctx.finish(0, &values), "no handler: nothing to call");
    ctx.get_data(0, false).unwrap();
    assert_eq!(int(&fs.f[0].data), 40);
    assert_eq!(double(&fs.f[1].data), 75.0);
    assert_eq!(int(&fs.f[2].data), (10..26).sum::<u64>());
    ctx.get_metrics().unwrap();
}

/// rocprofiler's own tool (`test/tool/tool.cpp` at rocm-5.2.3) gives every
/// context the same features array and reads it under its own lock: only
/// the tool's `get_data`/`get_metrics` may write it. Writing it when a
/// context opened or its values arrived (on the runtime's threads) made the
/// tool read `ROCPROFILER_DATA_KIND_UNINIT` for another context and abort.
#[test]
fn contexts_sharing_one_features_array_write_it_only_when_the_tool_asks() {
    let cat = catalog(&gfx9_defaults());
    let mut fs = features(&["SQ_WAVES"]);
    let a = open(&cat, &mut fs, 0, None).unwrap();
    a.finish(0, &BTreeMap::from([(ev(Block::SQ, 0, 4), 40u64)]));
    a.get_data(0, false).unwrap();
    assert_eq!(int(&fs.f[0].data), 40);

    let b = open(&cat, &mut fs, 0, None).unwrap();
    assert_eq!(int(&fs.f[0].data), 40, "opening another context left the tool's array alone");
    b.finish(0, &BTreeMap::from([(ev(Block::SQ, 0, 4), 7u64)]));
    assert_eq!(int(&fs.f[0].data), 40, "another context's values wait for the tool's get_data");
    a.get_metrics().unwrap();
    assert_eq!(int(&fs.f[0].data), 40, "a's own values, read again");
    b.get_data(0, false).unwrap();
    assert_eq!(int(&fs.f[0].data), 7);
}

#[test]
fn features_spread_over_groups_wait_for_all_of_them() {
    // One SQ slot: SQ_WAVES and SQ_INSTS_VALU cannot share a pass.
    let cat = catalog(&gfx9_defaults().with(Block::SQ, 1, 1));
    let mut fs = features(&["VALUInsts", "SQ_WAVES"]);
    let ctx = open(&cat, &mut fs, 0, None).unwrap();
    assert_eq!(ctx.group_count(), 2);
    let in_groups: Vec<Vec<String>> = (0..2).map(|g| names_of(&ctx.group(g).unwrap())).collect();
    assert!(
        in_groups.iter().all(|n| !n.contains(&"VALUInsts".to_string())),
        "a spread feature is in no group: {in_groups:?}"
    );
    assert_eq!(in_groups.concat(), ["SQ_WAVES"]);
    let wave_group = in_groups.iter().position(|n| !n.is_empty()).unwrap() as u32;
    let other = 1 - wave_group;

    let wave = BTreeMap::from([(ev(Block::SQ, 0, 4), 10u64)]);
    let valu = BTreeMap::from([(ev(Block::SQ, 0, 26), 120u64)]);
    assert!(matches!(ctx.get_data(other, true), Err(RocpError::NotCollected(g)) if g == other));
    ctx.finish(wave_group, &wave);
    ctx.get_data(wave_group, false).unwrap();
    assert_eq!(int(&fs.f[1].data), 10);
    assert_eq!(fs.f[0].data.kind, abi::DATA_KIND_UNINIT);
    match ctx.get_metrics() {
        Err(RocpError::Incomplete { name, groups }) => {
            assert_eq!((name.as_str(), groups), ("VALUInsts", vec![other as usize]))
        }
        r => panic!("{r:?}"),
    }
    ctx.finish(other, &valu);
    ctx.get_metrics().unwrap();
    assert_eq!(double(&fs.f[0].data), 12.0);

    ctx.reset(other).unwrap();
    assert!(matches!(ctx.get_data(other, true), Err(RocpError::NotCollected(_))));
    assert!(matches!(ctx.group(2), Err(RocpError::BadGroup { index: 2, count: 2 })));

    let mut fs2 = features(&["VALUInsts", "SQ_WAVES"]);
    let e = open(&cat, &mut fs2, abi::MODE_SINGLEGROUP, None).unwrap_err();
    assert!(matches!(e, RocpError::SingleGroup(2)), "{e}");
    assert_eq!(e.status(), status::ERROR);
}

#[test]
fn what_open_refuses() {
    let cat = catalog(&gfx9_defaults());
    let mut unknown = features(&["SQ_WAVES", "SQ_WAVEZ"]);
    let e = open(&cat, &mut unknown, 0, None).unwrap_err();
    assert_eq!(e.status(), status::ERROR);
    assert!(e.to_string().contains("unknown metric 'SQ_WAVEZ'") && e.to_string().contains("SQ_WAVES"), "{e}");

    let mut dup = features(&["GPUBusy", "GPUBusy"]);
    assert!(matches!(open(&cat, &mut dup, 0, None), Err(RocpError::Duplicate(n)) if n == "GPUBusy"));

    let mut trace = features(&["SQ_WAVES"]);
    trace.f[0].kind = abi::FEATURE_KIND_TRACE;
    let e = open(&cat, &mut trace, 0, None).unwrap_err();
    assert!(matches!(&e, RocpError::TraceUnsupported(n) if n == "SQ_WAVES"), "{e}");

    let mut ok = features(&["SQ_WAVES"]);
    for mode in [abi::MODE_STANDALONE, abi::MODE_STANDALONE | abi::MODE_CREATEQUEUE] {
        let e = open(&cat, &mut ok, mode, None).unwrap_err();
        assert!(matches!(e, RocpError::StandaloneMode(m) if m == mode));
    }

    let mut unnamed = features(&["SQ_WAVES"]);
    unnamed.f[0].u.name = std::ptr::null();
    assert_eq!(open(&cat, &mut unnamed, 0, None).unwrap_err().status(), status::INVALID_ARGUMENT);

    // No features: one empty group, as v1.
    let mut none = features(&[]);
    let ctx = open(&cat, &mut none, 0, None).unwrap();
    assert_eq!((ctx.group_count(), ctx.group(0).unwrap().feature_count, ctx.events(0).unwrap().len()), (1, 0, 0));
}

static HANDLED: parking_lot::Mutex<Vec<(u32, u32, usize)>> = parking_lot::Mutex::new(Vec::new());

/// # Safety
/// Called by the context with its group and the `arg` the test gave it.
unsafe extern "C" fn handler(g: Group, arg: *mut c_void) -> bool {
    // SAFETY: the group's features are the context's, live while it is open (# Safety).
    let f = unsafe { &**g.features };
    HANDLED.lock().push((g.index, f.data.kind, arg as usize));
    false
}

#[test]
fn a_collection_calls_the_handler_whose_get_data_fills_the_features_or_unpends_when_dropped() {
    let cat = catalog(&gfx9_defaults());
    let mut fs = features(&["SQ_WAVES"]);
    let props = Properties {
        queue: std::ptr::null_mut(),
        queue_depth: 0,
        handler: Some(handler),
        handler_arg: 0x5a5a as *mut c_void,
    };
    let ctx = Arc::new(open(&cat, &mut fs, 0, Some(&props)).unwrap());

    let (c, events) = Collection::start(ctx.clone(), 0).unwrap();
    assert_eq!(events, [ev(Block::SQ, 0, 4)]);
    assert!(
        matches!(ctx.get_data(0, false), Err(RocpError::WouldBlock(0))),
        "pending: a dispatch callback must not wait"
    );
    c.finish(&BTreeMap::from([(ev(Block::SQ, 0, 4), 7u64)]));
    assert_eq!(
        HANDLED.lock().as_slice(),
        [(0, abi::DATA_KIND_UNINIT, 0x5a5a)],
        "as in 5.2.3, the handler is called before anything is written: its get_data writes"
    );
    ctx.get_data(0, false).unwrap();
    assert_eq!(int(&fs.f[0].data), 7);

    // A dispatch that is not counted after all: get_data answers at once.
    let (c, _) = Collection::start(ctx.clone(), 0).unwrap();
    drop(c);
    ctx.get_data(0, false).unwrap();

    // Values of a closed context go nowhere; the handler is not called.
    let (c, _) = Collection::start(ctx.clone(), 0).unwrap();
    ctx.close();
    c.finish(&BTreeMap::from([(ev(Block::SQ, 0, 4), 99u64)]));
    assert_eq!(HANDLED.lock().len(), 1);
    assert_eq!(int(&fs.f[0].data), 7);
    assert!(Collection::start(ctx, 5).is_err());
}

/// At the end of the process, a tool's `OnUnloadTool` waiting in
/// `get_data` for a dispatch that never came back gets an error once cltap
/// stops waiting (its 5 s are up), instead of holding the exit for ever.
#[test]
fn a_wait_for_a_dispatch_still_running_at_the_end_stops_with_an_error() {
    let cat = catalog(&gfx9_defaults());
    let mut fs = features(&["SQ_WAVES"]);
    let ctx = Arc::new(open(&cat, &mut fs, 0, None).unwrap());
    let (c, _) = Collection::start(ctx.clone(), 0).unwrap();
    let waiter = {
        let ctx = ctx.clone();
        std::thread::spawn(move || ctx.get_data(0, true))
    };
    // Whether the waiter is already waiting or not yet: it must come back.
    ctx.stop_waiting();
    assert!(matches!(waiter.join().unwrap(), Err(RocpError::LostAtExit(0))));
    // A dispatch that does come back later is still read.
    c.finish(&BTreeMap::from([(ev(Block::SQ, 0, 4), 3u64)]));
    ctx.get_data(0, true).unwrap();
    assert_eq!(int(&fs.f[0].data), 3);
}

#[test]
fn contexts_are_looked_up_closed_once_and_freed_at_the_end() {
    let cat = catalog(&gfx9_defaults());
    let mut fs = features(&["SQ_WAVES"]);
    let before = registry::open_count();
    let (h, ctx) = registry::insert(open(&cat, &mut fs, 0, None).unwrap());
    assert_eq!(h, ctx.group(0).unwrap().context as usize, "the handle is the group's context");
    assert!(Arc::ptr_eq(&registry::get(h).unwrap(), &ctx));
    assert!(matches!(registry::get(h + 8), Err(RocpError::BadContext(_))));
    assert!(matches!(registry::get(0), Err(RocpError::Null(_))));
    registry::close(h).unwrap();
    assert!(ctx.is_closed());
    assert!(matches!(registry::close(h), Err(RocpError::BadContext(x)) if x == h), "a second close is an error");
    registry::close(0).unwrap();

    let (h2, c2) = registry::insert(open(&cat, &mut fs, 0, None).unwrap());
    assert!(registry::open_count() > before);
    assert!(registry::free_all() >= 1);
    assert!(c2.is_closed() && registry::get(h2).is_err());
    assert_eq!(registry::open_count(), 0);
}

#[test]
fn the_last_failure_is_per_thread_and_survives_success() {
    std::thread::spawn(|| {
        assert_eq!(error::last_status(), status::SUCCESS);
        assert_eq!(unsafe { CStr::from_ptr(error::last_message()) }.to_bytes(), b"");
        let s = error::answer("rocprofiler_start", Err(RocpError::Sampling));
        assert_eq!((s, error::last_status()), (status::ERROR, status::ERROR));
        let msg = unsafe { CStr::from_ptr(error::last_message()) }.to_string_lossy().into_owned();
        assert!(msg.starts_with("rocprofiler_start(), standalone sampling"), "{msg}");
        assert_eq!(error::answer("rocprofiler_close", Ok(())), status::SUCCESS);
        assert_eq!(error::last_status(), status::ERROR, "success does not clear it");
        std::thread::spawn(|| assert_eq!(error::last_status(), status::SUCCESS)).join().unwrap();
        // rocprofiler 5.2.3 answers a bad group index with HSA_STATUS_ERROR.
        error::fail("rocprofiler_get_group", &RocpError::BadGroup { index: 3, count: 1 });
        assert_eq!(error::last_status(), status::ERROR);
        error::fail("rocprofiler_get_group", &RocpError::BadContext(8));
        assert_eq!(error::last_status(), status::INVALID_ARGUMENT);
    })
    .join()
    .unwrap();
}

#[test]
fn info_lists_the_catalogs_metrics() {
    let cat = catalog(&gfx9_defaults());
    let t = InfoTable::new(&cat);
    assert_eq!(t.len(), cat.iter().count());
    let mut seen = Vec::new();
    t.iterate(2, |d| {
        assert_eq!((d.agent_index, d.kind), (2, abi::INFO_KIND_METRIC));
        let m = unsafe { d.u.metric };
        let s = |p: *const std::ffi::c_char| {
            (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
        };
        seen.push((
            s(m.name).unwrap(),
            s(m.expr),
            s(m.block_name),
            m.instances,
            m.block_counters,
            s(m.description).unwrap(),
        ));
        status::SUCCESS
    })
    .unwrap();
    let find = |n: &str| seen.iter().find(|x| x.0 == n).unwrap().clone();
    let waves = find("SQ_WAVES");
    assert_eq!((waves.1, waves.2.as_deref(), waves.3, waves.4), (None, Some("SQ"), 1, 8));
    assert_eq!(waves.5, "Wavefronts sent to the sequencers.");
    let hit = find("TCC_HIT");
    assert_eq!((hit.2.as_deref(), hit.3, hit.4), (Some("TCC"), 16, 4));
    let busy = find("GPUBusy");
    assert_eq!((busy.1.as_deref(), busy.2, busy.3), (Some("100*GRBM_GUI_ACTIVE/GRBM_COUNT"), None, 1));

    let mut n = 0;
    t.iterate(0, |_| {
        n += 1;
        if n == 3 {
            status::INFO_BREAK
        } else {
            status::SUCCESS
        }
    })
    .unwrap();
    assert_eq!(n, 3, "INFO_BREAK stops the walk, successfully");
    let e = t.iterate(0, |_| status::INVALID_ARGUMENT).unwrap_err();
    assert_eq!(e.status(), status::INVALID_ARGUMENT, "the callback's failure is the walk's");

    let d = t.find(&cat, "GPUBusy", 0).unwrap();
    assert_eq!(unsafe { CStr::from_ptr(d.u.metric.name) }.to_bytes(), b"GPUBusy");
    let e = t.find(&cat, "GPUBusyy", 0).unwrap_err();
    assert_eq!(e.status(), status::ERROR);
    assert!(e.to_string().contains("unknown metric 'GPUBusyy'") && e.to_string().contains("GPUBusy'"), "{e}");
    assert!(t.find(&cat, "TCC_HIT[3]", 0).is_err());
}

#[test]
fn the_layout_names_every_structure() {
    let l = abi::layout();
    for s in [
        "rocprofiler_feature_t",
        "rocprofiler_data_t",
        "rocprofiler_callback_data_t",
        "rocprofiler_properties_t",
        "rocprofiler_info_data_t",
        "rocprofiler_queue_callbacks_t",
        "rocprofiler_group_t",
        "rocprofiler_settings_t",
    ] {
        assert!(l.iter().any(|(n, _)| n == s), "{s}");
    }
    assert_eq!(l.iter().find(|(n, _)| n == "rocprofiler_callback_data_t.record").unwrap().1, 88);
}
