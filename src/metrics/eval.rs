//! From a requested name to the hardware events it needs, and from the
//! collected event values back to its value.
//!
//! A request is a metric name (`GPUBusy`, `SQ_WAVES`), one instance of a
//! counter (`TCC_HIT[3]`), or a raw event as rocprofiler's input files allow
//! (`SQ:4`, `TCC[3]:20`: block, optional instance, event id).

use super::blocks::Block;
use super::catalog::{Catalog, MetricKind, Ref, Target};
use super::consts::Consts;
use super::error::MetricsError;
use super::expr::{eval, outcome, Env, Stop};
use super::xml::{is_identifier, parse_u32};
use std::collections::{BTreeSet, HashMap, HashSet};

/// One hardware counter of one block instance: what AQLprofile is asked to
/// count (`hsa_ven_amd_aqlprofile_event_t`: block name, block index, counter
/// id) and what a value is reported for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Event {
    pub block: Block,
    pub instance: u32,
    pub id: u32,
}

impl Event {
    /// The event as AQLprofile takes it.
    pub fn to_aql(&self) -> crate::hsa::aqlprofile::Event {
        crate::hsa::aqlprofile::Event {
            block_name: self.block.aql_id(),
            block_index: self.instance,
            counter_id: self.id,
        }
    }

    /// AQLprofile's event as the catalog's (None for a block cltap does not know).
    pub fn from_aql(e: &crate::hsa::aqlprofile::Event) -> Option<Event> {
        Some(Event { block: Block::from_aql_id(e.block_name)?, instance: e.block_index, id: e.counter_id })
    }
}

/// How the API log and the timeline name an AQLprofile event:
/// `BLOCK[instance]:id` (`blockN` for a block cltap does not know).
pub fn event_label(e: &crate::hsa::aqlprofile::Event) -> String {
    let block =
        Block::from_aql_id(e.block_name).map_or_else(|| format!("block{}", e.block_name), |b| b.name().to_string());
    format!("{block}[{}]:{}", e.block_index, e.counter_id)
}

/// A requested name, looked up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    /// A metric of the catalog; a basic counter alone means the sum over its
    /// instances.
    Metric(usize),
    /// `NAME[i]`.
    Instance { metric: usize, instance: u32 },
    /// `BLOCK:EVENT` (all instances, summed) or `BLOCK[i]:EVENT`.
    Raw { block: Block, instance: Option<u32>, event: u32 },
}

impl Catalog {
    /// Looks a requested name up.
    pub fn request(&self, name: &str) -> Result<Request, MetricsError> {
        let name = name.trim();
        let bad = |msg: String| MetricsError::BadRequest { name: name.to_string(), msg };
        if name.is_empty() {
            return Err(bad("empty name".into()));
        }
        if let Some((block_part, event)) = name.split_once(':') {
            let (block_name, instance) = split_index(block_part.trim()).map_err(bad)?;
            let block = Block::from_name(block_name).ok_or_else(|| bad(format!("unknown block '{block_name}'")))?;
            let event = parse_u32(event).ok_or_else(|| bad(format!("event '{}' is not a number", event.trim())))?;
            let counts = self
                .block_counts(block)
                .filter(|c| c.instances > 0 && c.slots > 0)
                .ok_or_else(|| bad(format!("block {block} has no counters on {}", self.gpu())))?;
            if let Some(i) = instance.filter(|i| *i >= counts.instances) {
                return Err(bad(format!(
                    "{block} has {} instance(s) on {} (0..{}), not {i}",
                    counts.instances,
                    self.gpu(),
                    counts.instances - 1
                )));
            }
            return Ok(Request::Raw { block, instance, event });
        }
        let (head, index) = split_index(name).map_err(bad)?;
        if !is_identifier(head) {
            return Err(bad("not a metric name, NAME[i] or BLOCK:EVENT".into()));
        }
        let metric = self
            .index_of(head)
            .ok_or_else(|| MetricsError::UnknownRequest { name: name.to_string(), hint: self.hint(head) })?;
        match (index, self.metric_at(metric).counter()) {
            (None, _) => Ok(Request::Metric(metric)),
            (Some(_), None) => Err(bad(format!("'{head}' is a derived metric; only hardware counters have instances"))),
            (Some(i), Some(c)) if i >= c.instances => Err(bad(format!(
                "{} has {} instance(s) of {} on {} (0..{})",
                head,
                c.instances,
                c.block,
                self.gpu(),
                c.instances - 1
            ))),
            (Some(i), Some(_)) => Ok(Request::Instance { metric, instance: i }),
        }
    }

    /// The hardware events a name needs, sorted, each once.
    pub fn events(&self, name: &str) -> Result<Vec<Event>, MetricsError> {
        let mut out = BTreeSet::new();
        match self.request(name)? {
            Request::Metric(m) => self.metric_events(m, &mut out, &mut HashSet::new()),
            Request::Instance { metric, instance } => {
                out.insert(self.event_of(metric, instance));
            }
            Request::Raw { block, instance, event } => {
                let all = 0..self.block_counts(block).map_or(1, |c| c.instances);
                for i in instance.map_or(all, |i| i..i + 1) {
                    out.insert(Event { block, instance: i, id: event });
                }
            }
        }
        Ok(out.into_iter().collect())
    }

    fn event_of(&self, metric: usize, instance: u32) -> Event {
        let c = self.metric_at(metric).counter().expect("instances are resolved to counters");
        Event { block: c.block, instance, id: c.event }
    }

    /// Each metric is walked once (`seen`): metrics form a DAG, and a metric
    /// shared by many paths would otherwise be walked once per path.
    fn metric_events(&self, m: usize, out: &mut BTreeSet<Event>, seen: &mut HashSet<usize>) {
        if !seen.insert(m) {
            return;
        }
        match &self.metric_at(m).kind {
            MetricKind::Basic(c) => {
                for i in 0..c.instances {
                    out.insert(Event { block: c.block, instance: i, id: c.event });
                }
            }
            MetricKind::Derived(d) => d.expr.visit(&mut |r: &Ref, agg| match (r.target, agg) {
                (Target::Metric(j), Some((_, count))) => {
                    for i in 0..count {
                        out.insert(self.event_of(j, i));
                    }
                }
                (Target::Metric(j), None) => self.metric_events(j, out, seen),
                (Target::Instance { metric, instance }, _) => {
                    out.insert(self.event_of(metric, instance));
                }
                (Target::Const(_), _) => {}
            }),
        }
    }

    /// The value of a requested name from the event values of one dispatch
    /// (samples already summed per event). `None` when the name is unknown or
    /// an event it needs has no value; 0 when a division by zero happened
    /// anywhere in it, including in a metric it refers to.
    pub fn evaluate(&self, name: &str, values: &HashMap<Event, u64>, consts: &Consts) -> Option<f64> {
        let mut env = Values { cat: self, values, consts, done: HashMap::new() };
        let r = match self.request(name).ok()? {
            Request::Metric(m) => env.metric(m),
            Request::Instance { metric, instance } => env.event(metric, instance),
            Request::Raw { block, instance, event } => {
                let all = 0..self.block_counts(block).map_or(1, |c| c.instances);
                instance.map_or(all, |i| i..i + 1).try_fold(0.0, |acc, i| {
                    values.get(&Event { block, instance: i, id: event }).map(|v| acc + *v as f64).ok_or(Stop::Missing)
                })
            }
        };
        outcome(r)
    }
}

/// `NAME[3]` → (`NAME`, Some(3)).
fn split_index(s: &str) -> Result<(&str, Option<u32>), String> {
    match s.strip_suffix(']') {
        None if s.contains('[') => Err("'[' without ']'".into()),
        None => Ok((s, None)),
        Some(inner) => {
            let (head, idx) = inner.rsplit_once('[').ok_or("']' without '['")?;
            let i = idx.trim().parse().map_err(|_| format!("instance '{idx}' is not a number"))?;
            Ok((head.trim(), Some(i)))
        }
    }
}

struct Values<'a> {
    cat: &'a Catalog,
    values: &'a HashMap<Event, u64>,
    consts: &'a Consts,
    /// Derived metrics already evaluated for this dispatch: each is computed
    /// once however many metrics refer to it.
    done: HashMap<usize, Result<f64, Stop>>,
}

impl Values<'_> {
    fn event(&mut self, metric: usize, instance: u32) -> Result<f64, Stop> {
        let e = self.cat.event_of(metric, instance);
        self.values.get(&e).map(|v| *v as f64).ok_or(Stop::Missing)
    }

    fn metric(&mut self, m: usize) -> Result<f64, Stop> {
        let cat = self.cat;
        match &cat.metric_at(m).kind {
            MetricKind::Basic(c) => (0..c.instances).try_fold(0.0, |acc, i| Ok(acc + self.event(m, i)?)),
            // A referenced metric is evaluated in place, so its division by
            // zero zeroes the metric that refers to it (rocprofiler inlines
            // the referenced expression).
            MetricKind::Derived(d) => {
                if let Some(r) = self.done.get(&m) {
                    return *r;
                }
                let r = eval(&d.expr, self);
                self.done.insert(m, r);
                r
            }
        }
    }
}

impl Env<Ref> for Values<'_> {
    fn leaf(&mut self, r: &Ref) -> Result<f64, Stop> {
        match r.target {
            Target::Const(c) => Ok(self.consts.get(c)),
            Target::Metric(m) => self.metric(m),
            Target::Instance { metric, instance } => self.event(metric, instance),
        }
    }

    fn instance(&mut self, r: &Ref, i: u32) -> Result<f64, Stop> {
        match r.target {
            Target::Metric(m) => self.event(m, i),
            _ => Err(Stop::Missing),
        }
    }
}
