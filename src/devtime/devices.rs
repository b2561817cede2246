//! The kinds of the devices commands were timed on, by the name the
//! commands carry. The layer learns a queue's device type once, when it
//! first times a command of the queue, and says in the trace (a note, `#
//! cltap: …` in the API log) that a device runs on the host's cores; the
//! rocpd database types that device's agent `CPU` (PoCL's CPU device), any
//! other OpenCL device `GPU`. In the trace, so a render after the process
//! (`cltap render`) types it alike.

use crate::fork::lock::Mutex;
use cltap_formats::cltrace::record::KIND_NOTE;
use std::collections::BTreeSet;

/// The note's text before the device's name.
const CPU_NOTE: &str = "device runs on the host's cores (CL_DEVICE_TYPE_CPU): ";

static NOTED: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// The prepare handler's part ([`crate::fork`]).
pub(crate) fn hold_for_fork() {
    crate::fork::kept::keep(NOTED.lock());
}

/// Says device `name` runs its commands on the host's cores, once per
/// device. Once per queue, off the calls' path.
pub fn note_cpu(name: &str) {
    if !NOTED.lock().insert(name.to_string()) {
        return;
    }
    let t = crate::trace::tsc::now();
    crate::trace::local::record_kind::<KIND_NOTE>(0, t, t, &[], Some(&format!("{CPU_NOTE}{name}")));
}

/// The device a note says runs on the host's cores.
pub fn cpu_of_note(text: &str) -> Option<&str> {
    text.strip_prefix(CPU_NOTE)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_notes_device_is_read_back() {
        let text = format!("{}pthread-skylake", super::CPU_NOTE);
        assert_eq!(super::cpu_of_note(&text), Some("pthread-skylake"));
        assert_eq!(super::cpu_of_note("program 3 built"), None);
    }
}
