//! Faults on demand. `GPU_EMU_FAULT=KIND@WHICH` makes one dispatch fault instead of running:
//! KIND is `memory` (a GPU memory access fault: KFD's memory event, which ROCr reports as "Memory
//! access fault by GPU node-1 … Reason: Page not present or supervisor privilege." and aborts unless
//! a system event handler takes it), `illegal-instruction` or `aperture` (queue errors through the
//! queue's inactive signal: the queue's error callback gets HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION or
//! HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION). WHICH is `NAME` (the first dispatch of the kernel
//! NAME), `NAME#N` (its Nth) or `#N` (the Nth dispatch of any kernel, ROCr's own blits included).
//! Either way the queue stops, as a faulted queue does on hardware.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use crate::queue::Queue;
use crate::signal::Signal;

pub const VARIABLE: &str = "GPU_EMU_FAULT";
/// The address a `memory` fault reports: page one, which nothing maps.
pub const FAULT_ADDRESS: u64 = 0x1000;
/// Queue error codes as ROCr's `AqlQueue::DynamicScratchHandler` decodes them.
pub const QUEUE_ERROR_INVALID_PACKET: i64 = 32;
const QUEUE_ERROR_APERTURE: i64 = 0x2000_0000;
const QUEUE_ERROR_ILLEGAL_INSTRUCTION: i64 = 0x4000_0000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    Memory,
    IllegalInstruction,
    Aperture,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub fault: Fault,
    /// None: any kernel.
    pub kernel: Option<String>,
    /// 1-based.
    pub nth: u64,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PlanError {
    #[error("expected KIND@WHICH")]
    NoAt,
    #[error("unknown fault kind {0:?}")]
    Kind(String),
    #[error("bad dispatch number {0:?}")]
    Number(String),
}

/// Parses `KIND@NAME`, `KIND@NAME#N` or `KIND@#N`.
pub fn parse(value: &str) -> Result<Plan, PlanError> {
    let (kind, which) = value.split_once('@').ok_or(PlanError::NoAt)?;
    let fault = match kind {
        "memory" => Fault::Memory,
        "illegal-instruction" => Fault::IllegalInstruction,
        "aperture" => Fault::Aperture,
        other => return Err(PlanError::Kind(other.into())),
    };
    let (name, nth) = match which.split_once('#') {
        Some((name, n)) => (name, n.parse::<u64>().ok().filter(|&n| n > 0).ok_or_else(|| PlanError::Number(n.into()))?),
        None => (which, 1),
    };
    let kernel = (!name.is_empty()).then(|| name.to_string());
    if kernel.is_none() && !which.starts_with('#') {
        return Err(PlanError::Number(which.into()));
    }
    Ok(Plan { fault, kernel, nth })
}

fn plan() -> Option<&'static Plan> {
    static PLAN: OnceLock<Option<Plan>> = OnceLock::new();
    PLAN.get_or_init(|| {
        let value = std::env::var(VARIABLE).ok()?;
        match parse(&value) {
            Ok(p) => Some(p),
            Err(e) => {
                crate::note(format_args!(
                    "{VARIABLE}={value:?} ignored ({e}): accepted are memory|illegal-instruction|aperture @ NAME, NAME#N or #N"
                ));
                None
            }
        }
    })
    .as_ref()
}

/// Dispatches of the planned kernel seen so far.
static MATCHING: AtomicU64 = AtomicU64::new(0);

/// Decides whether dispatch number `number` (any kernel) of kernel `name` faults.
pub fn wanted(number: u64, name: Option<&str>) -> Option<Fault> {
    decide(plan()?, number, name, &MATCHING)
}

pub fn decide(plan: &Plan, number: u64, name: Option<&str>, matching: &AtomicU64) -> Option<Fault> {
    match &plan.kernel {
        None => (number == plan.nth).then_some(plan.fault),
        Some(k) if Some(k.as_str()) == name => {
            (matching.fetch_add(1, Ordering::AcqRel) + 1 == plan.nth).then_some(plan.fault)
        }
        Some(_) => None,
    }
}

/// Stops the queue and reports `code` through its inactive signal.
pub fn queue_error(q: &Queue, code: i64) {
    q.halted.store(true, Ordering::Release);
    if let Some(s) = Signal::from_handle(q.inactive_signal()) {
        s.store_and_raise(code);
    }
}

pub fn deliver(q: &Queue, fault: Fault) {
    match fault {
        Fault::Memory => {
            q.halted.store(true, Ordering::Release);
            crate::events::raise_memory_fault(FAULT_ADDRESS);
        }
        Fault::IllegalInstruction => queue_error(q, QUEUE_ERROR_ILLEGAL_INSTRUCTION),
        Fault::Aperture => queue_error(q, QUEUE_ERROR_APERTURE),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_parse_and_bad_ones_say_why() {
        assert_eq!(parse("memory@vadd").unwrap(), Plan { fault: Fault::Memory, kernel: Some("vadd".into()), nth: 1 });
        assert_eq!(parse("aperture@k#3").unwrap().nth, 3);
        assert_eq!(
            parse("illegal-instruction@#2").unwrap(),
            Plan { fault: Fault::IllegalInstruction, kernel: None, nth: 2 }
        );
        assert_eq!(parse("memory"), Err(PlanError::NoAt));
        assert_eq!(parse("boom@k"), Err(PlanError::Kind("boom".into())));
        assert_eq!(parse("memory@k#0"), Err(PlanError::Number("0".into())));
        assert_eq!(parse("memory@"), Err(PlanError::Number("".into())));
    }

    #[test]
    fn only_the_nth_dispatch_of_the_named_kernel_faults() {
        let plan = parse("memory@k#2").unwrap();
        let seen = AtomicU64::new(0);
        assert_eq!(decide(&plan, 1, Some("k"), &seen), None);
        assert_eq!(decide(&plan, 2, Some("other"), &seen), None);
        assert_eq!(decide(&plan, 3, Some("k"), &seen), Some(Fault::Memory));
        assert_eq!(decide(&plan, 4, Some("k"), &seen), None);
    }
}
