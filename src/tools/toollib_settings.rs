//! `rocprofiler_settings_t`, the structure `OnLoadToolProp` receives, laid
//! out exactly as rocprofiler v1's public header has it (`inc/rocprofiler.h`
//! in ROCm/rocprofiler, the same in every ROCm 5.x release from 5.0 to
//! 5.7): five `uint32_t`, a `uint64_t`, five `uint32_t`; 56 bytes on x86-64.
//! `include/rocprofiler_settings.h` is cltap's C copy, and
//! `tests/tool_lib.rs` holds the two to each other through gcc.
//!
//! What cltap puts in is what rocprofiler 5.2.3 puts in (`LoadTool` in
//! its `src/core/rocprofiler.cpp`), and what it takes back after the tool
//! returns:
//!
//! | field | offered (as 5.2.3) | honoured on return |
//! |---|---|---|
//! | `intercept_mode` | 1 (5.2.3: 1 whenever a tool library is loaded) | no, as in 5.2.3, where the queues are intercepted by `ROCP_HSA_INTERCEPT` alone (cltap also intercepts for a tool that registers a dispatch callback) |
//! | `code_obj_tracking` | 1 | no: cltap always names kernels |
//! | `memcopy_tracking` | 0 | no |
//! | `trace_size` | `0x2000000` (32 MiB) | no: cltap has no thread trace |
//! | `trace_local` | 1 | no |
//! | `timeout` | `UINT64_MAX` | no: cltap waits without a limit |
//! | `timestamp_on` | 1 with `ROCP_HSA_INTERCEPT=2` | yes: turned on, the dispatches are intercepted with their times (`=2`) |
//! | `hsa_intercepting` | 0 | yes: left on, the `ksymbol` HSA callback is called |
//! | `opt_mode` | 0 | yes: left on, the dispatch callback gets 5.2.3's optimised data |
//! | `k_concurrent`, `obj_dumping` | 0 | no |
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
    /// What rocprofiler 5.2.3 offers a tool: `hsa_mode` is the
    /// interception in effect (`ROCP_HSA_INTERCEPT`: 0, 1, 2).
    pub fn offered(hsa_mode: u8) -> RocprofilerSettings {
        RocprofilerSettings {
            intercept_mode: 1,
            code_obj_tracking: 1,
            memcopy_tracking: 0,
            trace_size: 0x0200_0000,
            trace_local: 1,
            timeout: u64::MAX,
            timestamp_on: (hsa_mode == 2) as u32,
            hsa_intercepting: 0,
            k_concurrent: 0,
            opt_mode: 0,
            obj_dumping: 0,
        }
    }

    /// The HSA interception mode the tools ask for by what they changed of
    /// `offered`: timestamps turned on ask for 2, interception turned on
    /// (not offered on) for 1, anything else for nothing.
    pub fn requested_hsa_mode(&self, offered: &RocprofilerSettings) -> u8 {
        if self.timestamp_on != 0 && offered.timestamp_on == 0 {
            2
        } else if self.intercept_mode != 0 && offered.intercept_mode == 0 {
            1
        } else {
            0
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
    fn offered_values_are_rocprofiler_5_2_3s() {
        let s = RocprofilerSettings::offered(2);
        assert_eq!((s.intercept_mode, s.timestamp_on, s.memcopy_tracking, s.timeout), (1, 1, 0, u64::MAX));
        assert_eq!((s.hsa_intercepting, s.code_obj_tracking, s.trace_size, s.trace_local), (0, 1, 0x0200_0000, 1));
        let s = RocprofilerSettings::offered(0);
        assert_eq!((s.intercept_mode, s.timestamp_on), (1, 0));
        assert_eq!(s.requested_hsa_mode(&s), 0, "nothing changed asks for nothing");
        let t = RocprofilerSettings { timestamp_on: 1, ..s };
        assert_eq!(t.requested_hsa_mode(&s), 2);
        let o = RocprofilerSettings { intercept_mode: 0, ..s };
        assert_eq!(s.requested_hsa_mode(&o), 1);
    }
}
