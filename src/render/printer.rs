//! Binary records to API-log entries: `print` picks the writer of each
//! record's lines (`line` for calls, plain or decoded, `comments` for other
//! records).

use cltap_formats::apilog::Entry;

pub use super::timebase::Timebase;

#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Add decoded contents after each raw value.
    pub decode: bool,
    /// With `decode`: the kernels' names, for the calls that take one.
    pub kernels: Option<std::sync::Arc<super::kernel_names::KernelNames>>,
}

/// Appends one record's lines to `text` (the writer thread's hot loop).
pub fn print(text: &mut String, v: &crate::trace::record::View<'_>, tb: &Timebase, opt: &Options) {
    let names = if opt.decode { Some(opt.kernels.as_deref()) } else { None };
    if super::line::write(text, v, tb, names) {
        return;
    }
    // Device timing's results and the end's facts show in the files drawn
    // from them, not in the log (as before they were in the trace).
    // A thread's name shows on the timelines' tracks.
    use cltap_formats::cltrace::record::{KIND_CL_COMMAND, KIND_CL_UNTIMED, KIND_END, KIND_THREAD};
    if matches!(v.header.kind, KIND_CL_COMMAND | KIND_CL_UNTIMED | KIND_END | KIND_THREAD) {
        return;
    }
    // Not a call of a known function: a record of another kind, or one no
    // table describes.
    let c = super::comments::comment(v).unwrap_or_else(|| super::comments::unknown(v));
    cltap_formats::apilog::write_entry(text, &Entry::Comment(c));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meta::{by_name, FUNCTIONS};
    use crate::trace::capture::write_record;
    use crate::trace::record::{records, View, MAX_RECORD};

    /// The lines `print` writes for `v`, without the last line break.
    fn printed(v: &View<'_>, decode: bool) -> String {
        let mut s = String::new();
        print(&mut s, v, &Timebase { ticks_per_us: 1.0 }, &Options { decode, kernels: None });
        assert!(s.ends_with('\n'), "{s}");
        s.pop();
        s
    }

    #[test]
    fn get_device_info_prints_like_the_seed() {
        let id = by_name("clGetDeviceInfo").unwrap();
        let mut scratch = vec![0u8; MAX_RECORD];
        let value = *b"NVIDIA H200\0";
        let mut size_ret = 12usize;
        let args = [0xCF2050u64, 4139, 24, value.as_ptr() as u64, &mut size_ret as *mut usize as u64];
        let n = unsafe { write_record(&mut scratch, id, &FUNCTIONS[id], 5780, None, 1000, 1068, 0, &args, None) };
        let v = records(&scratch[..n]).next().unwrap();
        assert_eq!(
            printed(&v, false),
            format!(
                "TID      5780    START TIME 0x00000000000003e8    DURATION 0x0000000000000044{:25}clGetDeviceInfo(cl_device_id device = 0000000000CF2050, cl_device_info param_name = 4139, size_t param_value_size = 24, void* param_value = {:016X}, size_t* param_value_size_ret = {:016X}) = CL_SUCCESS, *param_value_size_ret = 12",
                "",
                value.as_ptr() as u64,
                &mut size_ret as *mut usize as u64
            )
        );
        let decoded = printed(&v, true);
        assert!(decoded.contains(", cl_device_info param_name = 4139 (CL_DEVICE_NAME), "), "{decoded}");
        assert!(
            decoded.contains(&format!(", void* param_value = {:016X} \"NVIDIA H200\", ", value.as_ptr() as u64)),
            "{decoded}"
        );
        assert!(decoded.ends_with(") = CL_SUCCESS, *param_value_size_ret = 12"), "{decoded}");
    }

    #[test]
    fn hsa_calls_print_with_their_status_and_handles() {
        use crate::meta::{hsa_by_name, HSA_FUNCTIONS};
        use crate::trace::capture::{complete_record, open_record};
        use crate::trace::record::KIND_HSA_CALL;
        let id = hsa_by_name("hsa_queue_create").unwrap();
        let f = &HSA_FUNCTIONS[id];
        let mut q: u64 = 0x7F12_3456_7890;
        let args = [0x5A5Au64, 4096, 0, 0, 0, u32::MAX as u64, 0, &mut q as *mut u64 as u64];
        let mut scratch = vec![0u8; MAX_RECORD];
        let n = unsafe {
            open_record(&mut scratch, KIND_HSA_CALL, id, f, 42, None, 100, &args);
            complete_record::<KIND_HSA_CALL>(&mut scratch, f, 130, 0, &args, None)
        };
        let v = records(&scratch[..n]).next().unwrap();
        assert_eq!(
            printed(&v, false),
            format!(
                "TID        42    START TIME 0x0000000000000064    DURATION 0x000000000000001e{:25}hsa_queue_create(hsa_agent_t agent = 0000000000005A5A, uint32_t size = 4096, hsa_queue_type32_t type = 0, hsa_cb_queue_error callback = 0000000000000000, void* data = 0000000000000000, uint32_t private_segment_size = 4294967295, uint32_t group_segment_size = 0, hsa_queue_t** queue = {:016X}) = HSA_STATUS_SUCCESS, *queue = 00007F1234567890",
                "",
                &mut q as *mut u64 as u64
            )
        );
        // A failure by name; the same function id as OpenCL's prints HSA's function.
        drop(v);
        let n = unsafe {
            open_record(&mut scratch, KIND_HSA_CALL, id, f, 42, None, 100, &args);
            complete_record::<KIND_HSA_CALL>(&mut scratch, f, 130, 0x1001, &args, None)
        };
        let v = records(&scratch[..n]).next().unwrap();
        assert!(printed(&v, false).ends_with(") = HSA_STATUS_ERROR_INVALID_ARGUMENT, *queue = (not written)"));
        // A signal value is signed; a status argument decodes to its name.
        let id = hsa_by_name("hsa_signal_wait_scacquire").unwrap();
        let args = [0x77u64, 2, (-1i64) as u64, u64::MAX, 0];
        drop(v);
        let n = unsafe {
            open_record(&mut scratch, KIND_HSA_CALL, id, &HSA_FUNCTIONS[id], 1, None, 0, &args);
            complete_record::<KIND_HSA_CALL>(&mut scratch, &HSA_FUNCTIONS[id], 0, (-5i64) as u64, &args, None)
        };
        let v = records(&scratch[..n]).next().unwrap();
        let line = printed(&v, false);
        assert!(line.contains(" compare_value = -1, ") && line.ends_with(") = -5"), "{line}");
        let id = hsa_by_name("hsa_status_string").unwrap();
        let args = [0x100Bu64, 0];
        drop(v);
        let n = unsafe {
            open_record(&mut scratch, KIND_HSA_CALL, id, &HSA_FUNCTIONS[id], 1, None, 0, &args);
            complete_record::<KIND_HSA_CALL>(&mut scratch, &HSA_FUNCTIONS[id], 0, 0, &args, None)
        };
        let v = records(&scratch[..n]).next().unwrap();
        let line = printed(&v, true);
        assert!(line.contains("(hsa_status_t status = 4107 (HSA_STATUS_ERROR_NOT_INITIALIZED), "), "{line}");
        // An unknown kind is a comment, not a wrong function.
        let mut h = v.header;
        h.kind = 99;
        let bytes = crate::trace::record::encode(&h, &v.args, &[]);
        let v = records(&bytes).next().unwrap();
        assert!(printed(&v, false).starts_with("# unknown record kind 99"));
        assert!(printed(&v, true).starts_with("# unknown record kind 99"));
    }
}
