//! `OnLoad`: the runtime hands cltap its API tables (`HsaApiTable`, which
//! points at the core, AMD-extension, finalizer and image tables). cltap
//! reads its configuration, starts the trace, and in each table saves every
//! entry and puts its wrapper in its place.
//!
//! Each table starts with an `ApiTableVersion`; ROCr sets its `minor_id` to
//! the size in bytes of the table it passes. A table smaller than the one
//! cltap was built for (an older runtime) gets only the entries it has; an
//! AMD-extension, image or finalizer table of another major version, or a
//! NULL one, is left alone. The core table is what cltap needs: if it is of
//! another major version (or the root table cannot hold it), `OnLoad` says
//! why on stderr, replaces nothing and returns false, so that the runtime
//! unloads cltap. An entry
//! that is NULL, or already cltap's wrapper (a second `OnLoad` on the same
//! table), is not replaced.

use super::api::{TableLayout, INIT, ROOT_BYTES, ROOT_MAJOR, TABLES, VERSION_BYTES};
use super::wrappers::{ORIG, WRAPPERS};
use crate::{bracket, life};
use std::sync::atomic::Ordering;

/// HSA's part in the end of the process: the counted dispatches still
/// running are waited for (bounded) before the tools end, and the intercept
/// handler's counts go to the summary.
static HSA: life::Front = life::Front { drain: drain_at_exit, notes: Vec::new, hsa: Some(summary_counts) };

fn drain_at_exit() {
    super::unload::wait_for_counted("exit");
}

fn summary_counts() -> cltap::summary::HsaExtra {
    cltap::summary::HsaExtra {
        packets: super::intercept::packet_counts().into_iter().map(|(k, n)| (k.to_string(), n)).collect(),
        kernels: super::intercept::kernel_counts(),
    }
}

/// `ApiTableVersion`, the head of `HsaApiTable` and of each table.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ApiTableVersion {
    pub major_id: u32,
    pub minor_id: u32,
    pub step_id: u32,
    pub reserved: u32,
}

const _: () = assert!(std::mem::size_of::<ApiTableVersion>() == VERSION_BYTES);
const _: () = assert!(ROOT_BYTES == VERSION_BYTES + 8 * TABLES.len());
const _: () = {
    let mut k = 0;
    while k < TABLES.len() {
        assert!(TABLES[k].bytes == VERSION_BYTES + 8 * TABLES[k].entries);
        k += 1;
    }
};

/// What `OnLoad` did with one table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Installed {
    /// Its pointer is NULL, the root table is too small to hold it, or it is
    /// zeroed (major version 0: the runtime lacks that extension).
    Absent,
    /// Another major version than cltap's: left alone.
    OtherMajor(u32),
    /// `n` entries replaced (of the `have` the table holds, at most cltap's).
    Entries { n: usize, have: usize },
}

/// `OnLoad(table, runtime_version, failed_tool_count, failed_tool_names)`.
/// False (after one stderr line saying why) when the core table is not one
/// cltap knows: the runtime then unloads cltap. With a bad setting
/// (reported once on stderr) it replaces nothing but returns true, and the
/// application runs as without it.
///
/// # Safety
/// `root` is the runtime's `HsaApiTable`, or NULL.
pub unsafe fn on_load(root: *mut ApiTableVersion) -> bool {
    // Named twice in HSA_TOOLS_LIB: once is enough, and the second answers
    // as the first did.
    if !super::once::first_load() {
        return super::once::first_answer();
    }
    // SAFETY: `load`'s # Safety follows from this fn's: `root` is the runtime's `HsaApiTable`, or NULL (# Safety).
    super::once::answered(unsafe { load(root) })
}

/// The first `OnLoad` of this image.
///
/// # Safety
/// `root` is the runtime's `HsaApiTable` as `OnLoad` receives it, writable, on the loading thread.
unsafe fn load(root: *mut ApiTableVersion) -> bool {
    // SAFETY: `other_copy`'s # Safety follows from this fn's.
    if let Some(theirs) = unsafe { super::once::other_copy(core_entry(root)) } {
        cltap::warn!(
            "HSA: {theirs} (cltap) already records this runtime's calls: this copy, {}, records nothing",
            super::once::own_file()
        );
        return true;
    }
    // The runtime closes its tools inside the last `hsa_shut_down`, whose
    // wrapper is then still running: the library must stay mapped.
    life::pin();
    debug_assert!(super::api::NAMES.iter().zip(cltap::meta::HSA_FUNCTIONS.iter()).all(|(a, b)| *a == b.name));
    life::join(&HSA);
    crate::fork::register();
    life::start_tools_with(crate::tools::toollib::load_once);
    if !life::recording() {
        return true;
    }
    // SAFETY: `check_core`'s # Safety follows from this fn's.
    if let Err(why) = unsafe { check_core(root) } {
        cltap::warn!("HSA: {why}: cltap cannot record this runtime's calls and asks to be unloaded");
        return false;
    }
    // The `hsa_init` during which the runtime loads its tools cannot pass
    // through cltap: it is recorded from here, its time the time of this
    // `OnLoad`, its result success (the runtime's only step after loading
    // its tools).
    let init = INIT.map(|id| (id, bracket::enter_hsa(&cltap::meta::HSA_FUNCTIONS[id], &[])));
    if !root.is_null() {
        // ROCP_HSA_INTERCEPT (read with the rest of the configuration): the
        // core table's hsa_queue_create makes intercept queues.
        // A ROCP_TOOL_LIB tool (loaded by now) may ask for more.
        super::intercept::set_mode(crate::tools::toollib::hsa_mode(life::config()));
        // The .atp's async-copy times: hsa_amd_memory_async_copy goes through
        // a proxy completion signal.
        super::copytimes::set_on(life::config().atp);
        // SAFETY: `install`'s # Safety follows from this fn's.
        unsafe { install(root) };
        // HSA times are the KFD system counter (CLOCK_BOOTTIME on Linux),
        // not the calls' clock: measured once here, for the renderers.
        crate::guard::guard((), record_clock);
        let agents = crate::guard::guard(Vec::new(), super::agents::record_all);
        if life::config().counting() {
            crate::guard::guard((), || super::counters::on_load(&agents));
        }
    }
    if let Some((id, e)) = init {
        if e.on {
            bracket::exit_hsa(&cltap::meta::HSA_FUNCTIONS[id], e, 0, &[]);
        } else {
            bracket::done_hsa(id, false);
        }
    }
    true
}

/// Measures `HSA_SYSTEM_INFO_TIMESTAMP` against the calls' clock and
/// records the offset in the trace ([`cltap::trace::hsa_clock`]).
fn record_clock() {
    let read = || Some(super::proxy::timestamp()).filter(|t| *t != 0);
    if let Some((offset, _)) = cltap::trace::hsa_clock::measure(read) {
        if !cltap::trace::writer::record_hsa_clock_offset(offset) {
            cltap::warn!(
                "HSA: no room in the trace's header for the HSA clock's offset: HSA times are drawn unconverted"
            );
        }
    }
}

/// Whether the root table and its core table are of the versions cltap was
/// built for (the core table is the one cltap cannot do without).
///
/// # Safety
/// `root` is the runtime's `HsaApiTable`, or NULL.
unsafe fn check_core(root: *mut ApiTableVersion) -> Result<(), String> {
    if root.is_null() {
        return Err("the runtime passed no API table".into());
    }
    // SAFETY: `root` is readable: `root` is the runtime's `HsaApiTable`, or NULL (# Safety).
    let rv = unsafe { std::ptr::read_volatile(root) };
    if rv.major_id != ROOT_MAJOR {
        return Err(format!("the runtime's API table has major version {}, cltap knows {ROOT_MAJOR}", rv.major_id));
    }
    let core = &TABLES[0];
    if (rv.minor_id as usize) < core.root_offset + 8 {
        return Err(format!(
            "the runtime's API table is {} bytes, too small to hold the {} table (cltap knows {} bytes)",
            rv.minor_id, core.name, ROOT_BYTES
        ));
    }
    // SAFETY: the address read here is readable, as the caller promises (# Safety).
    let p =
        unsafe { std::ptr::read_volatile((root as *const u8).add(core.root_offset) as *const *mut ApiTableVersion) };
    if p.is_null() {
        return Err(format!("the runtime's {} table is NULL", core.name));
    }
    // SAFETY: `p` is readable, as the caller promises (# Safety).
    let v = unsafe { std::ptr::read_volatile(p) };
    if v.major_id != core.major {
        return Err(format!(
            "the runtime's {} table has major version {}, cltap knows {}",
            core.name, v.major_id, core.major
        ));
    }
    Ok(())
}

/// The core table's first entry as the runtime hands it over (0 when the
/// table is not one cltap knows).
///
/// # Safety
/// `root` is the runtime's `HsaApiTable`, or NULL.
unsafe fn core_entry(root: *mut ApiTableVersion) -> usize {
    // SAFETY: `check_core`'s # Safety follows from this fn's: `root` is the runtime's `HsaApiTable`, or NULL (#
    // Safety).
    if unsafe { check_core(root) }.is_err() {
        return 0;
    }
    // SAFETY: the address read here is readable, as the caller promises (# Safety).
    let core = unsafe { std::ptr::read_volatile((root as *const u8).add(TABLES[0].root_offset) as *const *mut u8) };
    // SAFETY: `core as *const ApiTableVersion` is readable, as the caller promises (# Safety).
    let v = unsafe { std::ptr::read_volatile(core as *const ApiTableVersion) };
    if (v.minor_id as usize) < VERSION_BYTES + 8 {
        return 0;
    }
    // SAFETY: `core.add(VERSION_BYTES) as *const usize` is readable, as the caller promises (# Safety).
    unsafe { std::ptr::read_volatile(core.add(VERSION_BYTES) as *const usize) }
}

/// Replaces the entries of every table the root holds.
///
/// # Safety
/// `root` is the runtime's `HsaApiTable`, writable, and no other thread calls through it yet.
unsafe fn install(root: *mut ApiTableVersion) -> [Installed; 4] {
    let mut done = [Installed::Absent; 4];
    // SAFETY: `root` is readable (# Safety).
    let rv = unsafe { std::ptr::read_volatile(root) };
    if rv.major_id != ROOT_MAJOR {
        cltap::warn!(
            "HSA: the runtime's API table has major version {}, cltap knows {ROOT_MAJOR}: HSA calls are not recorded",
            rv.major_id
        );
        return done;
    }
    for (k, t) in TABLES.iter().enumerate() {
        // The root's own size says which table pointers it holds.
        if (rv.minor_id as usize) < t.root_offset + 8 {
            continue;
        }
        // SAFETY: the address read here is readable, as the caller promises (# Safety).
        let p =
            unsafe { std::ptr::read_volatile((root as *const u8).add(t.root_offset) as *const *mut ApiTableVersion) };
        if !p.is_null() {
            // SAFETY: `install_table`'s # Safety follows from this fn's.
            done[k] = unsafe { install_table(p, t) };
        }
    }
    done
}

/// # Safety
/// `p` is the runtime's `HsaApiTable`, writable, laid out as `t` says for its version.
unsafe fn install_table(p: *mut ApiTableVersion, t: &TableLayout) -> Installed {
    // SAFETY: `p` is readable (# Safety).
    let v = unsafe { std::ptr::read_volatile(p) };
    if v.major_id == 0 {
        // A zeroed table: the runtime has no such extension (ROCr built
        // without the finalizer hands over one). Nothing to record, nothing
        // to say.
        return Installed::Absent;
    }
    if v.major_id != t.major {
        cltap::warn!(
            "HSA: the runtime's {} table has major version {}, cltap knows {}: its calls are not recorded",
            t.name,
            v.major_id,
            t.major
        );
        return Installed::OtherMajor(v.major_id);
    }
    let have = (v.minor_id as usize).saturating_sub(VERSION_BYTES) / 8;
    let mut n = 0;
    for i in 0..have.min(t.entries) {
        // SAFETY: the offset stays inside the buffer it indexes, as the caller promises (# Safety).
        let slot = unsafe { (p as *mut u8).add(VERSION_BYTES + 8 * i) } as *mut usize;
        let id = t.first + i;
        let mut wrapper = WRAPPERS.0[id] as usize;
        // SAFETY: `slot` is readable, as the caller promises (# Safety).
        let orig = unsafe { std::ptr::read_volatile(slot) };
        let interceptor = super::intercept::queue_create_entry();
        let copier = super::copytimes::async_copy_entry();
        let rect_copier = super::copytimes::async_copy_rect_entry();
        let destroyer = super::kernels::executable_destroy_entry();
        let extra = super::in_front::extra(id);
        if orig == 0
            || orig == wrapper
            || (extra != 0 && orig == extra)
            || orig == interceptor
            || orig == copier
            || orig == rect_copier
            || orig == destroyer
        {
            continue;
        }
        if id == super::api::id::hsa_queue_create && super::intercept::mode() != 0 {
            wrapper = interceptor;
        }
        if id == super::api::id::hsa_amd_memory_async_copy && super::copytimes::on() {
            wrapper = copier;
        }
        if id == super::api::id::hsa_amd_memory_async_copy_rect && super::copytimes::on() {
            wrapper = rect_copier;
        }
        // Intercepting, kernel objects are named: a destroyed executable's
        // are forgotten, as its addresses may be reused.
        if id == super::api::id::hsa_executable_destroy && super::intercept::mode() != 0 {
            wrapper = destroyer;
        }
        if extra != 0 {
            super::in_front::set_next(id, wrapper);
            wrapper = extra;
        }
        // The application's own copy times, when cltap proxies its copies.
        let mut behind = orig;
        if id == super::api::id::hsa_amd_profiling_get_async_copy_time && super::copytimes::on() {
            behind = super::copyanswer::take_get_time(orig);
        }
        if id == super::api::id::hsa_amd_profiling_async_copy_enable && super::copytimes::on() {
            behind = super::copyanswer::take_enable(orig);
        }
        ORIG[id].store(behind, Ordering::Release);
        // SAFETY: `slot` is writable, as the caller promises (# Safety).
        unsafe { std::ptr::write_volatile(slot, wrapper) };
        n += 1;
    }
    Installed::Entries { n, have }
}

/// `OnUnload`: see [`super::unload`].
pub fn on_unload() {
    if super::once::stood_aside() {
        return;
    }
    super::unload::on_unload();
}
