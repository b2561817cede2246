//! The pass planner: hand-made requests and the passes they need.

use crate::metrics::{gfx9_defaults, Block, BlockCounts, BlockInfo, Catalog, Consts, Event};
use std::collections::HashMap;
use std::path::Path;

/// Twelve SQ counters S0..S11, four TCC counters, two GRBM ones, and a few
/// derived metrics over them.
fn file() -> String {
    let mut s = String::from("<gfx9>\n");
    for i in 0..12 {
        s += &format!("  <metric name=S{i} block=SQ event={}></metric>\n", 10 + i);
    }
    for i in 0..5 {
        s += &format!("  <metric name=T{i} block=TCC event={}></metric>\n", 20 + i);
    }
    s += "  <metric name=G0 block=GRBM event=0></metric>\n  <metric name=G2 block=GRBM event=2></metric>\n";
    s += "  <metric name=NINE expr=S0+S1+S2+S3+S4+S5+S6+S7+S8></metric>\n";
    s += "  <metric name=FOUR expr=(S8+S9+S10+S11)/G0></metric>\n";
    s += "  <metric name=BUSY expr=100*G2/G0></metric>\n";
    s += "  <metric name=HIT expr=100*sum(T0,16)/(sum(T0,16)+sum(T1,16))></metric>\n";
    s += "</gfx9>\n";
    s
}

fn catalog() -> Catalog {
    Catalog::from_text("p.xml", &file(), Path::new("."), "gfx906", &gfx9_defaults()).unwrap()
}

fn names(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

#[test]
fn sq_slots_decide_the_pass_count() {
    let cat = catalog();
    // gfx906 defaults: SQ has 8 slots.
    assert_eq!(cat.plan(&names("S", 8)).unwrap().passes().len(), 1);
    let nine = cat.plan(&names("S", 9)).unwrap();
    assert_eq!(nine.passes().len(), 2);
    assert_eq!(nine.passes()[0].len() + nine.passes()[1].len(), 9);
    assert!(nine.passes().iter().all(|p| p.len() <= 8));
    assert_eq!(nine.split().count(), 0, "single counters are never split");
    assert_eq!(cat.plan(&names("S", 12)).unwrap().passes().len(), 2);
}

#[test]
fn every_instance_is_its_own_set_of_slots() {
    let cat = catalog();
    // A TCC counter takes one of the 4 slots on each of the 16 instances.
    let four = cat.plan(&names("T", 4)).unwrap();
    assert_eq!(four.passes().len(), 1);
    assert_eq!(four.passes()[0].len(), 64);
    assert_eq!(cat.plan(&names("T", 5)).unwrap().passes().len(), 2);
    // Single instances of one TCC channel fit together.
    let one_channel: Vec<String> = (0..4).map(|i| format!("T{i}[3]")).collect();
    let p = cat.plan(&one_channel).unwrap();
    assert_eq!(p.passes().len(), 1);
    assert!(p.passes()[0].iter().all(|e| e.block == Block::TCC && e.instance == 3));
    // Counters of different blocks do not compete.
    let mut mixed = names("S", 8);
    mixed.extend(names("T", 4));
    mixed.extend(["G0".to_string(), "G2".to_string()]);
    assert_eq!(cat.plan(&mixed).unwrap().passes().len(), 1);
}

#[test]
fn shared_events_are_collected_once() {
    let cat = catalog();
    let p = cat.plan(&["BUSY", "G0", "G2", "FOUR", "BUSY"]).unwrap();
    assert_eq!(p.requests().len(), 4, "the repeated name is planned once");
    assert_eq!(p.passes().len(), 1);
    let grbm: Vec<&Event> = p.passes()[0].iter().filter(|e| e.block == Block::GRBM).collect();
    assert_eq!(grbm.len(), 2);
    assert_eq!(p.requests()[0].events.len(), 2);
}

#[test]
fn a_derived_metric_stays_in_one_pass_when_it_can() {
    let cat = catalog();
    // Six single SQ counters asked first, then a metric of four more: the
    // metric is placed whole (largest first) and the singles fill around it.
    let mut req = vec!["S0", "S1", "S2", "S3", "S4", "S5"];
    req.push("FOUR");
    let p = cat.plan(&req).unwrap();
    assert_eq!(p.passes().len(), 2);
    let four = p.requests().iter().find(|r| r.name == "FOUR").unwrap();
    assert_eq!(four.passes.len(), 1);
    assert_eq!(p.split().count(), 0);
}

#[test]
fn too_big_for_one_pass_is_split_and_reported() {
    let cat = catalog();
    let p = cat.plan(&["NINE"]).unwrap();
    assert_eq!(p.passes().len(), 2);
    let split: Vec<&str> = p.split().map(|r| r.name.as_str()).collect();
    assert_eq!(split, ["NINE"]);
    assert_eq!(p.requests()[0].passes, [0, 1]);
    // Its value joins the counts of both passes.
    let mut values = HashMap::new();
    for pass in p.passes() {
        for e in pass {
            values.insert(*e, 2u64);
        }
    }
    assert_eq!(p.evaluate("NINE", &values, &Consts::default()), Some(18.0));
}

#[test]
fn the_plan_evaluates_what_it_collected() {
    let cat = catalog();
    let p = cat.plan(&["HIT", "BUSY"]).unwrap();
    assert_eq!(p.passes().len(), 1);
    let mut values = HashMap::new();
    for e in &p.passes()[0] {
        let v = match (e.block, e.id) {
            (Block::TCC, 20) => 3,
            (Block::TCC, 21) => 1,
            (Block::GRBM, 0) => 400,
            (Block::GRBM, 2) => 100,
            _ => 0,
        };
        values.insert(*e, v);
    }
    assert_eq!(p.evaluate("HIT", &values, &Consts::default()), Some(75.0));
    assert_eq!(p.evaluate("BUSY", &values, &Consts::default()), Some(25.0));
}

#[test]
fn slot_counts_come_from_the_provider() {
    let two_sq = |b: Block| match b {
        Block::SQ => Some(BlockCounts { instances: 1, slots: 2 }),
        _ => gfx9_defaults().counts(b),
    };
    let cat = Catalog::from_text("p.xml", &file(), Path::new("."), "gfx906", &two_sq).unwrap();
    assert_eq!(cat.plan(&names("S", 5)).unwrap().passes().len(), 3);
}

#[test]
fn unknown_and_bad_requests() {
    let cat = catalog();
    let e = |names: &[&str]| cat.plan(names).unwrap_err().to_string();
    assert_eq!(e(&["BUSY", "BUSI"]), "unknown metric 'BUSI' (did you mean 'BUSY'?)");
    assert_eq!(e(&["ZZZZZZZZZZ"]), "unknown metric 'ZZZZZZZZZZ'");
    assert_eq!(e(&["T0[16]"]), "bad metric request 'T0[16]': T0 has 16 instance(s) of TCC on gfx906 (0..15)");
    assert_eq!(
        e(&["BUSY[0]"]),
        "bad metric request 'BUSY[0]': 'BUSY' is a derived metric; only hardware counters have instances"
    );
    assert_eq!(e(&["XX:4"]), "bad metric request 'XX:4': unknown block 'XX'");
    assert_eq!(e(&["GL2C:4"]), "bad metric request 'GL2C:4': block GL2C has no counters on gfx906");
    assert_eq!(e(&["TCC[16]:4"]), "bad metric request 'TCC[16]:4': TCC has 16 instance(s) on gfx906 (0..15), not 16");
    assert_eq!(e(&[""]), "bad metric request '': empty name");
    assert!(matches!(cat.plan(&["SQ:4", "TCC[2]:7"]), Ok(p) if p.passes().len() == 1));
}

#[test]
fn catalogs_and_plans_cross_threads() {
    fn shareable<T: Send + Sync + Clone>() {}
    shareable::<Catalog>();
    shareable::<crate::metrics::Plan>();
}
