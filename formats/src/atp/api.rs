//! API-trace lines, `Ret = Name ( a;b;c )`, of the OpenCL and HSA sections
//! (RCP's `APIBase::WriteAPIEntry`, `HSAAPIBase::WriteAPIEntry`).

use super::fields::token;
use super::quote::{arg_is_safe, find_top, push_quoted, ret_is_safe, split_args};
use super::ApiCall;

/// `Ret = Name ( a;b;c )`. An argument that would not survive the reader's
/// split on top-level `;` (a raw `;`, an unclosed bracket or string, a line
/// break) is written as a quoted string with `\\ \" \n \r \t` escapes, RCP's
/// string convention; so is a return value holding ` = `, and the single
/// argument of a one-empty-argument list (`( )` reads back as no arguments).
pub fn write_api_call(out: &mut String, c: &ApiCall) {
    if ret_is_safe(&c.ret) {
        out.push_str(&c.ret);
    } else {
        push_quoted(out, &c.ret);
    }
    out.push_str(" = ");
    out.push_str(&token(&c.name, &['(']));
    out.push_str(" ( ");
    if let [only] = c.args.as_slice() {
        if only.is_empty() {
            out.push_str("\"\"");
        }
    }
    for (i, a) in c.args.iter().enumerate() {
        if i > 0 {
            out.push(';');
        }
        if arg_is_safe(a) {
            out.push_str(a);
        } else {
            push_quoted(out, a);
        }
    }
    out.push_str(" )\n");
}

/// An OpenCL API line: the ` = ` is required.
pub(super) fn parse_api_call(l: &str) -> Result<ApiCall, String> {
    parse(l, false)
}

/// An HSA API line. RCP's HSA tracer writes functions without a return value
/// as `Name ( a;b )`, with no ` = `; that reads as an empty return value.
pub(super) fn parse_hsa_api_call(l: &str) -> Result<ApiCall, String> {
    parse(l, true)
}

fn parse(l: &str, ret_optional: bool) -> Result<ApiCall, String> {
    let l = l.trim_end();
    let (ret, rest) = match find_top(l, " = ") {
        Some(eq) => (&l[..eq], &l[eq + 3..]),
        None if ret_optional => ("", l),
        None => return Err("API line without ' = ' after the return value".into()),
    };
    let (name, body) = rest.split_once('(').ok_or("API line without '('")?;
    let name = name.trim();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return Err(format!("bad API name {name:?}"));
    }
    let body = body.strip_suffix(')').ok_or("API line does not end with ')'")?;
    let body = body.strip_prefix(' ').unwrap_or(body);
    let body = body.strip_suffix(' ').unwrap_or(body);
    Ok(ApiCall { ret: ret.to_string(), name: name.to_string(), args: split_args(body)? })
}
