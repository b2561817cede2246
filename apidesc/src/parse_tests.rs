//! The description parser's tests: OpenCL and HSA dialects.

mod tests {
    use super::super::*;

    fn one(decl: &str) -> Function {
        parse_decl(decl, "core", 1).unwrap()
    }

    const NDRANGE: &str = "61 cl_int clEnqueueNDRangeKernel(cl_command_queue command_queue, cl_kernel kernel, \
             cl_uint work_dim, const size_t* global_work_offset [arr=work_dim], \
             const size_t *global_work_size [arr=work_dim], const size_t* local_work_size [arr=work_dim], \
             cl_uint num_events_in_wait_list, const cl_event* event_wait_list [arr=num_events_in_wait_list], \
             cl_event* event)";
    const TASK: &str = "60 cl_int clEnqueueTask(cl_command_queue command_queue, cl_kernel kernel, \
             cl_uint num_events_in_wait_list, const cl_event* event_wait_list [arr=num_events_in_wait_list], \
             cl_event* event)";

    #[test]
    fn infers_roles_from_types() {
        let f = one(NDRANGE);
        assert_eq!(f.slot, Some(61));
        assert_eq!(f.ret, RetKind::Status);
        assert_eq!(f.params[0].role, Role::Handle);
        assert_eq!(f.params[2].role, Role::Scalar);
        assert_eq!(f.params[4].c_type, "const size_t*");
        assert_eq!(f.params[4].role, Role::InArray { len: Len::Param("work_dim".into()) });
        assert_eq!(f.params[8].role, Role::OutHandle);
        assert!(f.has_event_out());
        assert_eq!(f.dispatch, Dispatch::Param(0));
    }

    #[test]
    fn lws_marks_ndrange_launches() {
        assert!(one(&format!("{NDRANGE} [lws]")).lws);
        assert!(!one(NDRANGE).lws);
        assert!(!one(TASK).lws);
        let e = parse(&format!("{TASK} [lws];")).unwrap_err();
        assert!(e.msg.contains("[lws]") && e.msg.contains("local_work_size"), "{e}");
    }

    #[test]
    fn callbacks_take_their_user_data() {
        let f = one("83 cl_int clSetEventCallback(cl_event event, cl_int command_exec_callback_type, \
             cl_cb_event_notify pfn_notify, void* user_data)");
        assert_eq!(f.params[2].role, Role::Callback(crate::CallbackKind::EventNotify));
        assert_eq!(f.params[3].role, Role::UserData);
    }

    #[test]
    fn handle_results_need_errcode() {
        let e = parse("15 cl_mem clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void* host_ptr);")
            .unwrap_err();
        assert!(e.msg.contains("errcode_ret"), "{e}");
    }

    #[test]
    fn unannotated_const_arrays_are_rejected_with_the_line() {
        let e = parse("\n\n43 cl_int clWaitForEvents(cl_uint num_events, const cl_event* event_list);").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.msg.contains("event_list"), "{e}");
    }

    #[test]
    fn lengths_must_name_parameters() {
        let e = parse("- cl_int clX(cl_context c, const cl_uint* v [arr=nope]);").unwrap_err();
        assert!(e.msg.contains("nope"), "{e}");
    }

    #[test]
    fn out_arrays_with_counts() {
        let f = one("0 cl_int clGetPlatformIDs(cl_uint num_entries, cl_platform_id* platforms \
             [outarr=num_entries count=num_platforms], cl_uint* num_platforms) [dispatch=none]");
        assert_eq!(
            f.params[1].role,
            Role::OutArray { cap: Len::Param("num_entries".into()), count: Some("num_platforms".into()) }
        );
        assert_eq!(f.params[2].role, Role::OutValue);
        assert_eq!(f.dispatch, Dispatch::None);
    }

    #[test]
    fn property_lists_by_type() {
        let f = one("5 cl_context clCreateContext(const cl_context_properties* properties, cl_uint num_devices, \
             const cl_device_id* devices [arr=num_devices], cl_cb_context_notify pfn_notify, void* user_data, \
             cl_int* errcode_ret) [dispatch=devices]");
        assert_eq!(f.params[0].role, Role::Properties(crate::PropKind::Context));
        assert_eq!(f.params[5].role, Role::Errcode);
        assert_eq!(f.dispatch, Dispatch::Param(2));
        assert_eq!(f.ret, RetKind::Handle);
    }

    #[test]
    fn a_non_const_property_list_by_annotation() {
        // AMD's perf-counter properties: its header declares the list non-const.
        let f = one("- cl_perfcounter_amd clCreatePerfCounterAMD(cl_device_id device, \
             cl_perfcounter_property* properties [props], cl_int* errcode_ret)");
        assert_eq!(f.params[1].role, Role::Properties(crate::PropKind::PerfCounterAmd));
        let e = parse("- cl_int clX(cl_context c, cl_uint* v [props]);").unwrap_err();
        assert!(e.msg.contains("no known property type"), "{e}");
    }
}

mod hsa_tests {
    use super::super::*;
    use crate::CallbackKind;

    fn hsa(text: &str) -> Result<Api, ParseError> {
        parse_hsa(text)
    }

    fn one(decl: &str) -> Function {
        hsa(&format!("@table core\n{decl};\n")).unwrap().functions.remove(0)
    }

    #[test]
    fn the_description_parses_and_is_the_four_tables() {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../api/hsa.api")).unwrap();
        let api = hsa(&text).unwrap();
        assert_eq!(api.functions.len(), 192);
        let t: Vec<(&str, usize, usize)> = api.tables.iter().map(|t| (t.name.as_str(), t.first, t.entries)).collect();
        assert_eq!(t, [("core", 0, 125), ("amd", 125, 48), ("finalizer", 173, 6), ("image", 179, 13)]);
        assert!(api.functions[0].init && api.functions[1].shutdown);
    }

    #[test]
    fn roles_from_hsa_types() {
        let f = one("0 hsa_status_t hsa_queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type, \
             hsa_cb_queue_error callback, void* data, uint32_t private_segment_size, uint32_t group_segment_size, \
             hsa_queue_t** queue)");
        assert_eq!(f.slot, Some(0));
        assert_eq!(f.ret, RetKind::Status);
        let roles: Vec<&Role> = f.params.iter().map(|p| &p.role).collect();
        assert_eq!(
            roles,
            [
                &Role::Handle,
                &Role::Scalar,
                &Role::Scalar,
                &Role::Callback(CallbackKind::Hsa),
                &Role::UserData,
                &Role::Scalar,
                &Role::Scalar,
                &Role::OutHandle
            ]
        );
        let f = one("0 hsa_status_t hsa_signal_create(hsa_signal_value_t initial_value, uint32_t num_consumers, \
             const hsa_agent_t* consumers [arr=num_consumers], hsa_signal_t* signal)");
        assert_eq!(f.params[2].role, Role::InArray { len: Len::Param("num_consumers".into()) });
        assert_eq!(f.params[3].role, Role::OutHandle);
        let f = one(
            "0 hsa_status_t hsa_executable_get_symbol_by_name(hsa_executable_t executable, const char* symbol_name, \
             const hsa_agent_t* agent [arr=1], hsa_executable_symbol_t* symbol)",
        );
        assert_eq!(f.params[1].role, Role::InString);
        let f = one("0 uint64_t hsa_queue_load_read_index_relaxed(const hsa_queue_t* queue)");
        assert_eq!((f.ret.clone(), f.params[0].role.clone()), (RetKind::Scalar, Role::Handle));
        let f = one("0 hsa_status_t hsa_agent_get_info(hsa_agent_t agent, hsa_agent_info_t attribute, void* value)");
        assert_eq!(f.params[2].role, Role::HostPtr);
        let f = one("0 hsa_status_t hsa_system_extension_supported(uint16_t extension, bool* result)");
        assert_eq!(f.params[1].role, Role::OutValue);
        let f = one("0 hsa_status_t hsa_x(hsa_ext_control_directives_t d [struct=144])");
        assert_eq!(f.params[0].role, Role::ByValue { size: 144 });
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let e = hsa("@table core\n\n0 hsa_status_t hsa_x(hsa_mystery_t m);\n").unwrap_err();
        assert_eq!((e.file, e.line), ("api/hsa.api", 3));
        assert!(e.to_string().starts_with("api/hsa.api:3: hsa_x(m): type `hsa_mystery_t`"), "{e}");
        let e = hsa("@table core\n0 hsa_status_t hsa_x(const hsa_dim3_t* d);\n").unwrap_err();
        assert!(e.msg.contains("add arr=, bytes= or ptr"), "{e}");
        let e = hsa("@table core\n0 hsa_status_t hsa_x(hsa_dim3_t* d);\n").unwrap_err();
        assert!(e.msg.contains("cannot infer the role"), "{e}");
        let e = hsa("0 hsa_status_t hsa_x();\n").unwrap_err();
        assert!(e.msg.contains("before the first `@table`"), "{e}");
        let e = hsa("@table core\n0 hsa_status_t hsa_x();\n2 hsa_status_t hsa_y();\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.msg.contains("entry 1 of table `core` is numbered 2"), "{e}");
        let e = hsa("@table core\n@table gpu\n").unwrap_err();
        assert!(e.msg.contains("unknown table `gpu`"), "{e}");
        let e = hsa("@table core\n@table core\n").unwrap_err();
        assert!(e.msg.contains("already described from line 1"), "{e}");
        let e = hsa("@ext core\n").unwrap_err();
        assert!(e.msg.contains("@ext does not belong"), "{e}");
        let e = parse("@table core\n").unwrap_err();
        assert!(e.to_string().starts_with("api/opencl.api:1: @table does not belong"), "{e}");
        let e = hsa("@table core\n0 hsa_status_t hsa_x() [lws];\n").unwrap_err();
        assert!(e.msg.contains("unknown function attribute `lws`"), "{e}");
        let e = hsa("@table core\n0 hsa_status_t hsa_x(uint32_t n) [init];\n").unwrap_err();
        assert!(e.msg.contains("[init]"), "{e}");
        let e = hsa("@table core\n0 hsa_status_t hsa_x(hsa_ext_control_directives_t d [struct=7]);\n").unwrap_err();
        assert!(e.msg.contains("struct=N"), "{e}");
        let e = hsa("@table core\n0 hsa_status_t hsa_x(const hsa_dim3_t* d [arr=1]);\n").unwrap_err();
        assert!(e.msg.contains("size of `hsa_dim3_t` is not known"), "{e}");
        let e = hsa("@table core\n0 hsa_dim3_t hsa_x();\n").unwrap_err();
        assert!(e.msg.contains("return type"), "{e}");
    }
}
