//! Names of the values of AMD's OpenCL extension types, for the decoded API
//! log. Khronos' headers, which `enums.rs` is generated from, lack them; these
//! are the enums of ROCm-OpenCL-Runtime rocm-5.2.3 (`amdocl/cl_profile_amd.h`,
//! `amdocl/cl_thread_trace_amd.h`, `amdocl/cl_kernel_info_amd.h` and the
//! `cl_amd_liquid_flash` section of its `cl_ext.h`), written out by hand as
//! they are few and fixed for that release.

use super::enums::Group;

pub static GROUPS: &[Group] = &[
    // `clGetPerfCounterInfoAMD`'s `param_name` and the names in
    // `clCreatePerfCounterAMD`'s properties share one enum (PerfcounterInfo).
    Group { c_type: "cl_perfcounter_info", bitfield: false, values: PERFCOUNTER },
    Group { c_type: "cl_perfcounter_property", bitfield: false, values: PERFCOUNTER },
    Group {
        c_type: "cl_thread_trace_param",
        bitfield: false,
        values: &[
            (0, "CL_THREAD_TRACE_PARAM_TOKEN_MASK"),
            (1, "CL_THREAD_TRACE_PARAM_REG_MASK"),
            (2, "CL_THREAD_TRACE_PARAM_COMPUTE_UNIT_TARGET"),
            (3, "CL_THREAD_TRACE_PARAM_SHADER_ARRAY_TARGET"),
            (4, "CL_THREAD_TRACE_PARAM_SIMD_MASK"),
            (5, "CL_THREAD_TRACE_PARAM_VM_ID_MASK"),
            (6, "CL_THREAD_TRACE_PARAM_RANDOM_SEED"),
            (7, "CL_THREAD_TRACE_PARAM_CAPTURE_MODE"),
            (8, "CL_THREAD_TRACE_PARAM_INSTRUCTION_MASK"),
            (9, "CL_THREAD_TRACE_PARAM_USER_DATA"),
            (10, "CL_THREAD_TRACE_PARAM_IS_WRAPPED"),
        ],
    },
    Group {
        c_type: "cl_threadtrace_info",
        bitfield: false,
        values: &[
            (0, "CL_THREAD_TRACE_SE"),
            (1, "CL_THREAD_TRACE_BUFFERS_FILLED"),
            (2, "CL_THREAD_TRACE_BUFFERS_SIZE"),
        ],
    },
    Group {
        c_type: "cl_threadtrace_command_name_amd",
        bitfield: false,
        values: &[
            (0, "CL_THREAD_TRACE_BEGIN_COMMAND"),
            (1, "CL_THREAD_TRACE_END_COMMAND"),
            (2, "CL_THREAD_TRACE_PAUSE_COMMAND"),
            (3, "CL_THREAD_TRACE_RESUME_COMMAND"),
        ],
    },
    Group {
        c_type: "cl_kernel_info_amd",
        bitfield: false,
        values: &[
            (1, "CL_KERNELINFO_SCRATCH_REGS"),
            (2, "CL_KERNELINFO_WAVEFRONT_PER_SIMD"),
            (3, "CL_KERNELINFO_WAVEFRONT_SIZE"),
            (4, "CL_KERNELINFO_AVAILABLE_GPRS"),
            (5, "CL_KERNELINFO_USED_GPRS"),
            (6, "CL_KERNELINFO_AVAILABLE_LDS_SIZE"),
            (7, "CL_KERNELINFO_USED_LDS_SIZE"),
            (8, "CL_KERNELINFO_AVAILABLE_STACK_SIZE"),
            (9, "CL_KERNELINFO_USED_STACK_SIZE"),
            (10, "CL_KERNELINFO_AVAILABLE_SGPRS"),
            (11, "CL_KERNELINFO_USED_SGPRS"),
            (12, "CL_KERNELINFO_AVAILABLE_VGPRS"),
            (13, "CL_KERNELINFO_USED_VGPRS"),
        ],
    },
    Group {
        c_type: "cl_file_flags_amd",
        bitfield: true,
        values: &[(1, "CL_FILE_READ_ONLY_AMD"), (2, "CL_FILE_WRITE_ONLY_AMD"), (4, "CL_FILE_READ_WRITE_AMD")],
    },
    Group {
        c_type: "cl_file_info_amd",
        bitfield: false,
        values: &[(0x4085, "CL_FILE_BLOCK_SIZE_AMD"), (0x4086, "CL_FILE_SIZE_AMD")],
    },
];

const PERFCOUNTER: &[(u64, &str)] = &[
    (1, "CL_PERFCOUNTER_REFERENCE_COUNT"),
    (2, "CL_PERFCOUNTER_DATA"),
    (3, "CL_PERFCOUNTER_GPU_BLOCK_INDEX"),
    (4, "CL_PERFCOUNTER_GPU_COUNTER_INDEX"),
    (5, "CL_PERFCOUNTER_GPU_EVENT_INDEX"),
];
