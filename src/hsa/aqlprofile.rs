//! The AQLprofile extension's types (`hsa_ven_amd_aqlprofile.h`, reached
//! with `hsa_system_get_major_extension_table(0x202, 1, …)`), as cltap's
//! counter collector uses them. Plain `repr(C)` layouts; a test holds them
//! to Debian's header, compiled with gcc.

use std::ffi::c_void;

/// `HSA_EXTENSION_AMD_AQLPROFILE`.
pub const EXTENSION: u16 = 0x202;
/// `HSA_VEN_AMD_AQLPROFILE_EVENT_TYPE_PMC`.
pub const EVENT_TYPE_PMC: u32 = 0;
pub const INFO_COMMAND_BUFFER_SIZE: u32 = 0;
pub const INFO_PMC_DATA_SIZE: u32 = 1;
pub const INFO_PMC_DATA: u32 = 2;
pub const INFO_BLOCK_COUNTERS: u32 = 4;
pub const INFO_BLOCK_ID: u32 = 5;

/// `hsa_ven_amd_aqlprofile_event_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Event {
    pub block_name: u32,
    pub block_index: u32,
    pub counter_id: u32,
}

/// `hsa_ven_amd_aqlprofile_parameter_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct Parameter {
    pub parameter_name: u32,
    pub value: u32,
}

/// `hsa_ven_amd_aqlprofile_descriptor_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Descriptor {
    pub ptr: *mut c_void,
    pub size: u32,
}

impl Default for Descriptor {
    fn default() -> Self {
        Descriptor { ptr: std::ptr::null_mut(), size: 0 }
    }
}

/// `hsa_ven_amd_aqlprofile_profile_t` (80 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Profile {
    pub agent: u64,
    pub event_type: u32,
    pub events: *const Event,
    pub event_count: u32,
    pub parameters: *const Parameter,
    pub parameter_count: u32,
    pub output_buffer: Descriptor,
    pub command_buffer: Descriptor,
}

impl Profile {
    /// A PMC profile of `events` on `agent`, without buffers yet.
    pub fn pmc(agent: u64, events: &[Event]) -> Profile {
        Profile {
            agent,
            event_type: EVENT_TYPE_PMC,
            events: events.as_ptr(),
            event_count: events.len() as u32,
            parameters: std::ptr::null(),
            parameter_count: 0,
            output_buffer: Descriptor::default(),
            command_buffer: Descriptor::default(),
        }
    }
}

/// `hsa_ext_amd_aql_pm4_packet_t`: a 64-byte AQL vendor packet.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct Pm4Packet {
    pub header: u16,
    pub pm4_command: [u16; 27],
    pub completion_signal: u64,
}

/// The PMC part of `hsa_ven_amd_aqlprofile_info_data_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct PmcData {
    pub sample_id: u32,
    /// The union after `sample_id` is 8-aligned (it may hold a descriptor).
    _pad: u32,
    pub event: Event,
    _pad2: u32,
    pub result: u64,
}

/// `hsa_ven_amd_aqlprofile_id_query_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct IdQuery {
    pub name: *const std::ffi::c_char,
    pub id: u32,
    pub instance_count: u32,
}

pub type DataCallback = unsafe extern "C" fn(u32, *mut PmcData, *mut c_void) -> u32;

/// `hsa_ven_amd_aqlprofile_1_00_pfn_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct Table {
    pub version_major: Option<unsafe extern "C" fn() -> u32>,
    pub version_minor: Option<unsafe extern "C" fn() -> u32>,
    pub error_string: Option<unsafe extern "C" fn(*mut *const std::ffi::c_char) -> u32>,
    pub validate_event: Option<unsafe extern "C" fn(u64, *const Event, *mut bool) -> u32>,
    pub start: Option<unsafe extern "C" fn(*mut Profile, *mut Pm4Packet) -> u32>,
    pub stop: Option<unsafe extern "C" fn(*const Profile, *mut Pm4Packet) -> u32>,
    pub read: Option<unsafe extern "C" fn(*const Profile, *mut Pm4Packet) -> u32>,
    pub legacy_get_pm4: Option<unsafe extern "C" fn(*const Pm4Packet, *mut c_void) -> u32>,
    pub get_info: Option<unsafe extern "C" fn(*const Profile, u32, *mut c_void) -> u32>,
    pub iterate_data: Option<unsafe extern "C" fn(*const Profile, DataCallback, *mut c_void) -> u32>,
}

/// One counter value's key in a `KIND_HSA_COUNTERS` record: block, instance
/// and event id packed in one word (16, 16 and 32 bits).
pub fn pack(e: &Event) -> u64 {
    ((e.block_name as u64 & 0xFFFF) << 48) | ((e.block_index as u64 & 0xFFFF) << 32) | e.counter_id as u64
}

/// The inverse of [`pack`].
pub fn unpack(w: u64) -> Event {
    Event { block_name: (w >> 48) as u32, block_index: ((w >> 32) & 0xFFFF) as u32, counter_id: w as u32 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_keys_round_trip() {
        for e in [
            Event { block_name: 12, block_index: 15, counter_id: 268 },
            Event { block_name: 31, block_index: 0, counter_id: u32::MAX },
        ] {
            assert_eq!(unpack(pack(&e)), e);
        }
    }

    /// The layouts against Debian's `hsa_ven_amd_aqlprofile.h`, compiled
    /// with gcc: sizes and every field's offset.
    #[test]
    fn layouts_match_the_real_header() {
        let header = std::path::Path::new("/usr/include/hsa/hsa_ven_amd_aqlprofile.h");
        assert!(
            header.is_file(),
            "{} is missing: install libhsa-runtime-dev (scripts/setup.sh does)",
            header.display()
        );
        let dir = tempfile::tempdir().unwrap();
        let c = dir.path().join("offsets.c");
        let items = [
            "sizeof(hsa_ven_amd_aqlprofile_event_t)",
            "sizeof(hsa_ven_amd_aqlprofile_profile_t)",
            "offsetof(hsa_ven_amd_aqlprofile_profile_t, type)",
            "offsetof(hsa_ven_amd_aqlprofile_profile_t, events)",
            "offsetof(hsa_ven_amd_aqlprofile_profile_t, event_count)",
            "offsetof(hsa_ven_amd_aqlprofile_profile_t, parameters)",
            "offsetof(hsa_ven_amd_aqlprofile_profile_t, parameter_count)",
            "offsetof(hsa_ven_amd_aqlprofile_profile_t, output_buffer)",
            "offsetof(hsa_ven_amd_aqlprofile_profile_t, command_buffer)",
            "sizeof(hsa_ven_amd_aqlprofile_descriptor_t)",
            "sizeof(hsa_ext_amd_aql_pm4_packet_t)",
            "offsetof(hsa_ext_amd_aql_pm4_packet_t, completion_signal)",
            "offsetof(hsa_ven_amd_aqlprofile_info_data_t, pmc_data.event)",
            "offsetof(hsa_ven_amd_aqlprofile_info_data_t, pmc_data.result)",
            "sizeof(hsa_ven_amd_aqlprofile_id_query_t)",
            "offsetof(hsa_ven_amd_aqlprofile_id_query_t, instance_count)",
            "sizeof(hsa_ven_amd_aqlprofile_1_00_pfn_t)",
        ];
        let mut src = String::from(
            "#include <stdio.h>\n#include <stddef.h>\n#include <hsa/hsa_ven_amd_aqlprofile.h>\nint main(void) {\n",
        );
        for i in items {
            src += &format!("  printf(\"%zu\\n\", (size_t){i});\n");
        }
        src += "  return 0;\n}\n";
        std::fs::write(&c, src).unwrap();
        let exe = dir.path().join("offsets");
        let st =
            std::process::Command::new("gcc").arg("-I/usr/include/hsa").arg(&c).arg("-o").arg(&exe).status().unwrap();
        assert!(st.success(), "compiling against hsa_ven_amd_aqlprofile.h failed");
        let out = String::from_utf8(std::process::Command::new(&exe).output().unwrap().stdout).unwrap();
        let p = Profile::pmc(0, &[]);
        let base = &p as *const Profile as usize;
        let off = |f: *const u8| f as usize - base;
        let d = PmcData::default();
        let db = &d as *const PmcData as usize;
        let ours: Vec<usize> = vec![
            std::mem::size_of::<Event>(),
            std::mem::size_of::<Profile>(),
            off(&p.event_type as *const _ as *const u8),
            off(&p.events as *const _ as *const u8),
            off(&p.event_count as *const _ as *const u8),
            off(&p.parameters as *const _ as *const u8),
            off(&p.parameter_count as *const _ as *const u8),
            off(&p.output_buffer as *const _ as *const u8),
            off(&p.command_buffer as *const _ as *const u8),
            std::mem::size_of::<Descriptor>(),
            std::mem::size_of::<Pm4Packet>(),
            std::mem::offset_of!(Pm4Packet, completion_signal),
            &d.event as *const _ as usize - db,
            &d.result as *const _ as usize - db,
            std::mem::size_of::<IdQuery>(),
            std::mem::offset_of!(IdQuery, instance_count),
            std::mem::size_of::<Table>(),
        ];
        let theirs: Vec<usize> = out.lines().map(|l| l.parse().unwrap()).collect();
        assert_eq!(theirs, ours);
    }
}
