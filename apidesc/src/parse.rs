//! Parser for `api/opencl.api`. It is strict on purpose: a parameter whose
//! role cannot be decided fails the build with its line number, because a
//! wrongly guessed role silently mis-forwards or mis-logs an argument.

use crate::infer::{hsa_ret_kind, infer_role, infer_role_hsa, infer_user_data, ret_kind};
use crate::types::{self, is_pointer};
use crate::{Api, Dispatch, Function, Len, Param, RetKind, Role, Table, DISPATCH_SLOTS, HSA_TABLES};
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The description the error is in (`api/opencl.api`, `api/hsa.api`).
    pub file: &'static str,
    pub line: usize,
    pub msg: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.msg)
    }
}

impl std::error::Error for ParseError {}

const OPENCL_FILE: &str = "api/opencl.api";
const HSA_FILE: &str = "api/hsa.api";

fn err<T>(line: usize, msg: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError { file: OPENCL_FILE, line, msg: msg.into() })
}

/// Which description is read: the grammar is shared; the section headers,
/// what the leading number means, the attributes and the C types differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    /// `api/opencl.api`: `@ext` sections, dispatch slots.
    OpenCl,
    /// `api/hsa.api`: `@table` sections, entry indices (api/HSA.md).
    Hsa,
}

/// Parses `api/opencl.api`.
pub fn parse(text: &str) -> Result<Api, ParseError> {
    parse_with(text, Dialect::OpenCl)
}

/// Parses `api/hsa.api` (api/HSA.md): the same grammar, with `@table NAME`
/// sections whose declarations start with their index in that table.
pub fn parse_hsa(text: &str) -> Result<Api, ParseError> {
    parse_with(text, Dialect::Hsa).map_err(|e| ParseError { file: HSA_FILE, ..e })
}

fn parse_with(text: &str, dialect: Dialect) -> Result<Api, ParseError> {
    let mut functions = Vec::new();
    let mut tables: Vec<Table> = Vec::new();
    let mut ext = String::from("core");
    let mut in_table = false;
    let mut pending = String::new();
    let mut pending_line = 0;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if pending.is_empty() {
            let (directive, other) = match dialect {
                Dialect::OpenCl => ("@ext", "@table"),
                Dialect::Hsa => ("@table", "@ext"),
            };
            if line.starts_with(other) && line[other.len()..].starts_with(char::is_whitespace) {
                return err(line_no, format!("{other} does not belong in this description (use {directive})"));
            }
            if let Some(rest) = line.strip_prefix(directive) {
                let name = rest.trim();
                if name.is_empty() || name.contains(char::is_whitespace) {
                    return err(line_no, format!("{directive} takes exactly one name"));
                }
                if dialect == Dialect::Hsa {
                    if !HSA_TABLES.contains(&name) {
                        return err(line_no, format!("unknown table `{name}` (one of {})", HSA_TABLES.join(", ")));
                    }
                    if let Some(t) = tables.iter().find(|t| t.name == name) {
                        return err(line_no, format!("table `{name}` is already described from line {}", t.line));
                    }
                    tables.push(Table { name: name.to_string(), first: functions.len(), entries: 0, line: line_no });
                    in_table = true;
                }
                ext = name.to_string();
                continue;
            }
            if dialect == Dialect::Hsa && !in_table {
                return err(line_no, "a declaration before the first `@table`");
            }
            pending_line = line_no;
        }
        pending.push(' ');
        pending.push_str(line);
        if line.ends_with(';') {
            let decl = std::mem::take(&mut pending);
            let f = parse_decl_in(decl.trim().trim_end_matches(';'), &ext, pending_line, dialect)?;
            if let Some(t) = tables.last_mut() {
                // The entry order is the header's: indices run 0, 1, 2, … in each table.
                if f.slot != Some(t.entries) {
                    return err(
                        pending_line,
                        format!(
                            "{}: entry {} of table `{}` is numbered {}",
                            f.name,
                            t.entries,
                            t.name,
                            f.slot.unwrap_or(0)
                        ),
                    );
                }
                t.entries += 1;
            }
            functions.push(f);
        }
    }
    if !pending.trim().is_empty() {
        return err(pending_line, "declaration does not end with ';'");
    }
    match dialect {
        Dialect::OpenCl => check(&functions)?,
        Dialect::Hsa => check_hsa(&functions)?,
    }
    Ok(Api { functions, tables })
}

/// The leading parameters of a function marked `[lws]`, as in
/// `clEnqueueNDRangeKernel`.
const LWS_PARAMS: [&str; 6] =
    ["command_queue", "kernel", "work_dim", "global_work_offset", "global_work_size", "local_work_size"];

#[cfg(test)]
fn parse_decl(decl: &str, ext: &str, line: usize) -> Result<Function, ParseError> {
    parse_decl_in(decl, ext, line, Dialect::OpenCl)
}

fn parse_decl_in(decl: &str, ext: &str, line: usize, dialect: Dialect) -> Result<Function, ParseError> {
    let open = decl.find('(').ok_or(ParseError { file: OPENCL_FILE, line, msg: "missing '('".into() })?;
    let close = decl.rfind(')').ok_or(ParseError { file: OPENCL_FILE, line, msg: "missing ')'".into() })?;
    let head: Vec<&str> = decl[..open].split_whitespace().collect();
    if head.len() < 3 {
        return err(
            line,
            if dialect == Dialect::Hsa { "expected `INDEX RET NAME(`" } else { "expected `SLOT RET NAME(`" },
        );
    }
    let slot = match (head[0], dialect) {
        ("-", Dialect::OpenCl) => None,
        (s, Dialect::Hsa) => Some(s.parse::<usize>().map_err(|_| ParseError {
            file: OPENCL_FILE,
            line,
            msg: format!("bad entry index `{s}`"),
        })?),
        (s, Dialect::OpenCl) => {
            let n: usize =
                s.parse().map_err(|_| ParseError { file: OPENCL_FILE, line, msg: format!("bad slot `{s}`") })?;
            if n >= DISPATCH_SLOTS {
                return err(line, format!("slot {n} is outside the table (0..{DISPATCH_SLOTS})"));
            }
            Some(n)
        }
    };
    let name = head[head.len() - 1].to_string();
    let ret_type = norm_type(&head[1..head.len() - 1].join(" "));
    let ret = match dialect {
        Dialect::OpenCl => ret_kind(&ret_type),
        Dialect::Hsa => hsa_ret_kind(&ret_type),
    }
    .ok_or(ParseError {
        file: OPENCL_FILE,
        line,
        msg: format!("{name}: return type `{ret_type}` is not a status, handle, pointer, void or scalar"),
    })?;

    let mut params = Vec::new();
    let inner = decl[open + 1..close].trim();
    if !inner.is_empty() && inner != "void" {
        for piece in split_params(inner) {
            params.push(parse_param(piece.trim(), line, &name, dialect)?);
        }
    }

    let attrs = attrs_of(decl[close + 1..].trim(), line)?;
    let mut windows_only = false;
    let mut local = false;
    let mut lws = false;
    let mut init = false;
    let mut shutdown = false;
    let mut dispatch_attr: Option<String> = None;
    for (k, v) in attrs {
        match (k.as_str(), v, dialect) {
            ("windows", None, Dialect::OpenCl) => windows_only = true,
            ("local", None, Dialect::OpenCl) => local = true,
            ("lws", None, Dialect::OpenCl) => lws = true,
            ("dispatch", Some(v), Dialect::OpenCl) => dispatch_attr = Some(v),
            ("init", None, Dialect::Hsa) => init = true,
            ("shutdown", None, Dialect::Hsa) => shutdown = true,
            (k, _, _) => return err(line, format!("{name}: unknown function attribute `{k}`")),
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
        init,
        shutdown,
        line,
    };
    infer_user_data(&mut f);
    if dialect == Dialect::Hsa {
        if (init || shutdown) && (f.ret != RetKind::Status || !f.params.is_empty()) {
            return err(
                line,
                format!("{}: [init] and [shutdown] go with a function of no parameters returning hsa_status_t", f.name),
            );
        }
        // The runtime's table is the dispatch: no parameter chooses a driver.
        return Ok(f);
    }
    if f.lws {
        // The layer reads these arguments by position to ask the driver.
        let names: Vec<&str> = f.params.iter().take(LWS_PARAMS.len()).map(|p| p.name.as_str()).collect();
        if names != LWS_PARAMS || f.ret != RetKind::Status {
            return err(
                line,
                format!("{}: [lws] needs a cl_int function whose parameters begin ({})", f.name, LWS_PARAMS.join(", ")),
            );
        }
    }
    f.dispatch = match dispatch_attr.as_deref() {
        Some("none") => Dispatch::None,
        Some(p) => Dispatch::Param(f.param_index(p).ok_or(ParseError {
            file: OPENCL_FILE,
            line,
            msg: format!("{}: dispatch names no parameter `{p}`", f.name),
        })?),
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
pub(crate) fn norm_type(t: &str) -> String {
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
    let body = s.strip_prefix('[').and_then(|s| s.strip_suffix(']')).ok_or(ParseError {
        file: OPENCL_FILE,
        line,
        msg: format!("expected `[...]`, found `{s}`"),
    })?;
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

fn parse_param(p: &str, line: usize, func: &str, dialect: Dialect) -> Result<Param, ParseError> {
    let (decl, attrs) = match p.find('[') {
        Some(i) => (p[..i].trim(), attrs_of(p[i..].trim(), line)?),
        None => (p, Vec::new()),
    };
    let decl = norm_type(decl);
    let split = decl.rfind([' ', '*']).ok_or(ParseError {
        file: OPENCL_FILE,
        line,
        msg: format!("{func}: parameter `{decl}` has no name"),
    })?;
    let name = decl[split + 1..].to_string();
    let c_type = decl[..=split].trim().to_string();
    if name.is_empty() || c_type.is_empty() {
        return err(line, format!("{func}: parameter `{decl}` needs a type and a name"));
    }
    let pointee = types::pointee(&c_type).to_string();
    let bad = |msg: String| ParseError { file: OPENCL_FILE, line, msg: format!("{func}({name}): {msg}") };

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
            "props" => {
                let k = types::prop_kind(&pointee)
                    .ok_or_else(|| bad(format!("`props`: `{pointee}` is no known property type")))?;
                role = Some(Role::Properties(k));
            }
            "struct" if dialect == Dialect::Hsa => {
                let n: u64 = need(v)?.parse().map_err(|_| bad("`struct` takes the size in bytes".into()))?;
                if n == 0 || !n.is_multiple_of(8) || is_pointer(&c_type) {
                    return Err(bad("`struct=N` is for a struct passed by value, N a multiple of 8".into()));
                }
                role = Some(Role::ByValue { size: n });
            }
            other => return Err(bad(format!("unknown annotation `{other}`"))),
        }
    }
    if let Some(c) = count {
        match &mut role {
            Some(Role::OutArray { count, .. }) => *count = Some(c),
            _ => return Err(bad("`count` only goes with `outarr`".into())),
        }
    }
    if dialect == Dialect::Hsa {
        let role = match role {
            Some(r) => r,
            None => infer_role_hsa(&c_type, &pointee).ok_or_else(|| {
                bad(if is_pointer(&c_type) {
                    format!("cannot infer the role of `{c_type}`: add arr=, bytes= or ptr")
                } else {
                    format!("type `{c_type}` is not a known HSA scalar, handle or callback: add it to apidesc/src/types.rs, or struct=N for a struct passed by value")
                })
            })?,
        };
        // Every word the wrappers carry and every element capture reads must
        // have a known width.
        if !is_pointer(&c_type) && !matches!(role, Role::ByValue { .. }) && types::hsa_rust_type(&c_type).is_none() {
            return Err(bad(format!("type `{c_type}` cannot be carried by value")));
        }
        if let Role::InArray { .. } = role {
            if types::hsa_size(&pointee).is_none() {
                return Err(bad(format!("the size of `{pointee}` is not known: use ptr")));
            }
        }
        if let Role::OutValue = role {
            if types::hsa_size(&pointee).is_none() {
                return Err(bad(format!("the size of `{pointee}` is not known: use ptr")));
            }
        }
        return Ok(Param { name, c_type, role });
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

/// The description of the HSA tables: every function once, each name once.
fn check_hsa(fs: &[Function]) -> Result<(), ParseError> {
    let mut names = std::collections::HashMap::new();
    for f in fs {
        if let Some(prev) = names.insert(f.name.as_str(), f.line) {
            return err(f.line, format!("{} is already declared on line {prev}", f.name));
        }
        for p in &f.params {
            if let Role::InArray { len: Len::Param(n) } | Role::InBytes { len: Len::Param(n) } = &p.role {
                if f.param_index(n).is_none() {
                    return err(f.line, format!("{}({}): length `{n}` names no parameter", f.name, p.name));
                }
            }
        }
    }
    for attr in ["init", "shutdown"] {
        let n = fs.iter().filter(|f| if attr == "init" { f.init } else { f.shutdown }).count();
        if n > 1 {
            return err(0, format!("[{attr}] marks more than one function"));
        }
    }
    Ok(())
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
#[path = "parse_tests.rs"]
mod parse_tests;
