-- rocpd's own view definitions, run by tests/rocpd.rs over cltap's databases.
--
-- Origin: ROCm/rocprofiler-sdk, commit 19d33bb304b35d94a2a082f6771d918408e0c848,
--   source/share/rocprofiler-sdk-rocpd/data_views.sql  (tracks, events, regions,
--     kernels, pmc_events, memory_copies, memory_allocations, scratch_memory)
--   source/share/rocprofiler-sdk-rocpd/summary_views.sql  (top_kernels, top)
-- copied unchanged, in that order. License: MIT, Copyright (c) 2023 Advanced
-- Micro Devices, Inc. (the repository's LICENSE: permission is granted to
-- copy, with this notice).
--
-- Left out, as they do not run at that commit against its own tables
-- (rocpd_tables.sql): `kernel_pmc_events` (a comma is missing after
-- `K.correlation_id`), `busy` (it names `kernels.agent_id` and
-- `rocpd_memory_copy.start`/`end`, which that schema version no longer has).
-- The plain-named views of each table (rocpd_views.sql) are made by cltap's
-- writer itself.

CREATE VIEW IF NOT EXISTS
    `tracks` AS
SELECT
    T.id,
    T.guid,
    T.name_id AS track_name_id,
    ST.string AS track_name,
    T.nid,
    N.name AS node_name,
    N.hash AS node_hash,
    N.machine_id AS node_machine_id,
    N.system_name AS node_system_name,
    N.hostname AS node_hostname,
    N.release AS node_release,
    N.version AS node_version,
    N.hardware_name AS node_hardware_version,
    T.pid,
    P.name AS process_name,
    P.ppid,
    P.init AS process_init,
    P.fini AS process_fini,
    P.start AS process_start,
    P.end AS process_end,
    P.command AS process_command,
    T.tid,
    TH.name AS thread_name,
    TH.start AS thread_start,
    TH.end AS thread_end,
    T.agent_id,
    A.name AS agent_name,
    A.type AS agent_type,
    A.absolute_index AS agent_absolute_index,
    A.logical_index AS agent_logical_index,
    A.type_index AS agent_type_index,
    A.uuid AS agent_uuid,
    A.generic_name AS agent_generic_name,
    A.model_name AS agent_model_name,
    A.vendor_name AS agent_vendor_name,
    A.product_name AS agent_product_name,
    T.queue_id,
    Q.name AS queue_name,
    T.stream_id,
    S.name AS stream_name
FROM
    `rocpd_track` T
    LEFT JOIN `rocpd_info_node` N ON N.id = T.nid
    AND N.guid = T.guid
    LEFT JOIN `rocpd_info_process` P ON P.pid = T.pid
    AND P.guid = T.guid
    LEFT JOIN `rocpd_info_thread` TH ON TH.tid = T.tid
    AND TH.guid = T.guid
    LEFT JOIN `rocpd_info_agent` A ON A.id = T.agent_id
    AND A.guid = T.guid
    LEFT JOIN `rocpd_info_queue` Q ON Q.id = T.queue_id
    AND Q.guid = T.guid
    LEFT JOIN `rocpd_info_stream` S ON S.id = T.stream_id
    AND S.guid = T.guid
    LEFT JOIN `rocpd_string` ST ON ST.id = T.name_id
    AND ST.guid = T.guid;

--
-- This is a view of all the joined event information
CREATE VIEW IF NOT EXISTS
    `events` AS
SELECT
    E.id,
    E.guid,
    E.category_id,
    (
        SELECT
            string
        FROM
            `rocpd_string` RS
        WHERE
            RS.id = E.category_id
            AND RS.guid = E.guid
    ) AS category,
    E.stack_id,
    E.parent_stack_id,
    E.correlation_id,
    E.call_stack,
    E.line_info,
    E.extdata
FROM
    `rocpd_event` E;

-- CPU regions
CREATE VIEW IF NOT EXISTS
    `regions` AS
SELECT
    R.id,
    R.guid,
    E.category,
    NS.string AS name,
    T.nid,
    T.pid,
    T.tid,
    DS.value AS `start`,
    DE.value AS `end`,
    (DE.value - DS.value) AS `duration`,
    R.event_id,
    R.track_id,
    E.stack_id,
    E.parent_stack_id,
    E.correlation_id,
    E.call_stack,
    E.line_info,
    E.extdata
FROM
    `rocpd_region` R
    INNER JOIN `events` E ON E.id = R.event_id
    AND E.guid = R.guid
    INNER JOIN `tracks` T ON T.id = R.track_id
    AND T.guid = R.guid
    INNER JOIN `rocpd_string` NS ON NS.id = R.name_id
    AND NS.guid = R.guid
    INNER JOIN `rocpd_timestamp` DS ON DS.id = R.start_id
    AND DS.guid = R.guid
    INNER JOIN `rocpd_timestamp` DE ON DE.id = R.end_id
    AND DE.guid = R.guid;

--
-- Kernel information
CREATE VIEW
    `kernels` AS
SELECT
    K.id,
    K.guid,
    T.nid,
    T.pid,
    T.tid,
    E.category,
    R.string AS region,
    S.display_name AS name,
    T.agent_absolute_index,
    T.agent_logical_index,
    T.agent_type_index,
    T.agent_type,
    S.code_object_id,
    K.kernel_id,
    K.dispatch_id,
    T.queue_id,
    T.queue_name AS `queue`,
    T.stream_id,
    T.stream_name AS `stream`,
    DS.value AS `start`,
    DE.value AS `end`,
    (DE.value - DS.value) AS `duration`,
    K.event_id,
    K.track_id,
    K.grid_size_x AS grid_x,
    K.grid_size_y AS grid_y,
    K.grid_size_z AS grid_z,
    K.workgroup_size_x AS workgroup_x,
    K.workgroup_size_y AS workgroup_y,
    K.workgroup_size_z AS workgroup_z,
    K.group_segment_size AS lds_size,
    K.private_segment_size AS scratch_size,
    S.arch_vgpr_count AS vgpr_count,
    S.accum_vgpr_count,
    S.sgpr_count,
    S.group_segment_size AS static_lds_size,
    S.private_segment_size AS static_scratch_size,
    E.stack_id,
    E.parent_stack_id,
    E.correlation_id
FROM
    `rocpd_kernel_dispatch` K
    INNER JOIN `tracks` T ON T.id = K.track_id
    AND T.guid = K.guid
    INNER JOIN `events` E ON E.id = K.event_id
    AND E.guid = K.guid
    INNER JOIN `rocpd_string` R ON R.id = K.region_name_id
    AND R.guid = K.guid
    INNER JOIN `rocpd_info_kernel_symbol` S ON S.id = K.kernel_id
    AND S.guid = K.guid
    INNER JOIN `rocpd_timestamp` DS ON DS.id = K.start_id
    AND DS.guid = K.guid
    INNER JOIN `rocpd_timestamp` DE ON DE.id = K.end_id
    AND DE.guid = K.guid;

CREATE VIEW IF NOT EXISTS
    `pmc_events` AS
SELECT
    PMC_E.id,
    PMC_E.guid,
    PMC_E.pmc_id,
    PMC_E.event_id,
    E.category_id,
    E.category,
    PMC_I.name,
    PMC_I.symbol,
    PMC_E.value,
    PMC_I.description,
    PMC_I.agent_id,
    PMC_I.target_arch,
    PMC_I.event_code,
    PMC_I.instance_id,
    PMC_I.long_description,
    PMC_I.component,
    PMC_I.units,
    PMC_I.value_type,
    PMC_I.block,
    PMC_I.expression,
    PMC_I.is_constant,
    PMC_I.is_derived,
    PMC_I.extdata AS pmc_info_extdata,
    PMC_E.extdata AS pmc_event_extdata
FROM
    `rocpd_pmc_event` PMC_E
    INNER JOIN `rocpd_info_pmc` PMC_I ON PMC_I.id = PMC_E.pmc_id
    AND PMC_I.guid = PMC_E.guid
    INNER JOIN `events` E ON E.id = PMC_E.event_id
    AND E.guid = PMC_E.guid;

--
--
CREATE VIEW IF NOT EXISTS
    `memory_copies` AS
SELECT
    M.id,
    M.guid,
    T.nid,
    T.pid,
    T.tid,
    E.id AS event_id,
    E.category,
    NS.string AS name,
    R.string AS region_name,
    DS.value AS `start`,
    DE.value AS `end`,
    (DE.value - DS.value) AS `duration`,
    T.queue_id,
    T.queue_name,
    T.stream_id,
    T.stream_name,
    M.size,
    dst_agent.name AS dst_device,
    dst_agent.absolute_index AS dst_agent_absolute_index,
    dst_agent.logical_index AS dst_agent_logical_index,
    dst_agent.type_index AS dst_agent_type_index,
    dst_agent.type AS dst_agent_type,
    M.dst_address,
    src_agent.name AS src_device,
    src_agent.absolute_index AS src_agent_absolute_index,
    src_agent.logical_index AS src_agent_logical_index,
    src_agent.type_index AS src_agent_type_index,
    src_agent.type AS src_agent_type,
    M.src_address,
    E.stack_id,
    E.parent_stack_id,
    E.correlation_id
FROM
    `rocpd_memory_copy` M
    INNER JOIN `events` E ON E.id = M.event_id
    AND E.guid = M.guid
    INNER JOIN `tracks` T ON T.id = M.track_id
    AND T.guid = M.guid
    INNER JOIN `rocpd_string` NS ON NS.id = M.name_id
    AND NS.guid = M.guid
    LEFT JOIN `rocpd_string` R ON R.id = M.region_name_id
    AND R.guid = M.guid
    INNER JOIN `rocpd_info_agent` dst_agent ON dst_agent.id = M.dst_agent_id
    AND dst_agent.guid = M.guid
    INNER JOIN `rocpd_info_agent` src_agent ON src_agent.id = M.src_agent_id
    AND src_agent.guid = M.guid
    INNER JOIN `rocpd_timestamp` DS ON DS.id = M.start_id
    AND DS.guid = M.guid
    INNER JOIN `rocpd_timestamp` DE ON DE.id = M.end_id
    AND DE.guid = M.guid;

--
--
CREATE VIEW IF NOT EXISTS
    `memory_allocations` AS
SELECT
    M.id,
    M.guid,
    T.nid,
    T.pid,
    T.tid,
    E.id AS event_id,
    E.category,
    NS.string AS name,
    R.string AS region_name,
    DS.value AS `start`,
    DE.value AS `end`,
    (DE.value - DS.value) AS `duration`,
    T.queue_id,
    T.queue_name,
    T.stream_id,
    T.stream_name,
    M.size,
    M.type,
    M.level,
    T.agent_name,
    T.agent_absolute_index,
    T.agent_logical_index,
    T.agent_type_index,
    T.agent_type,
    M.address,
    E.stack_id,
    E.parent_stack_id,
    E.correlation_id
FROM
    `rocpd_memory_allocate` M
    INNER JOIN `events` E ON E.id = M.event_id
    AND E.guid = M.guid
    INNER JOIN `tracks` T ON T.id = M.track_id
    AND E.guid = M.guid
    INNER JOIN `rocpd_string` NS ON NS.id = M.name_id
    AND NS.guid = M.guid
    LEFT JOIN `rocpd_string` R ON R.id = M.region_name_id
    AND R.guid = M.guid
    INNER JOIN `rocpd_timestamp` DS ON DS.id = M.start_id
    AND DS.guid = M.guid
    INNER JOIN `rocpd_timestamp` DE ON DE.id = M.end_id
    AND DE.guid = M.guid;

--
--
CREATE VIEW IF NOT EXISTS
    `scratch_memory` AS
SELECT
    M.*,
    JSON_EXTRACT(M.extdata, '$.flags') AS alloc_flags
FROM
    `memory_allocations` M
WHERE
    M.level = 'SCRATCH';

--
-- Sorted list of kernels which consume the most overall time
CREATE VIEW IF NOT EXISTS
    `top_kernels` AS
SELECT
    K.name,
    COUNT(K.kernel_id) AS total_calls,
    SUM(K.end - K.start) / 1000.0 AS total_duration,
    (SUM(K.end - K.start) / COUNT(K.kernel_id)) / 1000.0 AS average,
    SUM(K.end - K.start) * 100.0 / (
        SELECT
            SUM(A.end - A.start)
        FROM
            `kernels` A
    ) AS percentage
FROM
    `kernels` K
GROUP BY
    name
ORDER BY
    total_duration DESC;

--
-- Overall performance summary including kernels and memory copy operations
CREATE VIEW
    `top` AS
SELECT
    name,
    COUNT(*) AS total_calls,
    SUM(duration) / 1000.0 AS total_duration,
    (SUM(duration) / COUNT(*)) / 1000.0 AS average,
    SUM(duration) * 100.0 / total_time AS percentage
FROM
    (
        -- Kernel operations
        SELECT
            K.name,
            K.duration
        FROM
            `kernels` K
        UNION ALL
        -- Memory operations
        SELECT
            MC.name,
            MC.duration
        FROM
            `memory_copies` MC
        UNION ALL
        -- Regions
        SELECT
            R.name,
            R.duration
        FROM
            `regions` R
    ) operations
    CROSS JOIN (
        SELECT
            SUM(`end` - `start`) AS total_time
        FROM
            (
                SELECT
                    `end`,
                    `start`
                FROM
                    `kernels`
                UNION ALL
                SELECT
                    `end`,
                    `start`
                FROM
                    `memory_copies`
                UNION ALL
                SELECT
                    `end`,
                    `start`
                FROM
                    `regions`
            )
    ) TOTAL
GROUP BY
    name
ORDER BY
    total_duration DESC;
