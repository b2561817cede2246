//! Parser for `api/opencl.api`. It is strict on purpose: a parameter whose
//! role cannot be decided fails the build with its line number, because a
//! wrongly guessed role silently mis-forwards or mis-logs an argument.

use crate::types::{self, callback_kind, is_const_pointer, is_handle, is_pointer, prop_kind};
use crate::{Api, Dispatch, Function, Len, Param, RetKind, Role, DISPATCH_SLOTS};
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub msg: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "api/opencl.api:{}: {}", self.line, self.msg)
    }
}

impl std::error::Error for ParseError {}

fn err<T>(line: usize, msg: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError { line, msg: msg.into() })
}

pub fn parse(text: &str) -> Result<Api, ParseError> {
    let mut functions = Vec::new();
    let mut ext = String::from("core");
    let mut pending = String::new();
    let mut pending_line = 0;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if pending.is_empty() {
            if let Some(rest) = line.strip_prefix("@ext") {
                let name = rest.trim();
                if name.is_empty() || name.contains(char::is_whitespace) {
                    return err(line_no, "@ext takes exactly one name");
                }
                ext = name.to_string();
                continue;
            }
            pending_line = line_no;
        }
        pending.push(' ');
        pending.push_str(line);
        if line.ends_with(';') {
            let decl = std::mem::take(&mut pending);
            functions.push(parse_decl(decl.trim().trim_end_matches(';'), &ext, pending_line)?);
        }
    }
    if !pending.trim().is_empty() {
        return err(pending_line, "declaration does not end with ';'");
    }
    check(&functions)?;
    Ok(Api { functions })
}

/// The leading parameters of a function marked `[lws]`, as in
/// `clEnqueueNDRangeKernel`.
const LWS_PARAMS: [&str; 6] = ["command_queue", "kernel", "work_dim", "global_work_offset", "global_work_size", "local_work_size"];

fn parse_decl(decl: &str, ext: &str, line: usize) -> Result<Function, ParseError> {
    let open = decl.find('(').ok_or(ParseError { line, msg: "missing '('".into() })?;
    let close = decl.rfind(')').ok_or(ParseError { line, msg: "missing ')'".into() })?;
    let head: Vec<&str> = decl[..open].split_whitespace().collect();
    if head.len() < 3 {
        return err(line, "expected `SLOT RET NAME(`");
    }
    let slot = match head[0] {
        "-" => None,
        s => {
            let n: usize = s.parse().map_err(|_| ParseError { line, msg: format!("bad slot `{s}`") })?;
            if n >= DISPATCH_SLOTS {
                return err(line, format!("slot {n} is outside the table (0..{DISPATCH_SLOTS})"));
            }
            Some(n)
        }
    };
    let name = head[head.len() - 1].to_string();
    let ret_type = norm_type(&head[1..head.len() - 1].join(" "));
    let ret = ret_kind(&ret_type).ok_or(ParseError {
        line,
        msg: format!("{name}: return type `{ret_type}` is not a status, handle, pointer, void or scalar"),
    })?;

    let mut params = Vec::new();
    let inner = decl[open + 1..close].trim();
    if !inner.is_empty() && inner != "void" {
        for piece in split_params(inner) {
            params.push(parse_param(piece.trim(), line, &name)?);
        }
    }

    let attrs = attrs_of(decl[close + 1..].trim(), line)?;
    let mut windows_only = false;
    let mut local = false;
    let mut lws = false;
    let mut dispatch_attr: Option<String> = None;
    for (k, v) in attrs {
        match (k.as_str(), v) {
            ("windows", None) => windows_only = true,
            ("local", None) => local = true,
            ("lws", None) => lws = true,
            ("dispatch", Some(v)) => dispatch_attr = Some(v),
            (k, _) => return err(line, format!("{name}: unknown function attribute `{k}`")),
        }
    }

    let mut f = Function {
        name,
        slot,
        ext: ext.to_string(),
        ret_type,
        ret,
        params,
        dispatch: Dispatch::None,
        windows_only,
        local,
        lws,
        line,
    };
    infer_user_data(&mut f);
    if f.lws {
        // The layer reads these arguments by position to ask the driver.
        let names: Vec<&str> = f.params.iter().take(LWS_PARAMS.len()).map(|p| p.name.as_str()).collect();
        if names != LWS_PARAMS || f.ret != RetKind::Status {
            return err(line, format!("{}: [lws] needs a cl_int function whose parameters begin ({})", f.name, LWS_PARAMS.join(", ")));
        }
    }
    f.dispatch = match dispatch_attr.as_deref() {
        Some("none") => Dispatch::None,
        Some(p) => Dispatch::Param(
            f.param_index(p)
                .ok_or(ParseError { line, msg: format!("{}: dispatch names no parameter `{p}`", f.name) })?,
        ),
        None => match f.params.iter().position(|p| p.role == Role::Handle) {
            Some(i) => Dispatch::Param(i),
            None if f.windows_only || f.local => Dispatch::None,
            None => {
                return err(line, format!("{}: no handle parameter chooses the driver; add [dispatch=...]", f.name))
            }
        },
    };
    Ok(f)
}

fn split_params(s: &str) -> Vec<&str> {
    // Annotations hold no commas except inside `[...]`, which the loop skips.
    let mut out = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in s.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// `const  char *` -> `const char*`; `char * const *` -> `char* const*`.
fn norm_type(t: &str) -> String {
    let spaced = t.replace('*', " * ");
    let mut out = String::new();
    for tok in spaced.split_whitespace() {
        if tok == "*" {
            out.push('*');
        } else {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(tok);
        }
    }
    out
}

fn attrs_of(s: &str, line: usize) -> Result<Vec<(String, Option<String>)>, ParseError> {
    if s.is_empty() {
        return Ok(Vec::new());
    }
    let body = s
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .ok_or(ParseError { line, msg: format!("expected `[...]`, found `{s}`") })?;
    Ok(body
        .split_whitespace()
        .map(|kv| match kv.split_once('=') {
            Some((k, v)) => (k.to_string(), Some(v.to_string())),
            None => (kv.to_string(), None),
        })
        .collect())
}

fn len_of(v: &str) -> Len {
    match v.parse::<u64>() {
        Ok(n) => Len::Const(n),
        Err(_) => Len::Param(v.to_string()),
    }
}

fn parse_param(p: &str, line: usize, func: &str) -> Result<Param, ParseError> {
    let (decl, attrs) = match p.find('[') {
        Some(i) => (p[..i].trim(), attrs_of(p[i..].trim(), line)?),
        None => (p, Vec::new()),
    };
    let decl = norm_type(decl);
    let split = decl
        .rfind(|c: char| c == ' ' || c == '*')
        .ok_or(ParseError { line, msg: format!("{func}: parameter `{decl}` has no name") })?;
    let name = decl[split + 1..].to_string();
    let c_type = decl[..=split].trim().to_string();
    if name.is_empty() || c_type.is_empty() {
        return err(line, format!("{func}: parameter `{decl}` needs a type and a name"));
    }
    let pointee = types::pointee(&c_type).to_string();
    let bad = |msg: String| ParseError { line, msg: format!("{func}({name}): {msg}") };

    let mut role = None;
    let mut count = None;
    for (k, v) in &attrs {
        let need = |v: &Option<String>| v.clone().ok_or_else(|| bad(format!("`{k}` needs a value")));
        match k.as_str() {
            "arr" => role = Some(Role::InArray { len: len_of(&need(v)?) }),
            "bytes" => role = Some(Role::InBytes { len: len_of(&need(v)?) }),
            "strs" => role = Some(Role::InStrings { len: len_of(&need(v)?) }),
            "outarr" => role = Some(Role::OutArray { cap: len_of(&need(v)?), count: None }),
            "count" => count = Some(need(v)?),
            "info" => role = Some(Role::InfoResult { size: need(v)? }),
            "ptr" => role = Some(Role::HostPtr),
            other => return Err(bad(format!("unknown annotation `{other}`"))),
        }
    }
    if let Some(c) = count {
        match &mut role {
            Some(Role::OutArray { count, .. }) => *count = Some(c),
            _ => return Err(bad("`count` only goes with `outarr`".into())),
        }
    }
    let role = match role {
        Some(r) => r,
        None => infer_role(&c_type, &pointee, &name).ok_or_else(|| {
            bad(format!("cannot infer the role of `{c_type}`: add arr=, bytes=, strs=, outarr=, info= or ptr"))
        })?,
    };
    if !is_pointer(&c_type) && types::abi_ok(&c_type).is_none() {
        return Err(bad(format!("type `{c_type}` cannot be carried by value")));
    }
    Ok(Param { name, c_type, role })
}

fn infer_role(c_type: &str, pointee: &str, name: &str) -> Option<Role> {
    if let Some(k) = callback_kind(c_type) {
        return Some(Role::Callback(k));
    }
    if !is_pointer(c_type) {
        return Some(if is_handle(c_type) { Role::Handle } else { Role::Scalar });
    }
    if c_type == "cl_int*" && name == "errcode_ret" {
        return Some(Role::Errcode);
    }
    if c_type == "const char*" {
        return Some(Role::InString);
    }
    if c_type == "void*" || c_type == "const void*" {
        return Some(Role::HostPtr);
    }
    if is_const_pointer(c_type) {
        return prop_kind(pointee).map(Role::Properties);
    }
    // Non-const single-level pointer: the callee writes one value through it.
    if pointee.contains('*') {
        return None;
    }
    Some(if is_handle(pointee) { Role::OutHandle } else { Role::OutValue })
}

/// `void* user_data` right after a callback is that callback's data.
fn infer_user_data(f: &mut Function) {
    for i in 1..f.params.len() {
        if matches!(f.params[i - 1].role, Role::Callback(_)) && f.params[i].role == Role::HostPtr {
            f.params[i].role = Role::UserData;
        }
    }
}

fn ret_kind(t: &str) -> Option<RetKind> {
    Some(match t {
        "cl_int" => RetKind::Status,
        "void*" => RetKind::Pointer,
        "void" => RetKind::Void,
        t if is_handle(t) => RetKind::Handle,
        t if types::abi_ok(t).is_some() && !is_pointer(t) => RetKind::Scalar,
        _ => return None,
    })
}

fn check(fs: &[Function]) -> Result<(), ParseError> {
    let mut seen_slot = vec![None; DISPATCH_SLOTS];
    let mut names = std::collections::HashMap::new();
    for f in fs {
        if let Some(prev) = names.insert(f.name.as_str(), f.line) {
            return err(f.line, format!("{} is already declared on line {prev}", f.name));
        }
        if let Some(s) = f.slot {
            if let Some(prev) = seen_slot[s].replace(f.line) {
                return err(f.line, format!("slot {s} is already taken on line {prev}"));
            }
        }
        for p in &f.params {
            for len in match &p.role {
                Role::InArray { len } | Role::InBytes { len } | Role::InStrings { len } => vec![len],
                Role::OutArray { cap, .. } => vec![cap],
                _ => vec![],
            } {
                if let Len::Param(n) = len {
                    if f.param_index(n).is_none() {
                        return err(f.line, format!("{}({}): length `{n}` names no parameter", f.name, p.name));
                    }
                }
            }
            if let Role::OutArray { count: Some(c), .. } | Role::InfoResult { size: c } = &p.role {
                if f.param_index(c).is_none() {
                    return err(f.line, format!("{}({}): `{c}` names no parameter", f.name, p.name));
                }
            }
        }
        if f.ret == RetKind::Handle && !f.params.iter().any(|p| p.role == Role::Errcode) {
            return err(f.line, format!("{} returns a handle but has no errcode_ret", f.name));
        }
    }
    if let Some(missing) = seen_slot.iter().position(Option::is_none) {
        return err(0, format!("dispatch slot {missing} is not described"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
