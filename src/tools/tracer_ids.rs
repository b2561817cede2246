//! The tracer's function ids: one 32-bit space for both APIs, the domain in
//! the high half and the function's position in its description in the low
//! half (`api/opencl.api` for OpenCL, `api/hsa.api` for HSA). An HSA id does
//! not move when OpenCL functions are added, and the header `include/cltap.h`
//! spells every id out by name.
//!
//! Internally each function also has a *slot*: `domain × MAX_FUNCTIONS +
//! index`, a dense index for the per-function tables the wrappers read.

use crate::calls::MAX_FUNCTIONS;
use crate::meta::{FUNCTIONS, HSA_FUNCTIONS};

pub const DOMAIN_OPENCL: u32 = 0;
pub const DOMAIN_HSA: u32 = 1;
/// Domains, and so the slot tables' size in units of `MAX_FUNCTIONS`.
pub const DOMAINS: usize = 2;
/// Entries of a per-function table indexed by slot.
pub const SLOTS: usize = DOMAINS * MAX_FUNCTIONS;

/// The id of function `index` of `domain`.
pub const fn api_id(domain: u32, index: u32) -> u32 {
    (domain << 16) | index
}

/// The slot of function `index` of `domain`, as the generated wrappers
/// compute it (a constant there).
pub const fn slot_of(domain: u32, index: usize) -> usize {
    domain as usize * MAX_FUNCTIONS + index
}

/// The id a slot stands for.
pub const fn api_id_of_slot(slot: usize) -> u32 {
    api_id((slot / MAX_FUNCTIONS) as u32, (slot % MAX_FUNCTIONS) as u32)
}

/// How many functions `domain` has; `None` for an unknown domain.
pub fn count(domain: u32) -> Option<usize> {
    match domain {
        DOMAIN_OPENCL => Some(FUNCTIONS.len()),
        DOMAIN_HSA => Some(HSA_FUNCTIONS.len()),
        _ => None,
    }
}

/// The slot of a described function's id; `None` for any other id.
pub fn slot(api_id: u32) -> Option<usize> {
    let (domain, index) = (api_id >> 16, (api_id & 0xffff) as usize);
    (index < count(domain)?).then(|| slot_of(domain, index))
}

/// The function's name, as its description spells it.
pub fn name(api_id: u32) -> Option<&'static str> {
    let index = (api_id & 0xffff) as usize;
    match api_id >> 16 {
        DOMAIN_OPENCL => FUNCTIONS.get(index).map(|f| f.name),
        DOMAIN_HSA => HSA_FUNCTIONS.get(index).map(|f| f.name),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_slots_and_names_agree() {
        let ndr = crate::meta::by_name("clEnqueueNDRangeKernel").unwrap();
        let id = api_id(DOMAIN_OPENCL, ndr as u32);
        assert_eq!(id, ndr as u32, "OpenCL ids are the description's positions");
        assert_eq!(name(id), Some("clEnqueueNDRangeKernel"));
        assert_eq!(slot(id), Some(ndr));
        let q = crate::meta::hsa_by_name("hsa_queue_create").unwrap();
        let id = api_id(DOMAIN_HSA, q as u32);
        assert_eq!(id, 0x1_0000 + q as u32);
        assert_eq!(name(id), Some("hsa_queue_create"));
        let s = slot(id).unwrap();
        assert_eq!(s, MAX_FUNCTIONS + q);
        assert_eq!(api_id_of_slot(s), id);
        assert!(s < SLOTS);
    }

    #[test]
    fn unknown_ids_have_no_slot() {
        assert_eq!(slot(api_id(DOMAIN_OPENCL, FUNCTIONS.len() as u32)), None);
        assert_eq!(slot(api_id(DOMAIN_HSA, HSA_FUNCTIONS.len() as u32)), None);
        assert_eq!(slot(api_id(2, 0)), None);
        assert_eq!(name(api_id(7, 1)), None);
        assert_eq!(count(2), None);
    }
}
