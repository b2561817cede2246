//! Info queries without a size pointer, on a real driver in both modes:
//! the record holds the answer the driver wrote, not the whole buffer the
//! application lent (cltap's own size slot tells the capture its length).

mod common;
use cltap_formats::apilog::{self, Call, Entry};
use common::*;

/// The decoded `param_value` of the one call of `name` whose `param_name`
/// is `param` and whose `param_value_size_ret` is `size_ret`.
fn value<'a>(calls: &'a [&Call], name: &str, param: &str, size_ret_null: bool) -> &'a str {
    let c = calls
        .iter()
        .find(|c| {
            let arg = |n: &str| c.args.iter().find(|a| a.name == n).map(|a| a.value.as_str()).unwrap_or("");
            c.name == name
                && arg("param_name").starts_with(param)
                && arg("param_value_size_ret").starts_with("0000000000000000") == size_ret_null
        })
        .unwrap_or_else(|| panic!("no {name}({param}) call"));
    &c.args.iter().find(|a| a.name == "param_value").unwrap().value
}

#[test]
fn an_answer_without_a_size_pointer_is_what_the_driver_wrote() {
    let exe = special("info_shapes.c", "info_shapes");
    for mode in [Mode::Layer, Mode::Icd] {
        let mut c = command(&exe, &[], &[Driver::Pocl], Loader::OclIcd, mode);
        c.env("CLTAP_LOG", "stderr").env("CLTAP_LOG_DECODE", "1");
        let o = run(c);
        assert_eq!(o.code, Some(0), "{mode:?}: {}", o.stderr);
        let printed = |key: &str| {
            o.stdout.lines().find_map(|l| l.strip_prefix(key)).unwrap_or_else(|| panic!("{key}: {}", o.stdout))
        };
        let units = printed("units ");
        let (_, dev_name) = printed("name ").split_once(' ').unwrap();
        let entries = apilog::read(&o.stderr).unwrap();
        let calls: Vec<&Call> =
            entries.iter().filter_map(|e| if let Entry::Call(c) = e { Some(c) } else { None }).collect();
        // A 4-byte answer in a 64-byte buffer: four bytes captured, which
        // the log shows as the number (the whole buffer would be 64 bytes
        // of hex, the fill's among them).
        let v = value(&calls, "clGetDeviceInfo", "4098", true);
        assert!(v.ends_with(units) && !v.contains("ab"), "{mode:?}: units {units}, logged {v}");
        // The name: the string and nothing after it, the same as with a
        // size pointer.
        let without = value(&calls, "clGetDeviceInfo", "4139", true);
        let with = value(&calls, "clGetDeviceInfo", "4139", false);
        assert_eq!(without, with, "{mode:?}");
        assert!(without.contains(&format!("\"{dev_name}\"")) && !without.contains('…'), "{mode:?}: {without}");
    }
}
