//! The API log's `#` comment lines for records that are not calls (HSA
//! dispatches, agents, copies, counters, kernels, windows, cltap's notes)
//! and for records no function table describes. Rare next to calls: plain
//! `format!`.

use crate::trace::record::View;
use std::fmt::Write;

/// The comment for a record that is not a call, or for a call no table
/// describes; `None` for a call of a known function.
pub fn comment(v: &View<'_>) -> Option<String> {
    use cltap_formats::cltrace::record::*;
    Some(match v.header.kind {
        KIND_HSA_DISPATCH => dispatch_text(v),
        KIND_HSA_COPY => copy_text(v),
        KIND_HSA_AGENT => agent_text(v),
        KIND_HSA_COUNTERS => counters_text(v),
        KIND_COUNTER_PLAN => plan_text(v),
        KIND_KERNEL_INFO => kernel_info_text(v),
        KIND_HSA_KERNEL => kernel_text(v),
        KIND_WINDOW => window_text(v),
        KIND_NOTE => format!("cltap: {}", v.kernel_name().unwrap_or_default()),
        _ if crate::meta::function(v.header.kind, v.header.fn_id).is_none() => unknown(v),
        _ => return None,
    })
}

/// The comment that stands for a record no table describes.
pub(super) fn unknown(v: &View<'_>) -> String {
    match crate::meta::functions(v.header.kind) {
        Some(_) => format!("unknown function id {}", v.header.fn_id),
        None => format!("unknown record kind {} (function id {})", v.header.kind, v.header.fn_id),
    }
}

/// The API log's comment for an async copy's times (`KIND_HSA_COPY`):
/// `async copy N of thread T: start S end E ns` (the runtime's clock), N
/// counting that thread's `hsa_amd_memory_async_copy` calls from 0
/// (`async copy_rect N …` for `hsa_amd_memory_async_copy_rect`).
fn copy_text(v: &View<'_>) -> String {
    let c = crate::decode::Copy::of(v);
    let what = if c.which == cltap_formats::cltrace::record::COPY_RECT { "async copy_rect" } else { "async copy" };
    format!("{what} {} of thread {}: start {} end {} ns", c.ordinal, c.tid, v.header.t0, v.header.t1)
}

/// The API log's comment for an HSA agent record (`KIND_HSA_AGENT`):
/// `HSA agent N: NAME (GPU 0) at 0x…: 60 compute units, 4 SIMDs per CU,
/// 4 shader engines, wavefront 64, 40 waves per CU, 1500 MHz`.
fn agent_text(v: &View<'_>) -> String {
    let a = crate::decode::Agent::of(v);
    let kind = match a.device {
        0 => "CPU",
        1 => "GPU",
        2 => "DSP",
        _ => "agent",
    };
    format!(
        "HSA agent {}: {} ({kind} {}) at 0x{:016X}: {} compute units, {} SIMDs per CU, {} shader engines, wavefront {}, {} waves per CU, {} MHz",
        v.header.cmd_id,
        v.kernel_name().unwrap_or_default(),
        a.index,
        a.handle,
        a.compute_units,
        a.simds_per_cu,
        a.shader_engines,
        a.wavefront_size,
        a.max_waves_per_cu,
        a.max_clock_mhz
    )
}

/// The API log's comment for a dispatch's hardware counters
/// (`KIND_HSA_COUNTERS`): `counters of dispatch N (pass P): SQ[0]:4 = 16,
/// TCC[3]:20 = 4` (block, instance and event id, and the summed value).
fn counters_text(v: &View<'_>) -> String {
    let c = crate::decode::Counters::of(v);
    let mut t = format!("counters of dispatch {} (pass {}):", v.header.cmd_id, c.pass);
    for (i, (event, value)) in c.values.iter().enumerate() {
        let _ = write!(
            t,
            "{} {} = {}",
            if i == 0 { "" } else { "," },
            crate::metrics::event_label(&crate::hsa::aqlprofile::unpack(*event)),
            value
        );
    }
    t
}

/// The API log's comment for the counter request (`KIND_COUNTER_PLAN`):
/// `counters SQ_WAVES,GPUBusy: pass P of N`.
fn plan_text(v: &View<'_>) -> String {
    let passes = crate::decode::Plan::of(v).passes;
    let names = v.kernel_name().unwrap_or_default();
    if passes == 0 {
        format!("counters {names}: no device can count them")
    } else {
        format!("counters {names}: pass {} of {passes}", v.header.cmd_id)
    }
}

/// The API log's comment for an NDRange's kernel statistics
/// (`KIND_KERNEL_INFO`): `kernel NAME on DEVICE for CMD ID n: local memory
/// L, private memory P, preferred work-group multiple M, work-group size W`.
fn kernel_info_text(v: &View<'_>) -> String {
    let names = v.kernel_name().unwrap_or_default();
    let (kernel, device) = names.split_once('\t').unwrap_or((&names, ""));
    let k = crate::decode::KernelInfo::of(v);
    let w = |x: Option<u64>| x.map_or_else(|| "?".to_string(), |x| x.to_string());
    format!(
        "kernel {kernel} on {device} for CMD ID {}: local memory {}, private memory {}, preferred work-group multiple {}, work-group size {}",
        v.header.cmd_id,
        w(k.local_mem),
        w(k.private_mem),
        w(k.preferred_multiple),
        w(k.work_group_size)
    )
}

/// The API log's comment for a kernel object's descriptor
/// (`KIND_HSA_KERNEL`): `kernel object 0x…: NAME, VGPRs V, SGPRs S, LDS L,
/// scratch P` (registers: gfx9 allocation granules).
fn kernel_text(v: &View<'_>) -> String {
    let kd = crate::decode::kernel_descriptor(v);
    format!(
        "kernel object 0x{:016X}: {}, VGPRs {}, SGPRs {}, LDS {}, scratch {}",
        v.header.cmd_id,
        v.kernel_name().unwrap_or_default(),
        kd.gfx9_vgprs(),
        kd.gfx9_sgprs(),
        kd.group_segment_fixed_size,
        kd.private_segment_fixed_size
    )
}

/// The API log's comment for an HSA dispatch record (`KIND_HSA_DISPATCH`):
/// `dispatch N: kernel_object 0x… [kernel NAME] on agent 0x…, queue Q index I: grid
/// (x,y,z) workgroup (x,y,z) private P group G, dispatch D begin B end E
/// complete C ns` (times in the HSA system clock's ns, 0 when not taken).
fn dispatch_text(v: &View<'_>) -> String {
    let d = crate::decode::Dispatch::of(v);
    let h = &v.header;
    // The name, when the runtime's loader could tell it.
    let name = v.kernel_name().map(|n| format!(" kernel {n}")).unwrap_or_default();
    format!(
        "dispatch {}: kernel_object 0x{:016X}{name} on agent 0x{:016X}, queue {} index {}: grid ({},{},{}) workgroup ({},{},{}) private {} group {}, dispatch {} begin {} end {} complete {} ns",
        h.cmd_id,
        d.kernel_object,
        d.agent,
        d.queue_id,
        d.queue_index,
        d.grid[0],
        d.grid[1],
        d.grid[2],
        d.workgroup[0],
        d.workgroup[1],
        d.workgroup[2],
        d.private_segment,
        d.group_segment,
        d.time_dispatch,
        h.t0,
        h.t1,
        d.time_complete
    )
}

/// The API log's comment for a collection window's change
/// (`KIND_WINDOW`): `window 2 opened (cltap_resume)`.
fn window_text(v: &View<'_>) -> String {
    use cltap_formats::cltrace::record::WINDOW_OPEN;
    let open = v.args.first() == Some(&WINDOW_OPEN);
    let why = crate::window::spans::Reason::text(v.args.get(1).copied().unwrap_or(u64::MAX), open);
    format!("window {} {} ({why})", v.header.cmd_id, if open { "opened" } else { "closed" })
}
