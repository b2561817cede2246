//! Calls an application makes while it exits are recorded like any other:
//! from exit handlers registered before and after cltap's own, and after
//! the C library has run the main thread's thread-local destructors (it
//! runs them before the exit handlers).

mod common;
use common::*;
use std::io::BufRead;
use std::path::Path;

/// The numbers the program gave its own `clGetPlatformInfo` calls (their
/// `param_value_size`), in log order.
fn numbered_calls(log: &Path) -> Vec<u64> {
    let f = std::io::BufReader::new(std::fs::File::open(log).unwrap());
    f.lines()
        .map_while(Result::ok)
        .filter_map(|l| {
            let rest = l.split("cl_platform_info param_name = 2306, size_t param_value_size = ").nth(1)?;
            let (n, tail) = rest.split_once(',')?;
            tail.starts_with(" void* param_value = 0000000000000000").then(|| n.parse().ok())?
        })
        .filter(|&n| n > 0)
        .collect()
}

#[test]
fn calls_from_exit_handlers_reach_the_api_log() {
    const N: u64 = 200;
    let calls = special("calls.c", "calls-exit");
    for (mode, loader) in [(Mode::Layer, Loader::OclIcd), (Mode::Icd, Loader::Khronos)] {
        let d = scratch("exit-calls");
        let mut c = command(&calls, &["at-exit", &N.to_string()], &[Driver::Pocl], loader, mode);
        c.env("CLTAP_OUTPUT_DIR", &*d);
        let o = run(c);
        assert_eq!(o.code, Some(0), "{mode:?}: {}", o.stderr);
        let log = only_file(&d, ".apilog");
        assert_eq!(numbered_calls(&log), (1..=2 * N).collect::<Vec<_>>(), "{mode:?}");
        let last = std::fs::read_to_string(&log).unwrap().lines().last().unwrap_or("").to_string();
        assert!(last.starts_with("# end: ") && last.ends_with(" 0 dropped"), "{mode:?}: {last}");
    }
}
