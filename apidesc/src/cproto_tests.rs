//! The prototype check (`cproto`) against the real headers: the
//! descriptions pass, and each kind of planted mistake fails naming its
//! function.

use crate::cproto::{check, check_all, parse_unchecked, CheckError, Lang, Unchecked, Why};
use crate::Api;

fn read(f: &str) -> String {
    std::fs::read_to_string(format!("{}/../api/{f}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn apis() -> (Api, Api, Vec<Unchecked>) {
    (
        crate::parse(&read("opencl.api")).unwrap(),
        crate::parse_hsa(&read("hsa.api")).unwrap(),
        parse_unchecked(&read("unchecked.txt")).unwrap(),
    )
}

/// A directory of its own per check (tests run in parallel), removed after.
struct Dir(std::path::PathBuf);
impl Dir {
    fn new(tag: &str) -> Dir {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let d = std::env::temp_dir().join(format!("cltap-cproto-{tag}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }
}
impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn cc() -> String {
    crate::cproto::compiler()
}

/// The check on `api` after `plant` changed it: the functions it names.
fn failing(lang: Lang, mut api: Api, unchecked: &[Unchecked], plant: impl FnOnce(&mut Api)) -> Vec<String> {
    plant(&mut api);
    let dir = Dir::new("plant");
    match check(lang, &api, unchecked, &dir.0, &cc()) {
        Err(CheckError::Mismatch { functions, stderr, .. }) => {
            assert!(stderr.contains("error"), "{stderr}");
            functions
        }
        other => panic!("expected a mismatch, got {other:?}"),
    }
}

fn func<'a>(api: &'a mut Api, name: &str) -> &'a mut crate::Function {
    api.functions.iter_mut().find(|f| f.name == name).unwrap()
}

#[test]
fn the_descriptions_equal_the_headers() {
    let (ocl, hsa, unchecked) = apis();
    let dir = Dir::new("ok");
    check_all(&ocl, &hsa, &unchecked, &dir.0, &cc()).unwrap();
}

#[test]
fn swapped_parameters_fail_naming_the_function() {
    let (ocl, _, u) = apis();
    // clEnqueueNDRangeKernel's work_dim and global_work_offset change places.
    let got = failing(Lang::OpenCl, ocl, &u, |a| func(a, "clEnqueueNDRangeKernel").params.swap(2, 3));
    assert_eq!(got, ["clEnqueueNDRangeKernel"]);
}

#[test]
fn a_wrong_width_fails_naming_the_function() {
    let (ocl, _, u) = apis();
    // clCreateBuffer's size_t size as a cl_uint: garbage in the upper half.
    let got = failing(Lang::OpenCl, ocl, &u, |a| func(a, "clCreateBuffer").params[2].c_type = "cl_uint".into());
    assert_eq!(got, ["clCreateBuffer"]);
}

#[test]
fn a_missing_parameter_and_a_wrong_result_fail_naming_each_function() {
    let (ocl, _, u) = apis();
    let got = failing(Lang::OpenCl, ocl, &u, |a| {
        func(a, "clSetKernelArg").params.pop();
        func(a, "clFinish").ret_type = "cl_uint".into();
    });
    // In the description's order.
    assert_eq!(got, ["clSetKernelArg", "clFinish"]);
}

#[test]
fn a_wrong_callback_type_fails_naming_the_function() {
    let (ocl, _, u) = apis();
    let got =
        failing(Lang::OpenCl, ocl, &u, |a| func(a, "clSetEventCallback").params[2].c_type = "cl_cb_mem_notify".into());
    assert_eq!(got, ["clSetEventCallback"]);
}

#[test]
fn a_wrong_hsa_prototype_fails_naming_the_function() {
    let (_, hsa, u) = apis();
    // hsa_queue_create's uint32_t size as a uint64_t.
    let got = failing(Lang::Hsa, hsa, &u, |a| func(a, "hsa_queue_create").params[1].c_type = "uint64_t".into());
    assert_eq!(got, ["hsa_queue_create"]);
}

#[test]
fn a_function_the_headers_lack_fails_unless_listed() {
    let (ocl, _, mut u) = apis();
    u.retain(|x| x.name != "clBeginPerfMarkerCLTAP");
    assert_eq!(failing(Lang::OpenCl, ocl, &u, |_| ()), ["clBeginPerfMarkerCLTAP"]);
}

#[test]
fn an_absent_entry_the_headers_declare_fails() {
    let (ocl, _, mut u) = apis();
    u.push(Unchecked { name: "clCreateBuffer".into(), why: Why::Absent, source: "t".into(), line: 0 });
    assert_eq!(failing(Lang::OpenCl, ocl, &u, |_| ()), ["clCreateBuffer"]);
}

#[test]
fn the_list_is_held_to_the_descriptions() {
    let (ocl, hsa, _) = apis();
    let u = parse_unchecked("clNoSuchFunction absent nowhere\n").unwrap();
    let dir = Dir::new("list");
    let e = check_all(&ocl, &hsa, &u, &dir.0, &cc()).unwrap_err().to_string();
    assert_eq!(e, "api/unchecked.txt:1: clNoSuchFunction: described in neither API");
    let e = parse_unchecked("# c\nclFinish maybe somewhere\n").unwrap_err().to_string();
    assert_eq!(e, "api/unchecked.txt:2: `maybe`: not absent, newer or windows");
    assert!(parse_unchecked("clFinish absent\n").unwrap_err().to_string().contains("no source named"));
}

#[test]
fn the_message_names_the_functions_and_the_file() {
    let (ocl, _, u) = apis();
    let mut api = ocl;
    func(&mut api, "clFlush").params[0].c_type = "cl_context".into();
    let dir = Dir::new("msg");
    let e = check(Lang::OpenCl, &api, &u, &dir.0, &cc()).unwrap_err().to_string();
    assert!(e.starts_with("api/opencl.api: the prototype of clFlush differs"), "{e}");
}
