//! rocpd's convenience views, by the names, columns and meaning of
//! rocprofiler-sdk's (`data_views.sql` and `summary_views.sql` at commit
//! `19d33bb3`, the one [`super::schema`] follows), written here over the
//! plain-named views of the tables, so that a query written for
//! rocprofv3's databases (`SELECT * FROM top_kernels`) runs on cltap's.
//!
//! Three of them do not run at that commit against its own tables and are
//! made here as they were meant: `kernel_pmc_events` (each kernel dispatch
//! with each of its counter values), `busy` (per agent, the time its
//! kernels and the copies into it took, over the wall time from the first
//! start to the last end of all of them), which reads the agent from the
//! dispatch's or copy's track and the times through `rocpd_timestamp`, as
//! schema version 3 stores them, and `scratch_memory`, whose flags come
//! from the allocation's own `extdata` (`memory_allocations` has none).

/// The views, in an order where each names only earlier ones.
pub const VIEWS: &str = r#"
CREATE VIEW `tracks` AS
SELECT tr.id, tr.guid, tr.name_id AS track_name_id, s.string AS track_name,
  tr.nid, n.name AS node_name, n.hash AS node_hash, n.machine_id AS node_machine_id,
  n.system_name AS node_system_name, n.hostname AS node_hostname, n.release AS node_release,
  n.version AS node_version, n.hardware_name AS node_hardware_version,
  tr.pid, p.name AS process_name, p.ppid, p.init AS process_init, p.fini AS process_fini,
  p.start AS process_start, p.end AS process_end, p.command AS process_command,
  tr.tid, th.name AS thread_name, th.start AS thread_start, th.end AS thread_end,
  tr.agent_id, a.name AS agent_name, a.type AS agent_type, a.absolute_index AS agent_absolute_index,
  a.logical_index AS agent_logical_index, a.type_index AS agent_type_index, a.uuid AS agent_uuid,
  a.generic_name AS agent_generic_name, a.model_name AS agent_model_name,
  a.vendor_name AS agent_vendor_name, a.product_name AS agent_product_name,
  tr.queue_id, q.name AS queue_name, tr.stream_id, st.name AS stream_name
FROM rocpd_track tr
LEFT JOIN rocpd_info_node n ON n.id = tr.nid AND n.guid = tr.guid
LEFT JOIN rocpd_info_process p ON p.pid = tr.pid AND p.guid = tr.guid
LEFT JOIN rocpd_info_thread th ON th.tid = tr.tid AND th.guid = tr.guid
LEFT JOIN rocpd_info_agent a ON a.id = tr.agent_id AND a.guid = tr.guid
LEFT JOIN rocpd_info_queue q ON q.id = tr.queue_id AND q.guid = tr.guid
LEFT JOIN rocpd_info_stream st ON st.id = tr.stream_id AND st.guid = tr.guid
LEFT JOIN rocpd_string s ON s.id = tr.name_id AND s.guid = tr.guid;

CREATE VIEW `events` AS
SELECT ev.id, ev.guid, ev.category_id, c.string AS category, ev.stack_id, ev.parent_stack_id,
  ev.correlation_id, ev.call_stack, ev.line_info, ev.extdata
FROM rocpd_event ev
LEFT JOIN rocpd_string c ON c.id = ev.category_id AND c.guid = ev.guid;

CREATE VIEW `regions` AS
SELECT r.id, r.guid, ev.category, nm.string AS name, tr.nid, tr.pid, tr.tid,
  t0.value AS `start`, t1.value AS `end`, t1.value - t0.value AS duration,
  r.event_id, r.track_id, ev.stack_id, ev.parent_stack_id, ev.correlation_id,
  ev.call_stack, ev.line_info, ev.extdata
FROM rocpd_region r
JOIN events ev ON ev.id = r.event_id AND ev.guid = r.guid
JOIN tracks tr ON tr.id = r.track_id AND tr.guid = r.guid
JOIN rocpd_string nm ON nm.id = r.name_id AND nm.guid = r.guid
JOIN rocpd_timestamp t0 ON t0.id = r.start_id AND t0.guid = r.guid
JOIN rocpd_timestamp t1 ON t1.id = r.end_id AND t1.guid = r.guid;

CREATE VIEW `kernels` AS
SELECT kd.id, kd.guid, tr.nid, tr.pid, tr.tid, ev.category, rn.string AS region,
  sym.display_name AS name, tr.agent_absolute_index, tr.agent_logical_index,
  tr.agent_type_index, tr.agent_type, sym.code_object_id, kd.kernel_id, kd.dispatch_id,
  tr.queue_id, tr.queue_name AS `queue`, tr.stream_id, tr.stream_name AS `stream`,
  t0.value AS `start`, t1.value AS `end`, t1.value - t0.value AS duration,
  kd.event_id, kd.track_id,
  kd.grid_size_x AS grid_x, kd.grid_size_y AS grid_y, kd.grid_size_z AS grid_z,
  kd.workgroup_size_x AS workgroup_x, kd.workgroup_size_y AS workgroup_y,
  kd.workgroup_size_z AS workgroup_z,
  kd.group_segment_size AS lds_size, kd.private_segment_size AS scratch_size,
  sym.arch_vgpr_count AS vgpr_count, sym.accum_vgpr_count, sym.sgpr_count,
  sym.group_segment_size AS static_lds_size, sym.private_segment_size AS static_scratch_size,
  ev.stack_id, ev.parent_stack_id, ev.correlation_id
FROM rocpd_kernel_dispatch kd
JOIN tracks tr ON tr.id = kd.track_id AND tr.guid = kd.guid
JOIN events ev ON ev.id = kd.event_id AND ev.guid = kd.guid
JOIN rocpd_string rn ON rn.id = kd.region_name_id AND rn.guid = kd.guid
JOIN rocpd_info_kernel_symbol sym ON sym.id = kd.kernel_id AND sym.guid = kd.guid
JOIN rocpd_timestamp t0 ON t0.id = kd.start_id AND t0.guid = kd.guid
JOIN rocpd_timestamp t1 ON t1.id = kd.end_id AND t1.guid = kd.guid;

CREATE VIEW `pmc_events` AS
SELECT pe.id, pe.guid, pe.pmc_id, pe.event_id, ev.category_id, ev.category,
  pi.name, pi.symbol, pe.value, pi.description, pi.agent_id, pi.target_arch, pi.event_code,
  pi.instance_id, pi.long_description, pi.component, pi.units, pi.value_type, pi.block,
  pi.expression, pi.is_constant, pi.is_derived,
  pi.extdata AS pmc_info_extdata, pe.extdata AS pmc_event_extdata
FROM rocpd_pmc_event pe
JOIN rocpd_info_pmc pi ON pi.id = pe.pmc_id AND pi.guid = pe.guid
JOIN events ev ON ev.id = pe.event_id AND ev.guid = pe.guid;

CREATE VIEW `kernel_pmc_events` AS
SELECT k.id, k.guid, k.nid, k.pid, k.tid, k.category, k.region, k.name,
  k.agent_absolute_index, k.agent_logical_index, k.agent_type_index, k.agent_type,
  k.code_object_id, k.kernel_id, k.dispatch_id, k.queue_id, k.`queue`, k.stream_id, k.`stream`,
  k.`start`, k.`end`, k.duration, k.event_id, k.track_id,
  k.grid_x, k.grid_y, k.grid_z, k.workgroup_x, k.workgroup_y, k.workgroup_z,
  k.lds_size, k.scratch_size, k.static_lds_size, k.static_scratch_size,
  k.stack_id, k.parent_stack_id, k.correlation_id,
  pm.pmc_id, pm.name AS pmc_name, pm.symbol AS pmc_symbol, pm.value AS pmc_value,
  pm.description AS pmc_description, pm.agent_id AS pmc_agent_id,
  pm.target_arch AS pmc_target_arch, pm.event_code AS pmc_event_code,
  pm.instance_id AS pmc_instance_id, pm.long_description AS pmc_long_description,
  pm.component AS pmc_component, pm.units AS pmc_units, pm.value_type AS pmc_value_type,
  pm.block AS pmc_block, pm.expression AS pmc_expression,
  pm.is_constant AS pmc_is_constant, pm.is_derived AS pmc_is_derived
FROM kernels k
JOIN pmc_events pm ON pm.event_id = k.event_id AND pm.guid = k.guid;

CREATE VIEW `memory_copies` AS
SELECT mc.id, mc.guid, tr.nid, tr.pid, tr.tid, ev.id AS event_id, ev.category,
  nm.string AS name, rn.string AS region_name,
  t0.value AS `start`, t1.value AS `end`, t1.value - t0.value AS duration,
  tr.queue_id, tr.queue_name, tr.stream_id, tr.stream_name, mc.size,
  da.name AS dst_device, da.absolute_index AS dst_agent_absolute_index,
  da.logical_index AS dst_agent_logical_index, da.type_index AS dst_agent_type_index,
  da.type AS dst_agent_type, mc.dst_address,
  sa.name AS src_device, sa.absolute_index AS src_agent_absolute_index,
  sa.logical_index AS src_agent_logical_index, sa.type_index AS src_agent_type_index,
  sa.type AS src_agent_type, mc.src_address,
  ev.stack_id, ev.parent_stack_id, ev.correlation_id
FROM rocpd_memory_copy mc
JOIN events ev ON ev.id = mc.event_id AND ev.guid = mc.guid
JOIN tracks tr ON tr.id = mc.track_id AND tr.guid = mc.guid
JOIN rocpd_string nm ON nm.id = mc.name_id AND nm.guid = mc.guid
LEFT JOIN rocpd_string rn ON rn.id = mc.region_name_id AND rn.guid = mc.guid
JOIN rocpd_info_agent da ON da.id = mc.dst_agent_id AND da.guid = mc.guid
JOIN rocpd_info_agent sa ON sa.id = mc.src_agent_id AND sa.guid = mc.guid
JOIN rocpd_timestamp t0 ON t0.id = mc.start_id AND t0.guid = mc.guid
JOIN rocpd_timestamp t1 ON t1.id = mc.end_id AND t1.guid = mc.guid;

CREATE VIEW `memory_allocations` AS
SELECT ma.id, ma.guid, tr.nid, tr.pid, tr.tid, ev.id AS event_id, ev.category,
  nm.string AS name, rn.string AS region_name,
  t0.value AS `start`, t1.value AS `end`, t1.value - t0.value AS duration,
  tr.queue_id, tr.queue_name, tr.stream_id, tr.stream_name, ma.size, ma.type, ma.level,
  tr.agent_name, tr.agent_absolute_index, tr.agent_logical_index, tr.agent_type_index,
  tr.agent_type, ma.address, ev.stack_id, ev.parent_stack_id, ev.correlation_id
FROM rocpd_memory_allocate ma
JOIN events ev ON ev.id = ma.event_id AND ev.guid = ma.guid
JOIN tracks tr ON tr.id = ma.track_id AND tr.guid = ma.guid
JOIN rocpd_string nm ON nm.id = ma.name_id AND nm.guid = ma.guid
LEFT JOIN rocpd_string rn ON rn.id = ma.region_name_id AND rn.guid = ma.guid
JOIN rocpd_timestamp t0 ON t0.id = ma.start_id AND t0.guid = ma.guid
JOIN rocpd_timestamp t1 ON t1.id = ma.end_id AND t1.guid = ma.guid;

CREATE VIEW `scratch_memory` AS
SELECT m.*, json_extract(ma.extdata, '$.flags') AS alloc_flags
FROM memory_allocations m
JOIN rocpd_memory_allocate ma ON ma.id = m.id AND ma.guid = m.guid
WHERE m.level = 'SCRATCH';

CREATE VIEW `top_kernels` AS
SELECT k.name, COUNT(k.kernel_id) AS total_calls,
  SUM(k.duration) / 1000.0 AS total_duration,
  (SUM(k.duration) / COUNT(k.kernel_id)) / 1000.0 AS average,
  SUM(k.duration) * 100.0 / (SELECT SUM(duration) FROM kernels) AS percentage
FROM kernels k
GROUP BY k.name
ORDER BY total_duration DESC;

CREATE VIEW `busy` AS
WITH device_time(agent_id, guid, `start`, `end`) AS (
  SELECT tr.agent_id, k.guid, k.`start`, k.`end` FROM kernels k JOIN rocpd_track tr ON tr.id = k.track_id
  UNION ALL
  SELECT mc.dst_agent_id, mc.guid, t0.value, t1.value FROM rocpd_memory_copy mc
  JOIN rocpd_timestamp t0 ON t0.id = mc.start_id
  JOIN rocpd_timestamp t1 ON t1.id = mc.end_id
)
SELECT per.agent_id, ag.type, per.GpuTime, wall.WallTime, per.GpuTime * 1.0 / wall.WallTime AS Busy
FROM (SELECT agent_id, guid, SUM(`end` - `start`) AS GpuTime FROM device_time GROUP BY agent_id, guid) per
CROSS JOIN (SELECT MAX(`end`) - MIN(`start`) AS WallTime FROM device_time) wall
JOIN rocpd_info_agent ag ON ag.id = per.agent_id AND ag.guid = per.guid;

CREATE VIEW `top` AS
WITH ops(name, duration) AS (
  SELECT name, duration FROM kernels
  UNION ALL SELECT name, duration FROM memory_copies
  UNION ALL SELECT name, duration FROM regions
)
SELECT name, COUNT(*) AS total_calls, SUM(duration) / 1000.0 AS total_duration,
  (SUM(duration) / COUNT(*)) / 1000.0 AS average,
  SUM(duration) * 100.0 / (SELECT SUM(duration) FROM ops) AS percentage
FROM ops
GROUP BY name
ORDER BY total_duration DESC;
"#;

/// Every view [`VIEWS`] makes.
pub const NAMES: &[&str] = &[
    "tracks",
    "events",
    "regions",
    "kernels",
    "pmc_events",
    "kernel_pmc_events",
    "memory_copies",
    "memory_allocations",
    "scratch_memory",
    "top_kernels",
    "busy",
    "top",
];
