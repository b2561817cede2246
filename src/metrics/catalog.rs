//! One GPU's view of a metrics file: its section, the sections it inherits
//! from (`base=`), and `<global>`; every name resolved, every reference cycle
//! refused.

use super::blocks::{Block, BlockCounts, BlockInfo};
use super::consts::Const;
use super::error::{did_you_mean, MetricsError, Origin};
use super::expr::{Expr, Name};
use super::quirk;
use super::syntax::{self, Preprocessed};
use super::xml::{self, Document, RawBody, RawMetric};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The metrics file shipped with cltap (gfx900, gfx906, gfx908, gfx90a).
pub const DEFAULT_METRICS: &str = include_str!("../../metrics/gfx9.xml");
/// How errors and `list` name the shipped file.
/// How deep `base=` inheritance may go.
const MAX_BASE_DEPTH: usize = 64;
/// How many derived metrics deep a metric may be built (see `check_cycles`).
pub const MAX_DERIVED_DEPTH: usize = 64;
pub const DEFAULT_METRICS_NAME: &str = "builtin:metrics/gfx9.xml";

/// A hardware counter as the file defines it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counter {
    pub block: Block,
    pub event: u32,
    /// Instances of the block on this GPU; `NAME` alone is their sum,
    /// `NAME[i]` one of them.
    pub instances: u32,
}

/// What a name in a resolved expression stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Const(Const),
    /// Another metric, by its index in the catalog (basic: the sum over its
    /// instances; derived: its value).
    Metric(usize),
    /// `NAME[i]` of a basic counter.
    Instance {
        metric: usize,
        instance: u32,
    },
}

/// A resolved leaf, keeping the name as written for display.
#[derive(Clone, Debug, PartialEq)]
pub struct Ref {
    pub name: String,
    pub target: Target,
}

impl fmt::Display for Ref {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.target {
            Target::Instance { instance, .. } => write!(f, "{}[{}]", self.name, instance),
            _ => f.write_str(&self.name),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Derived {
    /// The expression as written.
    pub text: String,
    pub expr: Expr<Ref>,
}

#[derive(Clone, Debug)]
pub enum MetricKind {
    Basic(Counter),
    Derived(Derived),
}

#[derive(Clone, Debug)]
pub struct Metric {
    pub name: String,
    pub descr: String,
    /// Where the entry is (its `name=` value).
    pub origin: Origin,
    /// The section that defined it (`gfx9`, `gfx906`, `global`, ...).
    pub section: String,
    pub kind: MetricKind,
}

impl Metric {
    pub fn counter(&self) -> Option<&Counter> {
        match &self.kind {
            MetricKind::Basic(c) => Some(c),
            MetricKind::Derived(_) => None,
        }
    }

    pub fn derived(&self) -> Option<&Derived> {
        match &self.kind {
            MetricKind::Derived(d) => Some(d),
            MetricKind::Basic(_) => None,
        }
    }
}

/// The metrics of one GPU. Cheap to clone.
#[derive(Clone)]
pub struct Catalog {
    inner: Arc<Inner>,
}

struct Inner {
    file: String,
    gpu: String,
    section: String,
    metrics: Vec<Metric>,
    index: HashMap<String, usize>,
    /// What the block provider said about every AQLprofile block.
    blocks: HashMap<Block, BlockCounts>,
    warnings: Vec<String>,
}

impl fmt::Debug for Catalog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Catalog({} for {}, {} metrics)", self.inner.file, self.inner.gpu, self.inner.metrics.len())
    }
}

impl Catalog {
    /// Loads `path` (the shipped file when `None`) for the agent named `gpu`
    /// (`gfx906` or `gfx906:sramecc+:xnack-`).
    pub fn load(path: Option<&Path>, gpu: &str, blocks: &dyn BlockInfo) -> Result<Catalog, MetricsError> {
        let pre = match path {
            Some(p) => syntax::preprocess_file(p)?,
            None => syntax::preprocess(DEFAULT_METRICS_NAME, DEFAULT_METRICS, PathBuf::from("."), None)?,
        };
        Catalog::build(pre, gpu, blocks)
    }

    /// Loads a text; `#include` is looked up relative to `dir`.
    pub fn from_text(
        name: &str,
        text: &str,
        dir: &Path,
        gpu: &str,
        blocks: &dyn BlockInfo,
    ) -> Result<Catalog, MetricsError> {
        Catalog::build(syntax::preprocess(name, text, dir.to_path_buf(), None)?, gpu, blocks)
    }

    fn build(pre: Preprocessed, gpu: &str, blocks: &dyn BlockInfo) -> Result<Catalog, MetricsError> {
        let doc = xml::read(pre)?;
        check_bases(&doc)?;
        let section = pick_section(&doc, gpu)?;
        let own = view(&doc, doc.section(&section).expect("picked from the document"))?;
        let global = match doc.section("global") {
            Some(g) => view(&doc, g)?,
            None => Vec::new(),
        };
        let block_counts: HashMap<Block, BlockCounts> =
            Block::ALL.iter().filter_map(|b| Some((*b, blocks.counts(*b)?))).collect();

        // Entries in order, GPU view first, then <global>.
        let mut entries: Vec<(usize, &RawMetric)> =
            own.iter().map(|&(s, m)| (s, &doc.sections[s].metrics[m])).collect();
        let mut index: HashMap<String, usize> = HashMap::new();
        for (i, (_, m)) in entries.iter().enumerate() {
            index.insert(m.name.clone(), i);
        }
        for &(s, m) in &global {
            let raw = &doc.sections[s].metrics[m];
            if let Some(&first) = index.get(&raw.name) {
                return Err(MetricsError::Duplicate {
                    at: doc.pre.origin(raw.name_at),
                    name: raw.name.clone(),
                    first: doc.pre.origin(entries[first].1.name_at),
                });
            }
            index.insert(raw.name.clone(), entries.len());
            entries.push((s, raw));
        }

        let mut metrics = Vec::with_capacity(entries.len());
        for &(s, raw) in &entries {
            if Const::from_name(&raw.name).is_some() {
                return Err(MetricsError::ReservedName { at: doc.pre.origin(raw.name_at), name: raw.name.clone() });
            }
            let kind = match &raw.body {
                RawBody::Basic { block, event } => {
                    let counts =
                        block_counts.get(block).filter(|c| c.instances > 0 && c.slots > 0).ok_or_else(|| {
                            MetricsError::BlockUnavailable {
                                at: doc.pre.origin(raw.name_at),
                                block: block.name().into(),
                                gpu: gpu.into(),
                            }
                        })?;
                    MetricKind::Basic(Counter { block: *block, event: *event, instances: counts.instances })
                }
                // Filled in below, once every basic counter is known.
                RawBody::Derived { text, .. } => {
                    MetricKind::Derived(Derived { text: text.clone(), expr: Expr::Num(0.0) })
                }
            };
            metrics.push(Metric {
                name: raw.name.clone(),
                descr: raw.descr.clone(),
                origin: doc.pre.origin(raw.name_at),
                section: doc.sections[s].name.clone(),
                kind,
            });
        }

        let mut warnings = Vec::new();
        for (i, &(_, raw)) in entries.iter().enumerate() {
            if let RawBody::Derived { text, tree, .. } = &raw.body {
                let resolved = resolve(&doc, raw, tree, &metrics, &index, gpu)?;
                if let MetricKind::Derived(d) = &mut metrics[i].kind {
                    d.expr = resolved;
                }
                if let Some(q) = quirk::disagreement(text, tree) {
                    warnings.push(format!(
                        "{}: warning: metric '{}': '{}' is computed as {} (standard precedence); rocprofiler v1 computes {}",
                        doc.expr_origin(raw, 0),
                        raw.name,
                        text,
                        tree.full_parens(),
                        q.full_parens()
                    ));
                }
            }
        }
        check_cycles(&doc, &entries, &metrics)?;

        Ok(Catalog {
            inner: Arc::new(Inner {
                file: doc.pre.file_name().to_string(),
                gpu: gpu.to_string(),
                section,
                metrics,
                index,
                blocks: block_counts,
                warnings,
            }),
        })
    }

    /// The file read.
    pub fn file(&self) -> &str {
        &self.inner.file
    }

    /// The agent name given to `load`.
    pub fn gpu(&self) -> &str {
        &self.inner.gpu
    }

    /// The section that matched the GPU.
    pub fn section(&self) -> &str {
        &self.inner.section
    }

    pub fn metric(&self, name: &str) -> Option<&Metric> {
        self.inner.index.get(name).map(|&i| &self.inner.metrics[i])
    }

    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.inner.index.get(name).copied()
    }

    /// The metric a [`Target::Metric`] or [`Target::Instance`] points at.
    pub fn metric_at(&self, index: usize) -> &Metric {
        &self.inner.metrics[index]
    }

    /// Every metric: the GPU's sections (base sections' entries first, in file
    /// order), then `<global>`.
    pub fn iter(&self) -> impl Iterator<Item = &Metric> {
        self.inner.metrics.iter()
    }

    /// Where the standard reading and rocprofiler's differ: one line per
    /// metric, for the caller to print once.
    pub fn warnings(&self) -> &[String] {
        &self.inner.warnings
    }

    /// Instances and slots of a block on this GPU, as the provider said.
    pub fn block_counts(&self, block: Block) -> Option<BlockCounts> {
        self.inner.blocks.get(&block).copied()
    }

    /// Names close to `name`, for "did you mean".
    pub(crate) fn hint(&self, name: &str) -> String {
        did_you_mean(name, self.inner.metrics.iter().map(|m| m.name.as_str()))
    }
}

/// Every `base=` names a section of the file.
fn check_bases(doc: &Document) -> Result<(), MetricsError> {
    for s in &doc.sections {
        for (base, at) in &s.bases {
            if doc.section(base).is_none() {
                return Err(MetricsError::UnknownBase {
                    at: doc.pre.origin(*at),
                    section: s.name.clone(),
                    base: base.clone(),
                });
            }
        }
    }
    Ok(())
}

/// The section for an agent name: the name before any `:` feature suffix,
/// else its family (`gfx906` → `gfx9`, `gfx1030` → `gfx10`), as rocprofiler
/// falls back from the agent name to the GFX IP.
fn pick_section(doc: &Document, gpu: &str) -> Result<String, MetricsError> {
    let base = gpu.split(':').next().unwrap_or("").trim().to_ascii_lowercase();
    let mut candidates = vec![base.clone()];
    if let Some(ver) = base.strip_prefix("gfx").filter(|v| v.len() >= 3) {
        candidates.push(format!("gfx{}", &ver[..ver.len() - 2]));
    }
    for c in candidates {
        if c != "global" && doc.section(&c).is_some() {
            return Ok(c);
        }
    }
    let known: Vec<&str> = doc.sections.iter().map(|s| s.name.as_str()).filter(|n| *n != "global").collect();
    Err(MetricsError::UnknownGpu {
        file: doc.pre.file_name().to_string(),
        gpu: gpu.to_string(),
        known: known.join(", "),
    })
}

/// The entries a section sees, as (section, entry) pairs: its own win over
/// its bases', an earlier base over a later one. Listed with inherited
/// entries first (in the base's order), so a view reads like the file.
///
/// Each section is walked once: a base met again (through another path of a
/// diamond) has nothing to add, since its entries and its bases' are already
/// placed. Walked as often as it is reached, `base=` diamonds cost 2^depth.
fn view(doc: &Document, section: usize) -> Result<Vec<(usize, usize)>, MetricsError> {
    let mut winner: HashMap<&str, (usize, usize)> = HashMap::new();
    let mut path = Vec::new();
    let mut done = vec![false; doc.sections.len()];
    precedence(doc, section, None, &mut path, &mut done, &mut winner)?;
    let mut order: Vec<&str> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    listing(doc, section, &mut vec![false; doc.sections.len()], &mut seen, &mut order);
    Ok(order.into_iter().map(|n| winner[n]).collect())
}

fn precedence<'d>(
    doc: &'d Document,
    s: usize,
    via: Option<usize>,
    path: &mut Vec<usize>,
    done: &mut [bool],
    winner: &mut HashMap<&'d str, (usize, usize)>,
) -> Result<(), MetricsError> {
    let at = || via.map_or_else(|| doc.pre.origin(doc.sections[s].at), |a| doc.pre.origin(a));
    if path.contains(&s) {
        let mut chain: Vec<&str> = path.iter().map(|&i| doc.sections[i].name.as_str()).collect();
        chain.push(&doc.sections[s].name);
        return Err(MetricsError::BaseCycle { at: at(), chain: chain.join(" -> ") });
    }
    if done[s] {
        return Ok(());
    }
    if path.len() >= MAX_BASE_DEPTH {
        return Err(MetricsError::Malformed {
            at: at(),
            msg: format!("sections inherit (base=) more than {MAX_BASE_DEPTH} levels deep"),
        });
    }
    done[s] = true;
    path.push(s);
    let mut own: HashMap<&str, usize> = HashMap::new();
    for (i, m) in doc.sections[s].metrics.iter().enumerate() {
        if let Some(first) = own.insert(&m.name, m.name_at) {
            return Err(MetricsError::Duplicate {
                at: doc.pre.origin(m.name_at),
                name: m.name.clone(),
                first: doc.pre.origin(first),
            });
        }
        winner.entry(&m.name).or_insert((s, i));
    }
    for (base, at) in &doc.sections[s].bases {
        let b = doc.section(base).expect("bases checked");
        precedence(doc, b, Some(*at), path, done, winner)?;
    }
    path.pop();
    Ok(())
}

fn listing<'d>(
    doc: &'d Document,
    s: usize,
    visited: &mut [bool],
    seen: &mut std::collections::HashSet<&'d str>,
    order: &mut Vec<&'d str>,
) {
    // `precedence` has refused cycles and depth; a section listed once has
    // placed its entries and its bases'.
    if std::mem::replace(&mut visited[s], true) {
        return;
    }
    for (base, _) in &doc.sections[s].bases {
        listing(doc, doc.section(base).expect("bases checked"), visited, seen, order);
    }
    for m in &doc.sections[s].metrics {
        if seen.insert(&m.name) {
            order.push(&m.name);
        }
    }
}

/// Looks every name of a derived metric up.
fn resolve(
    doc: &Document,
    raw: &RawMetric,
    tree: &Expr<Name>,
    metrics: &[Metric],
    index: &HashMap<String, usize>,
    gpu: &str,
) -> Result<Expr<Ref>, MetricsError> {
    tree.try_map(&mut |n: &Name, agg| {
        let at = || doc.expr_origin(raw, n.at);
        let found = index.get(&n.name).copied();
        let counter = |what: &str| -> Result<(usize, &Counter), MetricsError> {
            let i = found.ok_or_else(|| unknown(n, at(), metrics))?;
            match &metrics[i].kind {
                MetricKind::Basic(c) => Ok((i, c)),
                MetricKind::Derived(_) => Err(MetricsError::Instance {
                    at: at(),
                    msg: format!("{what} needs a hardware counter; '{}' is a derived metric", n.name),
                }),
            }
        };
        if let Some((func, count)) = agg {
            let (i, c) = counter(&format!("{}()", func.name()))?;
            if count > c.instances {
                return Err(MetricsError::Instance {
                    at: at(),
                    msg: format!(
                        "{}({},{}) needs {} instances of {}; {} has {}",
                        func.name(),
                        n.name,
                        count,
                        count,
                        c.block,
                        gpu,
                        c.instances
                    ),
                });
            }
            return Ok(Ref { name: n.name.clone(), target: Target::Metric(i) });
        }
        if let Some(k) = n.index {
            let (i, c) = counter(&format!("{}[{}]", n.name, k))?;
            if k >= c.instances {
                return Err(MetricsError::Instance {
                    at: at(),
                    msg: format!(
                        "{}[{}]: {} has {} instance(s) of {} (0..{})",
                        n.name,
                        k,
                        gpu,
                        c.instances,
                        c.block,
                        c.instances - 1
                    ),
                });
            }
            return Ok(Ref { name: n.name.clone(), target: Target::Instance { metric: i, instance: k } });
        }
        if let Some(c) = Const::from_name(&n.name) {
            return Ok(Ref { name: n.name.clone(), target: Target::Const(c) });
        }
        let i = found.ok_or_else(|| unknown(n, at(), metrics))?;
        Ok(Ref { name: n.name.clone(), target: Target::Metric(i) })
    })
}

fn unknown(n: &Name, at: Origin, metrics: &[Metric]) -> MetricsError {
    let names = metrics.iter().map(|m| m.name.as_str()).chain(Const::ALL.iter().map(|c| c.name()));
    MetricsError::UnknownName { at, name: n.name.clone(), hint: did_you_mean(&n.name, names) }
}

/// Refuses a derived metric that reaches itself through references, or
/// that is built on derived metrics more than [`MAX_DERIVED_DEPTH`] levels
/// deep (every later walk of a metric, to plan, evaluate or explain it,
/// recurses through those levels). The walk itself keeps its own stack.
fn check_cycles(doc: &Document, entries: &[(usize, &RawMetric)], metrics: &[Metric]) -> Result<(), MetricsError> {
    const OPEN: u32 = u32::MAX;
    // 0: not seen; OPEN: on the path; otherwise 1 + its depth.
    let mut mark = vec![0u32; metrics.len()];
    let refs = |i: usize| {
        let mut next = Vec::new();
        if let MetricKind::Derived(d) = &metrics[i].kind {
            d.expr.visit(&mut |r: &Ref, _| {
                if let Target::Metric(j) = r.target {
                    next.push(j);
                }
            });
        }
        next
    };
    for root in 0..metrics.len() {
        if mark[root] != 0 {
            continue;
        }
        // (metric, its references, how many are walked)
        let mut stack: Vec<(usize, Vec<usize>, usize)> = vec![(root, refs(root), 0)];
        mark[root] = OPEN;
        while let Some((i, next, k)) = stack.last_mut() {
            let i = *i;
            let Some(&j) = next.get(*k) else {
                let depth = next.iter().map(|&j| mark[j]).max().unwrap_or(0) + 1;
                mark[i] = depth;
                stack.pop();
                if depth as usize > MAX_DERIVED_DEPTH + 1 {
                    return Err(MetricsError::Malformed {
                        at: doc.expr_origin(entries[i].1, 0),
                        msg: format!(
                            "'{}' is built on derived metrics more than {MAX_DERIVED_DEPTH} levels deep",
                            metrics[i].name
                        ),
                    });
                }
                continue;
            };
            *k += 1;
            match mark[j] {
                0 => {
                    mark[j] = OPEN;
                    stack.push((j, refs(j), 0));
                }
                OPEN => {
                    let from = stack.iter().position(|(p, _, _)| *p == j).unwrap_or(0);
                    let mut chain: Vec<&str> =
                        stack[from..].iter().map(|(p, _, _)| metrics[*p].name.as_str()).collect();
                    chain.push(&metrics[j].name);
                    let first = stack[from].0;
                    return Err(MetricsError::Cycle {
                        at: doc.expr_origin(entries[first].1, 0),
                        chain: chain.join(" -> "),
                    });
                }
                _ => {}
            }
        }
    }
    Ok(())
}
