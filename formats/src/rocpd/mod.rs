//! rocpd's SQLite database (`.db`), as rocprofv3 writes one per process:
//! the writer fills it in large transactions, and [`Totals`] reads a
//! database's totals back (for `cltap report` over many databases, and for
//! round-trip tests) from any file, which it does not trust (`read.rs`).

mod read;
pub mod schema;
pub mod views;

pub use read::{ReadError, Span, Totals, UnreadLog};

use rusqlite::Connection;
pub use rusqlite::{params, ToSql};
use std::collections::HashMap;
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Sql(#[from] rusqlite::Error),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Rows written between two commits.
const ROWS_PER_TRANSACTION: u64 = 100_000;

pub struct Writer {
    conn: Connection,
    suffix: String,
    strings: HashMap<String, i64>,
    rows: u64,
    /// The node's row, which every row names.
    pub nid: i64,
}

/// A region (a host call), with its arguments: `(type, name, value)`.
pub struct Region<'a> {
    pub track: i64,
    pub name: &'a str,
    pub category: &'a str,
    pub start: u64,
    pub end: u64,
    pub correlation_id: u64,
    pub args: &'a [(&'a str, &'a str, String)],
}

/// What a kernel's descriptor says it uses.
pub struct KernelResources {
    pub sgprs: u32,
    pub arch_vgprs: u32,
    pub accum_vgprs: u32,
    pub group_segment: u32,
    pub private_segment: u32,
    pub kernarg_segment: u32,
}

pub struct Dispatch<'a> {
    pub track: i64,
    pub kernel: i64,
    pub dispatch_id: u64,
    pub start: u64,
    pub end: u64,
    pub grid: [u64; 3],
    pub workgroup: [u64; 3],
    pub private_segment: u64,
    pub group_segment: u64,
    pub region: &'a str,
    pub correlation_id: u64,
    /// A JSON object of what the table has no column for.
    pub extdata: &'a str,
}

pub struct Copy<'a> {
    pub track: i64,
    pub name: &'a str,
    pub start: u64,
    pub end: u64,
    pub src_agent: i64,
    pub dst_agent: i64,
    pub size: u64,
    pub correlation_id: u64,
}

/// One allocation or release (`rocpd_memory_allocate`).
pub struct Allocation<'a> {
    pub track: i64,
    /// The call that made it.
    pub name: &'a str,
    /// `ALLOC` or `FREE`, as rocprofv3 writes them.
    pub op: &'a str,
    pub start: u64,
    pub end: u64,
    pub address: u64,
    pub size: u64,
    pub correlation_id: u64,
    /// A JSON object of what the table has no column for.
    pub extdata: &'a str,
}

fn int(v: u64) -> i64 {
    v.min(i64::MAX as u64) as i64
}

impl Writer {
    /// A new database at `path` (an older file there is replaced).
    pub fn create(path: &Path, guid: &str) -> Result<Writer, Error> {
        let _ = std::fs::remove_file(path);
        let conn = Connection::open(path)?;
        // One prepared statement per table stays ready (the default keeps 16).
        conn.set_prepared_statement_cache_capacity(2 * schema::TABLES.len());
        // One writer, written once: no journal to keep in step.
        conn.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")?;
        let suffix = format!("_{}", guid.replace('-', "_"));
        conn.execute_batch(&schema::ddl(&suffix, guid))?;
        conn.execute_batch(views::VIEWS)?;
        let mut w = Writer { conn, suffix, strings: HashMap::new(), rows: 0, nid: 0 };
        w.conn.execute_batch("BEGIN")?;
        for (tag, value) in [("schema_version", schema::SCHEMA_VERSION), ("uuid", &w.suffix.clone()), ("guid", guid)] {
            w.insert("rocpd_metadata", &["tag", "value"], params![tag, value])?;
        }
        Ok(w)
    }

    /// Inserts one row; returns its id. Commits every
    /// [`ROWS_PER_TRANSACTION`] rows.
    pub fn insert(&mut self, table: &str, cols: &[&str], values: &[&dyn ToSql]) -> Result<i64, Error> {
        let marks = vec!["?"; cols.len()].join(",");
        let sql = format!("INSERT INTO `{table}{}` ({}) VALUES ({marks})", self.suffix, cols.join(","));
        self.conn.prepare_cached(&sql)?.execute(values)?;
        self.rows += 1;
        if self.rows.is_multiple_of(ROWS_PER_TRANSACTION) {
            self.conn.execute_batch("COMMIT; BEGIN")?;
        }
        Ok(self.conn.last_insert_rowid())
    }

    /// Sets the register counts and segment sizes of every kernel symbol of
    /// `kernel_object` (known from its descriptor, which may come before or
    /// after the symbol's first dispatch).
    pub fn kernel_resources(&mut self, kernel_object: u64, r: &KernelResources) -> Result<(), Error> {
        let sql = format!(
            "UPDATE `rocpd_info_kernel_symbol{}` SET sgpr_count = ?, arch_vgpr_count = ?, accum_vgpr_count = ?, \
             group_segment_size = ?, private_segment_size = ?, kernarg_segment_size = ? WHERE kernel_object = ?",
            self.suffix
        );
        self.conn.prepare_cached(&sql)?.execute(params![
            r.sgprs,
            r.arch_vgprs,
            r.accum_vgprs,
            r.group_segment,
            r.private_segment,
            r.kernarg_segment,
            int(kernel_object)
        ])?;
        Ok(())
    }

    /// The id of `s` in the string table.
    pub fn string(&mut self, s: &str) -> Result<i64, Error> {
        if let Some(&id) = self.strings.get(s) {
            return Ok(id);
        }
        let id = self.insert("rocpd_string", &["string"], params![s])?;
        self.strings.insert(s.to_string(), id);
        Ok(id)
    }

    fn timestamp(&mut self, value: u64, phase: i64, track: i64) -> Result<i64, Error> {
        self.insert("rocpd_timestamp", &["value", "phase", "track_id"], params![int(value), phase, track])
    }

    fn event(&mut self, category: &str, correlation_id: u64) -> Result<i64, Error> {
        let c = self.string(category)?;
        self.insert("rocpd_event", &["category_id", "correlation_id"], params![c, int(correlation_id)])
    }

    pub fn region(&mut self, r: &Region<'_>) -> Result<(), Error> {
        let name = self.string(r.name)?;
        let event = self.event(r.category, r.correlation_id)?;
        let (s, e) = (self.timestamp(r.start, 1, r.track)?, self.timestamp(r.end, 2, r.track)?);
        self.insert(
            "rocpd_region",
            &["track_id", "name_id", "start_id", "end_id", "event_id"],
            params![r.track, name, s, e, event],
        )?;
        for (i, (ty, n, v)) in r.args.iter().enumerate() {
            self.insert(
                "rocpd_arg",
                &["event_id", "position", "type", "name", "value"],
                params![event, i as i64, ty, n, v],
            )?;
        }
        Ok(())
    }

    /// Returns the dispatch's event, which its counter values name.
    pub fn dispatch(&mut self, d: &Dispatch<'_>) -> Result<i64, Error> {
        let region = self.string(d.region)?;
        let event = self.event("KERNEL_DISPATCH", d.correlation_id)?;
        let (s, e) = (self.timestamp(d.start, 1, d.track)?, self.timestamp(d.end, 2, d.track)?);
        let [gx, gy, gz] = d.grid.map(int);
        let [wx, wy, wz] = d.workgroup.map(int);
        self.insert(
            "rocpd_kernel_dispatch",
            &[
                "track_id",
                "kernel_id",
                "dispatch_id",
                "start_id",
                "end_id",
                "private_segment_size",
                "group_segment_size",
                "workgroup_size_x",
                "workgroup_size_y",
                "workgroup_size_z",
                "grid_size_x",
                "grid_size_y",
                "grid_size_z",
                "region_name_id",
                "event_id",
                "extdata",
            ],
            params![
                d.track,
                d.kernel,
                int(d.dispatch_id),
                s,
                e,
                int(d.private_segment),
                int(d.group_segment),
                wx,
                wy,
                wz,
                gx,
                gy,
                gz,
                region,
                event,
                d.extdata
            ],
        )?;
        Ok(event)
    }

    pub fn copy(&mut self, c: &Copy<'_>) -> Result<(), Error> {
        let name = self.string(c.name)?;
        let event = self.event("MEMORY_COPY", c.correlation_id)?;
        let (s, e) = (self.timestamp(c.start, 1, c.track)?, self.timestamp(c.end, 2, c.track)?);
        self.insert(
            "rocpd_memory_copy",
            &["track_id", "start_id", "end_id", "name_id", "dst_agent_id", "src_agent_id", "size", "event_id"],
            params![c.track, s, e, name, c.dst_agent, c.src_agent, int(c.size), event],
        )?;
        Ok(())
    }

    /// Every allocation is `REAL` memory (rocprofv3's other levels are
    /// virtual memory and scratch, which OpenCL and these HSA calls do not
    /// allocate).
    pub fn allocation(&mut self, a: &Allocation<'_>) -> Result<(), Error> {
        let name = self.string(a.name)?;
        let event = self.event("MEMORY_ALLOCATION", a.correlation_id)?;
        let (s, e) = (self.timestamp(a.start, 1, a.track)?, self.timestamp(a.end, 2, a.track)?);
        self.insert(
            "rocpd_memory_allocate",
            &["track_id", "type", "level", "start_id", "end_id", "name_id", "address", "size", "event_id", "extdata"],
            params![a.track, a.op, "REAL", s, e, name, int(a.address), int(a.size), event, a.extdata],
        )?;
        Ok(())
    }

    /// Commits the last transaction.
    pub fn finish(self) -> Result<(), Error> {
        self.conn.execute_batch("COMMIT")?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_reads_back_its_totals() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.db");
        let mut w = Writer::create(&p, "0123-abcd").unwrap();
        let node = w.insert("rocpd_info_node", &["hash", "machine_id"], params![1, "m"]).unwrap();
        w.insert("rocpd_info_process", &["nid", "pid"], params![node, 77]).unwrap();
        let track = w.insert("rocpd_track", &["nid", "pid", "tid"], params![node, 77, 78]).unwrap();
        for (s, e) in [(10, 15), (20, 30)] {
            let args = [("cl_uint", "num_entries", "1".to_string())];
            let r = Region {
                track,
                name: "clFinish",
                category: "OPENCL_API",
                start: s,
                end: e,
                correlation_id: 0,
                args: &args,
            };
            w.region(&r).unwrap();
        }
        let co = w.insert("rocpd_info_code_object", &["nid", "pid"], params![node, 77]).unwrap();
        let k = w
            .insert(
                "rocpd_info_kernel_symbol",
                &["nid", "pid", "code_object_id", "display_name"],
                params![node, 77, co, "vecadd"],
            )
            .unwrap();
        let d = Dispatch {
            track,
            kernel: k,
            dispatch_id: 1,
            start: 100,
            end: 140,
            grid: [64, 1, 1],
            workgroup: [8, 1, 1],
            private_segment: 0,
            group_segment: 0,
            region: "vecadd",
            correlation_id: 3,
            extdata: "{}",
        };
        w.dispatch(&d).unwrap();
        let agent = w.insert("rocpd_info_agent", &["nid", "pid", "type"], params![node, 77, "GPU"]).unwrap();
        let c = Copy {
            track,
            name: "ReadBuffer",
            start: 1,
            end: 2,
            src_agent: agent,
            dst_agent: agent,
            size: 4096,
            correlation_id: 4,
        };
        w.copy(&c).unwrap();
        w.finish().unwrap();
        let t = Totals::read(&p).unwrap();
        assert_eq!(t.pid, 77);
        let finish = t.regions[&("OPENCL_API".to_string(), "clFinish".to_string())];
        assert_eq!((finish.count, finish.total_ns, finish.min_ns, finish.max_ns), (2, 15, 5, 10));
        assert_eq!(t.kernels["vecadd"], (1, 40));
        assert_eq!(t.copies, (1, 4096));
    }
}
