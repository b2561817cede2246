//! Info queries whose answers contain handles. In ICD mode the driver writes
//! its own handles; they are replaced by cltap's before the application reads
//! them. The table is the whole list: every other answer is handle-free.

use super::props::Shape;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// One handle.
    Handle,
    /// An array of handles filling the answer.
    Handles,
    /// A property list.
    Properties(Shape),
}

/// What the answer of `func(…, param_name, …)` holds, if it holds handles.
/// Inlined: every caller names `func` as a constant, so the match on it
/// folds away and a call pays only the test of `param_name` (a call of it
/// compared the name with the table's, about 18 instructions a call).
#[inline]
pub fn answer(func: &str, param_name: u32) -> Option<Answer> {
    use crate::sys::*;
    use Answer::*;
    Some(match (func, param_name) {
        ("clGetDeviceInfo", CL_DEVICE_PLATFORM | CL_DEVICE_PARENT_DEVICE) => Handle,
        ("clGetContextInfo", CL_CONTEXT_DEVICES) => Handles,
        ("clGetContextInfo", CL_CONTEXT_PROPERTIES) => Properties(Shape::Context),
        ("clGetCommandQueueInfo", CL_QUEUE_CONTEXT | CL_QUEUE_DEVICE | CL_QUEUE_DEVICE_DEFAULT) => Handle,
        ("clGetMemObjectInfo", CL_MEM_CONTEXT | CL_MEM_ASSOCIATED_MEMOBJECT) => Handle,
        ("clGetMemObjectInfo", CL_MEM_PROPERTIES) => Properties(Shape::DeviceLists),
        ("clGetImageInfo", CL_IMAGE_BUFFER) => Handle,
        ("clGetSamplerInfo", CL_SAMPLER_CONTEXT) => Handle,
        ("clGetProgramInfo", CL_PROGRAM_CONTEXT) => Handle,
        ("clGetProgramInfo", CL_PROGRAM_DEVICES) => Handles,
        ("clGetKernelInfo", CL_KERNEL_CONTEXT | CL_KERNEL_PROGRAM) => Handle,
        ("clGetEventInfo", CL_EVENT_COMMAND_QUEUE | CL_EVENT_CONTEXT) => Handle,
        ("clGetGLContextInfoKHR", CL_CURRENT_DEVICE_FOR_GL_CONTEXT_KHR) => Handle,
        ("clGetGLContextInfoKHR", CL_DEVICES_FOR_GL_CONTEXT_KHR) => Handles,
        ("clGetCommandBufferInfoKHR", CL_COMMAND_BUFFER_QUEUES_KHR) => Handles,
        ("clGetCommandBufferInfoKHR", CL_COMMAND_BUFFER_CONTEXT_KHR) => Handle,
        ("clGetMutableCommandInfoKHR", CL_MUTABLE_COMMAND_COMMAND_QUEUE_KHR | CL_MUTABLE_DISPATCH_KERNEL_KHR) => Handle,
        ("clGetSemaphoreInfoKHR", CL_SEMAPHORE_CONTEXT_KHR) => Handle,
        ("clGetSemaphoreInfoKHR", CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR) => Handles,
        ("clGetSemaphoreInfoKHR", CL_SEMAPHORE_PROPERTIES_KHR) => Properties(Shape::DeviceLists),
        ("clGetMemAllocInfoINTEL", CL_MEM_ALLOC_DEVICE_INTEL) => Handle,
        _ => return None,
    })
}

/// Replaces the driver handles in an answer of `written` bytes with `f`.
///
/// # Safety
/// `buf` must be NULL or point at `written` writable bytes.
pub unsafe fn translate(buf: *mut std::ffi::c_void, written: usize, a: Answer, f: impl Fn(u64) -> u64) {
    if buf.is_null() {
        return;
    }
    let words = written / 8;
    let w = buf as *mut u64;
    match a {
        // SAFETY: `words >= 1`: the first word is inside the `written` bytes `buf` holds (# Safety).
        Answer::Handle if words >= 1 => unsafe { *w = f(*w) },
        Answer::Handle => {}
        Answer::Handles => {
            for i in 0..words {
                // SAFETY: `w.add(i)` is valid for this access: `buf` must be NULL or point at `written` writable
                // bytes (# Safety).
                unsafe { *w.add(i) = f(*w.add(i)) };
            }
        }
        // SAFETY: `translate_in_place`'s # Safety follows from this fn's.
        Answer::Properties(shape) => unsafe { super::props::translate_in_place(w, words, shape, f) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_handle_answers() {
        assert_eq!(answer("clGetDeviceInfo", 0x1031), Some(Answer::Handle));
        assert_eq!(answer("clGetContextInfo", 0x1081), Some(Answer::Handles));
        assert_eq!(answer("clGetDeviceInfo", 0x102B), None, "CL_DEVICE_NAME holds no handle");
    }

    #[test]
    fn translate_respects_written_size() {
        let mut buf = [1u64, 2, 3];
        unsafe { translate(buf.as_mut_ptr().cast(), 16, Answer::Handles, |v| v * 10) };
        assert_eq!(buf, [10, 20, 3]);
        unsafe { translate(buf.as_mut_ptr().cast(), 4, Answer::Handle, |v| v + 1) };
        assert_eq!(buf, [10, 20, 3], "a short answer holds no whole handle");
    }
}
