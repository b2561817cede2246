"""Reads each database given through its own views (the ones cltap writes
into it, formats/src/rocpd/views.rs), and again through rocpd's own view
definitions (tests/rocpd/views.sql) loaded in their place, and prints per
database one JSON object of what they answer, by plain SQL that names the
views' columns: regions per (category, name), kernels per name
(top_kernels), memory copies, counter values. Both sets must answer the
same. Every view in the database must run (`SELECT *` over each), the two
rocpd's file leaves out (`kernel_pmc_events`, `busy`) included; a view that
does not run, or answers otherwise than rocpd's, fails the check, naming
the database and the view.

Usage: check.py VIEWS.sql DB...
"""
import json
import sqlite3
import sys

# The views cltap writes (formats/src/rocpd/views.rs, NAMES).
OWN = ["tracks", "events", "regions", "kernels", "pmc_events", "kernel_pmc_events", "memory_copies",
       "memory_allocations", "scratch_memory", "top_kernels", "busy", "top"]
rocpd_views = open(sys.argv[1]).read()


def answers(db, path):
    out = {"file": path}
    try:
        out["regions"] = [
            list(r)
            for r in db.execute(
                "SELECT category, name, COUNT(*), SUM(duration) FROM regions GROUP BY category, name ORDER BY 1, 2"
            )
        ]
        out["top_kernels"] = [list(r) for r in db.execute("SELECT name, total_calls, total_duration FROM top_kernels ORDER BY name")]
        out["kernels"] = db.execute("SELECT COUNT(*), COALESCE(SUM(duration), 0) FROM kernels").fetchone()
        out["memory_copies"] = db.execute("SELECT COUNT(*), COALESCE(SUM(size), 0) FROM memory_copies").fetchone()
        # Dispatches joined to the call that caused them, by correlation id.
        out["kernels_joined"] = db.execute(
            "SELECT COUNT(*) FROM kernels K WHERE K.correlation_id != 0 AND EXISTS "
            "(SELECT 1 FROM regions R WHERE R.correlation_id = K.correlation_id)"
        ).fetchone()[0]
        out["pmc_events"] = db.execute("SELECT COUNT(*) FROM pmc_events").fetchone()[0]
        out["pmc_names"] = [r[0] for r in db.execute("SELECT DISTINCT name FROM pmc_events ORDER BY name")]
        out["top"] = db.execute("SELECT COUNT(*), SUM(total_calls) FROM top").fetchone()
        # The memory trace's rows, in the order written.
        out["memory_allocations"] = [
            list(r)
            for r in db.execute("SELECT type, level, name, tid, start, address, size, category FROM memory_allocations ORDER BY id")
        ]
        out["processes"] = [r[0] for r in db.execute("SELECT pid FROM rocpd_info_process")]
        # Kernel symbols with what their descriptors say they use.
        out["kernel_symbols"] = [
            list(r)
            for r in db.execute(
                "SELECT kernel_object, kernel_name, arch_vgpr_count, sgpr_count, group_segment_size, private_segment_size "
                "FROM rocpd_info_kernel_symbol ORDER BY kernel_object, kernel_name"
            )
        ]
    except sqlite3.Error as e:
        raise SystemExit(f"{path}: {e}")
    return out


for path in sys.argv[2:]:
    # Both read copies in memory: the database stays as cltap wrote it.
    db = sqlite3.connect(":memory:")
    sqlite3.connect(path).backup(db)
    have = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'view'")}
    missing = [v for v in OWN if v not in have]
    if missing:
        raise SystemExit(f"{path}: no view {missing}")
    for v in OWN:
        try:
            rows = db.execute(f"SELECT * FROM `{v}`").fetchall()
        except sqlite3.Error as e:
            raise SystemExit(f"{path}: view {v}: {e}")
    own = answers(db, path)
    theirs = sqlite3.connect(":memory:")
    sqlite3.connect(path).backup(theirs)
    theirs.executescript("".join(f"DROP VIEW `{v}`;" for v in OWN) + rocpd_views)
    if answers(theirs, path) != own:
        raise SystemExit(f"{path}: cltap's views answer {own}\nrocpd's answer {answers(theirs, path)}")
    own["busy"] = [list(r) for r in db.execute("SELECT agent_id, type, GpuTime, WallTime, Busy FROM busy ORDER BY agent_id")]
    own["kernel_pmc_events"] = db.execute("SELECT COUNT(*), COUNT(DISTINCT id) FROM kernel_pmc_events").fetchone()
    own["agents"] = [list(r) for r in db.execute("SELECT id, name, type FROM rocpd_info_agent ORDER BY id")]
    print(json.dumps(own))
