//! A profiling context (`rocprofiler_t`): the tool's features, planned
//! into groups with the metrics catalog, and the values collected for each
//! group.
//!
//! - **Groups are passes.** [`Catalog::plan`] splits the features' hardware
//!   events by the GPU's counter slots; each pass is one group, collected
//!   around one dispatch. (rocprofiler 5.x refuses to open a context that
//!   needs more than one pass; cltap returns the groups, and
//!   `ROCPROFILER_MODE_SINGLEGROUP` still refuses.)
//! - **A group's `features`** are the tool's features whose events are all
//!   in that group; a feature spread over several groups is in none, and
//!   gets its value once every group it needs was collected.
//! - **Values:** a hardware counter (a basic metric, `NAME[i]`, `BLOCK:EVENT`)
//!   is `ROCPROFILER_DATA_KIND_INT64`, the sum of its events (block instances,
//!   shader-engine samples); a derived metric is `DOUBLE`, evaluated by the
//!   catalog (standard precedence, division by zero gives 0; docs/metrics.md).
//!
//! The features array is the tool's: it must outlive the context, as in
//! rocprofiler v1, whose results are written into it.

use super::abi::{self, Data, Feature, Group, Handler, Properties};
use super::error::RocpError;
use crate::hsa::aqlprofile;
use crate::metrics::{Catalog, Consts, Event, MetricKind, Plan, Request};
use parking_lot::{Condvar, Mutex};
use std::collections::{BTreeMap, HashMap};
use std::ffi::{c_void, CStr};
use std::sync::atomic::{AtomicBool, Ordering};

/// A feature of the tool's array.
#[repr(transparent)]
#[derive(Clone, Copy, Debug)]
pub struct FeaturePtr(pub *mut Feature);

// SAFETY: the tool's features are written under the context's lock only,
// and the tool promises they outlive the context (the v1 contract).
unsafe impl Send for FeaturePtr {}
unsafe impl Sync for FeaturePtr {}

/// One requested feature.
struct Spec {
    name: String,
    /// A hardware counter (INT64), not a derived metric (DOUBLE).
    counter: bool,
    events: Vec<Event>,
    /// The groups its events are in.
    groups: Vec<usize>,
    feature: FeaturePtr,
}

struct GroupDef {
    events: Vec<aqlprofile::Event>,
    features: Box<[FeaturePtr]>,
}

/// A group's collection state.
#[derive(Default)]
struct Slot {
    /// Dispatches counting it whose values have not come back.
    pending: u32,
    /// The last collected values of its events.
    values: Option<HashMap<Event, u64>>,
}

pub struct Context {
    agent: u64,
    plan: Option<Plan>,
    consts: Consts,
    specs: Vec<Spec>,
    groups: Vec<GroupDef>,
    handler: Option<(Handler, usize)>,
    slots: Mutex<Vec<Slot>>,
    changed: Condvar,
    closed: AtomicBool,
    /// The process is ending and its counted dispatches did not all come
    /// back in time: `get_data` stops waiting (see [`Context::stop_waiting`]).
    given_up: AtomicBool,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Context(agent {:#x}, {} features, {} groups)", self.agent, self.specs.len(), self.groups.len())
    }
}

impl Context {
    /// `rocprofiler_open`'s work, on `catalog` (the agent's metrics) and the
    /// agent's constants.
    ///
    /// # Safety
    /// `features` points at `count` features (or `count` is 0); their names
    /// are NUL-terminated; the array outlives the context.
    pub unsafe fn open(
        catalog: &Catalog,
        consts: Consts,
        agent: u64,
        features: *mut Feature,
        count: u32,
        mode: u32,
        props: Option<&Properties>,
    ) -> Result<Context, RocpError> {
        if mode & (abi::MODE_STANDALONE | abi::MODE_CREATEQUEUE) != 0 {
            return Err(RocpError::StandaloneMode(mode));
        }
        if count > 0 && features.is_null() {
            return Err(RocpError::Null("features"));
        }
        let mut names: Vec<(String, FeaturePtr)> = Vec::with_capacity(count as usize);
        for i in 0..count as usize {
            // SAFETY: `features.add(i)` stays inside the buffer it indexes (# Safety).
            let f = unsafe { features.add(i) };
            // SAFETY: `(*f)` is valid for this access, as the caller promises (# Safety).
            let kind = unsafe { (*f).kind };
            // SAFETY: the entry called here gets arguments its C declaration accepts.
            let name_ptr = unsafe { (*f).u.name };
            // SAFETY: `name_ptr` is a NUL-terminated string, live while read, as the caller promises (# Safety).
            let name = if name_ptr.is_null() {
                None
            } else {
                Some(unsafe { CStr::from_ptr(name_ptr) }.to_string_lossy().into_owned())
            };
            if kind & (abi::FEATURE_KIND_TRACE | abi::FEATURE_KIND_SPM_MOD | abi::FEATURE_KIND_PCSMP_MOD) != 0 {
                return Err(RocpError::TraceUnsupported(name.unwrap_or_else(|| format!("#{i}"))));
            }
            if kind != abi::FEATURE_KIND_METRIC {
                return Err(RocpError::FeatureKind { index: i, kind });
            }
            let name = name.ok_or(RocpError::Null("a metric feature's name"))?;
            if names.iter().any(|(n, _)| *n == name) {
                return Err(RocpError::Duplicate(name));
            }
            names.push((name, FeaturePtr(f)));
        }
        let plan = if names.is_empty() {
            None
        } else {
            Some(catalog.plan(&names.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>())?)
        };
        let passes: &[Vec<Event>] = plan.as_ref().map_or(&[], |p| p.passes());
        if mode & abi::MODE_SINGLEGROUP != 0 && passes.len() > 1 {
            return Err(RocpError::SingleGroup(passes.len()));
        }
        let mut specs = Vec::with_capacity(names.len());
        if let Some(plan) = &plan {
            // `plan` keeps the names' order (none repeats).
            for ((name, feature), planned) in names.into_iter().zip(plan.requests()) {
                let counter = match catalog.request(&name)? {
                    Request::Metric(m) => matches!(catalog.metric_at(m).kind, MetricKind::Basic(_)),
                    Request::Instance { .. } | Request::Raw { .. } => true,
                };
                specs.push(Spec {
                    name,
                    counter,
                    events: planned.events.clone(),
                    groups: planned.passes.clone(),
                    feature,
                });
            }
        }
        let n = passes.len().max(1);
        let groups = (0..n)
            .map(|g| GroupDef {
                events: passes.get(g).map(|p| p.iter().map(Event::to_aql).collect()).unwrap_or_default(),
                features: specs
                    .iter()
                    .filter(|s| s.groups == [g] || (g == 0 && s.groups.is_empty()))
                    .map(|s| s.feature)
                    .collect(),
            })
            .collect();
        let handler = props.and_then(|p| p.handler.map(|h| (h, p.handler_arg as usize)));
        Ok(Context {
            agent,
            plan,
            consts,
            specs,
            groups,
            handler,
            slots: Mutex::new((0..n).map(|_| Slot::default()).collect()),
            changed: Condvar::new(),
            closed: AtomicBool::new(false),
            given_up: AtomicBool::new(false),
        })
    }

    pub fn agent(&self) -> u64 {
        self.agent
    }

    pub fn group_count(&self) -> u32 {
        self.groups.len() as u32
    }

    fn check(&self, index: u32) -> Result<usize, RocpError> {
        if (index as usize) < self.groups.len() {
            Ok(index as usize)
        } else {
            Err(RocpError::BadGroup { index, count: self.group_count() })
        }
    }

    /// The `rocprofiler_group_t` of group `index`; its `context` is this
    /// context's address (its handle while it lives in the registry).
    pub fn group(&self, index: u32) -> Result<Group, RocpError> {
        let g = &self.groups[self.check(index)?];
        Ok(Group {
            index,
            features: if g.features.is_empty() {
                std::ptr::null_mut()
            } else {
                g.features.as_ptr() as *mut *mut Feature
            },
            feature_count: g.features.len() as u32,
            context: self as *const Context as *mut c_void,
        })
    }

    /// The AQLprofile events of group `index`.
    pub fn events(&self, index: u32) -> Result<&[aqlprofile::Event], RocpError> {
        Ok(&self.groups[self.check(index)?].events)
    }

    /// Marks the context closed: values still arriving are dropped and its
    /// handler is not called any more (the tool may have freed its features).
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
    }

    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// At the end of the process, once cltap stopped waiting for the
    /// dispatches still counting: a `get_data` waiting for one (a tool's
    /// `OnUnloadTool`) returns an error instead of blocking the exit for
    /// ever. The flag is set under the slots' lock, so a `get_data` about
    /// to wait either sees it or is woken.
    pub fn stop_waiting(&self) {
        let slots = self.slots.lock();
        self.given_up.store(true, Ordering::Release);
        drop(slots);
        self.changed.notify_all();
    }

    /// A dispatch will count group `index`.
    pub fn begin(&self, index: u32) -> Result<(), RocpError> {
        let g = self.check(index)?;
        self.slots.lock()[g].pending += 1;
        Ok(())
    }

    /// The values of group `index`'s dispatch arrived: they are kept and
    /// waiters wake. No feature is written here: the tool's features array
    /// is often shared by all its contexts and read under the tool's own
    /// lock, so, as in rocprofiler 5.2.3, only the tool's own `get_data` and
    /// `get_metrics` calls write it. Returns whether the tool's handler
    /// should be called (not when closed).
    pub fn finish(&self, index: u32, values: &BTreeMap<aqlprofile::Event, u64>) -> bool {
        let Ok(g) = self.check(index) else { return false };
        let mut slots = self.slots.lock();
        slots[g].pending = slots[g].pending.saturating_sub(1);
        slots[g].values = Some(values.iter().filter_map(|(e, v)| Some((Event::from_aql(e)?, *v))).collect());
        let open = !self.is_closed();
        drop(slots);
        self.changed.notify_all();
        open && self.handler.is_some()
    }

    /// A dispatch that was to count group `index` was not counted after all.
    pub fn abandon(&self, index: u32) {
        if let Ok(g) = self.check(index) {
            let mut slots = self.slots.lock();
            slots[g].pending = slots[g].pending.saturating_sub(1);
        }
        self.changed.notify_all();
    }

    /// Calls the tool's completion handler with group `index`, as v1 does
    /// when the group's stop packet completed.
    pub fn call_handler(&self, index: u32) {
        if let (Some((h, arg)), Ok(group)) = (self.handler, self.group(index)) {
            // SAFETY: the tool's handler, with the group and argument it gave.
            unsafe { h(group, arg as *mut c_void) };
        }
    }

    /// `rocprofiler_get_data`: waits for group `index`'s dispatch (unless
    /// `may_wait` is false) and writes the features its values complete.
    /// Without waiting, the values collected so far are written if there
    /// are any (a handler on the runtime's signal thread, with the group
    /// reused by later dispatches, must not wait for them: their values
    /// come through that same thread).
    pub fn get_data(&self, index: u32, may_wait: bool) -> Result<(), RocpError> {
        let g = self.check(index)?;
        let mut slots = self.slots.lock();
        while slots[g].pending > 0 {
            if !may_wait {
                if slots[g].values.is_some() {
                    break;
                }
                return Err(RocpError::WouldBlock(index));
            }
            if self.given_up.load(Ordering::Acquire) {
                return Err(RocpError::LostAtExit(index));
            }
            self.changed.wait(&mut slots);
        }
        if slots[g].values.is_none() {
            return Err(RocpError::NotCollected(index));
        }
        // As 5.2.3's GetData: the group's features read as uninitialised
        // unless this context's values complete them.
        for spec in self.specs.iter().filter(|s| s.groups.contains(&g)) {
            // SAFETY: the tool's feature, alive while the context is open.
            unsafe { std::ptr::addr_of_mut!((*spec.feature.0).data).write(Data::UNINIT) };
        }
        self.fill(&slots);
        Ok(())
    }

    /// `rocprofiler_get_metrics`: writes every feature; fails naming the
    /// first one whose groups are not all collected.
    pub fn get_metrics(&self) -> Result<(), RocpError> {
        let slots = self.slots.lock();
        self.fill(&slots);
        for s in &self.specs {
            let missing: Vec<usize> = s.groups.iter().copied().filter(|g| slots[*g].values.is_none()).collect();
            if !missing.is_empty() {
                return Err(RocpError::Incomplete { name: s.name.clone(), groups: missing });
            }
        }
        Ok(())
    }

    /// `rocprofiler_reset`: group `index` forgets its values.
    pub fn reset(&self, index: u32) -> Result<(), RocpError> {
        let g = self.check(index)?;
        self.slots.lock()[g].values = None;
        Ok(())
    }

    /// Writes each feature whose groups all have values.
    fn fill(&self, slots: &[Slot]) {
        let Some(plan) = &self.plan else { return };
        let mut merged: HashMap<Event, u64> = HashMap::new();
        for v in slots.iter().filter_map(|s| s.values.as_ref()) {
            merged.extend(v.iter().map(|(e, v)| (*e, *v)));
        }
        for s in &self.specs {
            if s.groups.iter().any(|g| slots[*g].values.is_none()) {
                continue;
            }
            let data = if s.counter {
                s.events.iter().try_fold(0u64, |acc, e| merged.get(e).map(|v| acc.wrapping_add(*v))).map(Data::int64)
            } else {
                plan.evaluate(&s.name, &merged, &self.consts).map(Data::double)
            };
            if let Some(d) = data {
                // SAFETY: the tool's feature, alive while the context is open.
                unsafe { std::ptr::addr_of_mut!((*s.feature.0).data).write(d) };
            }
        }
    }
}
