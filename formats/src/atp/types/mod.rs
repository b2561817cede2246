//! API-type numbers: the number that starts a timestamp line and names the
//! function. OpenCL and HSA are numbered separately (each section names its
//! own API, as in RCP); both follow one scheme: RCP's enum for the functions RCP
//! knew, cltap's append-only table above it for the ones it did not, and a hash
//! into [`HASHED_FIRST`]..=[`HASHED_LAST`] for any other name.

pub(super) mod hsa;
pub(super) mod ocl;

use std::collections::HashMap;
use std::sync::OnceLock;

use hsa::{CLTAP_HSA_FIRST, CLTAP_HSA_FUNCTIONS, RCP_HSA_FUNCTIONS};
use ocl::{CLTAP_FIRST, CLTAP_FUNCTIONS, RCP_FUNCTIONS};

/// First and last API type of the range for names neither table knows.
pub const HASHED_FIRST: u32 = 1000;
pub const HASHED_LAST: u32 = 9999;

/// One API's numbering: RCP's enum from 0, then cltap's table from `own_first`.
struct Numbering {
    rcp: &'static [&'static str],
    own_first: u32,
    own: &'static [&'static str],
    by_name: OnceLock<HashMap<&'static str, u32>>,
}

static OCL: Numbering =
    Numbering { rcp: &RCP_FUNCTIONS, own_first: CLTAP_FIRST, own: &CLTAP_FUNCTIONS, by_name: OnceLock::new() };

static HSA: Numbering = Numbering {
    rcp: &RCP_HSA_FUNCTIONS,
    own_first: CLTAP_HSA_FIRST,
    own: &CLTAP_HSA_FUNCTIONS,
    by_name: OnceLock::new(),
};

impl Numbering {
    fn api_type(&self, name: &str) -> u32 {
        let map = self.by_name.get_or_init(|| {
            let rcp = self.rcp.iter().zip(0u32..);
            let own = self.own.iter().zip(self.own_first..);
            rcp.chain(own).map(|(n, t)| (*n, t)).collect()
        });
        map.get(name).copied().unwrap_or_else(|| hashed_api_type(name))
    }

    fn api_name(&self, api_type: u32) -> Option<&'static str> {
        let i = usize::try_from(api_type).ok()?;
        if let Some(n) = self.rcp.get(i) {
            return Some(n);
        }
        let j = usize::try_from(api_type.checked_sub(self.own_first)?).ok()?;
        self.own.get(j).copied()
    }
}

/// RCP's API-type number (its `CL_FUNC_TYPE` enum, 0–145) for the functions
/// RCP knew; cltap's own table (200 up) for later core and extension functions;
/// for any other name a 32-bit FNV-1a hash of the name folded into
/// [`HASHED_FIRST`]..=[`HASHED_LAST`]. Every range stays below 10000 so the
/// number fits RCP's 5-wide column. Hashed names may share a number.
pub fn api_type(name: &str) -> u32 {
    OCL.api_type(name)
}

/// The function an API type names; `None` for hashed and unused numbers.
pub fn api_name(api_type: u32) -> Option<&'static str> {
    OCL.api_name(api_type)
}

/// The number of an HSA function in the `=====hsa Timestamp Output=====`
/// section: RCP's `HSA_API_Type` enum (0–197) for the functions RCP knew;
/// cltap's own table (300 up) for the other entries of Debian's
/// `hsa_api_trace.h`; for any other name the same hash as [`api_type`].
pub fn hsa_api_type(name: &str) -> u32 {
    HSA.api_type(name)
}

/// The HSA function an HSA API type names; `None` for hashed and unused numbers.
pub fn hsa_api_name(api_type: u32) -> Option<&'static str> {
    HSA.api_name(api_type)
}

fn hashed_api_type(name: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in name.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    HASHED_FIRST + h % (HASHED_LAST - HASHED_FIRST + 1)
}

/// RCP's `IsEnqueueAPI`: the API types whose timestamp lines RCP's own reader
/// expects to carry enqueue fields. Functions from cltap's ranges are never
/// enqueue APIs to RCP, so RCP-based viewers ignore their enqueue fields.
pub fn rcp_is_enqueue(api_type: u32) -> bool {
    matches!(api_type, 52..=73 | 101..=105 | 114..=118 | 124..=128 | 135..=136 | 139)
}
