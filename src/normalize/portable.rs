//! `--portable`: hides what a log says about the host rather than about the
//! calls, so that one snapshot holds on any machine. Three kinds of value
//! depend on the host and not on the program:
//! - the lengths (and, decoded, the text) of strings the driver describes
//!   itself with: a CPU device's name carries the CPU model, its extensions
//!   follow the CPU's features, a build log names temporary files;
//! - decoded answers about the device and about kernels on it (compute units,
//!   memory sizes, preferred work-group multiples follow the vector width);
//! - local sizes the driver picks for a NULL local size (they follow the
//!   vector width), and allocation sizes derived from the memory size.
//!
//! Everything the program chose stays: the calls, their order, the
//! parameters it asked about, the sizes it passed for other answers, the
//! statuses and the handles.

/// Mark for a masked size or value.
pub const HOST: &str = "<host>";

/// Allocation sizes at or over this are taken to come from the device's
/// memory size (a "max alloc + 1" probe), not from the program's data.
pub const LARGE_ALLOCATION: u64 = 1 << 30;

/// Info queries whose answer is a driver-chosen string or a list whose
/// length follows the host: (function, param_name).
fn host_sized_answer(func: &str, param: u32) -> bool {
    match func {
        "clGetPlatformInfo" => matches!(param, 0x900..=0x904 | 0x906 | 0x920),
        "clGetDeviceInfo" => matches!(
            param,
            0x102B..=0x1030 | 0x103D | 0x103F | 0x1044 | 0x105B | 0x1060..=0x1062 | 0x1066 | 0x106F | 0x1072 | 0x4038
        ),
        "clGetProgramBuildInfo" => param == 0x1183, // CL_PROGRAM_BUILD_LOG
        _ => false,
    }
}

/// Queries whose decoded answers describe the device (or a kernel on it)
/// rather than what the program made.
fn host_valued_answer(func: &str, param: u32) -> bool {
    match func {
        "clGetPlatformInfo" | "clGetDeviceInfo" => !matches!(
            (func, param),
            // Handles keep their typed names.
            ("clGetDeviceInfo", 0x1031 | 0x1042)
        ),
        "clGetKernelWorkGroupInfo" | "clGetKernelSubGroupInfo" | "clGetKernelSuggestedLocalWorkSizeKHR" => true,
        // CL_PROGRAM_BINARY_SIZES: compiled code differs by CPU.
        "clGetProgramInfo" => param == 0x1165,
        _ => false,
    }
}

/// The numeric `param_name` of a call: raw, decoded (`4139 (CL_DEVICE_NAME)`)
/// or symbolic as an `.atp` writes it (`CL_DEVICE_NAME`).
fn param_name(args: &[(String, String)]) -> Option<u32> {
    let v = &args.iter().find(|(n, _)| n == "param_name")?.1;
    let raw = v.split(' ').next()?;
    if let Some(hex) = raw.strip_prefix("0x") {
        return u32::from_str_radix(hex, 16).ok();
    }
    raw.parse().ok().or_else(|| {
        let groups = crate::trace::enums::GROUPS.iter().filter(|g| g.c_type.ends_with("_info"));
        groups.flat_map(|g| g.values.iter()).find(|(_, n)| *n == raw).map(|(v, _)| *v as u32)
    })
}

fn allocates(func: &str) -> bool {
    matches!(
        func,
        "clCreateBuffer" | "clCreateBufferWithProperties" | "clSVMAlloc" | "clCreateBufferWithPropertiesINTEL"
    ) || func.ends_with("MemAllocINTEL")
}

/// How answers are written: an API log puts a decoded answer after the
/// pointer and a space; an `.atp` writes the answer alone, in brackets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    ApiLog,
    Atp,
}

/// Masks one call's host facts in place.
pub fn mask(
    func: &str,
    args: &mut [(String, String)],
    outs: &mut [(String, String)],
    local_size: &mut Option<Vec<String>>,
    form: Form,
) {
    if let Some(l) = local_size.as_mut() {
        l.iter_mut().for_each(|v| *v = HOST.into());
    }
    if allocates(func) {
        for (n, v) in args.iter_mut() {
            if n == "size" && v.parse::<u64>().is_ok_and(|s| s >= LARGE_ALLOCATION) {
                *v = HOST.into();
            }
        }
    }
    let Some(param) = param_name(args) else { return };
    let sized = host_sized_answer(func, param);
    let valued = sized || host_valued_answer(func, param);
    let numeric = |v: &str| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit());
    for (n, v) in args.iter_mut().chain(outs.iter_mut()) {
        match (n.as_str(), form) {
            // A size of 0 is the length query: the program's choice.
            ("param_value_size", _) if sized && v != "0" => *v = HOST.into(),
            ("param_value_size_ret", Form::ApiLog) if sized && numeric(v) => *v = HOST.into(),
            ("param_value_size_ret", Form::Atp)
                if sized && v.strip_prefix('[').and_then(|x| x.strip_suffix(']')).is_some_and(numeric) =>
            {
                *v = format!("[{HOST}]")
            }
            ("param_value", Form::ApiLog) if valued => {
                if let Some((own, _)) = v.split_once(' ') {
                    *v = format!("{own} {HOST}");
                }
            }
            ("param_value", Form::Atp) if valued && v.starts_with('[') => *v = format!("[{HOST}]"),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect()
    }

    #[test]
    fn device_name_sizes_and_text_are_masked() {
        let mut args = a(&[
            ("device", "device#1"),
            ("param_name", "4139 (CL_DEVICE_NAME)"),
            ("param_value_size", "27"),
            ("param_value", "ptr \"pthread-haswell\""),
        ]);
        let mut outs = a(&[("param_value_size_ret", "27")]);
        mask("clGetDeviceInfo", &mut args, &mut outs, &mut None, Form::ApiLog);
        assert_eq!(args[2].1, HOST);
        assert_eq!(args[3].1, "ptr <host>");
        assert_eq!(outs[0].1, HOST);
    }

    #[test]
    fn the_length_query_and_other_answers_keep_their_sizes() {
        let mut args = a(&[("param_name", "4139"), ("param_value_size", "0")]);
        let mut outs = a(&[("param_value_size_ret", "NULL")]);
        mask("clGetDeviceInfo", &mut args, &mut outs, &mut None, Form::ApiLog);
        assert_eq!(args[1].1, "0");
        assert_eq!(outs[0].1, "NULL");
        let mut args = a(&[("param_name", "4098"), ("param_value_size", "4")]);
        let mut outs = a(&[("param_value_size_ret", "4")]);
        mask("clGetDeviceInfo", &mut args, &mut outs, &mut None, Form::ApiLog);
        assert_eq!((args[1].1.as_str(), outs[0].1.as_str()), ("4", "4"), "a cl_uint answer's size is the program's");
        let mut args = a(&[("param_name", "4503"), ("param_value_size", "9")]);
        mask("clGetKernelInfo", &mut args, &mut [], &mut None, Form::ApiLog);
        assert_eq!(args[1].1, "9", "a kernel's name is the program's");
    }

    #[test]
    fn handles_in_device_answers_stay() {
        let mut args = a(&[("param_name", "4145 (CL_DEVICE_PLATFORM)"), ("param_value", "ptr platform#1")]);
        mask("clGetDeviceInfo", &mut args, &mut [], &mut None, Form::ApiLog);
        assert_eq!(args[1].1, "ptr platform#1");
    }

    #[test]
    fn atp_answers_are_masked_by_symbolic_name() {
        let mut args = a(&[
            ("param_name", "CL_DEVICE_NAME"),
            ("param_value_size", "256"),
            ("param_value", "[\"pthread-haswell\"]"),
            ("param_value_size_ret", "[16]"),
        ]);
        mask("clGetDeviceInfo", &mut args, &mut [], &mut None, Form::Atp);
        assert_eq!(args[1].1, HOST);
        assert_eq!(args[2].1, "[<host>]");
        assert_eq!(args[3].1, "[<host>]");
    }

    #[test]
    fn local_sizes_and_large_allocations() {
        let mut l = Some(vec!["16".to_string(), "1".to_string()]);
        let mut args = a(&[("size", "17179869185"), ("host_ptr", "NULL")]);
        mask("clCreateBuffer", &mut args, &mut [], &mut l, Form::ApiLog);
        assert_eq!(l.unwrap(), [HOST, HOST]);
        assert_eq!(args[0].1, HOST);
        let mut args = a(&[("size", "4096")]);
        mask("clCreateBuffer", &mut args, &mut [], &mut None, Form::ApiLog);
        assert_eq!(args[0].1, "4096");
    }
}
