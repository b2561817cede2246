"""Runs rocpd's own views (tests/rocpd/views.sql) over each database given,
and prints per database one JSON object of what they answer, by plain SQL
that names the views' columns: regions per (category, name), kernels per
name (top_kernels), memory copies, counter values. A view that does not run
fails the check, naming the database and the error.

Usage: check.py VIEWS.sql DB...
"""
import json
import sqlite3
import sys

views = open(sys.argv[1]).read()
for path in sys.argv[2:]:
    # The views go into a copy in memory: the database stays as cltap wrote it.
    db = sqlite3.connect(":memory:")
    sqlite3.connect(path).backup(db)
    db.executescript(views)
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
    print(json.dumps(out))
