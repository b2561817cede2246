//! Hostile and broken rocpd databases given to `cltap report`
//! (`tests/hostile/rocpd/`, made by its `make.py`; README.md one folder up
//! says what each once did): each gives its clean outcome, one clear line
//! or a correct report, under the time and memory bound of
//! `common::bounded`, and nothing is written beside the file.

mod common;
use common::bounded::{cltap, said};
use common::*;
use std::path::{Path, PathBuf};

/// A copy of `name` (and the logs beside it) in a fresh folder, so that what
/// the reader leaves there can be listed.
fn copy(name: &str) -> (Scratch, PathBuf) {
    let d = scratch("hostile-rocpd");
    let src = root().join("tests/hostile/rocpd");
    for e in std::fs::read_dir(&src).unwrap().flatten() {
        let f = e.file_name().into_string().unwrap();
        if f == name || f.strip_prefix(name).is_some_and(|s| s.starts_with('-')) {
            std::fs::copy(e.path(), d.join(&f)).unwrap();
        }
    }
    let db = d.join(name);
    assert!(db.is_file(), "{name}");
    (d, db)
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().flatten().map(|e| e.file_name().into_string().unwrap()).collect();
    v.sort();
    v
}

/// `cltap report DB`, checked to leave the folder as it was.
fn report(db: &Path) -> Outcome {
    let dir = db.parent().unwrap();
    let before = listing(dir);
    let sums: Vec<Vec<u8>> = before.iter().map(|f| std::fs::read(dir.join(f)).unwrap()).collect();
    let o = cltap(&[&"report", &db]);
    assert_eq!(listing(dir), before, "the reader wrote beside {}", db.display());
    let after: Vec<Vec<u8>> = before.iter().map(|f| std::fs::read(dir.join(f)).unwrap()).collect();
    assert!(after == sums, "the reader changed a file in {}", dir.display());
    o
}

/// The report of the hostile database `name`, which must succeed (with
/// the copy's folder, kept while the result is looked at).
fn reported(name: &str) -> (Scratch, PathBuf, Outcome) {
    let (d, db) = copy(name);
    let o = report(&db);
    assert_eq!(o.code, Some(0), "{name}: {}", o.stderr);
    (d, db, o)
}

/// One error line, naming the file, that contains `why`.
fn one_line(o: &Outcome, db: &Path, why: &str) {
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    let lines = said(o);
    assert_eq!(lines.len(), 1, "{}", o.stderr);
    assert!(lines[0].starts_with(&format!("cltap: {}: ", db.display())), "{}", lines[0]);
    assert!(lines[0].contains(why), "{}", lines[0]);
}

/// The report's row for `name` in its first (per-process) section:
/// its calls or launches and total µs. An API row ends with calls, total,
/// %, average, minimum and maximum; a kernel row with launches and total.
fn row(o: &Outcome, name: &str) -> (u64, String) {
    let l = o.stdout.lines().find(|l| l.trim_start().starts_with(name) || l.contains(&format!(" {name} "))).unwrap();
    let f: Vec<&str> = l.split_whitespace().collect();
    let at = if f.len() >= 8 { f.len() - 6 } else { f.len() - 2 };
    (f[at].parse().unwrap(), f[at + 1].to_string())
}

#[test]
fn views_and_btrees_that_never_end_are_one_error_line() {
    let (_d, db) = copy("view_recursive_hang.db");
    one_line(&report(&db), &db, "rocpd_region is a view of another shape");
    let (_d, db) = copy("btree_shared_pages_hang.db");
    one_line(&report(&db), &db, "steps of SQLite (2^20, and 32 per byte of the file): its tables are damaged");
}

#[test]
fn statistics_that_lie_do_not_make_the_joins_quadratic() {
    // 40,000 calls whose tables have no index and whose statistics say one
    // row each: the old joins took minutes.
    let (_d, db) = copy("stats_one_row_quadratic.db");
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch(
        "BEGIN;
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000)
         INSERT INTO rocpd_event (id, category_id) SELECT i, 1 FROM n;
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 80000)
         INSERT INTO rocpd_timestamp (id, value) SELECT i, 10 * i FROM n;
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000)
         INSERT INTO rocpd_region (id, track_id, name_id, start_id, end_id, event_id)
             SELECT i, 1, 2, 2 * i - 1, 2 * i, i FROM n;
         COMMIT;",
    )
    .unwrap();
    assert_eq!(
        c.query_row("SELECT stat FROM sqlite_stat1 WHERE tbl = 'rocpd_region'", [], |r| r.get::<_, String>(0)).unwrap(),
        "1"
    );
    drop(c);
    let o = report(&db);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    // Each call 10 ns: 400 µs in all.
    assert_eq!(row(&o, "clFinish"), (40_000, "400.000".to_string()), "{}", o.stdout);
}

#[test]
fn durations_before_their_start_count_zero_and_totals_saturate() {
    let (_d, _, o) = reported("duration_negative_wrap.db");
    // 150 ns, and 0 for the call that ends 900 ns before it starts.
    assert_eq!(row(&o, "clFinish"), (2, "0.150".to_string()), "{}", o.stdout);
    let (_d, db, o) = reported("duration_overflow_real.db");
    // Two dispatches of 2^64 - 1 ns and one of 150: u64::MAX ns.
    assert_eq!(row(&o, "vecadd"), (3, format!("{:.1}", u64::MAX as f64 / 1000.0)), "{}", o.stdout);
    // Two processes' totals saturate as well.
    let o = cltap(&[&"report", &db, &db]);
    let total = o.stdout.split("total (2 processes)").nth(1).unwrap();
    let l = total.lines().find(|l| l.trim_start().starts_with("vecadd")).unwrap();
    assert_eq!(l.split_whitespace().nth(1), Some("6"), "{total}");
}

#[test]
fn bad_text_null_names_and_missing_rows_are_shown_or_counted() {
    let (_d, _, o) = reported("names_not_utf8_null.db");
    // Not UTF-8: U+FFFD for the bad byte.
    assert_eq!(row(&o, "cl\u{fffd}Finish"), (1, "0.150".to_string()), "{}", o.stdout);
    // A line break or an escape in a name is shown escaped, on its line.
    assert!(o.stdout.contains("  k\\ntotal (9 processes)\\u{1b}[2J "), "{}", o.stdout);
    assert!(!o.stdout.contains('\u{1b}'));
    assert_eq!(o.stdout.lines().filter(|l| l.starts_with("total (")).count(), 1, "{}", o.stdout);
    // The NULL-named kernel's dispatch, the call whose name is missing and
    // the one with no event.
    assert!(
        o.stdout.contains("  left out: 3 (calls, dispatches or copies whose name, times or size are missing)\n"),
        "{}",
        o.stdout
    );
}

#[test]
fn logs_beside_the_file_are_not_read_and_nothing_is_written() {
    let (_d, _, o) = reported("wal_unread.db");
    // The file's one call; the log's second is not read.
    assert_eq!(row(&o, "clFinish").0, 1, "{}", o.stdout);
    assert!(o.stdout.contains("note: its write-ahead log (-wal) was not read"), "{}", o.stdout);
    let (_d, _, o) = reported("hot_journal.db");
    assert!(o.stdout.contains("note: a hot journal (-journal) beside it was not read"), "{}", o.stdout);
}

#[test]
fn fifos_missing_tables_and_page_count_claims_are_one_error_line_or_not_opened() {
    let d = scratch("hostile-rocpd-fifo");
    let fifo = |p: &Path| {
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo on a path of our own.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    };
    fifo(&d.join("fifo.db"));
    one_line(&cltap(&[&"report", &d.join("fifo.db")]), &d.join("fifo.db"), ": not a regular file");
    // FIFOs where SQLite, or the check for an unread log, would look for
    // a log: neither opens them.
    for name in ["wal_unread.db", "duration_negative_wrap.db"] {
        let (d, db) = copy(name);
        let _ = std::fs::remove_file(d.join(format!("{name}-wal")));
        for log in ["-wal", "-shm", "-journal"] {
            fifo(&d.join(format!("{name}{log}")));
        }
        let o = cltap(&[&"report", &db]);
        assert_eq!(o.code, Some(0), "{name}: {}", o.stderr);
        assert!(!o.stdout.contains("note:"), "{}", o.stdout);
    }
    let (_d, db) = copy("no_region_table.db");
    one_line(&report(&db), &db, "not a rocpd database: it has no table or view rocpd_region");
    // The header says 2^31 - 1 pages (and that the count is valid).
    let d = scratch("hostile-rocpd-claim");
    let claim = d.join("claim.db");
    let mut b = std::fs::read(root().join("tests/hostile/rocpd/duration_negative_wrap.db")).unwrap();
    b[28..32].copy_from_slice(&0x7fff_ffffu32.to_be_bytes());
    let counter: [u8; 4] = b[24..28].try_into().unwrap();
    b[92..96].copy_from_slice(&counter);
    std::fs::write(&claim, b).unwrap();
    one_line(&report(&claim), &claim, "database disk image is malformed");
}
