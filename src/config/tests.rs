use super::*;

fn vars(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

#[test]
fn a_value_that_is_not_utf8_is_reported_not_skipped() {
    use std::os::unix::ffi::OsStringExt;
    let os = |s: &str| std::ffi::OsString::from(s);
    let (_, e) = Config::from_vars_os([
        (os("CLTAP_OUTPUT_DIR"), std::ffi::OsString::from_vec(b"out\xff".to_vec())),
        (os("OTHER"), std::ffi::OsString::from_vec(b"\xff".to_vec())),
    ]);
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(
        e[0].to_string(),
        "CLTAP_OUTPUT_DIR=\"out\u{fffd}\" is not valid (accepted: UTF-8 text); cltap continues as a pure pass-through"
    );
}

#[test]
fn a_buffer_the_reader_would_refuse_is_refused() {
    let (_, e) = Config::from_vars(vars(&[("CLTAP_BUFFER_SIZE", "16G")]));
    assert!(matches!(&e[..], [ConfigError::Invalid { var: "CLTAP_BUFFER_SIZE", .. }]), "{e:?}");
    let (c, e) = Config::from_vars(vars(&[("CLTAP_BUFFER_SIZE", "4G")]));
    assert!(e.is_empty() && c.buffer_size == 1 << 32, "{e:?}");
}

#[test]
fn defaults_without_variables() {
    let (c, e) = Config::from_vars(vars(&[("PATH", "/bin")]));
    assert!(e.is_empty());
    assert_eq!(c, Config::default());
}

#[test]
fn bad_flag_names_variable_value_and_accepted() {
    let (_, e) = Config::from_vars(vars(&[("CLTAP_SUMMARY", "maybe")]));
    let msg = e[0].to_string();
    assert!(msg.contains("CLTAP_SUMMARY=\"maybe\""), "{msg}");
    assert!(msg.contains("accepted: 0 or 1"), "{msg}");
    assert!(msg.contains("pure pass-through"), "{msg}");
}

#[test]
fn counters_take_metrics_instances_and_raw_events() {
    let (c, e) = Config::from_vars(vars(&[("CLTAP_COUNTERS", "SQ_WAVES, TCC_HIT[3],SQ:4,TCC[3]:20")]));
    assert!(e.is_empty(), "{e:?}");
    assert_eq!(c.counters, ["SQ_WAVES", "TCC_HIT[3]", "SQ:4", "TCC[3]:20"]);
    for bad in ["SQ 4", "4:SQ", "GPU-Busy"] {
        let (_, e) = Config::from_vars(vars(&[("CLTAP_COUNTERS", bad)]));
        assert!(matches!(&e[..], [ConfigError::Invalid { var: "CLTAP_COUNTERS", .. }]), "{bad}: {e:?}");
    }
}

#[test]
fn the_launchers_variable_is_known() {
    let (c, e) = Config::from_vars(vars(&[("CLTAP_LAYER", "/opt/cltap/libcltap_layer.so")]));
    assert!(e.is_empty(), "{e:?}");
    assert_eq!(c, Config::default());
}

#[test]
fn unknown_variable_is_reported() {
    let (_, e) = Config::from_vars(vars(&[("CLTAP_SUMARY", "1")]));
    assert!(matches!(&e[0], ConfigError::Unknown { var, .. } if var == "CLTAP_SUMARY"));
    assert_eq!(
        e[0].to_string(),
        "CLTAP_SUMARY=\"1\": CLTAP_SUMARY is not a cltap variable (did you mean CLTAP_SUMMARY?); cltap continues as a pure pass-through"
    );
}

#[test]
fn an_unknown_variable_far_from_every_name_gets_no_suggestion() {
    let (_, e) = Config::from_vars(vars(&[("CLTAP_XYZZY_PLUGH", "1")]));
    assert_eq!(e[0].problem(), "CLTAP_XYZZY_PLUGH=\"1\": CLTAP_XYZZY_PLUGH is not a cltap variable");
    assert_eq!(super::nearest_variable("CLTAP_TIMLINE"), Some("CLTAP_TIMELINE"));
}

#[test]
fn icd_filenames_split_on_colons() {
    let (c, e) = Config::from_vars(vars(&[("CLTAP_ICD_FILENAMES", "/a.so::/b.so")]));
    assert!(e.is_empty());
    assert_eq!(c.icd_filenames.unwrap(), vec![PathBuf::from("/a.so"), PathBuf::from("/b.so")]);
}

#[test]
fn buffer_settings() {
    let (c, e) = Config::from_vars(vars(&[
        ("CLTAP_BUFFER_SIZE", "64K"),
        ("CLTAP_BUFFER_WATERMARK", "50%"),
        ("CLTAP_BUFFER_POLICY", "discard"),
    ]));
    assert!(e.is_empty(), "{e:?}");
    assert_eq!(c.buffer_size, 65536);
    assert_eq!(c.watermark_bytes(), 32768);
    assert!(!c.lossless);
    for (k, v) in [
        ("CLTAP_BUFFER_SIZE", "12"),
        ("CLTAP_BUFFER_SIZE", "lots"),
        ("CLTAP_BUFFER_WATERMARK", "0%"),
        ("CLTAP_BUFFER_POLICY", "maybe"),
        ("CLTAP_LOG", "syslog"),
        ("CLTAP_LOG_FILTER", "cl Get"),
    ] {
        let (_, e) = Config::from_vars(vars(&[(k, v)]));
        assert_eq!(e.len(), 1, "{k}={v}");
    }
}

#[test]
fn tool_libraries_are_listed_in_order_and_need_the_trace() {
    let (c, e) = Config::from_vars(vars(&[("ROCP_TOOL_LIB", "/t/a.so::/nonexistent/b.so"), ("CLTAP_API_LOG", "0")]));
    assert!(e.is_empty(), "a bad tool path is reported when it is loaded, not here: {e:?}");
    assert_eq!(c.tool_libs, vec![PathBuf::from("/t/a.so"), PathBuf::from("/nonexistent/b.so")]);
    assert!(c.records_calls());
    let (c, _) = Config::from_vars(vars(&[("ROCP_TOOL_LIB", ""), ("CLTAP_API_LOG", "0")]));
    assert!(c.tool_libs.is_empty() && !c.records_calls());
}

#[test]
fn filter_globs() {
    let (c, _) = Config::from_vars(vars(&[("CLTAP_LOG_FILTER", "clEnqueue*, clFinish, -clEnqueueRead*")]));
    assert!(c.logs("clEnqueueNDRangeKernel"));
    assert!(c.logs("clFinish"));
    assert!(!c.logs("clEnqueueReadBuffer"));
    assert!(!c.logs("clGetDeviceInfo"));
    let (c, _) = Config::from_vars(vars(&[("CLTAP_LOG_FILTER", "-clGetEventInfo")]));
    assert!(c.logs("clGetDeviceInfo") && !c.logs("clGetEventInfo"));
    assert!(glob("cl?et*Info", "clGetDeviceInfo"));
}

#[test]
fn output_dir_is_created_or_refused_clearly() {
    let tmp = tempfile::tempdir().unwrap();
    let want = tmp.path().join("a/b");
    let (c, e) = Config::from_vars(vars(&[("CLTAP_OUTPUT_DIR", want.to_str().unwrap())]));
    assert!(e.is_empty(), "{e:?}");
    assert!(want.is_dir() && c.output_dir == want);
    let file = tmp.path().join("f");
    std::fs::write(&file, "").unwrap();
    let (_, e) = Config::from_vars(vars(&[("CLTAP_OUTPUT_DIR", file.join("x").to_str().unwrap())]));
    assert_eq!(e.len(), 1);
    assert!(e[0].to_string().contains("CLTAP_OUTPUT_DIR") && e[0].to_string().contains("can be created"), "{}", e[0]);
}
