//! The info API's view of the metrics catalog: one `rocprofiler_info_data_t`
//! per metric of the agent's catalog, in the catalog's order (the GPU's
//! sections, then `<global>`), as rocprofiler v1 lists the nodes of its
//! metrics file.
//!
//! - a hardware counter: its name, description, `expr` NULL, `instances`
//!   the block's instances on the GPU, `block_name`, and `block_counters`
//!   the block's counter slots (what AQLprofile answers);
//! - a derived metric: `instances` 1, `expr` the expression as written,
//!   `block_name` NULL.
//!
//! The strings live as long as the table (the shell keeps one per agent for
//! the process's life): v1 hands out copies it never frees; cltap hands out
//! the same pointers every time.

use super::abi::{self, InfoData, InfoMetric, InfoUnion};
use super::error::RocpError;
use crate::metrics::{Catalog, MetricKind};
use std::ffi::{c_char, CString};

struct Entry {
    name: CString,
    descr: CString,
    expr: Option<CString>,
    block: Option<CString>,
    instances: u32,
    block_counters: u32,
}

pub struct InfoTable {
    entries: Vec<Entry>,
}

fn c(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).unwrap_or_default()
}

fn ptr(s: &Option<CString>) -> *const c_char {
    s.as_ref().map_or(std::ptr::null(), |s| s.as_ptr())
}

impl InfoTable {
    pub fn new(catalog: &Catalog) -> InfoTable {
        let entries = catalog
            .iter()
            .map(|m| match &m.kind {
                MetricKind::Basic(k) => Entry {
                    name: c(&m.name),
                    descr: c(&m.descr),
                    expr: None,
                    block: Some(c(k.block.name())),
                    instances: k.instances,
                    block_counters: catalog.block_counts(k.block).map_or(0, |b| b.slots),
                },
                MetricKind::Derived(d) => Entry {
                    name: c(&m.name),
                    descr: c(&m.descr),
                    expr: Some(c(&d.text)),
                    block: None,
                    instances: 1,
                    block_counters: 0,
                },
            })
            .collect();
        InfoTable { entries }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn data(e: &Entry, agent_index: u32) -> InfoData {
        InfoData {
            agent_index,
            kind: abi::INFO_KIND_METRIC,
            u: InfoUnion {
                metric: InfoMetric {
                    name: e.name.as_ptr(),
                    instances: e.instances,
                    expr: ptr(&e.expr),
                    description: e.descr.as_ptr(),
                    block_name: ptr(&e.block),
                    block_counters: e.block_counters,
                },
            },
        }
    }

    /// The entry of metric `name` (cltap's extension of `rocprofiler_get_info`).
    pub fn find(&self, catalog: &Catalog, name: &str, agent_index: u32) -> Result<InfoData, RocpError> {
        match self.entries.iter().find(|e| e.name.to_bytes() == name.as_bytes()) {
            Some(e) => Ok(Self::data(e, agent_index)),
            // Not a metric of the file: the catalog says why (and what is close).
            None => match catalog.request(name) {
                Err(e) => Err(e.into()),
                Ok(_) => Err(RocpError::Metrics(crate::metrics::MetricsError::BadRequest {
                    name: name.to_string(),
                    msg: "only the metrics of the file have info; NAME[i] and BLOCK:EVENT can be opened, not looked up"
                        .into(),
                })),
            },
        }
    }

    /// Calls `callback` with each metric until it returns something other
    /// than success: `HSA_STATUS_INFO_BREAK` ends the walk successfully,
    /// any other status is the walk's failure.
    pub fn iterate(&self, agent_index: u32, mut callback: impl FnMut(InfoData) -> u32) -> Result<(), RocpError> {
        for e in &self.entries {
            match callback(Self::data(e, agent_index)) {
                abi::status::SUCCESS => {}
                abi::status::INFO_BREAK => return Ok(()),
                s => return Err(RocpError::Callback(s)),
            }
        }
        Ok(())
    }
}
