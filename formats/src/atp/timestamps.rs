//! OpenCL timestamp lines (`CLTraceAgent/CLAPIDefBase.cpp` and
//! `CLEnqueueAPIDefs.cpp`, `::WriteTimestampEntry`): the call's own four
//! fields, then for enqueues the command's fields and its detail.

use super::fields::{looks_like_handle, number, parse_handle, token, Columns, Small};
use super::{Detail, Enqueue, Timestamp};

/// One timestamp line in RCP's left-justified columns (API type 5, name 45,
/// times 21, command type 8, command name 40, ids 10, handles 25, device 30,
/// transfer size 20). Where a value fills its column RCP runs it into the
/// next field; cltap puts one space there instead.
pub fn write_timestamp(out: &mut String, t: &Timestamp) {
    let mut line = call_columns(out, t.api_type, &t.name, t.start, t.end);
    if let Some(e) = &t.enqueue {
        write_enqueue(&mut line, e);
    }
    out.push('\n');
}

/// The four fields every timestamp line starts with, OpenCL or HSA
/// (`CLAPIBase`, `HSAAPIBase::WriteTimestampEntry`).
pub(super) fn call_columns<'a>(out: &'a mut String, api_type: u32, name: &str, start: u64, end: u64) -> Columns<'a> {
    let mut line = Columns::new(out);
    line.col(Small::dec(u64::from(api_type)).as_str(), 5);
    line.col(&token(name, &[]), 45);
    line.col(Small::dec(start).as_str(), 21);
    line.col(Small::dec(end).as_str(), 21);
    line
}

fn write_enqueue(line: &mut Columns, e: &Enqueue) {
    line.col(Small::dec(u64::from(e.cmd_type)).as_str(), 8);
    line.col(&token(&e.cmd_name, &[]), 40);
    for t in [e.queued, e.submit, e.start, e.end] {
        line.col(Small::dec(t).as_str(), 21);
    }
    line.col(Small::dec(u64::from(e.queue_id)).as_str(), 10);
    line.col(Small::handle(e.queue).as_str(), 25);
    line.col(Small::dec(u64::from(e.context_id)).as_str(), 10);
    line.col(Small::handle(e.context).as_str(), 25);
    line.col(&token(&e.device, &[]), 30);
    match &e.detail {
        Detail::None => {}
        Detail::Transfer { bytes } => line.col(Small::dec(*bytes).as_str(), 20),
        Detail::Kernel { handle, name, global, local } => {
            line.col(Small::handle(*handle).as_str(), 25);
            if name.is_empty() && global.is_empty() && local.is_none() {
                return;
            }
            line.col(&token(name, &[]), 0);
            // The fixed gaps are CLAPI_clEnqueueNDRangeKernel::WriteTimestampEntry's.
            line.raw("      ");
            push_sizes(line.out, Some(global));
            line.raw("     ");
            push_sizes(line.out, local.as_deref());
            line.raw("        ");
        }
    }
}

/// `{g0,g1,…}`, or `{NULL}` for a size the application left out.
fn push_sizes(out: &mut String, sizes: Option<&[u64]>) {
    out.push('{');
    match sizes {
        None => out.push_str("NULL"),
        Some(s) => {
            for (i, v) in s.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(Small::dec(*v).as_str());
            }
        }
    }
    out.push('}');
}

pub(super) fn parse_timestamp(l: &str) -> Result<Timestamp, String> {
    let f: Vec<&str> = l.split_whitespace().collect();
    if f.len() < 4 {
        return Err(format!("timestamp line has {} fields, needs at least 4", f.len()));
    }
    let enqueue = match f.len() {
        4 => None,
        n if n < 15 => {
            return Err(format!("timestamp line has {n} fields: too many for a call, too few for an enqueue (15)"))
        }
        _ => Some(parse_enqueue(&f[4..])?),
    };
    let (api_type, name, start, end) = parse_call_fields(&f)?;
    Ok(Timestamp { api_type, name, start, end, enqueue })
}

/// API type, name, start and end from the first four fields; the caller
/// guarantees at least four.
pub(super) fn parse_call_fields(f: &[&str]) -> Result<(u32, String, u64, u64), String> {
    Ok((number(f[0], "API type")?, f[1].to_string(), number(f[2], "start time")?, number(f[3], "end time")?))
}

/// The fields after the end time; the caller guarantees at least 11.
fn parse_enqueue(f: &[&str]) -> Result<Enqueue, String> {
    let detail = match f.get(11..).unwrap_or_default() {
        [] => Detail::None,
        [x] if looks_like_handle(x) => Detail::Kernel {
            handle: parse_handle(x, "native kernel address")?,
            name: String::new(),
            global: Vec::new(),
            local: None,
        },
        [x] => Detail::Transfer { bytes: number(x, "transfer size")? },
        [handle, name, global, local] => Detail::Kernel {
            handle: parse_handle(handle, "kernel handle")?,
            name: name.to_string(),
            global: parse_sizes(global, "global work size")?.ok_or("global work size cannot be {NULL}")?,
            local: parse_sizes(local, "local work size")?,
        },
        rest => return Err(format!("{} unexpected fields after the device name", rest.len())),
    };
    Ok(Enqueue {
        cmd_type: number(f[0], "command type")?,
        cmd_name: f[1].to_string(),
        queued: number(f[2], "queued time")?,
        submit: number(f[3], "submit time")?,
        start: number(f[4], "device start time")?,
        end: number(f[5], "device end time")?,
        queue_id: number(f[6], "queue id")?,
        queue: parse_handle(f[7], "queue handle")?,
        context_id: number(f[8], "context id")?,
        context: parse_handle(f[9], "context handle")?,
        device: f[10].to_string(),
        detail,
    })
}

/// `{a,b,c}` → `Some`, `{NULL}` → `None`.
fn parse_sizes(s: &str, what: &str) -> Result<Option<Vec<u64>>, String> {
    let inner = s
        .strip_prefix('{')
        .and_then(|s| s.strip_suffix('}'))
        .ok_or_else(|| format!("bad {what} {s:?}: expected {{…}}"))?;
    match inner {
        "NULL" => Ok(None),
        "" => Ok(Some(Vec::new())),
        _ => inner.split(',').map(|v| number(v, what)).collect::<Result<_, _>>().map(Some),
    }
}
