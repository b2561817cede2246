//! `rocprofiler_settings_t`, the structure `OnLoadToolProp` receives, laid
//! out exactly as rocprofiler v1's public header has it (`inc/rocprofiler.h`
//! in ROCm/rocprofiler, the same in every ROCm 5.x release from 5.0 to
//! 5.7): five `uint32_t`, a `uint64_t`, five `uint32_t`; 56 bytes on x86-64.
//! `include/rocprofiler_settings.h` is cltap's C copy, and
//! `tests/tool_lib.rs` holds the two to each other through gcc.
//!
//! What cltap puts in, and what it takes back after the tool returns:
//!
//! | field | offered | honoured on return |
//! |---|---|---|
//! | `intercept_mode` | 1 when HSA dispatches are intercepted (`ROCP_HSA_INTERCEPT` 1 or 2, or counters asked for), else 0 | yes: non-zero turns dispatch interception on |
//! | `code_obj_tracking` | 1 (cltap records kernel objects and names) | no |
//! | `memcopy_tracking` | 1 with `CLTAP_ATP=1` (async-copy times recorded), else 0 | no |
//! | `trace_size`, `trace_local` | 0: cltap has no thread trace | no |
//! | `timeout` | `UINT64_MAX`: cltap waits without a limit | no |
//! | `timestamp_on` | 1 with `ROCP_HSA_INTERCEPT=2` | yes, with `intercept_mode`: dispatch times too |
//! | `hsa_intercepting` | 1: every HSA call is recorded when cltap is the HSA tool | no |
//! | `k_concurrent`, `opt_mode`, `obj_dumping` | 0 | no |
//!
//! A tool can turn interception on, never off, and only for the HSA
//! runtime loaded after it (cltap loads tools before it installs its HSA
//! wrappers, so that is the usual case).

/// rocprofiler v1's `rocprofiler_settings_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RocprofilerSettings {
    pub intercept_mode: u32,
    pub code_obj_tracking: u32,
    pub memcopy_tracking: u32,
    pub trace_size: u32,
    pub trace_local: u32,
    pub timeout: u64,
    pub timestamp_on: u32,
    pub hsa_intercepting: u32,
    pub k_concurrent: u32,
    pub opt_mode: u32,
    pub obj_dumping: u32,
}

// The header's layout, on x86-64 (gcc pads `timeout` to 8 and the end to 8).
const _: () = {
    use std::mem::{offset_of, size_of};
    assert!(size_of::<RocprofilerSettings>() == 56);
    assert!(offset_of!(RocprofilerSettings, trace_local) == 16);
    assert!(offset_of!(RocprofilerSettings, timeout) == 24);
    assert!(offset_of!(RocprofilerSettings, timestamp_on) == 32);
    assert!(offset_of!(RocprofilerSettings, obj_dumping) == 48);
};

impl RocprofilerSettings {
    /// What cltap offers: `hsa_mode` is the interception in effect
    /// (`ROCP_HSA_INTERCEPT`: 0, 1, 2), `memcopy` whether async-copy times
    /// are recorded.
    pub fn offered(hsa_mode: u8, memcopy: bool) -> RocprofilerSettings {
        RocprofilerSettings {
            intercept_mode: (hsa_mode != 0) as u32,
            code_obj_tracking: 1,
            memcopy_tracking: memcopy as u32,
            trace_size: 0,
            trace_local: 0,
            timeout: u64::MAX,
            timestamp_on: (hsa_mode == 2) as u32,
            hsa_intercepting: 1,
            k_concurrent: 0,
            opt_mode: 0,
            obj_dumping: 0,
        }
    }

    /// The HSA interception mode these settings ask for (0, 1 or 2).
    pub fn hsa_mode(&self) -> u8 {
        match (self.intercept_mode != 0, self.timestamp_on != 0) {
            (false, _) => 0,
            (true, false) => 1,
            (true, true) => 2,
        }
    }

    /// Field names and offsets, for the layout test against gcc.
    pub fn layout() -> Vec<(&'static str, usize)> {
        use std::mem::offset_of;
        vec![
            ("intercept_mode", offset_of!(Self, intercept_mode)),
            ("code_obj_tracking", offset_of!(Self, code_obj_tracking)),
            ("memcopy_tracking", offset_of!(Self, memcopy_tracking)),
            ("trace_size", offset_of!(Self, trace_size)),
            ("trace_local", offset_of!(Self, trace_local)),
            ("timeout", offset_of!(Self, timeout)),
            ("timestamp_on", offset_of!(Self, timestamp_on)),
            ("hsa_intercepting", offset_of!(Self, hsa_intercepting)),
            ("k_concurrent", offset_of!(Self, k_concurrent)),
            ("opt_mode", offset_of!(Self, opt_mode)),
            ("obj_dumping", offset_of!(Self, obj_dumping)),
            ("sizeof", std::mem::size_of::<Self>()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offered_values_follow_the_interception_mode() {
        let s = RocprofilerSettings::offered(2, true);
        assert_eq!((s.intercept_mode, s.timestamp_on, s.memcopy_tracking, s.timeout), (1, 1, 1, u64::MAX));
        assert_eq!(s.hsa_mode(), 2);
        let s = RocprofilerSettings::offered(0, false);
        assert_eq!((s.intercept_mode, s.timestamp_on, s.hsa_mode()), (0, 0, 0));
        let s = RocprofilerSettings { intercept_mode: 1, ..s };
        assert_eq!(s.hsa_mode(), 1);
        let s = RocprofilerSettings { intercept_mode: 0, timestamp_on: 1, ..s };
        assert_eq!(s.hsa_mode(), 0, "timestamps without interception ask for nothing");
    }
}
