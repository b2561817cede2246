//! HSA timestamp lines (`HSAFdnTrace/HSAAPIBase.cpp`,
//! `HSAAPIBase::WriteTimestampEntry`): the OpenCL call's four fields; an async
//! copy adds when the copy itself started and completed, as
//! `HSAAtpFile.cpp`'s `UpdateAsyncCopyTimestamps` appends them.

use super::fields::{number, Small};
use super::timestamps::{call_columns, parse_call_fields};
use super::{AsyncCopy, HsaTimestamp};

/// `type(5) name(45) start(21) end(21) [copy_start(21) copy_end(21)]`, the
/// copy times only when [`HsaTimestamp::copy`] holds them.
pub fn write_hsa_timestamp(out: &mut String, t: &HsaTimestamp) {
    let mut line = call_columns(out, t.api_type, &t.name, t.start, t.end);
    if let Some(c) = &t.copy {
        line.col(Small::dec(c.start).as_str(), 21);
        line.col(Small::dec(c.end).as_str(), 21);
    }
    out.push('\n');
}

pub(super) fn parse_hsa_timestamp(l: &str) -> Result<HsaTimestamp, String> {
    let f: Vec<&str> = l.split_whitespace().collect();
    let copy = match f.as_slice() {
        [_, _, _, _] => None,
        [_, _, _, _, start, end] => {
            Some(AsyncCopy { start: number(start, "copy start time")?, end: number(end, "copy end time")? })
        }
        _ => return Err(format!("HSA timestamp line has {} fields, needs 4 (6 for an async copy)", f.len())),
    };
    let (api_type, name, start, end) = parse_call_fields(&f)?;
    Ok(HsaTimestamp { api_type, name, start, end, copy })
}
