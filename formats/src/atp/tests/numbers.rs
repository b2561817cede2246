use super::*;
use crate::atp::types::hsa::{CLTAP_HSA_FIRST, CLTAP_HSA_FUNCTIONS, RCP_HSA_FUNCTIONS};
use crate::atp::types::ocl::{CLTAP_FIRST, CLTAP_FUNCTIONS, RCP_FUNCTIONS};

/// Each `known` name has its number and back; every name of RCP's table and
/// of cltap's maps back to itself, and none repeats.
fn check_numbering(
    known: &[(&'static str, u32)],
    tables: [&[&'static str]; 2],
    type_of: fn(&str) -> u32,
    name_of: fn(u32) -> Option<&'static str>,
) {
    for &(name, n) in known {
        assert_eq!(type_of(name), n, "{name}");
        assert_eq!(name_of(n), Some(name));
    }
    let mut seen = std::collections::HashSet::new();
    for name in tables.concat() {
        assert!(seen.insert(name), "{name} twice");
        assert_eq!(name_of(type_of(name)), Some(name));
    }
}

#[test]
fn api_type_numbers() {
    // Positions in RCP's CL_FUNC_TYPE (CLCommon/CLFunctionEnumDefs.h).
    let known = [
        ("clGetPlatformIDs", 0),
        ("clSetKernelArg", 39),
        ("clFinish", 51),
        ("clEnqueueReadBuffer", 52),
        ("clEnqueueNDRangeKernel", 66),
        ("clEnqueueMarker", 73),
        ("clEnqueueBarrier", 75),
        ("clSetCommandQueueProperty", 91),
        ("clEnqueueFillBuffer", 101),
        ("clEnqueueMarkerWithWaitList", 104),
        ("clCreateCommandQueueWithProperties", 109),
        ("clEnqueueSVMMigrateMem", 139),
        ("clSetProgramSpecializationConstant", 145),
    ];
    check_numbering(&known, [&RCP_FUNCTIONS, &CLTAP_FUNCTIONS], api_type, api_name);
    // RCP's enqueue ranges (CLFunctionEnumDefs.cpp, IsEnqueueAPI).
    assert!(rcp_is_enqueue(api_type("clEnqueueNDRangeKernel")));
    assert!(rcp_is_enqueue(api_type("clEnqueueMarker")));
    assert!(!rcp_is_enqueue(api_type("clEnqueueWaitForEvents")));
    assert!(!rcp_is_enqueue(api_type("clEnqueueCommandBufferKHR")));
    assert_eq!(api_type("clCreateBufferWithProperties"), CLTAP_FIRST);
    assert!(
        api_type("clEnqueueCommandBufferKHR") >= CLTAP_FIRST && api_type("clEnqueueCommandBufferKHR") < HASHED_FIRST
    );
    // Anything else: a fixed hash into its own range, never a table name.
    let h = api_type("clEnqueueSomethingFromTheFutureEXT");
    assert!((HASHED_FIRST..=HASHED_LAST).contains(&h));
    assert_eq!(h, 5_047, "the hash must not change between releases");
    assert_eq!(api_name(h), None);
    assert!((HASHED_FIRST..=HASHED_LAST).contains(&api_type("")));
    assert_eq!(api_name(146), None);
    assert_eq!(api_name(u32::MAX), None);
}

#[test]
fn hsa_api_type_numbers() {
    // Positions in RCP's HSA_API_Type (HSAFdnCommon/HSAFunctionDefs.h).
    let known = [
        ("hsa_status_string", 0),
        ("hsa_init", 1),
        ("hsa_iterate_agents", 7),
        ("hsa_signal_store_screlease", 15),
        ("hsa_queue_create", 46),
        ("hsa_amd_memory_pool_allocate", 126),
        ("hsa_amd_memory_async_copy", 128),
        ("hsa_executable_get_symbol_by_name", 164),
        ("hsa_amd_memory_async_copy_rect", 197),
    ];
    let tables = [&RCP_HSA_FUNCTIONS[..], &CLTAP_HSA_FUNCTIONS];
    check_numbering(&known, tables, hsa_api_type, hsa_api_name);
    assert_eq!(hsa_api_name(198), None, "RCP's Non_API_Dispatch");
    // cltap's range: Debian's functions RCP never knew.
    assert_eq!(hsa_api_type("hsa_amd_register_system_event_handler"), CLTAP_HSA_FIRST);
    assert_eq!(hsa_api_type("hsa_amd_queue_cu_get_mask"), 311);
    // Anything else: the OpenCL hash; the two numberings are separate.
    let h = hsa_api_type("hsa_ven_future_thing");
    assert!((HASHED_FIRST..=HASHED_LAST).contains(&h));
    assert_eq!(h, api_type("hsa_ven_future_thing"));
    assert_eq!(hsa_api_name(h), None);
    assert_eq!(api_name(1), Some("clGetPlatformInfo"));
    assert_eq!(hsa_api_name(1), Some("hsa_init"));
}
