//! Argument dumps, injection and capture in the wrappers of the calls they
//! watch (`icd-layer/src/opencl/dumps.rs`): the kernels' arguments as set,
//! the memory objects and samplers made and released, and each kernel
//! enqueue. While a dump control is on these functions leave their fast
//! path ([`dumps_hooked`]); off, each hook is one relaxed load.

use super::*;

enum Hook {
    SetArg,
    SetPointer,
    KernelMade,
    KernelsMade,
    KernelCloned,
    MemMade,
    MemRelease,
    SvmMade,
    SvmGone,
    SamplerMade,
    SamplerRelease,
    Launch,
    Task,
}

fn hook(f: &Function) -> Option<Hook> {
    Some(match f.name.as_str() {
        "clSetKernelArg" => Hook::SetArg,
        "clSetKernelArgSVMPointer" | "clSetKernelArgSVMPointerARM" | "clSetKernelArgMemPointerINTEL" => {
            Hook::SetPointer
        }
        "clCreateKernel" => Hook::KernelMade,
        "clCreateKernelsInProgram" => Hook::KernelsMade,
        "clCloneKernel" => Hook::KernelCloned,
        "clCreateBuffer"
        | "clCreateBufferWithProperties"
        | "clCreateBufferWithPropertiesINTEL"
        | "clCreateSubBuffer"
        | "clCreateImage"
        | "clCreateImage2D"
        | "clCreateImage3D"
        | "clCreateImageWithProperties" => Hook::MemMade,
        "clReleaseMemObject" => Hook::MemRelease,
        "clSVMAlloc" | "clSVMAllocARM" | "clHostMemAllocINTEL" | "clDeviceMemAllocINTEL" | "clSharedMemAllocINTEL" => {
            Hook::SvmMade
        }
        "clSVMFree" | "clSVMFreeARM" | "clMemFreeINTEL" | "clMemBlockingFreeINTEL" => Hook::SvmGone,
        "clCreateSampler" | "clCreateSamplerWithProperties" => Hook::SamplerMade,
        "clReleaseSampler" => Hook::SamplerRelease,
        "clEnqueueNDRangeKernel" => Hook::Launch,
        "clEnqueueTask" => Hook::Task,
        _ => return None,
    })
}

/// Whether each function (by id) has a dump hook.
pub(crate) fn dumps_hooked(api: &Api) -> Vec<bool> {
    api.functions.iter().map(|f| hook(f).is_some()).collect()
}

/// Before the call (handles are the driver's): a memory object's or a
/// sampler's last reference noted, an enqueue's before-dumps and injections.
pub(crate) fn dumps_pre(s: &mut String, f: &Function) {
    match hook(f) {
        Some(Hook::MemRelease) => {
            writeln!(s, "    let __dlast = crate::opencl::dumps::last_ref(memobj as _);").unwrap();
        }
        Some(Hook::SamplerRelease) => {
            writeln!(s, "    let __dlast = crate::opencl::dumps::last_sampler_ref(sampler as _);").unwrap();
        }
        Some(Hook::Launch) => writeln!(s, "    let __dp = crate::opencl::dumps::before(command_queue as _, kernel as _, work_dim, global_work_offset as _, global_work_size as _, local_work_size as _, num_events_in_wait_list, event_wait_list as _);").unwrap(),
        Some(Hook::Task) => writeln!(s, "    let __dp = crate::opencl::dumps::before(command_queue as _, kernel as _, 1, ::core::ptr::null(), [1usize].as_ptr(), [1usize].as_ptr(), num_events_in_wait_list, event_wait_list as _);").unwrap(),
        _ => {}
    }
}

/// Right after the call, before ICD mode wraps the result: what was set or made.
pub(crate) fn dumps_post(s: &mut String, f: &Function) {
    let call = match hook(f) {
        Some(Hook::SetArg) => {
            "if r == 0 { crate::opencl::dumps::arg_set(kernel as _, arg_index, arg_size, arg_value as _) }"
        }
        Some(Hook::SetPointer) => {
            "if r == 0 { crate::opencl::dumps::arg_pointer(kernel as _, arg_index, arg_value as _) }"
        }
        Some(Hook::KernelMade) => "crate::opencl::dumps::kernel_made(r as _, ::core::ptr::null_mut())",
        Some(Hook::KernelCloned) => "crate::opencl::dumps::kernel_made(r as _, source_kernel as _)",
        Some(Hook::KernelsMade) => {
            "if r == 0 { crate::opencl::dumps::kernels_made(kernels as _, num_kernels, num_kernels_ret as _) }"
        }
        Some(Hook::MemMade) => "crate::opencl::dumps::mem_made(r as _)",
        Some(Hook::MemRelease) => "if r == 0 && __dlast { crate::opencl::dumps::mem_gone(memobj as _) }",
        Some(Hook::SvmMade) => {
            let usm = f.name.ends_with("INTEL");
            writeln!(s, "    crate::opencl::dumps::svm_made(r as _, size, {usm});").unwrap();
            return;
        }
        Some(Hook::SvmGone) => {
            let p = if f.name.starts_with("clSVM") { "svm_pointer" } else { "ptr" };
            writeln!(s, "    crate::opencl::dumps::svm_gone({p} as _);").unwrap();
            return;
        }
        Some(Hook::SamplerMade) => "crate::opencl::dumps::sampler_made(r as _)",
        Some(Hook::SamplerRelease) => "if r == 0 && __dlast { crate::opencl::dumps::sampler_gone(sampler as _) }",
        _ => return,
    };
    writeln!(s, "    {call};").unwrap();
}

/// After the call's record: an enqueue's after-dumps and capture (their
/// wait is not the enqueue's time), and the lines for the API log.
pub(crate) fn dumps_notes(s: &mut String, f: &Function) {
    if matches!(hook(f), Some(Hook::Launch | Hook::Task)) {
        writeln!(s, "    crate::opencl::dumps::after(__dp, r);").unwrap();
    }
}
