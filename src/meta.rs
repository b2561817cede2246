//! What the core knows about each API function, generated from
//! `api/opencl.api` (see build.rs): enough to capture a call's arguments and
//! print them, with no per-function code.

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
    InArray { len: Count, elem: usize },
    InBytes { len: Count },
    InString,
    InStrings { len: Count },
    OutValue { elem: usize },
    OutHandle,
    OutArray { cap: Count, count: Option<usize>, elem: usize },
    /// `size_ret`: the parameter receiving the answer's length.
    Info { size: usize, name: Option<usize>, size_ret: Option<usize> },
    Errcode,
    Properties(Props),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ret {
    Status,
    Handle,
    Pointer,
    Void,
    Scalar,
}

#[derive(Debug)]
pub struct ParamMeta {
    pub name: &'static str,
    pub c_type: &'static str,
    pub kind: Kind,
}

#[derive(Debug)]
pub struct FnMeta {
    pub name: &'static str,
    pub ext: &'static str,
    pub ret: Ret,
    pub ret_type: &'static str,
    /// Has a `cl_event*` output, so the call gets a command id.
    pub event_out: bool,
    pub params: &'static [ParamMeta],
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
