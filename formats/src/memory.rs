//! The memory trace (`<stem>.memory.csv`): one row per allocation and per
//! release the application made, in the order the calls returned.
//! Comma-separated, one header row, no quoting: no field can hold a comma
//! (labels are `kind 0x…`, joined with `;`).
//!
//! ```text
//! record,time_ns,thread,call,op,kind,address,bytes,flags,owner,devices,alloc_record
//! 12,1700000000123,4711,clCreateBuffer,alloc,buffer,0x55d0c2a0,4096,0x1,context 0x55d0c1f0,device 0x55d0b000,12
//! 20,1700000000456,4711,clReleaseMemObject,free,buffer,0x55d0c2a0,4096,0x1,context 0x55d0c1f0,device 0x55d0b000,12
//! ```

use std::io::Write;

/// The header row.
pub const HEADER: &str = "record,time_ns,thread,call,op,kind,address,bytes,flags,owner,devices,alloc_record";

/// Whether a row allocates or releases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Alloc,
    Free,
}

impl Op {
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Alloc => "alloc",
            Op::Free => "free",
        }
    }
}

/// One allocation or release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The call that made it: its place among the trace's call records in
    /// render order, from 0 (the API log's call lines, in order).
    pub record: u64,
    /// When that call returned: host `CLOCK_MONOTONIC`, ns.
    pub time_ns: u64,
    pub thread: u32,
    pub call: String,
    pub op: Op,
    /// `buffer`, `image`, `pipe`, `sub-buffer`, `svm`, `usm-host`,
    /// `usm-device`, `usm-shared`, `hsa-region`, `hsa-pool`.
    pub kind: String,
    /// The memory object's handle, or the pointer allocated.
    pub address: u64,
    pub bytes: u64,
    pub flags: u64,
    /// What it was allocated from: `context 0x…`, `pool 0x…`, `region 0x…`.
    pub owner: String,
    /// The devices it is counted against (labels).
    pub devices: Vec<String>,
    /// The record of the allocating call (the row's own on an `alloc` row).
    pub alloc_record: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("the first line is not the memory trace's header ({HEADER})")]
    Header,
    #[error("line {line}: {reason}")]
    Row { line: usize, reason: String },
}

/// Writes the header and `rows`.
pub fn write(out: &mut impl Write, rows: &[Row]) -> std::io::Result<()> {
    writeln!(out, "{HEADER}")?;
    for r in rows {
        writeln!(
            out,
            "{},{},{},{},{},{},{:#x},{},{:#x},{},{},{}",
            r.record,
            r.time_ns,
            r.thread,
            clean(&r.call),
            r.op.as_str(),
            clean(&r.kind),
            r.address,
            r.bytes,
            r.flags,
            clean(&r.owner),
            r.devices.iter().map(|d| clean(d).replace(';', "_")).collect::<Vec<_>>().join(";"),
            r.alloc_record
        )?;
    }
    Ok(())
}

/// A field without the characters that would split it (a device's name
/// also loses `;`, which separates the devices).
fn clean(s: &str) -> String {
    s.chars().map(|c| if matches!(c, ',' | '\n' | '\r') { '_' } else { c }).collect()
}

fn num(s: &str) -> Option<u64> {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// Reads a memory trace back.
pub fn read(text: &str) -> Result<Vec<Row>, Error> {
    let mut lines = crate::text::Lines::new(text);
    match lines.take() {
        Some((_, h)) if h == HEADER => {}
        _ => return Err(Error::Header),
    }
    let mut rows = Vec::new();
    while let Some((line, l)) = lines.take() {
        let bad = |reason: &str| Error::Row { line, reason: reason.to_string() };
        // The writer never writes one inside a line (see `clean`).
        if l.contains('\r') {
            return Err(bad("a carriage return inside the line"));
        }
        let f: Vec<&str> = l.split(',').collect();
        if f.len() != 12 {
            return Err(bad(&format!("{} fields, the header has 12", f.len())));
        }
        let n = |i: usize| num(f[i]).ok_or_else(|| bad(&format!("field {} ({:?}) is not a number", i + 1, f[i])));
        let op = match f[4] {
            "alloc" => Op::Alloc,
            "free" => Op::Free,
            o => return Err(bad(&format!("op {o:?} is neither alloc nor free"))),
        };
        rows.push(Row {
            record: n(0)?,
            time_ns: n(1)?,
            thread: u32::try_from(n(2)?).map_err(|_| bad("the thread does not fit 32 bits"))?,
            call: f[3].to_string(),
            op,
            kind: f[5].to_string(),
            address: n(6)?,
            bytes: n(7)?,
            flags: n(8)?,
            owner: f[9].to_string(),
            devices: f[10].split(';').filter(|d| !d.is_empty()).map(str::to_string).collect(),
            alloc_record: n(11)?,
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(record: u64, op: Op, devices: &[&str]) -> Row {
        Row {
            record,
            time_ns: 1_700_000_000_000 + record,
            thread: 4711,
            call: "clCreateBuffer".into(),
            op,
            kind: "buffer".into(),
            address: 0x55d0_c2a0 + record,
            bytes: 4096 * record,
            flags: 0x21,
            owner: "context 0x55d0c1f0".into(),
            devices: devices.iter().map(|d| d.to_string()).collect(),
            alloc_record: 3,
        }
    }

    #[test]
    fn rows_go_through_the_file_and_back() {
        let rows = vec![
            row(3, Op::Alloc, &["device 0x1"]),
            row(9, Op::Free, &["device 0x1", "device 0x2"]),
            row(11, Op::Alloc, &[]),
        ];
        let mut b = Vec::new();
        write(&mut b, &rows).unwrap();
        assert_eq!(read(std::str::from_utf8(&b).unwrap()).unwrap(), rows);
    }

    #[test]
    fn a_comma_in_a_name_does_not_shift_the_columns() {
        let mut r = row(1, Op::Alloc, &["device 0x1,x"]);
        r.call = "odd,name".into();
        let mut b = Vec::new();
        write(&mut b, &[r]).unwrap();
        let back = read(std::str::from_utf8(&b).unwrap()).unwrap();
        assert_eq!((back[0].call.as_str(), back[0].devices[0].as_str()), ("odd_name", "device 0x1_x"));
    }

    #[test]
    fn a_damaged_file_names_its_line() {
        assert_eq!(read("x\n"), Err(Error::Header));
        let e = read(&format!("{HEADER}\n1,2,3,c,alloc,buffer,0x1,zz,0x0,o,d,1\n")).unwrap_err();
        assert!(e.to_string().starts_with("line 2: field 8"), "{e}");
        let e = read(&format!("{HEADER}\n1,2,3,c,grow,buffer,0x1,1,0x0,o,d,1\n")).unwrap_err();
        assert!(e.to_string().contains("neither alloc nor free"), "{e}");
    }

    /// Found by the fuzz target: what the reader accepts, the writer writes
    /// back unchanged.
    #[test]
    fn a_semicolon_outside_the_devices_survives_and_a_carriage_return_is_refused() {
        let text = format!("{HEADER}\n4,1,2,clCreateBuffer,alloc,i;mage,0x10,8,0x1,context 0x1,device 0x2,4\n");
        let rows = read(&text).unwrap();
        assert_eq!(rows[0].kind, "i;mage");
        let mut out = Vec::new();
        write(&mut out, &rows).unwrap();
        assert_eq!(read(&String::from_utf8(out).unwrap()).unwrap(), rows);
        let cr = text.replace("context 0x1", "context\r0x1");
        assert!(matches!(read(&cr), Err(Error::Row { line: 2, .. })), "{:?}", read(&cr));
    }
}
