//! rocpd's tables, by the names and columns of rocprofiler-sdk's schema
//! (`source/share/rocprofiler-sdk-rocpd/rocpd_tables.sql`, schema version
//! 3): each table is named with the database's suffix, and a view of the
//! plain name selects all of it, so queries written for rocprofv3's
//! databases (which name the views) run on cltap's. The column lists are
//! what the views and cltap read; constraints are left to the writer.

/// `(table, columns)`; every table also has `id INTEGER PRIMARY KEY` and
/// `guid TEXT` (but `rocpd_metadata`, which has no `guid`).
pub const TABLES: &[(&str, &str)] = &[
    ("rocpd_metadata", "tag TEXT NOT NULL, value TEXT NOT NULL"),
    ("rocpd_string", "string TEXT NOT NULL UNIQUE"),
    (
        "rocpd_info_node",
        "hash BIGINT NOT NULL, machine_id TEXT NOT NULL, name TEXT, system_name TEXT, hostname TEXT, \
         release TEXT, version TEXT, hardware_name TEXT, domain_name TEXT",
    ),
    (
        "rocpd_info_process",
        "nid INTEGER NOT NULL, ppid INTEGER, pid INTEGER NOT NULL, name TEXT, init BIGINT, fini BIGINT, \
         start BIGINT, end BIGINT, command TEXT, environment JSONB DEFAULT '{}' NOT NULL, \
         extdata JSONB DEFAULT '{}' NOT NULL",
    ),
    (
        "rocpd_info_thread",
        "nid INTEGER NOT NULL, ppid INTEGER, pid INTEGER NOT NULL, tid INTEGER NOT NULL, name TEXT, \
         start BIGINT, end BIGINT, extdata JSONB DEFAULT '{}' NOT NULL",
    ),
    (
        "rocpd_info_agent",
        "nid INTEGER NOT NULL, pid INTEGER NOT NULL, type TEXT, absolute_index INTEGER, \
         logical_index INTEGER, type_index INTEGER, uuid INTEGER, name TEXT, generic_name TEXT, \
         model_name TEXT, vendor_name TEXT, product_name TEXT, extdata JSONB DEFAULT '{}' NOT NULL",
    ),
    ("rocpd_info_queue", "nid INTEGER NOT NULL, pid INTEGER NOT NULL, name TEXT, extdata JSONB DEFAULT '{}' NOT NULL"),
    ("rocpd_info_stream", "nid INTEGER NOT NULL, pid INTEGER NOT NULL, name TEXT, extdata JSONB DEFAULT '{}' NOT NULL"),
    (
        "rocpd_info_pmc",
        "nid INTEGER NOT NULL, pid INTEGER NOT NULL, agent_id INTEGER, target_arch TEXT, event_code INT, \
         instance_id INTEGER, name TEXT NOT NULL, symbol TEXT NOT NULL, description TEXT, \
         long_description TEXT DEFAULT '', component TEXT, units TEXT DEFAULT '', value_type TEXT, \
         block TEXT, expression TEXT, is_constant INTEGER, is_derived INTEGER, \
         extdata JSONB DEFAULT '{}' NOT NULL",
    ),
    (
        "rocpd_info_code_object",
        "nid INTEGER NOT NULL, pid INTEGER NOT NULL, agent_id INTEGER, uri TEXT, load_base BIGINT, \
         load_size BIGINT, load_delta BIGINT, storage_type TEXT, extdata JSONB DEFAULT '{}' NOT NULL",
    ),
    (
        "rocpd_info_kernel_symbol",
        "nid INTEGER NOT NULL, pid INTEGER NOT NULL, code_object_id INTEGER NOT NULL, kernel_name TEXT, \
         display_name TEXT, kernel_object INTEGER, kernarg_segment_size INTEGER, \
         kernarg_segment_alignment INTEGER, group_segment_size INTEGER, private_segment_size INTEGER, \
         sgpr_count INTEGER, arch_vgpr_count INTEGER, accum_vgpr_count INTEGER, \
         extdata JSONB DEFAULT '{}' NOT NULL",
    ),
    (
        "rocpd_track",
        "nid INTEGER NOT NULL, ppid INTEGER, pid INTEGER, tid INTEGER, agent_id INTEGER, queue_id INTEGER, \
         stream_id INTEGER, name_id INTEGER, extdata JSONB DEFAULT '{}' NOT NULL",
    ),
    ("rocpd_timestamp", "value BIGINT NOT NULL, phase INTEGER, track_id INTEGER"),
    (
        "rocpd_event",
        "category_id INTEGER, stack_id INTEGER, parent_stack_id INTEGER, correlation_id INTEGER, \
         call_stack JSONB DEFAULT '{}' NOT NULL, line_info JSONB DEFAULT '{}' NOT NULL, \
         extdata JSONB DEFAULT '{}' NOT NULL",
    ),
    (
        "rocpd_arg",
        "event_id INTEGER NOT NULL, position INTEGER NOT NULL, type TEXT NOT NULL, name TEXT NOT NULL, \
         value TEXT, extdata JSONB DEFAULT '{}' NOT NULL",
    ),
    (
        "rocpd_pmc_event",
        "event_id INTEGER, pmc_id INTEGER NOT NULL, value REAL DEFAULT 0.0, extdata JSONB DEFAULT '{}'",
    ),
    (
        "rocpd_region",
        "track_id INTEGER NOT NULL, name_id INTEGER NOT NULL, start_id INTEGER NOT NULL, end_id INTEGER NOT NULL, \
         event_id INTEGER, extdata JSONB DEFAULT '{}' NOT NULL",
    ),
    (
        "rocpd_sample",
        "track_id INTEGER NOT NULL, name_id INTEGER NOT NULL, timestamp_id INTEGER NOT NULL, event_id INTEGER, \
         extdata JSONB DEFAULT '{}' NOT NULL",
    ),
    (
        "rocpd_kernel_dispatch",
        "track_id INTEGER NOT NULL, kernel_id INTEGER NOT NULL, dispatch_id INTEGER NOT NULL, \
         start_id INTEGER NOT NULL, end_id INTEGER NOT NULL, private_segment_size INTEGER, \
         group_segment_size INTEGER, workgroup_size_x INTEGER NOT NULL, workgroup_size_y INTEGER NOT NULL, \
         workgroup_size_z INTEGER NOT NULL, grid_size_x INTEGER NOT NULL, grid_size_y INTEGER NOT NULL, \
         grid_size_z INTEGER NOT NULL, region_name_id INTEGER, event_id INTEGER, \
         extdata JSONB DEFAULT '{}' NOT NULL",
    ),
    (
        "rocpd_memory_copy",
        "track_id INTEGER NOT NULL, start_id INTEGER NOT NULL, end_id INTEGER NOT NULL, name_id INTEGER NOT NULL, \
         dst_agent_id INTEGER, dst_address INTEGER, src_agent_id INTEGER, src_address INTEGER, \
         size INTEGER NOT NULL, region_name_id INTEGER, event_id INTEGER, extdata JSONB DEFAULT '{}' NOT NULL",
    ),
    (
        "rocpd_memory_allocate",
        "track_id INTEGER NOT NULL, type TEXT, level TEXT, start_id INTEGER NOT NULL, end_id INTEGER NOT NULL, \
         name_id INTEGER NOT NULL, address INTEGER, size INTEGER NOT NULL, region_name_id INTEGER, \
         event_id INTEGER, extdata JSONB DEFAULT '{}' NOT NULL",
    ),
];

/// The schema version these tables follow.
pub const SCHEMA_VERSION: &str = "3";

/// The statements that make the tables (named `<table><suffix>`) and
/// their plain-named views.
pub fn ddl(suffix: &str, guid: &str) -> String {
    let mut s = String::new();
    for (t, cols) in TABLES {
        let guid_col =
            if *t == "rocpd_metadata" { String::new() } else { format!("guid TEXT DEFAULT '{guid}' NOT NULL, ") };
        s +=
            &format!("CREATE TABLE `{t}{suffix}` (id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, {guid_col}{cols});\n");
        s += &format!("CREATE VIEW `{t}` AS SELECT * FROM `{t}{suffix}`;\n");
    }
    s
}
