//! What the core knows about each API function, generated from
//! `api/opencl.api` (`FUNCTIONS`) and `api/hsa.api` (`HSA_FUNCTIONS`, see
//! build.rs): enough to capture a call's arguments and print them, with no
//! per-function code. A record's kind says which table its function id
//! indexes.

/// Where an array's element count comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    Param(usize),
    Const(u64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Props {
    /// `name, value` pairs ending in 0.
    Pairs,
    /// `cl_device_partition_property`: a kind followed by values, ending in 0.
    Partition,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Scalar,
    Handle,
    /// A pointer printed as an address and never read.
    Pointer,
    InArray {
        len: Count,
        elem: usize,
    },
    InBytes {
        len: Count,
    },
    InString,
    InStrings {
        len: Count,
    },
    OutValue {
        elem: usize,
    },
    OutHandle,
    OutArray {
        cap: Count,
        count: Option<usize>,
        elem: usize,
    },
    /// `size_ret`: the parameter receiving the answer's length.
    Info {
        size: usize,
        name: Option<usize>,
        size_ret: Option<usize>,
    },
    Errcode,
    Properties(Props),
    /// A struct of `size` bytes passed by value (HSA): not recorded, printed `{…}`.
    ByValue {
        size: u64,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ret {
    /// `cl_int`: 0 is success.
    Status,
    Handle,
    Pointer,
    Void,
    Scalar,
    /// `hsa_status_t`: `HSA_STATUS_SUCCESS`, `HSA_STATUS_INFO_BREAK` and
    /// `HSA_STATUS_CU_MASK_REDUCED` are success.
    HsaStatus,
}

#[derive(Debug)]
pub struct ParamMeta {
    pub name: &'static str,
    pub c_type: &'static str,
    pub kind: Kind,
}

#[derive(Debug)]
pub struct FnMeta {
    /// Its index in its API's table (`FUNCTIONS`, `HSA_FUNCTIONS`).
    pub id: u16,
    pub name: &'static str,
    pub ext: &'static str,
    pub ret: Ret,
    pub ret_type: &'static str,
    /// Has a `cl_event*` output, so the call gets a command id.
    pub event_out: bool,
    /// The indices, in order, of the parameters whose record may carry
    /// more than their word (every kind but scalars, handles, plain pointers
    /// and structures by value).
    pub captured: &'static [u8],
    pub params: &'static [ParamMeta],
}

/// A function's description, as the caller of the capture knows it. A
/// generated wrapper passes its function's own type (`described::NAME`,
/// `hsa_described::NAME`), whose description is a constant the compiler
/// sees; its captures visit that function's parameters one by one
/// (`trace::capture::Captured`), so they compile to straight code for that
/// one function. Other callers pass the table's entry, read at run time.
pub trait Described: Copy {
    fn meta(self) -> &'static FnMeta;

    /// The function's id, a constant for a generated wrapper's type.
    #[inline(always)]
    fn id(self) -> usize {
        self.meta().id as usize
    }
}

impl Described for &'static FnMeta {
    #[inline(always)]
    fn meta(self) -> &'static FnMeta {
        self
    }
}

include!(concat!(env!("OUT_DIR"), "/meta.rs"));

impl FnMeta {
    /// cltap's own perf-marker functions, recorded as markers, not calls.
    pub fn is_marker(&self) -> bool {
        self.ext == "cltap_perf_marker"
    }
}

pub fn by_name(name: &str) -> Option<usize> {
    FUNCTIONS.iter().position(|f| f.name == name)
}

/// An HSA function's id (its index in `HSA_FUNCTIONS`).
pub fn hsa_by_name(name: &str) -> Option<usize> {
    HSA_FUNCTIONS.iter().position(|f| f.name == name)
}

use cltap_formats::cltrace::record::{KIND_HSA_CALL, KIND_OPENCL_CALL};

/// The functions a record of this kind numbers: OpenCL's or HSA's; `None`
/// for a kind that is not a call.
#[inline]
pub fn functions(kind: u16) -> Option<&'static [FnMeta]> {
    match kind {
        KIND_OPENCL_CALL => Some(&FUNCTIONS),
        KIND_HSA_CALL => Some(&HSA_FUNCTIONS),
        _ => None,
    }
}

/// The function of a call record.
#[inline]
pub fn function(kind: u16, fn_id: u16) -> Option<&'static FnMeta> {
    functions(kind)?.get(fn_id as usize)
}

/// One number for every function of both APIs: OpenCL's ids, then HSA's
/// after them (tallies kept in one array). `None` for an id past its own
/// API's table (a damaged or crafted record), which would otherwise read
/// as the other API's function.
pub fn global_index(kind: u16, fn_id: u16) -> Option<usize> {
    function(kind, fn_id)?;
    match kind {
        KIND_OPENCL_CALL => Some(fn_id as usize),
        _ => Some(FUNCTIONS.len() + fn_id as usize),
    }
}

/// The function behind a [`global_index`].
pub fn by_global_index(i: usize) -> Option<&'static FnMeta> {
    FUNCTIONS.get(i).or_else(|| HSA_FUNCTIONS.get(i.checked_sub(FUNCTIONS.len())?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record's function id past its own API's table is no function,
    /// not the other API's.
    #[test]
    fn an_id_past_its_tables_end_has_no_global_index() {
        let past = FUNCTIONS.len() as u16;
        assert_eq!(global_index(KIND_OPENCL_CALL, past), None);
        assert_eq!(global_index(KIND_OPENCL_CALL, past - 1), Some(past as usize - 1));
        assert_eq!(global_index(KIND_HSA_CALL, 0), Some(FUNCTIONS.len()));
        assert_eq!(global_index(KIND_HSA_CALL, HSA_FUNCTIONS.len() as u16), None);
    }

    /// Each wrapper passes its function's own type: the description the
    /// capture sees through it must be that function's entry, whole.
    #[test]
    fn each_described_type_is_its_functions_entry() {
        for (table, metas) in [(&FUNCTIONS[..], described_metas()), (&HSA_FUNCTIONS[..], hsa_described_metas())] {
            assert_eq!(table.len(), metas.len());
            for (i, (f, m)) in table.iter().zip(metas).enumerate() {
                assert_eq!(format!("{f:?}"), format!("{m:?}"), "{}", f.name);
                assert_eq!(f.id as usize, i, "{}: its id is its index", f.name);
            }
        }
    }

    /// The capture looks only at `captured`: it must name every parameter
    /// whose kind can carry more than its word, and no other.
    #[test]
    fn captured_lists_every_parameter_with_contents() {
        for f in FUNCTIONS.iter().chain(HSA_FUNCTIONS.iter()) {
            let want: Vec<u8> = (0..f.params.len() as u8)
                .filter(|&i| {
                    !matches!(
                        f.params[i as usize].kind,
                        Kind::Scalar | Kind::Handle | Kind::Pointer | Kind::ByValue { .. }
                    )
                })
                .collect();
            assert_eq!(f.captured, &want[..], "{}", f.name);
        }
        let k = &FUNCTIONS[by_name("clSetKernelArg").unwrap()];
        assert_eq!(k.captured, &[3], "only arg_value has contents");
    }

    #[test]
    fn metadata_covers_the_description() {
        let f = &FUNCTIONS[by_name("clEnqueueNDRangeKernel").unwrap()];
        assert!(f.event_out);
        assert_eq!(f.params.len(), 9);
        assert_eq!(f.params[4].kind, Kind::InArray { len: Count::Param(2), elem: 8 });
        let f = &FUNCTIONS[by_name("clGetDeviceInfo").unwrap()];
        assert!(!f.event_out);
        assert_eq!(f.params[3].kind, Kind::Info { size: 2, name: Some(1), size_ret: Some(4) });
        assert!(FUNCTIONS.len() > 200);
    }

    #[test]
    fn hsa_metadata_and_kinds() {
        assert_eq!(HSA_FUNCTIONS.len(), 192);
        let f = &HSA_FUNCTIONS[hsa_by_name("hsa_queue_create").unwrap()];
        assert_eq!((f.ret, f.ext, f.event_out), (Ret::HsaStatus, "core", false));
        assert_eq!(f.params[0].kind, Kind::Handle);
        assert_eq!(f.params[7].kind, Kind::OutHandle);
        let f = &HSA_FUNCTIONS[hsa_by_name("hsa_signal_create").unwrap()];
        assert_eq!(f.params[2].kind, Kind::InArray { len: Count::Param(1), elem: 8 });
        let f = &HSA_FUNCTIONS[hsa_by_name("hsa_system_extension_supported").unwrap()];
        assert_eq!(f.params[3].kind, Kind::OutValue { elem: 1 });
        assert_eq!(function(KIND_HSA_CALL, 0).unwrap().name, "hsa_init");
        assert_eq!(function(KIND_OPENCL_CALL, 0).unwrap().name, FUNCTIONS[0].name);
        assert!(function(7, 0).is_none());
        let g = global_index(KIND_HSA_CALL, 5).unwrap();
        assert_eq!(by_global_index(g).unwrap().name, HSA_FUNCTIONS[5].name);
        assert_eq!(by_global_index(3).unwrap().name, FUNCTIONS[3].name);
        assert!(by_global_index(FUNCTIONS.len() + HSA_FUNCTIONS.len()).is_none());
    }
}
