//! The expression evaluator: against an independent reference on random
//! trees, precedence and the rocprofiler warning, division by zero, missing
//! inputs, instances and reductions.

use super::load;
use crate::metrics::expr::{self, eval, outcome, Env, Name, Stop};
use crate::metrics::quirk::{disagreement, parse_quirk};
use crate::metrics::{Block, Consts, Event};
use proptest::prelude::*;
use std::collections::HashMap;

/// The reference: a tree of its own, rendered and evaluated by code that
/// shares nothing with the library.
#[derive(Clone, Debug)]
enum RefTree {
    Lit(u32),
    Var(usize),
    Bin(char, Box<RefTree>, Box<RefTree>),
}

const VARS: [&str; 4] = ["SQ_WAVES", "GRBM_COUNT", "TCC_HIT_sum", "x_1"];

fn prec(op: char) -> u8 {
    if op == '+' || op == '-' {
        1
    } else {
        2
    }
}

/// Minimal parentheses for left-associative operators with `*` `/` binding
/// tighter than `+` `-`.
fn render(t: &RefTree) -> String {
    match t {
        RefTree::Lit(v) => v.to_string(),
        RefTree::Var(i) => VARS[*i].to_string(),
        RefTree::Bin(op, l, r) => {
            let l_s = render(l);
            let r_s = render(r);
            let l_s = match &**l {
                RefTree::Bin(o, ..) if prec(*o) < prec(*op) => format!("({l_s})"),
                _ => l_s,
            };
            let r_s = match &**r {
                RefTree::Bin(o, ..) if prec(*o) <= prec(*op) => format!("({r_s})"),
                _ => r_s,
            };
            format!("{l_s}{op}{r_s}")
        }
    }
}

/// `Err(())` on a division by zero anywhere.
fn reference(t: &RefTree, vars: &[f64; 4]) -> Result<f64, ()> {
    Ok(match t {
        RefTree::Lit(v) => f64::from(*v),
        RefTree::Var(i) => vars[*i],
        RefTree::Bin(op, l, r) => {
            let (a, b) = (reference(l, vars)?, reference(r, vars)?);
            match op {
                '+' => a + b,
                '-' => a - b,
                '*' => a * b,
                _ if b == 0.0 => return Err(()),
                _ => a / b,
            }
        }
    })
}

fn tree() -> impl Strategy<Value = RefTree> {
    let leaf = prop_oneof![(0u32..12).prop_map(RefTree::Lit), (0usize..4).prop_map(RefTree::Var)];
    leaf.prop_recursive(5, 40, 2, |inner| {
        (prop::sample::select(vec!['+', '-', '*', '/']), inner.clone(), inner)
            .prop_map(|(op, l, r)| RefTree::Bin(op, Box::new(l), Box::new(r)))
    })
}

struct Vars<'a>(&'a [f64; 4]);

impl Env<Name> for Vars<'_> {
    fn leaf(&mut self, n: &Name) -> Result<f64, Stop> {
        VARS.iter().position(|v| *v == n.name).map(|i| self.0[i]).ok_or(Stop::Missing)
    }
    fn instance(&mut self, _: &Name, _: u32) -> Result<f64, Stop> {
        Err(Stop::Missing)
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Rendering with minimal parentheses and parsing back computes exactly
    /// what the tree computes (same operations in the same order, so the
    /// same bits), division by zero giving 0.
    #[test]
    fn evaluator_matches_reference(t in tree(), vars in prop::array::uniform4(0u32..6)) {
        let vars = vars.map(f64::from);
        let text = render(&t);
        let parsed = expr::parse(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e:?}")))?;
        let got = outcome(eval(&parsed, &mut Vars(&vars))).unwrap();
        let want = reference(&t, &vars).unwrap_or(0.0);
        prop_assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()), "{} gave {} not {}", text, got, want);
        // The library renders the tree with the same minimal parentheses.
        prop_assert_eq!(parsed.to_string(), text);
    }

    /// Where no warning is given, rocprofiler's grouping computes the same
    /// value (up to rounding, since sums are regrouped).
    #[test]
    fn no_warning_means_same_value(t in tree(), vars in prop::array::uniform4(1u32..50)) {
        let vars = vars.map(f64::from);
        let text = render(&t);
        let standard = expr::parse(&text).unwrap();
        if disagreement(&text, &standard).is_none() {
            let quirk = parse_quirk(&text).unwrap();
            let a = outcome(eval(&standard, &mut Vars(&vars))).unwrap();
            let b = outcome(eval(&quirk, &mut Vars(&vars))).unwrap();
            let scale = a.abs().max(b.abs()).max(1.0);
            prop_assert!((a - b).abs() <= 1e-9 * scale || (a.is_nan() && b.is_nan()) || a == 0.0 || b == 0.0, "{}: {} vs {}", text, a, b);
        }
    }
}

fn value(text: &str, vars: [f64; 4]) -> Option<f64> {
    outcome(eval(&expr::parse(text).unwrap(), &mut Vars(&vars)))
}

#[test]
fn standard_precedence_left_associative() {
    let v = [10.0, 4.0, 1.0, 2.0];
    // a-b+c: (10-4)+1, not rocprofiler's 10-(4+1).
    assert_eq!(value("SQ_WAVES-GRBM_COUNT+TCC_HIT_sum", v), Some(7.0));
    assert_eq!(value("SQ_WAVES-GRBM_COUNT-TCC_HIT_sum", v), Some(5.0));
    assert_eq!(value("SQ_WAVES/GRBM_COUNT/x_1", v), Some(1.25));
    assert_eq!(value("SQ_WAVES-GRBM_COUNT*x_1+TCC_HIT_sum", v), Some(3.0));
    assert_eq!(value("(SQ_WAVES-GRBM_COUNT)*x_1", v), Some(12.0));
    assert_eq!(value("1.5*x_1 + 0.25", v), Some(3.25));
}

#[test]
fn division_by_zero_anywhere_is_zero() {
    let v = [10.0, 0.0, 1.0, 2.0];
    assert_eq!(value("SQ_WAVES/GRBM_COUNT", v), Some(0.0));
    // Even where the quotient would be multiplied away or added to.
    assert_eq!(value("1000+0*(SQ_WAVES/GRBM_COUNT)", v), Some(0.0));
    assert_eq!(value("SQ_WAVES/(x_1-TCC_HIT_sum-TCC_HIT_sum)", v), Some(0.0));
    // 0/x is fine.
    assert_eq!(value("GRBM_COUNT/SQ_WAVES", v), Some(0.0));
    assert_eq!(value("SQ_WAVES/x_1", v), Some(5.0));
    assert_eq!(value("NOT_THERE+1", v), None);
}

const FILE: &str = "\
<gfx9>
  <metric name=S block=SQ event=4></metric>
  <metric name=Z block=SQ event=5></metric>
  <metric name=T block=TCC event=20></metric>
  <metric name=INNER expr=S/Z></metric>
  <metric name=OUTER expr=1+INNER></metric>
  <metric name=QUIRKY expr=S-Z+S></metric>
  <metric name=ALSO_QUIRKY expr=S/Z-S*2-1></metric>
  <metric name=FINE expr=S-(Z+S)></metric>
  <metric name=SUM expr=sum(T,4)></metric>
  <metric name=AVR expr=avr(T,4)></metric>
  <metric name=MIN expr=min(T,4)></metric>
  <metric name=MAX expr=max(T,4)></metric>
  <metric name=ONE expr=T[2]*CU_NUM+SIMD_NUM/SE_NUM+MAX_WAVE_SIZE-XCC_NUM></metric>
</gfx9>
";

fn values(pairs: &[(Block, u32, u32, u64)]) -> HashMap<Event, u64> {
    pairs.iter().map(|&(block, instance, id, v)| (Event { block, instance, id }, v)).collect()
}

fn tcc(vals: [u64; 16]) -> Vec<(Block, u32, u32, u64)> {
    vals.iter().enumerate().map(|(i, v)| (Block::TCC, i as u32, 20, *v)).collect()
}

#[test]
fn one_warning_per_metric_where_readings_differ() {
    let cat = load(FILE, "gfx906").unwrap();
    assert_eq!(
        cat.warnings(),
        [
            "m.xml:7:28: warning: metric 'QUIRKY': 'S-Z+S' is computed as ((S - Z) + S) (standard precedence); rocprofiler v1 computes (S - (Z + S))",
            "m.xml:8:33: warning: metric 'ALSO_QUIRKY': 'S/Z-S*2-1' is computed as (((S / Z) - (S * 2)) - 1) (standard precedence); rocprofiler v1 computes ((S / Z) - ((S * 2) - 1))",
        ]
    );
}

#[test]
fn catalog_evaluation() {
    let cat = load(FILE, "gfx906").unwrap();
    let consts = Consts { cu_num: 60, simd_num: 240, se_num: 4, xcc_num: 1, max_wave_size: 64 };
    let mut t = [0u64; 16];
    t[..4].copy_from_slice(&[5, 1, 7, 3]);
    t[4..].iter_mut().for_each(|v| *v = 100);
    let mut vals = values(&[(Block::SQ, 0, 4, 12), (Block::SQ, 0, 5, 4)]);
    vals.extend(values(&tcc(t)));
    let ev = |name: &str| cat.evaluate(name, &vals, &consts);
    assert_eq!(ev("S"), Some(12.0));
    assert_eq!(ev("INNER"), Some(3.0));
    assert_eq!(ev("OUTER"), Some(4.0));
    assert_eq!(ev("QUIRKY"), Some(20.0));
    assert_eq!(ev("SUM"), Some(16.0));
    assert_eq!(ev("AVR"), Some(4.0));
    assert_eq!(ev("MIN"), Some(1.0));
    assert_eq!(ev("MAX"), Some(7.0));
    // A bare counter of a 16-instance block is the sum of all 16.
    assert_eq!(ev("T"), Some(16.0 + 12.0 * 100.0));
    assert_eq!(ev("T[2]"), Some(7.0));
    assert_eq!(ev("TCC:20"), Some(16.0 + 1200.0));
    assert_eq!(ev("TCC[3]:20"), Some(3.0));
    assert_eq!(ev("SQ:4"), Some(12.0));
    assert_eq!(ev("ONE"), Some(7.0 * 60.0 + 240.0 / 4.0 + 64.0 - 1.0));
    assert_eq!(ev("NOPE"), None);

    // A division by zero in a referenced metric zeroes the referring one.
    vals.insert(Event { block: Block::SQ, instance: 0, id: 5 }, 0);
    assert_eq!(cat.evaluate("INNER", &vals, &consts), Some(0.0));
    assert_eq!(cat.evaluate("OUTER", &vals, &consts), Some(0.0));

    // A missing input: no value, for the metric and those built on it.
    vals.remove(&Event { block: Block::TCC, instance: 9, id: 20 });
    assert_eq!(cat.evaluate("T", &vals, &consts), None);
    assert_eq!(cat.evaluate("SUM", &vals, &consts), Some(16.0), "sum(T,4) needs instances 0..3 only");
    vals.remove(&Event { block: Block::SQ, instance: 0, id: 4 });
    assert_eq!(cat.evaluate("OUTER", &vals, &consts), None);
}

#[test]
fn events_cover_exactly_what_evaluation_reads() {
    let cat = load(FILE, "gfx906").unwrap();
    let consts = Consts { cu_num: 1, simd_num: 1, se_num: 1, xcc_num: 1, max_wave_size: 1 };
    for m in cat.iter() {
        let events = cat.events(&m.name).unwrap();
        let all: HashMap<Event, u64> = events.iter().map(|e| (*e, 3)).collect();
        assert!(cat.evaluate(&m.name, &all, &consts).is_some(), "{} needs more than {:?}", m.name, events);
        for drop in &events {
            let mut less = all.clone();
            less.remove(drop);
            assert_eq!(cat.evaluate(&m.name, &less, &consts), None, "{} does not read {:?}", m.name, drop);
        }
    }
    assert_eq!(cat.events("SUM").unwrap().len(), 4);
    assert_eq!(cat.events("T").unwrap().len(), 16);
    assert_eq!(cat.events("ONE").unwrap(), [Event { block: Block::TCC, instance: 2, id: 20 }]);
}
