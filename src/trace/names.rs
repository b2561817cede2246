//! Symbolic names for the API log.

/// The name of an OpenCL status code, or `None` for a code OpenCL does not
/// define.
pub fn status(code: i32) -> Option<&'static str> {
    Some(match code {
        0 => "CL_SUCCESS",
        -1 => "CL_DEVICE_NOT_FOUND",
        -2 => "CL_DEVICE_NOT_AVAILABLE",
        -3 => "CL_COMPILER_NOT_AVAILABLE",
        -4 => "CL_MEM_OBJECT_ALLOCATION_FAILURE",
        -5 => "CL_OUT_OF_RESOURCES",
        -6 => "CL_OUT_OF_HOST_MEMORY",
        -7 => "CL_PROFILING_INFO_NOT_AVAILABLE",
        -8 => "CL_MEM_COPY_OVERLAP",
        -9 => "CL_IMAGE_FORMAT_MISMATCH",
        -10 => "CL_IMAGE_FORMAT_NOT_SUPPORTED",
        -11 => "CL_BUILD_PROGRAM_FAILURE",
        -12 => "CL_MAP_FAILURE",
        -13 => "CL_MISALIGNED_SUB_BUFFER_OFFSET",
        -14 => "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST",
        -15 => "CL_COMPILE_PROGRAM_FAILURE",
        -16 => "CL_LINKER_NOT_AVAILABLE",
        -17 => "CL_LINK_PROGRAM_FAILURE",
        -18 => "CL_DEVICE_PARTITION_FAILED",
        -19 => "CL_KERNEL_ARG_INFO_NOT_AVAILABLE",
        -30 => "CL_INVALID_VALUE",
        -31 => "CL_INVALID_DEVICE_TYPE",
        -32 => "CL_INVALID_PLATFORM",
        -33 => "CL_INVALID_DEVICE",
        -34 => "CL_INVALID_CONTEXT",
        -35 => "CL_INVALID_QUEUE_PROPERTIES",
        -36 => "CL_INVALID_COMMAND_QUEUE",
        -37 => "CL_INVALID_HOST_PTR",
        -38 => "CL_INVALID_MEM_OBJECT",
        -39 => "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR",
        -40 => "CL_INVALID_IMAGE_SIZE",
        -41 => "CL_INVALID_SAMPLER",
        -42 => "CL_INVALID_BINARY",
        -43 => "CL_INVALID_BUILD_OPTIONS",
        -44 => "CL_INVALID_PROGRAM",
        -45 => "CL_INVALID_PROGRAM_EXECUTABLE",
        -46 => "CL_INVALID_KERNEL_NAME",
        -47 => "CL_INVALID_KERNEL_DEFINITION",
        -48 => "CL_INVALID_KERNEL",
        -49 => "CL_INVALID_ARG_INDEX",
        -50 => "CL_INVALID_ARG_VALUE",
        -51 => "CL_INVALID_ARG_SIZE",
        -52 => "CL_INVALID_KERNEL_ARGS",
        -53 => "CL_INVALID_WORK_DIMENSION",
        -54 => "CL_INVALID_WORK_GROUP_SIZE",
        -55 => "CL_INVALID_WORK_ITEM_SIZE",
        -56 => "CL_INVALID_GLOBAL_OFFSET",
        -57 => "CL_INVALID_EVENT_WAIT_LIST",
        -58 => "CL_INVALID_EVENT",
        -59 => "CL_INVALID_OPERATION",
        -60 => "CL_INVALID_GL_OBJECT",
        -61 => "CL_INVALID_BUFFER_SIZE",
        -62 => "CL_INVALID_MIP_LEVEL",
        -63 => "CL_INVALID_GLOBAL_WORK_SIZE",
        -64 => "CL_INVALID_PROPERTY",
        -65 => "CL_INVALID_IMAGE_DESCRIPTOR",
        -66 => "CL_INVALID_COMPILER_OPTIONS",
        -67 => "CL_INVALID_LINKER_OPTIONS",
        -68 => "CL_INVALID_DEVICE_PARTITION_COUNT",
        -69 => "CL_INVALID_PIPE_SIZE",
        -70 => "CL_INVALID_DEVICE_QUEUE",
        -71 => "CL_INVALID_SPEC_ID",
        -72 => "CL_MAX_SIZE_RESTRICTION_EXCEEDED",
        -1000 => "CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR",
        -1001 => "CL_PLATFORM_NOT_FOUND_KHR",
        -1057 => "CL_DEVICE_PARTITION_FAILED_EXT",
        -1058 => "CL_INVALID_PARTITION_COUNT_EXT",
        -1059 => "CL_INVALID_PARTITION_NAME_EXT",
        -1092 => "CL_EGL_RESOURCE_NOT_ACQUIRED_KHR",
        -1093 => "CL_INVALID_EGL_OBJECT_KHR",
        -1094 => "CL_INVALID_ACCELERATOR_INTEL",
        -1095 => "CL_INVALID_ACCELERATOR_TYPE_INTEL",
        -1096 => "CL_INVALID_ACCELERATOR_DESCRIPTOR_INTEL",
        -1097 => "CL_ACCELERATOR_TYPE_NOT_SUPPORTED_INTEL",
        -1138 => "CL_INVALID_COMMAND_BUFFER_KHR",
        -1139 => "CL_INVALID_SYNC_POINT_WAIT_LIST_KHR",
        -1140 => "CL_INCOMPATIBLE_COMMAND_QUEUE_KHR",
        -1141 => "CL_INVALID_MUTABLE_COMMAND_KHR",
        -1142 => "CL_INVALID_SEMAPHORE_KHR",
        _ => return None,
    })
}

/// A status as the log prints it: its name, or the number.
pub fn status_text(code: i32) -> String {
    status(code).map_or_else(|| code.to_string(), str::to_string)
}

/// A command's execution status with its number first (`status -1
/// (CL_DEVICE_NOT_FOUND)`): an application sets a user event to any
/// negative number, and a command waiting on it ends with that number,
/// which names an error code only by chance.
pub fn execution_status_text(code: i32) -> String {
    match status(code) {
        Some(name) => format!("status {code} ({name})"),
        None => format!("status {code}"),
    }
}

/// The name of an `hsa_status_t` (hsa.h, hsa_ext_amd.h, hsa_ext_finalize.h,
/// hsa_ext_image.h), or `None` for a code HSA does not define.
pub fn hsa_status(code: u32) -> Option<&'static str> {
    Some(match code {
        0x0 => "HSA_STATUS_SUCCESS",
        0x1 => "HSA_STATUS_INFO_BREAK",
        0x1000 => "HSA_STATUS_ERROR",
        0x1001 => "HSA_STATUS_ERROR_INVALID_ARGUMENT",
        0x1002 => "HSA_STATUS_ERROR_INVALID_QUEUE_CREATION",
        0x1003 => "HSA_STATUS_ERROR_INVALID_ALLOCATION",
        0x1004 => "HSA_STATUS_ERROR_INVALID_AGENT",
        0x1005 => "HSA_STATUS_ERROR_INVALID_REGION",
        0x1006 => "HSA_STATUS_ERROR_INVALID_SIGNAL",
        0x1007 => "HSA_STATUS_ERROR_INVALID_QUEUE",
        0x1008 => "HSA_STATUS_ERROR_OUT_OF_RESOURCES",
        0x1009 => "HSA_STATUS_ERROR_INVALID_PACKET_FORMAT",
        0x100A => "HSA_STATUS_ERROR_RESOURCE_FREE",
        0x100B => "HSA_STATUS_ERROR_NOT_INITIALIZED",
        0x100C => "HSA_STATUS_ERROR_REFCOUNT_OVERFLOW",
        0x100D => "HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS",
        0x100E => "HSA_STATUS_ERROR_INVALID_INDEX",
        0x100F => "HSA_STATUS_ERROR_INVALID_ISA",
        0x1010 => "HSA_STATUS_ERROR_INVALID_CODE_OBJECT",
        0x1011 => "HSA_STATUS_ERROR_INVALID_EXECUTABLE",
        0x1012 => "HSA_STATUS_ERROR_FROZEN_EXECUTABLE",
        0x1013 => "HSA_STATUS_ERROR_INVALID_SYMBOL_NAME",
        0x1014 => "HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED",
        0x1015 => "HSA_STATUS_ERROR_VARIABLE_UNDEFINED",
        0x1016 => "HSA_STATUS_ERROR_EXCEPTION",
        0x1017 => "HSA_STATUS_ERROR_INVALID_ISA_NAME",
        0x1018 => "HSA_STATUS_ERROR_INVALID_CODE_SYMBOL",
        0x1019 => "HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL",
        0x1020 => "HSA_STATUS_ERROR_INVALID_FILE",
        0x1021 => "HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER",
        0x1022 => "HSA_STATUS_ERROR_INVALID_CACHE",
        0x1023 => "HSA_STATUS_ERROR_INVALID_WAVEFRONT",
        0x1024 => "HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP",
        0x1025 => "HSA_STATUS_ERROR_INVALID_RUNTIME_STATE",
        0x1026 => "HSA_STATUS_ERROR_FATAL",
        // hsa_ext_amd.h: additions to hsa_status_t.
        40 => "HSA_STATUS_ERROR_INVALID_MEMORY_POOL",
        41 => "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION",
        42 => "HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION",
        43 => "HSA_STATUS_ERROR_MEMORY_FAULT",
        44 => "HSA_STATUS_CU_MASK_REDUCED",
        // hsa_ext_finalize.h
        0x2000 => "HSA_EXT_STATUS_ERROR_INVALID_PROGRAM",
        0x2001 => "HSA_EXT_STATUS_ERROR_INVALID_MODULE",
        0x2002 => "HSA_EXT_STATUS_ERROR_INCOMPATIBLE_MODULE",
        0x2003 => "HSA_EXT_STATUS_ERROR_MODULE_ALREADY_INCLUDED",
        0x2004 => "HSA_EXT_STATUS_ERROR_SYMBOL_MISMATCH",
        0x2005 => "HSA_EXT_STATUS_ERROR_FINALIZATION_FAILED",
        0x2006 => "HSA_EXT_STATUS_ERROR_DIRECTIVE_MISMATCH",
        // hsa_ext_image.h
        0x3000 => "HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED",
        0x3001 => "HSA_EXT_STATUS_ERROR_IMAGE_SIZE_UNSUPPORTED",
        0x3002 => "HSA_EXT_STATUS_ERROR_IMAGE_PITCH_UNSUPPORTED",
        0x3003 => "HSA_EXT_STATUS_ERROR_SAMPLER_DESCRIPTOR_UNSUPPORTED",
        _ => return None,
    })
}

/// An `hsa_status_t` as the log prints it: its name, or the number in hex
/// (as hsa.h writes them).
pub fn hsa_status_text(code: u32) -> String {
    hsa_status(code).map_or_else(|| format!("{code:#x}"), str::to_string)
}

#[cfg(test)]
mod tests {
    #[test]
    fn names() {
        assert_eq!(super::status(0), Some("CL_SUCCESS"));
        assert_eq!(super::status(-59), Some("CL_INVALID_OPERATION"));
        assert_eq!(super::status_text(-9999), "-9999");
        assert_eq!(super::hsa_status(0x100B), Some("HSA_STATUS_ERROR_NOT_INITIALIZED"));
        assert_eq!(super::hsa_status(40), Some("HSA_STATUS_ERROR_INVALID_MEMORY_POOL"));
        assert_eq!(super::hsa_status_text(0x4242), "0x4242");
    }
}
