//! When each handle value's object ended, as the application's own calls
//! say: its last `clRelease*` (references counted from its creation, and
//! from its first retain or release when the log never showed it made) or
//! an HSA destroy. Drivers reuse a freed object's address in
//! run-dependent ways, and the plain log names some objects only at their
//! first use (a sub-device clCreateSubDevices made), so without this a
//! new object at a reused address would take the freed one's name in
//! some runs only. With it, a value used after its object ended is a new
//! object's, whatever the allocator did.
//!
//! The ends are found in the calls' time order, not the file's: a log
//! groups calls by thread, so a call another thread made before a release
//! (a callback using the context) may come after it in the file.

use crate::meta;
use std::collections::HashMap;

/// One call as the lifetimes need it.
pub(super) struct Life<'a> {
    /// When it started (the log's clock, or its place in the file).
    pub at: u64,
    /// What [`change`] says the call does to its handle argument's
    /// references, and that argument's raw value as the log wrote it.
    pub change: Option<(Option<i64>, &'a str)>,
    pub succeeded: bool,
}

/// What `f` does to its handle argument's references: the parameter's
/// name and the change (`None`: the object is destroyed).
pub(super) fn change(f: &str) -> Option<(&'static str, Option<i64>)> {
    if let Some((_, _, p)) = crate::memory::calls::HSA_DESTROYS.iter().find(|(n, _, _)| *n == f) {
        return Some((p, None));
    }
    let first = meta::by_name(f).and_then(|i| meta::FUNCTIONS[i].params.first())?;
    if super::kind_of(first.c_type) == "ptr" || !super::is_handle_value(first.c_type) {
        return None;
    }
    if f.starts_with("clRetain") {
        Some((first.name, Some(1)))
    } else if f.starts_with("clRelease") {
        Some((first.name, Some(-1)))
    } else {
        None
    }
}

/// Whether a result says the call succeeded (only then did it change any
/// references).
pub(super) fn succeeded(result: Option<&str>) -> bool {
    matches!(result, Some("CL_SUCCESS" | "HSA_STATUS_SUCCESS"))
}

/// The times at which each value's objects ended, in order.
#[derive(Default)]
pub(super) struct Ends {
    by_value: HashMap<String, Vec<u64>>,
}

impl Ends {
    pub fn new<'a>(calls: impl Iterator<Item = Life<'a>>) -> Ends {
        let mut calls: Vec<Life> = calls.filter(|c| c.succeeded && c.change.is_some()).collect();
        calls.sort_by_key(|c| c.at);
        let mut refs: HashMap<&str, i64> = HashMap::new();
        let mut ends = Ends::default();
        for c in &calls {
            let Some((delta, v)) = c.change else { continue };
            // An object is made holding one reference; one never retained
            // or released before holds that one still.
            let r = refs.entry(v).or_insert(1);
            let ended = match delta {
                Some(d) => {
                    *r += d;
                    *r <= 0
                }
                None => true,
            };
            if ended {
                refs.remove(v);
                ends.by_value.entry(v.to_string()).or_default().push(c.at);
            }
        }
        ends
    }

    /// How many objects at `value` had ended before a call at `at`: the
    /// call that ends one still names that one.
    pub fn epoch(&self, value: &str, at: u64) -> usize {
        self.by_value.get(value).map_or(0, |t| t.partition_point(|&e| e < at))
    }
}
