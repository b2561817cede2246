//! Text for `cltap metrics explain`: a metric's tree down to hardware
//! counters, and the passes a plan needs.

use super::catalog::{Catalog, Metric, MetricKind, Ref, Target};
use super::error::MetricsError;
use super::eval::{Event, Request};
use super::expr::{Expr, Op};
use super::plan::Plan;
use std::collections::{BTreeMap, HashSet, VecDeque};
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
                    let mut t = Tree { cat, expanded: HashSet::from([i]), below: VecDeque::new(), out };
                    t.tree(&d.expr);
                    while let Some(k) = t.below.pop_front() {
                        let m = cat.metric_at(k);
                        let _ = writeln!(t.out, "\n{} {}", m.name, counter_line(m));
                        if let Some(d) = m.derived() {
                            t.tree(&d.expr);
                        }
                    }
                    out = t.out;
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

/// Trees deeper than this show a derived metric as one line, explained in
/// its own tree below the first, and an operation as its text.
const MAX_TREE_DEPTH: usize = 16;

/// The tree of a derived metric. Metrics form a DAG: each derived metric is
/// expanded once and marked "see above" where it comes again, so the text
/// grows with the number of metrics, not with the number of paths to them.
struct Tree<'c> {
    cat: &'c Catalog,
    expanded: HashSet<usize>,
    /// Derived metrics reached at [`MAX_TREE_DEPTH`], explained after the tree.
    below: VecDeque<usize>,
    out: String,
}

impl<'c> Tree<'c> {
    /// Walks with its own stack: `lead` prefixes a node, `pad` its children.
    fn tree(&mut self, root: &'c Expr<Ref>) {
        let mut stack: Vec<(&'c Expr<Ref>, String, String, usize)> = vec![(root, String::new(), String::new(), 0)];
        while let Some((e, lead, pad, depth)) = stack.pop() {
            let (label, children) = self.node(e, depth);
            let _ = writeln!(self.out, "  {lead}{label}");
            for (k, child) in children.iter().enumerate().rev() {
                let last = k + 1 == children.len();
                let (l, p) = if last { ("`-- ", "    ") } else { ("|-- ", "|   ") };
                stack.push((child, format!("{pad}{l}"), format!("{pad}{p}"), depth + 1));
            }
        }
    }

    /// A node's label and the children it is expanded into.
    fn node(&mut self, e: &'c Expr<Ref>, depth: usize) -> (String, Vec<&'c Expr<Ref>>) {
        let cat = self.cat;
        match e {
            Expr::Bin { .. } if depth >= MAX_TREE_DEPTH => {
                // Shown as text: the derived metrics in it are explained below.
                e.visit(&mut |r: &Ref, _| {
                    if let Target::Metric(i) = r.target {
                        if cat.metric_at(i).derived().is_some() && self.expanded.insert(i) {
                            self.below.push_back(i);
                        }
                    }
                });
                (format!("{e}  (derived metrics in it explained below)"), vec![])
            }
            Expr::Bin { op, .. } => (op.symbol().to_string(), operands(e, *op)),
            Expr::Leaf(Ref { target: Target::Metric(i), .. }) if cat.metric_at(*i).derived().is_some() => {
                let m = cat.metric_at(*i);
                let line = format!("{}  {}", m.name, counter_line(m));
                if !self.expanded.insert(*i) {
                    (format!("{line}  (see above)"), vec![])
                } else if depth >= MAX_TREE_DEPTH {
                    self.below.push_back(*i);
                    (format!("{line}  (explained below)"), vec![])
                } else {
                    (line, m.derived().map(|d| &d.expr).into_iter().collect())
                }
            }
            _ => (label(cat, e), vec![]),
        }
    }
}

/// The operands of a run of one operator: `a+b+c` is one `+` of three, not
/// two nested ones (the parser nests left).
fn operands(e: &Expr<Ref>, op: Op) -> Vec<&Expr<Ref>> {
    let mut rights = Vec::new();
    let mut e = e;
    while let Expr::Bin { op: o, lhs, rhs } = e {
        if *o != op {
            break;
        }
        rights.push(&**rhs);
        e = lhs;
    }
    rights.push(e);
    rights.reverse();
    rights
}

/// The text of a node that is not expanded further.
fn label(cat: &Catalog, e: &Expr<Ref>) -> String {
    match e {
        Expr::Num(v) => format!("{v}"),
        Expr::Bin { .. } => e.to_string(),
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
