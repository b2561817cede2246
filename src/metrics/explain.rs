//! Text for `cltap metrics explain`: a metric's tree down to hardware
//! counters, and the passes a plan needs.

use super::catalog::{Catalog, Metric, MetricKind, Ref, Target};
use super::error::MetricsError;
use super::eval::{Event, Request};
use super::expr::Expr;
use super::plan::Plan;
use std::collections::BTreeMap;
use std::fmt::Write;

fn counter_line(m: &Metric) -> String {
    match &m.kind {
        MetricKind::Basic(c) => format!(
            "counter {} (block {}) event {}, {} instance{}",
            c.block,
            c.block.aql_id(),
            c.event,
            c.instances,
            if c.instances == 1 { "" } else { "s" }
        ),
        MetricKind::Derived(d) => format!("= {}", d.text),
    }
}

/// How `name` is computed, as an indented tree.
pub fn explain(cat: &Catalog, name: &str) -> Result<String, MetricsError> {
    let mut out = String::new();
    match cat.request(name)? {
        Request::Metric(i) => {
            let m = cat.metric_at(i);
            let _ = writeln!(out, "{} {}", m.name, counter_line(m));
            let _ = writeln!(out, "  section <{}>, {}", m.section, m.origin);
            if !m.descr.is_empty() {
                let _ = writeln!(out, "  {}", m.descr);
            }
            match &m.kind {
                MetricKind::Basic(c) if c.instances > 1 => {
                    let _ = writeln!(
                        out,
                        "  {} alone is the sum of {}[0] .. {}[{}]",
                        m.name,
                        m.name,
                        m.name,
                        c.instances - 1
                    );
                }
                MetricKind::Basic(_) => {}
                MetricKind::Derived(d) => {
                    out.push('\n');
                    tree(cat, &d.expr, "", "", &mut out);
                }
            }
        }
        Request::Instance { metric, instance } => {
            let m = cat.metric_at(metric);
            let _ = writeln!(out, "{}[{}] instance {} of {} {}", m.name, instance, instance, m.name, counter_line(m));
        }
        Request::Raw { block, instance, event } => {
            let which = instance.map_or("all instances, summed".to_string(), |i| format!("instance {i}"));
            let _ = writeln!(
                out,
                "{} raw event {} of block {} (block {}), {}",
                name.trim(),
                event,
                block,
                block.aql_id(),
                which
            );
        }
    }
    Ok(out)
}

/// One node and its children; `lead` prefixes this node, `pad` its children.
fn tree(cat: &Catalog, e: &Expr<Ref>, lead: &str, pad: &str, out: &mut String) {
    let children: Vec<&Expr<Ref>> = match e {
        Expr::Bin { lhs, rhs, .. } => vec![lhs, rhs],
        Expr::Leaf(Ref { target: Target::Metric(i), .. }) => match &cat.metric_at(*i).kind {
            MetricKind::Derived(d) => vec![&d.expr],
            MetricKind::Basic(_) => vec![],
        },
        _ => vec![],
    };
    let label = match e {
        Expr::Num(v) => format!("{v}"),
        Expr::Bin { op, .. } => op.symbol().to_string(),
        Expr::Agg { func, counter, count } => {
            let m = metric_of(cat, counter);
            format!(
                "{}({},{})  over {}[0..{}]: {}",
                func.name(),
                counter.name,
                count,
                counter.name,
                count - 1,
                counter_line(m)
            )
        }
        Expr::Leaf(r) => match r.target {
            Target::Const(c) => format!("{}  constant: {}", c.name(), c.meaning()),
            Target::Metric(i) => {
                let m = cat.metric_at(i);
                match &m.kind {
                    MetricKind::Basic(c) if c.instances > 1 => {
                        format!("{}  sum over instances: {}", m.name, counter_line(m))
                    }
                    _ => format!("{}  {}", m.name, counter_line(m)),
                }
            }
            Target::Instance { metric, instance } => {
                let m = cat.metric_at(metric);
                let c = m.counter().expect("instances are of counters");
                format!(
                    "{}[{}]  counter {} (block {}) instance {} event {}",
                    m.name,
                    instance,
                    c.block,
                    c.block.aql_id(),
                    instance,
                    c.event
                )
            }
        },
    };
    let _ = writeln!(out, "  {lead}{label}");
    for (k, child) in children.iter().enumerate() {
        let last = k + 1 == children.len();
        let (l, p) = if last { ("`-- ", "    ") } else { ("|-- ", "|   ") };
        tree(cat, child, &format!("{pad}{l}"), &format!("{pad}{p}"), out);
    }
}

fn metric_of<'a>(cat: &'a Catalog, r: &Ref) -> &'a Metric {
    match r.target {
        Target::Metric(i) | Target::Instance { metric: i, .. } => cat.metric_at(i),
        Target::Const(_) => unreachable!("reductions are over counters"),
    }
}

/// The passes of a plan, one line per block of each pass, and which
/// requests had to be split over passes.
pub fn describe_plan(plan: &Plan) -> String {
    let cat = plan.catalog();
    let names: BTreeMap<(u32, u32), &str> =
        cat.iter().filter_map(|m| m.counter().map(|c| ((c.block.aql_id(), c.event), m.name.as_str()))).collect();
    let mut out = String::new();
    let n = plan.passes().len();
    let _ = writeln!(out, "{} pass{} on {}:", n, if n == 1 { "" } else { "es" }, cat.gpu());
    for (p, events) in plan.passes().iter().enumerate() {
        let _ = writeln!(out, "  pass {}:", p + 1);
        // block → instance → event ids
        let mut by_block: BTreeMap<_, BTreeMap<u32, Vec<u32>>> = BTreeMap::new();
        for Event { block, instance, id } in events {
            by_block.entry(*block).or_default().entry(*instance).or_default().push(*id);
        }
        for (block, per_instance) in by_block {
            let slots = cat.block_counts(block).map_or(0, |c| c.slots);
            // Instances with the same events are shown as one range.
            let mut groups: Vec<(u32, u32, &Vec<u32>)> = Vec::new();
            for (i, ids) in &per_instance {
                match groups.last_mut() {
                    Some((_, hi, g)) if *g == ids && *hi + 1 == *i => *hi = *i,
                    _ => groups.push((*i, *i, ids)),
                }
            }
            for (lo, hi, ids) in groups {
                let inst = if lo == hi { format!("{block}[{lo}]") } else { format!("{block}[{lo}..{hi}]") };
                let list: Vec<String> = ids
                    .iter()
                    .map(|id| match names.get(&(block.aql_id(), *id)) {
                        Some(n) => format!("{id} {n}"),
                        None => id.to_string(),
                    })
                    .collect();
                let _ = writeln!(
                    out,
                    "    {inst}: {} ({} of {} slots{})",
                    list.join(", "),
                    ids.len(),
                    slots,
                    if lo == hi { "" } else { " each" }
                );
            }
        }
    }
    for r in plan.split() {
        let passes: Vec<String> = r.passes.iter().map(|p| (p + 1).to_string()).collect();
        let _ = writeln!(
            out,
            "  note: {} needs events from passes {}: its value joins counts from different runs",
            r.name,
            passes.join(", ")
        );
    }
    out
}
