//! The generated layouts (`src/sys.rs`) against Debian's headers compiled with gcc: the size of
//! every struct the emulator reads or writes, and the offsets of the fields it finds by address.

use hsakmt_emu::sys::*;
use std::mem::{offset_of, size_of};
use std::process::Command;

#[test]
fn layouts_match_debians_headers() {
    let ours: Vec<(&str, usize)> = vec![
        ("sizeof(HsaNodeProperties)", size_of::<HsaNodeProperties>()),
        ("sizeof(HsaMemoryProperties)", size_of::<HsaMemoryProperties>()),
        ("sizeof(HsaCacheProperties)", size_of::<HsaCacheProperties>()),
        ("sizeof(HsaIoLinkProperties)", size_of::<HsaIoLinkProperties>()),
        ("sizeof(HsaSystemProperties)", size_of::<HsaSystemProperties>()),
        ("sizeof(HsaEvent)", size_of::<HsaEvent>()),
        ("sizeof(HsaEventDescriptor)", size_of::<HsaEventDescriptor>()),
        ("sizeof(HsaQueueResource)", size_of::<HsaQueueResource>()),
        ("sizeof(HsaPointerInfo)", size_of::<HsaPointerInfo>()),
        ("sizeof(HsaClockCounters)", size_of::<HsaClockCounters>()),
        ("sizeof(HsaGpuTileConfig)", size_of::<HsaGpuTileConfig>()),
        ("sizeof(HsaMemoryAccessFault)", size_of::<HsaMemoryAccessFault>()),
        ("offsetof(HsaNodeProperties, EngineId)", offset_of!(HsaNodeProperties, EngineId)),
        ("offsetof(HsaNodeProperties, LocalMemSize)", offset_of!(HsaNodeProperties, LocalMemSize)),
        ("offsetof(HsaNodeProperties, MarketingName)", offset_of!(HsaNodeProperties, MarketingName)),
        ("offsetof(HsaNodeProperties, UniqueID)", offset_of!(HsaNodeProperties, UniqueID)),
        ("offsetof(HsaEvent, EventData)", offset_of!(HsaEvent, EventData)),
        ("offsetof(HsaEventData, HWData2)", offset_of!(HsaEventData, HWData2)),
        ("offsetof(HsaQueueResource, ErrorReason)", offset_of!(HsaQueueResource, ErrorReason)),
        ("offsetof(HsaPointerInfo, MappedNodes)", offset_of!(HsaPointerInfo, MappedNodes)),
        ("offsetof(HsaPointerInfo, UserData)", offset_of!(HsaPointerInfo, UserData)),
        ("offsetof(amd_queue_t, write_dispatch_id)", offset_of!(amd_queue_t, write_dispatch_id)),
        ("offsetof(amd_queue_t, read_dispatch_id)", offset_of!(amd_queue_t, read_dispatch_id)),
        ("offsetof(amd_queue_t, queue_properties)", offset_of!(amd_queue_t, queue_properties)),
        ("offsetof(amd_queue_t, queue_inactive_signal)", offset_of!(amd_queue_t, queue_inactive_signal)),
        ("offsetof(amd_signal_t, event_mailbox_ptr)", offset_of!(amd_signal_t, event_mailbox_ptr)),
        ("offsetof(amd_signal_t, event_id)", offset_of!(amd_signal_t, event_id)),
        ("offsetof(amd_signal_t, start_ts)", offset_of!(amd_signal_t, start_ts)),
        ("offsetof(amd_signal_t, end_ts)", offset_of!(amd_signal_t, end_ts)),
    ];
    let dir = std::env::temp_dir().join(format!("gpu-emu-layouts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut src = String::from(
        "#include <stdio.h>\n#include <stddef.h>\n#include <hsakmttypes.h>\n#include <hsa/amd_hsa_queue.h>\n\
         #include <hsa/amd_hsa_signal.h>\nint main(void) {\n",
    );
    for (what, _) in &ours {
        src += &format!("  printf(\"%zu\\n\", (size_t){what});\n");
    }
    src += "  return 0;\n}\n";
    std::fs::write(dir.join("layouts.c"), src).unwrap();
    let st = Command::new("gcc")
        .args(["-I/usr/include/hsa", "-o"])
        .arg(dir.join("layouts"))
        .arg(dir.join("layouts.c"))
        .status()
        .expect("gcc");
    assert!(st.success(), "compiling against hsakmttypes.h failed: install libhsakmt-dev (scripts/setup.sh does)");
    let out = Command::new(dir.join("layouts")).output().unwrap();
    let theirs: Vec<usize> = String::from_utf8(out.stdout).unwrap().lines().map(|l| l.parse().unwrap()).collect();
    let _ = std::fs::remove_dir_all(&dir);
    for ((what, ours), theirs) in ours.iter().zip(&theirs) {
        assert_eq!(ours, theirs, "{what}");
    }
    assert_eq!(ours.len(), theirs.len());
}
