//! Splitting the events of a set of requested metrics into passes.
//!
//! Each block instance is its own set of hardware counters with the block's
//! slot count: in one pass, no (block, instance) may be given more events than
//! it has slots. An event is collected in exactly one pass, so the values of
//! all passes can be put into one map for evaluation.
//!
//! Greedy, first fit by decreasing size: requests with the most events are
//! placed first; a request's missing events go, all together, into the first
//! pass that already holds some of its events and has room, else into the
//! first pass with room, else into a new pass. Only a request that cannot fit
//! into an empty pass at all (say 9 SQ events with 8 SQ slots), or whose
//! events are already spread by earlier requests, is split: its events are
//! then placed one by one, and its value joins counts taken in different
//! passes (different runs of the kernel), which [`Plan::split`] reports.

use super::blocks::Block;
use super::catalog::Catalog;
use super::consts::Consts;
use super::error::MetricsError;
use super::eval::Event;
use std::collections::{BTreeSet, HashMap};

/// One requested name and where its events went.
#[derive(Clone, Debug)]
pub struct Planned {
    pub name: String,
    pub events: Vec<Event>,
    /// Indices into [`Plan::passes`], ascending.
    pub passes: Vec<usize>,
}

/// The passes that collect a set of requested metrics.
#[derive(Clone, Debug)]
pub struct Plan {
    catalog: Catalog,
    requests: Vec<Planned>,
    passes: Vec<Vec<Event>>,
}

struct Pass {
    events: Vec<Event>,
    used: HashMap<(Block, u32), u32>,
}

impl Pass {
    fn new() -> Pass {
        Pass { events: Vec::new(), used: HashMap::new() }
    }

    fn fits(&self, events: &[Event], slots: &impl Fn(Block) -> u32) -> bool {
        let mut need: HashMap<(Block, u32), u32> = HashMap::new();
        for e in events {
            *need.entry((e.block, e.instance)).or_default() += 1;
        }
        need.iter().all(|(k, n)| self.used.get(k).copied().unwrap_or(0) + n <= slots(k.0))
    }

    fn add(&mut self, events: &[Event]) {
        for e in events {
            *self.used.entry((e.block, e.instance)).or_default() += 1;
            self.events.push(*e);
        }
    }
}

impl Catalog {
    /// Resolves `names` (each a metric, `NAME[i]` or `BLOCK:EVENT`) to the
    /// events they need and splits those into passes. A name given twice is
    /// planned once.
    pub fn plan<S: AsRef<str>>(&self, names: &[S]) -> Result<Plan, MetricsError> {
        let mut requests: Vec<Planned> = Vec::new();
        for n in names {
            let name = n.as_ref().trim();
            if requests.iter().any(|r| r.name == name) {
                continue;
            }
            requests.push(Planned { name: name.to_string(), events: self.events(name)?, passes: Vec::new() });
        }
        let slots = |b: Block| self.block_counts(b).map_or(0, |c| c.slots);

        let mut order: Vec<usize> = (0..requests.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(requests[i].events.len()));
        let mut placed: HashMap<Event, usize> = HashMap::new();
        let mut passes: Vec<Pass> = Vec::new();
        for i in order {
            let events = &requests[i].events;
            let missing: Vec<Event> = events.iter().filter(|e| !placed.contains_key(e)).copied().collect();
            if missing.is_empty() {
                continue;
            }
            let homes: BTreeSet<usize> = events.iter().filter_map(|e| placed.get(e).copied()).collect();
            let candidates = homes.iter().copied().chain((0..passes.len()).filter(|p| !homes.contains(p)));
            let target = candidates.into_iter().find(|&p| passes[p].fits(&missing, &slots)).or_else(|| {
                Pass::new().fits(&missing, &slots).then(|| {
                    passes.push(Pass::new());
                    passes.len() - 1
                })
            });
            match target {
                Some(p) => {
                    passes[p].add(&missing);
                    for e in missing {
                        placed.insert(e, p);
                    }
                }
                None => {
                    for e in missing {
                        let p = match (0..passes.len()).find(|&p| passes[p].fits(&[e], &slots)) {
                            Some(p) => p,
                            None => {
                                passes.push(Pass::new());
                                passes.len() - 1
                            }
                        };
                        passes[p].add(&[e]);
                        placed.insert(e, p);
                    }
                }
            }
        }
        for r in &mut requests {
            let set: BTreeSet<usize> = r.events.iter().map(|e| placed[e]).collect();
            r.passes = set.into_iter().collect();
        }
        let passes = passes
            .into_iter()
            .map(|mut p| {
                p.events.sort();
                p.events
            })
            .collect();
        Ok(Plan { catalog: self.clone(), requests, passes })
    }
}

impl Plan {
    /// The events to program, pass by pass.
    pub fn passes(&self) -> &[Vec<Event>] {
        &self.passes
    }

    /// The requested names, in the order given, with their events and passes.
    pub fn requests(&self) -> &[Planned] {
        &self.requests
    }

    /// Requests whose events are spread over more than one pass.
    pub fn split(&self) -> impl Iterator<Item = &Planned> {
        self.requests.iter().filter(|r| r.passes.len() > 1)
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The value of a name (requested or not) from the events of all passes.
    pub fn evaluate(&self, name: &str, values: &HashMap<Event, u64>, consts: &Consts) -> Option<f64> {
        self.catalog.evaluate(name, values, consts)
    }
}
