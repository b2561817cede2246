#!/usr/bin/env python3
"""Makes the rocpd databases of tests/hostile/rocpd/ (and the hand-made seed
fuzz/corpus/rocpd/rocprofv3_shape.db) with Python's sqlite3, each a small
database of the shape rocprofv3 writes (tables named with a suffix, a view
of each plain name) bent one way. Run from the repository root:
    python3 tests/hostile/rocpd/make.py
README.md (one folder up) says what each once did to `cltap report`."""
import os
import shutil
import sqlite3
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = os.path.join(HERE, "../../../fuzz/corpus/rocpd/rocprofv3_shape.db")
SUF = "_00000001_0000000000000001"
# The tables `cltap report` reads, with the columns it reads and a few more.
TABLES = {
    "rocpd_string": "string TEXT NOT NULL",
    "rocpd_info_process": "nid INTEGER, pid INTEGER NOT NULL",
    "rocpd_timestamp": "value BIGINT NOT NULL, phase INTEGER, track_id INTEGER",
    "rocpd_event": "category_id INTEGER, correlation_id INTEGER",
    "rocpd_region": "track_id INTEGER NOT NULL, name_id INTEGER NOT NULL, start_id INTEGER NOT NULL, "
    "end_id INTEGER NOT NULL, event_id INTEGER",
    "rocpd_info_kernel_symbol": "nid INTEGER, pid INTEGER, code_object_id INTEGER, kernel_name TEXT, "
    "display_name TEXT",
    "rocpd_kernel_dispatch": "track_id INTEGER, kernel_id INTEGER NOT NULL, dispatch_id INTEGER, "
    "start_id INTEGER NOT NULL, end_id INTEGER NOT NULL",
    "rocpd_memory_copy": "track_id INTEGER, start_id INTEGER, end_id INTEGER, name_id INTEGER, "
    "size INTEGER NOT NULL",
}
PAGE = 512


def out(name):
    return os.path.join(HERE, name)


def fresh(path):
    for s in ["", "-wal", "-shm", "-journal"]:
        if os.path.exists(path + s):
            os.remove(path + s)
    c = sqlite3.connect(path, isolation_level=None)
    c.execute(f"PRAGMA page_size={PAGE}")
    return c


def base(path, skip=()):
    """The tables (but `skip`), each with rocprofv3's view of its plain name."""
    c = fresh(path)
    for t, cols in TABLES.items():
        if t in skip:
            continue
        c.execute(f'CREATE TABLE "{t}{SUF}" (id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, {cols})')
        c.execute(f"CREATE VIEW IF NOT EXISTS\n    `{t}` AS\nSELECT\n    *\nFROM\n    `{t}{SUF}`")
    return c


def inserter(c):
    def ins(t, cols, vals):
        marks = ",".join("?" * len(vals))
        return c.execute(f'INSERT INTO "{t}{SUF}" ({cols}) VALUES ({marks})', vals).lastrowid

    return ins


def rows(c):
    """Process 4242: one clFinish (150 ns), one vecadd dispatch, one copy."""
    ins = inserter(c)
    ins("rocpd_info_process", "nid,pid", (1, 4242))
    cat = ins("rocpd_string", "string", ("OPENCL_API",))
    fn = ins("rocpd_string", "string", ("clFinish",))
    ev = ins("rocpd_event", "category_id", (cat,))
    s = ins("rocpd_timestamp", "value", (100,))
    e = ins("rocpd_timestamp", "value", (250,))
    ins("rocpd_region", "track_id,name_id,start_id,end_id,event_id", (1, fn, s, e, ev))
    k = ins("rocpd_info_kernel_symbol", "code_object_id,display_name", (1, "vecadd"))
    ins("rocpd_kernel_dispatch", "kernel_id,start_id,end_id", (k, s, e))
    ins("rocpd_memory_copy", "size", (4096,))
    return ins


def seed():
    os.makedirs(os.path.dirname(SEED), exist_ok=True)
    c = base(SEED)
    rows(c)
    c.close()


def view_recursive():
    """rocpd_region is a view that counts without end."""
    c = base(out("view_recursive_hang.db"), skip=("rocpd_region",))
    ins = inserter(c)
    ins("rocpd_info_process", "nid,pid", (1, 1))
    ins("rocpd_string", "string", ("OPENCL_API",))
    ins("rocpd_event", "category_id", (1,))
    ins("rocpd_timestamp", "value", (1,))
    c.execute(
        "CREATE VIEW rocpd_region AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) "
        "SELECT x AS id, 1 AS track_id, 1 AS name_id, 1 AS start_id, 1 AS end_id, 1 AS event_id FROM n"
    )
    c.close()


def btree_shared_pages():
    """rocpd_region's b-tree is a DAG: its root and each interior page under
    it name one child 71 times (and as the rightmost), six levels deep, over
    the leaf of its one row: 72^6 rows in a file of a few pages."""
    path = out("btree_shared_pages_hang.db")
    c = base(path)
    rows(c)
    root = c.execute("SELECT rootpage FROM sqlite_schema WHERE name = ?", ("rocpd_region" + SUF,)).fetchone()[0]
    c.close()
    data = bytearray(open(path, "rb").read())
    n = len(data) // PAGE
    leaf = data[(root - 1) * PAGE : root * PAGE]

    def interior(child, k=71):
        p = bytearray(PAGE)
        start = PAGE - 5 * k
        p[0] = 5
        p[3:5] = struct.pack(">H", k)
        p[5:7] = struct.pack(">H", start)
        p[8:12] = struct.pack(">I", child)
        for i in range(k):
            off = start + 5 * i
            p[12 + 2 * i : 14 + 2 * i] = struct.pack(">H", off)
            p[off : off + 5] = struct.pack(">I", child) + bytes([i + 1])
        return p

    levels = 6
    data[(root - 1) * PAGE : root * PAGE] = interior(n + 1)
    data += b"".join(interior(n + 2 + i) for i in range(levels - 1)) + leaf
    data[28:32] = struct.pack(">I", n + levels)  # the page count, and
    data[92:96] = data[24:28]  # the change counter it is valid for
    open(path, "wb").write(data)


def stats_one_row():
    """Tables whose id is a plain column with no index, and statistics
    (sqlite_stat1) that say each has one row; the test adds the rows."""
    c = fresh(out("stats_one_row_quadratic.db"))
    for t, cols in TABLES.items():
        c.execute(f'CREATE TABLE "{t}" (id INTEGER, {cols})')
    c.execute("INSERT INTO rocpd_info_process (id, nid, pid) VALUES (1, 1, 7)")
    c.execute("INSERT INTO rocpd_string (id, string) VALUES (1, 'OPENCL_API'), (2, 'clFinish')")
    c.execute("ANALYZE")
    c.execute("DELETE FROM sqlite_stat1")
    c.executemany("INSERT INTO sqlite_stat1 VALUES (?, NULL, '1')", [(t,) for t in TABLES])
    c.execute("VACUUM")
    c.close()


def durations_negative():
    """A call whose end is 900 ns before its start."""
    c = base(out("duration_negative_wrap.db"))
    ins = rows(c)
    s = ins("rocpd_timestamp", "value", (1000,))
    ins("rocpd_region", "track_id,name_id,start_id,end_id,event_id", (1, 2, s, 1, 1))
    c.close()


def durations_widest():
    """Two dispatches from the earliest time to the latest, 2^64 - 1 ns each."""
    c = base(out("duration_overflow_real.db"))
    ins = rows(c)
    s = ins("rocpd_timestamp", "value", (-(2**63),))
    e = ins("rocpd_timestamp", "value", (2**63 - 1,))
    for _ in range(2):
        ins("rocpd_kernel_dispatch", "kernel_id,start_id,end_id", (1, s, e))
    c.close()


def names():
    """A name that is not UTF-8, one that holds a line break and a terminal
    escape, a kernel with a NULL name, a call whose name and one whose event
    are missing."""
    c = base(out("names_not_utf8_null.db"))
    ins = rows(c)
    c.execute(f"UPDATE \"rocpd_string{SUF}\" SET string = CAST(x'636cff46696e697368' AS TEXT) WHERE id = 2")
    k = ins("rocpd_info_kernel_symbol", "code_object_id,display_name", (1, "k\ntotal (9 processes)\x1b[2J"))
    ins("rocpd_kernel_dispatch", "kernel_id,start_id,end_id", (k, 1, 2))
    k = ins("rocpd_info_kernel_symbol", "code_object_id,display_name", (1, None))
    ins("rocpd_kernel_dispatch", "kernel_id,start_id,end_id", (k, 1, 2))
    ins("rocpd_region", "track_id,name_id,start_id,end_id,event_id", (1, 99, 1, 2, 1))
    ins("rocpd_region", "track_id,name_id,start_id,end_id,event_id", (1, 2, 1, 2, None))
    c.close()


def wal():
    """A WAL-mode database whose second call is still in its log."""
    path = out("wal_unread.db")
    c = base(path)
    ins = rows(c)
    c.execute("PRAGMA journal_mode=WAL")
    c.execute("PRAGMA wal_autocheckpoint=0")
    ins("rocpd_region", "track_id,name_id,start_id,end_id,event_id", (1, 2, 1, 2, 1))
    # Copied while the connection is open, which keeps the log.
    shutil.copy(path, path + ".x")
    shutil.copy(path + "-wal", path + ".x-wal")
    c.close()
    os.replace(path + ".x", path)
    os.replace(path + ".x-wal", path + "-wal")
    if os.path.exists(path + "-shm"):
        os.remove(path + "-shm")


def hot_journal():
    """A rollback journal left by a writer that died mid-transaction."""
    path = out("hot_journal.db")
    c = base(path)
    ins = rows(c)
    c.execute("PRAGMA cache_size=1")  # pages go to the file before the commit
    c.execute("BEGIN")
    for _ in range(200):
        ins("rocpd_region", "track_id,name_id,start_id,end_id,event_id", (1, 2, 1, 2, 1))
    shutil.copy(path, path + ".x")
    shutil.copy(path + "-journal", path + ".x-journal")
    c.execute("ROLLBACK")
    c.close()
    os.replace(path + ".x", path)
    os.replace(path + ".x-journal", path + "-journal")


def no_region():
    c = base(out("no_region_table.db"), skip=("rocpd_region",))
    rows_but_regions = inserter(c)
    rows_but_regions("rocpd_info_process", "nid,pid", (1, 1))
    c.close()


for make in [seed, view_recursive, btree_shared_pages, stats_one_row, durations_negative, durations_widest,
             names, wal, hot_journal, no_region]:
    make()
