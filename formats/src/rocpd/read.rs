//! A rocpd database's totals ([`Totals::read`], for `cltap report A.db …`),
//! from a file cltap may not have written: any byte may be wrong, or made to
//! break the reader (docs/threat-model.md).
//!
//! SQLite runs only cltap's own fixed queries, never SQL from the file: a
//! view the report needs is followed to its table only when it is exactly
//! `SELECT * FROM <table>` (as rocprofv3 and cltap write them), and each
//! table must be an ordinary rowid table whose columns cltap reads are
//! stored, not computed. Every query scans one table and looks the rows it
//! names up by rowid, in subqueries of one table each, which SQLite plans
//! without the file's indexes or statistics (joins it would order by them);
//! sums and grouping are done here, by id, with saturating arithmetic. A progress handler stops SQLite past a number of
//! steps proportional to the file's size (a damaged b-tree can share pages
//! and so make a scan far longer than the file). The file is opened
//! read-only and immutable: nothing is written to it or beside it (no
//! journal, no `-wal` or `-shm`), and a hot journal or a log beside it is
//! not read.

use rusqlite::config::DbConfig;
use rusqlite::limits::Limit;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Regions of one name: how many, their total, shortest and longest (ns).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub count: u64,
    pub total_ns: u64,
    /// Meaningless while `count` is 0.
    pub min_ns: u64,
    pub max_ns: u64,
}

impl Span {
    /// One region of `ns`.
    pub fn of(ns: u64) -> Span {
        Span { count: 1, total_ns: ns, min_ns: ns, max_ns: ns }
    }

    /// Adds `o`'s regions. Counts and totals come from a file: they saturate.
    pub fn add(&mut self, o: Span) {
        if o.count == 0 {
            return;
        }
        let first = self.count == 0;
        self.count = self.count.saturating_add(o.count);
        self.total_ns = self.total_ns.saturating_add(o.total_ns);
        self.min_ns = if first { o.min_ns } else { self.min_ns.min(o.min_ns) };
        self.max_ns = self.max_ns.max(o.max_ns);
    }
}

/// A database's totals, as the rocpd views give them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Totals {
    /// Per (category, name): regions and their times.
    pub regions: BTreeMap<(String, String), Span>,
    /// Per kernel name: dispatches and their total ns.
    pub kernels: BTreeMap<String, (u64, u64)>,
    /// Memory copies: count and bytes.
    pub copies: (u64, u64),
    pub pid: u64,
    /// Regions, dispatches and copies left out: a name, time, size or row
    /// they refer to is NULL or missing (rocpd's views, inner joins, leave
    /// them out too).
    pub left_out: u64,
    /// A log beside the file that was not read: the totals are the file's
    /// own.
    pub unread_log: Option<UnreadLog>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnreadLog {
    /// A write-ahead log (`-wal`) that holds frames: the totals are as of
    /// the last checkpoint (its writer still runs, or died).
    Wal,
    /// A hot rollback journal (`-journal`): its writer died mid-transaction,
    /// and the file may hold part of that transaction.
    Journal,
}

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("not a regular file")]
    NotRegularFile,
    #[error("not a database SQLite reads, or a damaged one: {0}")]
    Sqlite(String),
    #[error("not a rocpd database: it has no table or view {0}")]
    Missing(&'static str),
    #[error("{0} is {1}; cltap reads tables, and views that are `SELECT * FROM` a table")]
    Shape(&'static str, String),
    #[error("{0} has no column {1}")]
    NoColumn(&'static str, &'static str),
    #[error("{0}'s column {1} is computed (a generated column); cltap reads only stored values")]
    Computed(&'static str, &'static str),
    #[error("{table} row {row}: {column} is {found}, not {expected}")]
    Value { table: &'static str, row: i64, column: &'static str, found: &'static str, expected: &'static str },
    #[error("no process in rocpd_info_process")]
    NoProcess,
    #[error(
        "reading it took more than {0} steps of SQLite (2^20, and {STEPS_PER_BYTE} per byte of the file): \
         its tables are damaged (pages shared, or in a loop)"
    )]
    TooLong(u64),
}

/// SQLite's virtual-machine steps allowed per byte of the file, past a
/// floor for small files: cltap's queries take about one per byte where a
/// database's rows are as small as they can be, 0.15 on cltap's own.
const STEPS_PER_BYTE: u64 = 32;
const STEPS_FLOOR: u64 = 1 << 20;
/// Steps between two calls of the progress handler.
const STEPS_PER_CHECK: u64 = 1000;
/// The longest string or blob SQLite reads: a record's length is a claim
/// SQLite allocates for before it reads the pages that hold it.
const MAX_VALUE_BYTES: i32 = 16 << 20;

/// The tables the report reads, and their columns.
const PROCESS: (&str, &[&str]) = ("rocpd_info_process", &["pid"]);
const REGION: (&str, &[&str]) = ("rocpd_region", &["name_id", "start_id", "end_id", "event_id"]);
const EVENT: (&str, &[&str]) = ("rocpd_event", &["category_id"]);
const STRING: (&str, &[&str]) = ("rocpd_string", &["string"]);
const TIMESTAMP: (&str, &[&str]) = ("rocpd_timestamp", &["value"]);
const DISPATCH: (&str, &[&str]) = ("rocpd_kernel_dispatch", &["kernel_id", "start_id", "end_id"]);
const SYMBOL: (&str, &[&str]) = ("rocpd_info_kernel_symbol", &["display_name"]);
const COPY: (&str, &[&str]) = ("rocpd_memory_copy", &["size"]);

struct Db {
    conn: Connection,
    stopped: Arc<AtomicBool>,
    budget: u64,
}

impl Totals {
    pub fn read(path: &Path) -> Result<Totals, ReadError> {
        let meta = std::fs::metadata(path)?;
        if !meta.is_file() {
            return Err(ReadError::NotRegularFile);
        }
        let db = Db::open(path, meta.len())?;
        let mut t = Totals { unread_log: unread_log(path), ..Totals::default() };
        let table = |(name, columns)| db.table(name, columns);
        let (process, region, event, string) = (table(PROCESS)?, table(REGION)?, table(EVENT)?, table(STRING)?);
        let (timestamp, dispatch, symbol, copy) = (table(TIMESTAMP)?, table(DISPATCH)?, table(SYMBOL)?, table(COPY)?);
        t.pid = db.pid(&process)?;
        db.regions(&mut t, &region, &event, &string, &timestamp)?;
        db.kernels(&mut t, &dispatch, &symbol, &timestamp)?;
        db.copies(&mut t, &copy)?;
        Ok(t)
    }
}

/// A table the report reads: the name of the view or table it was asked
/// for, and the quoted name of the table that holds the rows.
struct Table {
    name: &'static str,
    sql: String,
}

fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// SQLite's message, on one line of at most 300 characters (it may quote a
/// name from the file).
fn one_line(s: &str) -> String {
    let mut out = crate::text::escape_controls(s).into_owned();
    if let Some((cut, _)) = out.char_indices().nth(300) {
        out.truncate(cut);
        out.push('…');
    }
    out
}

fn type_of(v: ValueRef<'_>) -> &'static str {
    match v {
        ValueRef::Null => "NULL",
        ValueRef::Integer(_) => "an integer",
        ValueRef::Real(_) => "a real",
        ValueRef::Text(_) => "text",
        ValueRef::Blob(_) => "a blob",
    }
}

impl Db {
    fn open(path: &Path, len: u64) -> Result<Db, ReadError> {
        // `immutable=1`: no locks, no journal or log looked for or made
        // beside the file; the file alone is the database.
        let uri = format!("file:{}?immutable=1", uri_path(path));
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let sql = |e: rusqlite::Error| ReadError::Sqlite(one_line(&e.to_string()));
        let conn = Connection::open_with_flags(Path::new(&uri), flags).map_err(sql)?;
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true).map_err(sql)?;
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false).map_err(sql)?;
        conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES);
        conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0);
        // A damaged cell's size is caught where it is read.
        conn.execute_batch("PRAGMA query_only = ON; PRAGMA cell_size_check = ON;").map_err(sql)?;
        let budget = STEPS_FLOOR.saturating_add(len.saturating_mul(STEPS_PER_BYTE));
        let stopped = Arc::new(AtomicBool::new(false));
        let (flag, mut steps) = (stopped.clone(), 0u64);
        conn.progress_handler(
            STEPS_PER_CHECK as i32,
            Some(move || {
                steps = steps.saturating_add(STEPS_PER_CHECK);
                let stop = steps > budget;
                if stop {
                    flag.store(true, Ordering::Relaxed);
                }
                stop
            }),
        );
        Ok(Db { conn, stopped, budget })
    }

    fn err(&self, e: rusqlite::Error) -> ReadError {
        if self.stopped.load(Ordering::Relaxed) {
            ReadError::TooLong(self.budget)
        } else {
            ReadError::Sqlite(one_line(&e.to_string()))
        }
    }

    /// The type (`table` or `view`) and SQL of `name` in the schema, which
    /// SQLite checks against the objects it made of it. (Not `PRAGMA
    /// table_list`: it prepares every view and virtual table of the file.)
    fn schema(&self, name: &str) -> Result<Option<(String, String)>, ReadError> {
        let mut q = self
            .conn
            .prepare("SELECT type, sql FROM sqlite_schema WHERE type IN ('table', 'view') AND name = ?1 COLLATE NOCASE")
            .map_err(|e| self.err(e))?;
        let mut rows = q.query([name]).map_err(|e| self.err(e))?;
        let Some(r) = rows.next().map_err(|e| self.err(e))? else { return Ok(None) };
        // SQLite parses a blob in sqlite_schema as the text it holds.
        let text = |i| -> Result<String, ReadError> {
            Ok(match r.get_ref(i).map_err(|e| self.err(e))? {
                ValueRef::Text(b) | ValueRef::Blob(b) => String::from_utf8_lossy(b).into_owned(),
                _ => String::new(),
            })
        };
        Ok(Some((text(0)?, text(1)?)))
    }

    /// The table behind `name`, checked to hold `columns` as stored values.
    fn table(&self, name: &'static str, columns: &[&'static str]) -> Result<Table, ReadError> {
        let (mut kind, mut sql) = self.schema(name)?.ok_or(ReadError::Missing(name))?;
        let mut real = name.to_string();
        if kind == "view" {
            real = view_of(&sql, name).ok_or_else(|| ReadError::Shape(name, "a view of another shape".into()))?;
            (kind, sql) = self
                .schema(&real)?
                .ok_or_else(|| ReadError::Shape(name, format!("a view of {real:?}, which is missing")))?;
            if kind == "view" {
                return Err(ReadError::Shape(name, format!("a view of {real:?}, which is a view")));
            }
        }
        // A virtual table's module would run on a prepare: none of rocpd's
        // tables is one.
        let mut words = sql.split_ascii_whitespace();
        if !(words.next().is_some_and(|w| w.eq_ignore_ascii_case("CREATE"))
            && words.next().is_some_and(|w| w.eq_ignore_ascii_case("TABLE")))
        {
            return Err(ReadError::Shape(name, "not an ordinary table (a virtual one?)".into()));
        }
        let mut q = self.conn.prepare("SELECT name, hidden FROM pragma_table_xinfo(?1)").map_err(|e| self.err(e))?;
        let cols: HashMap<String, i64> = q
            .query_map([&real], |r| {
                let name = match r.get_ref(0)? {
                    ValueRef::Text(b) => String::from_utf8_lossy(b).to_ascii_lowercase(),
                    _ => String::new(),
                };
                Ok((name, r.get(1)?))
            })
            .and_then(|rows| rows.collect())
            .map_err(|e| self.err(e))?;
        // A column of that name hides the rowid, which every join uses.
        if cols.contains_key("rowid") {
            return Err(ReadError::Shape(name, "a table with a column named rowid".into()));
        }
        for c in columns {
            match cols.get(*c) {
                None => return Err(ReadError::NoColumn(name, c)),
                Some(2) => return Err(ReadError::Computed(name, c)),
                Some(_) => {}
            }
        }
        let t = Table { name, sql: quote(&real) };
        if self.conn.prepare(&format!("SELECT rowid FROM {}", t.sql)).is_err() {
            return Err(ReadError::Shape(name, "a WITHOUT ROWID table".into()));
        }
        Ok(t)
    }

    /// Runs `sql`, each row's values to `f`.
    fn each(&self, sql: &str, mut f: impl FnMut(&[ValueRef<'_>]) -> Result<(), ReadError>) -> Result<(), ReadError> {
        let mut q = self.conn.prepare(sql).map_err(|e| self.err(e))?;
        let n = q.column_count().min(8);
        let mut rows = q.query([]).map_err(|e| self.err(e))?;
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let mut vals = [ValueRef::Null; 8];
            for (i, v) in vals.iter_mut().enumerate().take(n) {
                *v = r.get_ref(i).map_err(|e| self.err(e))?;
            }
            f(&vals[..n])?;
        }
        Ok(())
    }

    fn pid(&self, p: &Table) -> Result<u64, ReadError> {
        let mut pid = None;
        self.each(&format!("SELECT rowid, pid FROM {} LIMIT 1", p.sql), |v| {
            pid = Some(match v[1] {
                ValueRef::Integer(n) if n >= 0 => n as u64,
                x => return Err(value(p, v[0], "pid", x, "a process id")),
            });
            Ok(())
        })?;
        pid.ok_or(ReadError::NoProcess)
    }

    fn regions(&self, t: &mut Totals, r: &Table, e: &Table, s: &Table, ts: &Table) -> Result<(), ReadError> {
        let sql = format!(
            "SELECT O.rowid, (SELECT I.category_id FROM {e} I WHERE I.rowid = O.event_id), O.name_id, \
             (SELECT I.value FROM {ts} I WHERE I.rowid = O.start_id), \
             (SELECT I.value FROM {ts} I WHERE I.rowid = O.end_id) FROM {r} O",
            r = r.sql,
            e = e.sql,
            ts = ts.sql
        );
        let mut by_id: HashMap<(i64, i64), Span> = HashMap::new();
        self.each(&sql, |v| {
            let ids = (id(r, v[0], "its event's category_id", v[1])?, id(r, v[0], "name_id", v[2])?);
            match (ids, duration(r, v[0], v[3], v[4])?) {
                ((Some(c), Some(n)), Some(ns)) => by_id.entry((c, n)).or_default().add(Span::of(ns)),
                _ => t.left_out = t.left_out.saturating_add(1),
            }
            Ok(())
        })?;
        let mut names = Strings::new(self, s, STRING.1[0])?;
        for ((c, n), span) in by_id {
            match (names.get(c)?, names.get(n)?) {
                (Some(c), Some(n)) => t.regions.entry((c, n)).or_default().add(span),
                _ => t.left_out = t.left_out.saturating_add(span.count),
            }
        }
        Ok(())
    }

    fn kernels(&self, t: &mut Totals, k: &Table, sym: &Table, ts: &Table) -> Result<(), ReadError> {
        let sql = format!(
            "SELECT O.rowid, O.kernel_id, (SELECT I.value FROM {ts} I WHERE I.rowid = O.start_id), \
             (SELECT I.value FROM {ts} I WHERE I.rowid = O.end_id) FROM {k} O",
            k = k.sql,
            ts = ts.sql
        );
        let mut by_id: HashMap<i64, (u64, u64)> = HashMap::new();
        self.each(&sql, |v| {
            match (id(k, v[0], "kernel_id", v[1])?, duration(k, v[0], v[2], v[3])?) {
                (Some(kernel), Some(ns)) => add(by_id.entry(kernel).or_default(), 1, ns),
                _ => t.left_out = t.left_out.saturating_add(1),
            }
            Ok(())
        })?;
        let mut names = Strings::new(self, sym, SYMBOL.1[0])?;
        for (kernel, (count, ns)) in by_id {
            match names.get(kernel)? {
                Some(name) => add(t.kernels.entry(name).or_default(), count, ns),
                None => t.left_out = t.left_out.saturating_add(count),
            }
        }
        Ok(())
    }

    fn copies(&self, t: &mut Totals, c: &Table) -> Result<(), ReadError> {
        self.each(&format!("SELECT rowid, size FROM {}", c.sql), |v| {
            match v[1] {
                // A negative size is no bytes.
                ValueRef::Integer(n) => add(&mut t.copies, 1, n.max(0) as u64),
                ValueRef::Null => t.left_out = t.left_out.saturating_add(1),
                x => return Err(value(c, v[0], "size", x, "an integer")),
            }
            Ok(())
        })
    }
}

fn add(to: &mut (u64, u64), count: u64, ns: u64) {
    *to = (to.0.saturating_add(count), to.1.saturating_add(ns));
}

fn value(t: &Table, row: ValueRef<'_>, column: &'static str, found: ValueRef<'_>, expected: &'static str) -> ReadError {
    let row = if let ValueRef::Integer(r) = row { r } else { -1 };
    ReadError::Value { table: t.name, row, column, found: type_of(found), expected }
}

/// An id that names a row: NULL is none.
fn id(t: &Table, row: ValueRef<'_>, column: &'static str, v: ValueRef<'_>) -> Result<Option<i64>, ReadError> {
    match v {
        ValueRef::Integer(n) => Ok(Some(n)),
        ValueRef::Null => Ok(None),
        x => Err(value(t, row, column, x, "an integer id")),
    }
}

/// From `start` to `end` in ns: none where either is NULL (or its row is
/// missing), 0 where the end is before the start.
fn duration(t: &Table, row: ValueRef<'_>, start: ValueRef<'_>, end: ValueRef<'_>) -> Result<Option<u64>, ReadError> {
    match (start, end) {
        (ValueRef::Integer(s), ValueRef::Integer(e)) => {
            Ok(Some((e as i128 - s as i128).clamp(0, u64::MAX as i128) as u64))
        }
        (ValueRef::Null, _) | (_, ValueRef::Null) => Ok(None),
        (ValueRef::Integer(_), x) | (x, _) => Err(value(t, row, "a timestamp's value", x, "an integer")),
    }
}

/// Names by rowid, each row looked up once however many rows name it.
struct Strings<'a> {
    q: rusqlite::Statement<'a>,
    db: &'a Db,
    table: &'a Table,
}

impl<'a> Strings<'a> {
    fn new(db: &'a Db, table: &'a Table, column: &str) -> Result<Strings<'a>, ReadError> {
        let q =
            db.conn.prepare(&format!("SELECT {column} FROM {} WHERE rowid = ?1", table.sql)).map_err(|e| db.err(e))?;
        Ok(Strings { q, db, table })
    }

    /// NULL, or no such row, is none; text that is not UTF-8 is shown with
    /// U+FFFD in place of its bad bytes.
    fn get(&mut self, id: i64) -> Result<Option<String>, ReadError> {
        let mut rows = self.q.query([id]).map_err(|e| self.db.err(e))?;
        match rows.next().map_err(|e| self.db.err(e))? {
            None => Ok(None),
            Some(r) => match r.get_ref(0).map_err(|e| self.db.err(e))? {
                ValueRef::Text(b) => Ok(Some(String::from_utf8_lossy(b).into_owned())),
                ValueRef::Null => Ok(None),
                x => Err(value(self.table, ValueRef::Integer(id), "its name", x, "text")),
            },
        }
    }
}

/// `path` as the path of an SQLite URI: every byte but the unreserved ones
/// and `/` escaped (`?`, `#` and `%` would end or change it).
fn uri_path(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut s = String::new();
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            s.push(b as char);
        } else {
            s += &format!("%{b:02X}");
        }
    }
    s
}

/// A log beside the file that SQLite would read (or roll back) were the
/// file not opened `immutable`: a WAL-mode file's `-wal` that holds frames,
/// or a hot `-journal`. Each is known by its magic number.
fn unread_log(path: &Path) -> Option<UnreadLog> {
    use std::io::Read;
    // Only a regular file: opening a FIFO put there would wait for a writer.
    let head = |suffix: &str, n: usize| -> Option<Vec<u8>> {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        std::fs::metadata(&p).ok().filter(|m| m.is_file())?;
        let mut b = vec![0u8; n];
        std::fs::File::open(p).and_then(|mut f| f.read_exact(&mut b)).ok().map(|_| b)
    };
    let db = head("", 20)?;
    let wal_mode = db.starts_with(b"SQLite format 3\0") && (db[18] == 2 || db[19] == 2);
    // A log's header is 32 bytes; a frame follows it.
    if wal_mode && head("-wal", 33).is_some_and(|h| h[..3] == [0x37, 0x7f, 0x06] && h[3] & 0xfe == 0x82) {
        return Some(UnreadLog::Wal);
    }
    let hot = head("-journal", 8).is_some_and(|h| h == [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]);
    hot.then_some(UnreadLog::Journal)
}

/// The table a view's SQL selects all of, where the SQL is exactly
/// `CREATE VIEW [IF NOT EXISTS] <name> AS SELECT * FROM <table>`.
fn view_of(sql: &str, name: &str) -> Option<String> {
    let mut toks = tokens(sql)?.into_iter();
    let mut next = || toks.next();
    let kw = |t: Option<Tok>, k: &str| matches!(t, Some(Tok::Word(w)) if w.eq_ignore_ascii_case(k));
    if !kw(next(), "CREATE") || !kw(next(), "VIEW") {
        return None;
    }
    let mut t = next();
    if kw(t.clone(), "IF") {
        if !kw(next(), "NOT") || !kw(next(), "EXISTS") {
            return None;
        }
        t = next();
    }
    let view = match t? {
        Tok::Word(w) | Tok::Quoted(w) => w,
        Tok::Star => return None,
    };
    if !view.eq_ignore_ascii_case(name)
        || !kw(next(), "AS")
        || !kw(next(), "SELECT")
        || next() != Some(Tok::Star)
        || !kw(next(), "FROM")
    {
        return None;
    }
    let table = match next()? {
        Tok::Word(w) | Tok::Quoted(w) => w,
        Tok::Star => return None,
    };
    next().is_none().then_some(table)
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Quoted(String),
    Star,
}

/// Words, quoted names and `*`; `None` for anything else (a comment, a
/// dot, a parenthesis).
fn tokens(sql: &str) -> Option<Vec<Tok>> {
    let mut out = Vec::new();
    let mut cs = sql.chars().peekable();
    while let Some(c) = cs.next() {
        match c {
            c if c.is_ascii_whitespace() => {}
            '*' => out.push(Tok::Star),
            '"' | '`' | '[' => {
                let close = if c == '[' { ']' } else { c };
                let mut w = String::new();
                loop {
                    match cs.next()? {
                        x if x == close && c != '[' && cs.peek() == Some(&close) => {
                            cs.next();
                            w.push(x);
                        }
                        x if x == close => break,
                        x => w.push(x),
                    }
                }
                out.push(Tok::Quoted(w));
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let mut w = String::from(c);
                while let Some(&x) = cs.peek().filter(|x| x.is_ascii_alphanumeric() || **x == '_') {
                    w.push(x);
                    cs.next();
                }
                out.push(Tok::Word(w));
            }
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_views_that_select_all_of_one_table_are_followed() {
        let ok = [
            ("CREATE VIEW `rocpd_string` AS SELECT * FROM `rocpd_string_01_ab`", "rocpd_string_01_ab"),
            ("CREATE VIEW `rocpd_string` AS\nSELECT\n    *\nFROM\n    `rocpd_string_x`", "rocpd_string_x"),
            ("create view if not exists [ROCPD_STRING] as select * from \"a\"\"b\"", "a\"b"),
            ("CREATE VIEW rocpd_string AS SELECT*FROM t", "t"),
        ];
        for (sql, table) in ok {
            assert_eq!(view_of(sql, "rocpd_string").as_deref(), Some(table), "{sql}");
        }
        for sql in [
            "CREATE VIEW rocpd_string AS SELECT * FROM t WHERE 1",
            "CREATE VIEW rocpd_string AS SELECT * FROM main.t",
            "CREATE VIEW rocpd_string AS SELECT * FROM t -- x",
            "CREATE VIEW rocpd_string AS SELECT * FROM t UNION ALL SELECT * FROM t",
            "CREATE VIEW other AS SELECT * FROM t",
            "CREATE VIEW rocpd_string(a) AS SELECT * FROM t",
            "CREATE VIEW rocpd_string AS WITH RECURSIVE c(x) AS (SELECT 1) SELECT * FROM c",
            "CREATE VIEW rocpd_string AS SELECT * FROM `t",
            "CREATE TEMP VIEW rocpd_string AS SELECT * FROM t",
        ] {
            assert_eq!(view_of(sql, "rocpd_string"), None, "{sql}");
        }
    }

    #[test]
    fn uri_paths_escape_what_would_end_or_change_them() {
        assert_eq!(uri_path(Path::new("/a b/x?y#z%.db")), "/a%20b/x%3Fy%23z%25.db");
        assert_eq!(uri_path(Path::new("rel/v-1_2.~db")), "rel/v-1_2.~db");
    }
}
