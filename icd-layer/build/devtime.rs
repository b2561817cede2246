//! Device timing's code around an OpenCL call (before it and right after).

use super::*;

/// Whether device timing hooks into this function.
pub(crate) fn devtime_kind(f: &Function) -> Option<&'static str> {
    Some(match f.name.as_str() {
        "clCreateCommandQueue" => "queue_bits",
        "clCreateCommandQueueWithProperties" | "clCreateCommandQueueWithPropertiesKHR" => "queue_list",
        "clGetCommandQueueInfo" => "queue_info",
        "clGetEventProfilingInfo" => "profiling_info",
        "clGetEventInfo" => "event_info",
        "clFinish" | "clWaitForEvents" => "sync_after",
        "clReleaseCommandQueue" | "clReleaseContext" => "sync_before",
        "clCreateKernel" | "clCloneKernel" => "kernel_made",
        "clCreateKernelsInProgram" => "kernels_made",
        "clReleaseKernel" => "kernel_release",
        n if n.starts_with("clEnqueue")
            && f.has_event_out()
            && f.params.first().is_some_and(|p| p.c_type == "cl_command_queue") =>
        {
            "enqueue"
        }
        _ => return None,
    })
}

/// Device timing, before the call: the driver sees profiling forced on and
/// cltap's own event where the application passed none.
pub(crate) fn devtime_pre(s: &mut String, f: &Function) {
    match devtime_kind(f) {
        Some("queue_bits") => {
            writeln!(s, "    let __app_props = properties;").unwrap();
            writeln!(s, "    let properties = ::cltap::devtime::queues::force_bits(properties);").unwrap();
        }
        Some("queue_list") => {
            writeln!(s, "    let __app_props = properties;").unwrap();
            writeln!(s, "    let __forced = ::cltap::devtime::queues::force_list(properties as *const u64);").unwrap();
            writeln!(s, "    let properties = __forced.as_ref().map_or(properties, |v| v.as_ptr() as *mut ::core::ffi::c_void);").unwrap();
        }
        Some("queue_info") => {
            writeln!(s, "    if let Some(c) = crate::opencl::devtime::answer_queue_info(command_queue, param_name, param_value_size, param_value, param_value_size_ret as *mut usize) {{ return c; }}").unwrap();
        }
        Some("profiling_info") => {
            writeln!(s, "    if let Some(c) = crate::opencl::devtime::refuse_profiling(event) {{ return c; }}")
                .unwrap();
        }
        Some("sync_before") => {
            writeln!(s, "    crate::opencl::devtime::before_release();").unwrap();
        }
        Some("kernel_release") => {
            writeln!(s, "    let __krefs = crate::opencl::devtime::kernel_refs(kernel as *mut ::core::ffi::c_void);")
                .unwrap();
        }
        _ => {}
    }
}

/// Device timing of an enqueue, after its record is opened (the window's
/// decision is the call's): the driver sees cltap's own event where the
/// application passed none.
pub(crate) fn devtime_enqueue(s: &mut String, f: &Function) {
    if devtime_kind(f) != Some("enqueue") {
        return;
    }
    writeln!(s, "    let mut __own_ev: *mut ::core::ffi::c_void = ::core::ptr::null_mut();").unwrap();
    // Timed only inside the collection window and, for a kernel launch,
    // the kernel filter: no event of cltap's otherwise.
    let launch = matches!(f.name.as_str(), "clEnqueueNDRangeKernel" | "clEnqueueTask");
    writeln!(s, "    let __dt = crate::opencl::devtime::wants(&__app, {launch}, __t.inside);").unwrap();
    writeln!(s, "    let __own = event.is_null() && __dt;").unwrap();
    writeln!(s, "    let __enq_t0 = if __dt {{ ::cltap::trace::tsc::now() }} else {{ 0 }};").unwrap();
    writeln!(s, "    let event = if __own {{ &mut __own_ev as *mut _ as *mut ::core::ffi::c_void }} else {{ event }};")
        .unwrap();
}

/// Device timing, right after the call (handles are still the driver's).
pub(crate) fn devtime_post(s: &mut String, f: &Function) {
    match devtime_kind(f) {
        Some("queue_bits") => {
            writeln!(s, "    crate::opencl::devtime::remember_bits(r as *mut ::core::ffi::c_void, __app_props);")
                .unwrap()
        }
        Some("queue_list") => {
            writeln!(s, "    crate::opencl::devtime::remember_list(r as *mut ::core::ffi::c_void, __app_props);")
                .unwrap()
        }
        Some("enqueue") => {
            let ok = match f.ret {
                RetKind::Status => "r == 0",
                _ => "!r.is_null()",
            };
            writeln!(
                s,
                "    if __dt {{ crate::opencl::devtime::track(ID, __t.cmd, __enq_t0, {ok}, event, __own, &__app); }}"
            )
            .unwrap();
            // A blocking enqueue is a synchronisation point.
            if let Some(b) = f.params.iter().find(|p| p.name.starts_with("blocking") && p.c_type == "cl_bool") {
                writeln!(s, "    if {b} != 0 && {ok} {{ crate::opencl::devtime::sync_point(); }}", b = b.name).unwrap();
            }
        }
        Some("sync_after") => {
            writeln!(s, "    crate::opencl::devtime::sync_point();").unwrap();
        }
        Some("kernel_made") => {
            writeln!(s, "    if !r.is_null() {{ crate::opencl::devtime::kernels_made(&r as *const _ as *const *mut ::core::ffi::c_void, 1); }}").unwrap();
        }
        Some("kernels_made") => {
            // Every entry the application's array has room for: those past
            // the kernels made are the application's own words, and
            // forgetting a name at such an address costs nothing.
            writeln!(s, "    if r == 0 {{ crate::opencl::devtime::kernels_made(kernels as *const *mut ::core::ffi::c_void, num_kernels as usize); }}").unwrap();
        }
        Some("kernel_release") => {
            writeln!(s, "    crate::opencl::devtime::kernel_released(kernel as *mut ::core::ffi::c_void, __krefs, r);")
                .unwrap();
        }
        Some("event_info") => {
            writeln!(
                s,
                "    crate::opencl::devtime::event_info_answered(r, event, param_name, param_value_size, param_value);"
            )
            .unwrap();
        }
        _ => {}
    }
}
