//! One kernel enqueue under the dump controls: selected or not, its
//! arguments injected and read before it, read after it, captured. The
//! reads and writes are blocking commands on the application's own queue,
//! into cltap's copies: before the enqueue they wait for its wait list,
//! after it cltap finishes the queue first. Nothing else of the
//! application's changes; the waits are counted ([`super::STATS`]).

use super::args::{self, Arg};
use super::cl::{self, slot, Obj};
use super::manifest;
use super::{settings, Settings, STATS};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

/// A kernel launch as the driver gets it (handles are the driver's).
pub struct Launch<'a> {
    pub queue: Obj,
    pub kernel: Obj,
    pub work_dim: u32,
    pub offset: Option<Vec<usize>>,
    pub global: Vec<usize>,
    pub local: Option<Vec<usize>>,
    pub wait: &'a [Obj],
}

/// A selected enqueue between its `before` and its `after`.
pub struct Pending {
    n: u64,
    name: String,
    queue: Obj,
    args: Vec<Arg>,
    capture: Option<(PathBuf, manifest::Capture)>,
    /// Lines for the API log, after the enqueue's record.
    pub notes: Vec<String>,
}

/// The contents of one argument and what they are, for a file and a line.
struct Contents {
    bytes: Vec<u8>,
    /// `buffer N`, `image N (format, region)`, `scalar`.
    what: String,
    /// The file name's part after the argument index.
    tag: String,
    image: Option<manifest::Image>,
    sampler: Option<[u32; 3]>,
}

/// Before the enqueue: numbered; if selected, its injections made, its
/// arguments dumped and its capture begun. `None` when not selected.
///
/// # Safety
/// The handles are live driver objects of one context, and the wait list's
/// events the driver's.
pub unsafe fn before(l: &Launch<'_>) -> Option<Pending> {
    let s = settings()?;
    let n = STATS.seen.fetch_add(1, Ordering::AcqRel) + 1;
    // SAFETY: the launch's live kernel (the contract).
    let name = unsafe { cl::kernel_name(l.kernel) }.unwrap_or_else(|| "unnamed".into());
    if !s.selects(n, &name) {
        return None;
    }
    // SAFETY: as above.
    let nargs = unsafe { cl::info(l.kernel, slot::GET_KERNEL_INFO, cl::CL_KERNEL_NUM_ARGS) }.and_then(|b| cl::word(&b));
    let mut p = Pending {
        n,
        name,
        queue: l.queue,
        args: args::at_enqueue(l.kernel as u64, nargs.map(|n| n as usize)),
        capture: None,
        notes: Vec::new(),
    };
    let t = Instant::now();
    for (i, file) in s.injections(n) {
        // SAFETY: the launch's live handles (the contract).
        let line = unsafe { inject(l, &p, i, &file) };
        p.notes.push(format!("enqueue {n} {}: argument {i}: {line}", p.name));
    }
    if s.controls.when.before() {
        // SAFETY: the launch's live handles and its wait list (the contract).
        unsafe { dump(s, &mut p, "before", l.wait) };
    }
    if s.controls.capture {
        // SAFETY: the launch's live handles (the contract).
        unsafe { capture_before(s, l, &mut p) };
    }
    STATS.waited_ns.fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
    Some(p)
}

/// After the enqueue returned `status`: the queue finished, the arguments
/// dumped and the capture completed. The lines for the API log.
///
/// # Safety
/// As [`before`], the same handles, still live.
pub unsafe fn after(mut p: Pending, status: i32) -> Vec<String> {
    let Some(s) = settings() else { return p.notes };
    if status != 0 {
        p.notes.push(format!("enqueue {} {}: failed ({status}); nothing read after it", p.n, p.name));
        return p.notes;
    }
    let wants = s.controls.when.after() || p.capture.is_some();
    if wants {
        let t = Instant::now();
        // SAFETY: the enqueue's queue, still live (the contract).
        let r = unsafe { cl::finish(p.queue) };
        if r != 0 {
            p.notes.push(format!("enqueue {} {}: clFinish before the reads failed ({r})", p.n, p.name));
        }
        if s.controls.when.after() {
            // SAFETY: the enqueue's handles, still live (the contract).
            unsafe { dump(s, &mut p, "after", &[]) };
        }
        if p.capture.is_some() {
            // SAFETY: as above.
            unsafe { capture_after(s, &mut p) };
        }
        STATS.waited_ns.fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
    }
    if s.controls.when != crate::config::dumps::When::Never {
        STATS.enqueues.fetch_add(1, Ordering::Relaxed);
    }
    p.notes
}

/// Argument `a`'s contents, read on the queue after `wait`.
unsafe fn contents(s: &Settings, q: Obj, a: &Arg, wait: &[Obj]) -> Result<Option<Contents>, String> {
    match a {
        Arg::Scalar(b) if !s.take(b.len() as u64) => Ok(None),
        Arg::Scalar(b) => Ok(Some(Contents {
            bytes: b.clone(),
            what: "scalar".into(),
            tag: "scalar".into(),
            image: None,
            sampler: None,
        })),
        Arg::Unset => Err("never set".into()),
        Arg::Local(n) => Err(format!("local memory ({n} bytes), no contents")),
        Arg::Svm { ptr, len: None, .. } => {
            Err(format!("SVM/USM pointer {ptr:#x}: not read (cltap did not see its allocation made)"))
        }
        Arg::Svm { ptr, len: Some(len), usm } => {
            let what = if *usm { "USM" } else { "SVM" };
            if *len as u64 > s.controls.max {
                return Err(format!(
                    "{what} pointer {ptr:#x}: {len} bytes, over CLTAP_DUMP_MAX={}: not read",
                    s.controls.max
                ));
            }
            if !s.take(*len as u64) {
                return Ok(None);
            }
            let mut v = vec![0u8; *len];
            // SAFETY: `len` bytes from the pointer lie in its live allocation of the queue's context.
            let r = unsafe { cl::svm_copy(q, *usm, v.as_mut_ptr().cast(), *ptr as *const _, *len, wait) };
            if r != 0 {
                return Err(format!("{what} pointer {ptr:#x}: the copy failed ({r})"));
            }
            let tag = what.to_lowercase();
            let what = format!("{what} pointer {ptr:#x} (to its allocation's end)");
            Ok(Some(Contents { bytes: v, what, tag, image: None, sampler: None }))
        }
        Arg::Sampler(h) => {
            // SAFETY: a sampler the application set, live at its enqueue (the contract).
            let p = unsafe { cl::sampler(*h as Obj) }.ok_or("sampler: the driver did not answer its modes")?;
            let what = format!("sampler (normalized {}, addressing {:#x}, filter {:#x})", p[0], p[1], p[2]);
            let bytes = p.iter().flat_map(|w| w.to_ne_bytes()).collect();
            Ok(Some(Contents { bytes, what, tag: "sampler".into(), image: None, sampler: Some(p) }))
        }
        Arg::Mem { handle, number } => {
            let m = *handle as Obj;
            // SAFETY: a memory object the application set, live at its enqueue (the contract).
            let (ty, size) = unsafe { cl::mem_kind(m) }.ok_or("the driver did not answer its type and size")?;
            if ty == cl::CL_MEM_OBJECT_PIPE {
                return Err(format!("pipe {number}: not read"));
            }
            let image = if ty == cl::CL_MEM_OBJECT_BUFFER {
                None
            } else {
                // SAFETY: as above, an image.
                let (el, region, format) =
                    unsafe { cl::image_shape(m, ty) }.ok_or("the driver did not answer its shape")?;
                Some(manifest::Image { mem_type: ty, format, element_size: el, region })
            };
            let bytes = image.as_ref().map_or(size, |i| i.element_size * i.region.iter().product::<usize>());
            if bytes as u64 > s.controls.max {
                return Err(format!("{bytes} bytes, over CLTAP_DUMP_MAX={}: not read", s.controls.max));
            }
            if !s.take(bytes as u64) {
                return Ok(None);
            }
            let v = match &image {
                // SAFETY: live handles of the queue's context (the contract).
                None => unsafe { cl::read_buffer(q, m, bytes, wait) },
                Some(i) => {
                    let mut v = vec![0u8; bytes];
                    // SAFETY: as above; `v` holds the whole region.
                    unsafe { cl::image_io(q, m, i.region, v.as_mut_ptr(), false, wait) }.map(|()| v)
                }
            }
            .map_err(|e| format!("the read failed ({e})"))?;
            let what = match &image {
                None => format!("buffer {number}"),
                Some(i) => format!(
                    "image {number} (order {:#x}, type {:#x}, {}x{}x{}, {} bytes a pixel)",
                    i.format[0], i.format[1], i.region[0], i.region[1], i.region[2], i.element_size
                ),
            };
            Ok(Some(Contents { bytes: v, what, tag: format!("m{number}"), image, sampler: None }))
        }
    }
}

/// Writes the arguments' contents to `<dumps>/<phase>/e<N>-<kernel>.a<I>.<tag>.bin`.
unsafe fn dump(s: &Settings, p: &mut Pending, phase: &str, wait: &[Obj]) {
    let dir = s.dumps_dir.join(phase);
    let mut parts = Vec::new();
    for (i, a) in p.args.iter().enumerate() {
        // SAFETY: the enqueue's live handles (the contract).
        match unsafe { contents(s, p.queue, a, wait) } {
            Ok(Some(c)) => {
                let name = format!("e{:06}-{}.a{i}.{}.bin", p.n, p.name, c.tag);
                match write(&dir, &name, &c.bytes) {
                    Ok(()) => parts.push(format!("a{i} {} ({} bytes) {name}", c.what, c.bytes.len())),
                    Err(e) => parts.push(format!("a{i}: {e}")),
                }
            }
            Ok(None) => parts.push(format!("a{i}: not written, CLTAP_DUMP_TOTAL reached")),
            Err(e) => parts.push(format!("a{i}: {e}")),
        }
    }
    let rel = dir.strip_prefix(s.dumps_dir.parent().unwrap_or(Path::new("."))).unwrap_or(&dir).display().to_string();
    p.notes.push(format!("enqueue {} {} {phase}: {rel}/: {}", p.n, p.name, parts.join("; ")));
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    let path = dir.join(name);
    std::fs::write(&path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    STATS.files.fetch_add(1, Ordering::Relaxed);
    Ok(())
}

/// Argument `i` replaced by the file's bytes (a buffer or an image of the
/// same size). The line says what was done.
unsafe fn inject(l: &Launch<'_>, p: &Pending, i: u32, file: &Path) -> String {
    let Some(Arg::Mem { handle, number }) = p.args.get(i as usize) else {
        return format!("not injected from {}: not a buffer or image", file.display());
    };
    let bytes = match std::fs::read(file) {
        Ok(b) => b,
        Err(e) => return format!("not injected: cannot read {}: {e}", file.display()),
    };
    let m = *handle as Obj;
    // SAFETY: a memory object the application set, live at its enqueue (the contract).
    let Some((ty, size)) = (unsafe { cl::mem_kind(m) }) else {
        return "not injected: the driver did not answer its size".into();
    };
    let r = if ty == cl::CL_MEM_OBJECT_BUFFER {
        if bytes.len() != size {
            return format!("not injected: {} has {} bytes, buffer {number} {size}", file.display(), bytes.len());
        }
        // SAFETY: live handles of the queue's context (the contract).
        unsafe { cl::write_buffer(l.queue, m, &bytes, l.wait) }
    } else {
        // SAFETY: as above, an image.
        let Some((el, region, _)) = (unsafe { cl::image_shape(m, ty) }) else {
            return "not injected: no image shape".into();
        };
        let want = el * region.iter().product::<usize>();
        if bytes.len() != want {
            return format!("not injected: {} has {} bytes, image {number} {want}", file.display(), bytes.len());
        }
        let mut b = bytes.clone();
        // SAFETY: as above; `b` holds the whole region.
        unsafe { cl::image_io(l.queue, m, region, b.as_mut_ptr(), true, l.wait) }
    };
    match r {
        Ok(()) => {
            STATS.injected.fetch_add(1, Ordering::Relaxed);
            format!("memory object {number} injected from {} ({} bytes)", file.display(), bytes.len())
        }
        Err(e) => format!("not injected: the write failed ({e})"),
    }
}

/// The capture's folder begun: the program as built, the launch, every
/// argument before.
unsafe fn capture_before(s: &Settings, l: &Launch<'_>, p: &mut Pending) {
    let dir = s.capture_dir.join(format!("e{:06}-{}", p.n, p.name));
    // SAFETY: the launch's live queue (the contract).
    let device = unsafe { cl::info(l.queue, slot::GET_COMMAND_QUEUE_INFO, cl::CL_QUEUE_DEVICE) }
        .and_then(|b| cl::word(&b))
        .unwrap_or(0) as Obj;
    // SAFETY: the launch's live kernel and its queue's device.
    let program = match unsafe { super::capture_program::program(l.kernel, device) } {
        Ok((kind, ext, bytes, options)) => {
            let file = format!("program.{ext}");
            if let Err(e) = write(&dir, &file, &bytes) {
                p.notes.push(format!("enqueue {} {}: capture: {e}", p.n, p.name));
                return;
            }
            manifest::Program { kind: kind.into(), file, options }
        }
        Err(e) => {
            p.notes.push(format!("enqueue {} {}: not captured: {e}", p.n, p.name));
            return;
        }
    };
    let mut args = Vec::new();
    for (i, a) in p.args.iter().enumerate() {
        let (kind, size) = match a {
            Arg::Mem { .. } => ("buffer", 0),
            Arg::Scalar(b) => ("scalar", b.len()),
            Arg::Local(n) => ("local", *n),
            Arg::Svm { .. } => ("svm", 0),
            Arg::Sampler(_) => ("sampler", 0),
            Arg::Unset => ("unset", 0),
        };
        let mut arg = manifest::Arg {
            index: i as u32,
            kind: kind.into(),
            size,
            before: None,
            after: None,
            image: None,
            sampler: None,
        };
        if matches!(a, Arg::Mem { .. } | Arg::Scalar(_) | Arg::Svm { .. } | Arg::Sampler(_)) {
            // SAFETY: the launch's live handles and its wait list (the contract).
            match unsafe { contents(s, l.queue, a, l.wait) } {
                Ok(Some(c)) => {
                    let f = format!("before/a{i}.bin");
                    if c.image.is_some() {
                        arg.kind = "image".into();
                    }
                    arg.size = c.bytes.len();
                    arg.image = c.image;
                    arg.sampler = c.sampler;
                    match write(&dir.join("before"), &format!("a{i}.bin"), &c.bytes) {
                        Ok(()) => arg.before = Some(f),
                        Err(e) => p.notes.push(format!("enqueue {} {}: capture: {e}", p.n, p.name)),
                    }
                }
                Ok(None) => {
                    p.notes.push(format!("enqueue {} {}: not captured, CLTAP_DUMP_TOTAL reached", p.n, p.name));
                    return;
                }
                Err(e) => p.notes.push(format!("enqueue {} {}: capture: argument {i}: {e}", p.n, p.name)),
            }
        }
        args.push(arg);
    }
    let m = manifest::Capture {
        kernel: p.name.clone(),
        enqueue: p.n,
        // SAFETY: the queue's device.
        device: unsafe { cl::info(device, slot::GET_DEVICE_INFO, cl::CL_DEVICE_NAME) }
            .map(|b| cl::text(&b))
            .unwrap_or_default(),
        program,
        work_dim: l.work_dim,
        global_offset: l.offset.clone(),
        global: l.global.clone(),
        local: l.local.clone(),
        args,
    };
    p.capture = Some((dir, m));
}

/// The capture completed: every buffer's and image's contents after the
/// enqueue, and `capture.json`.
unsafe fn capture_after(s: &Settings, p: &mut Pending) {
    let Some((dir, mut m)) = p.capture.take() else { return };
    for (i, a) in p.args.iter().enumerate() {
        if !matches!(a, Arg::Mem { .. } | Arg::Svm { len: Some(_), .. }) {
            continue;
        }
        // SAFETY: the enqueue's handles, still live (the contract).
        match unsafe { contents(s, p.queue, a, &[]) } {
            Ok(Some(c)) => match write(&dir.join("after"), &format!("a{i}.bin"), &c.bytes) {
                Ok(()) => m.args[i].after = Some(format!("after/a{i}.bin")),
                Err(e) => p.notes.push(format!("enqueue {} {}: capture: {e}", p.n, p.name)),
            },
            Ok(None) => {
                p.notes.push(format!("enqueue {} {}: capture: argument {i}: CLTAP_DUMP_TOTAL reached", p.n, p.name))
            }
            Err(e) => p.notes.push(format!("enqueue {} {}: capture: argument {i}: {e}", p.n, p.name)),
        }
    }
    let json = serde_json::to_vec_pretty(&m).unwrap_or_default();
    match write(&dir, manifest::FILE, &json) {
        Ok(()) => {
            STATS.captured.fetch_add(1, Ordering::Relaxed);
            let rel = dir.strip_prefix(s.capture_dir.parent().unwrap_or(Path::new("."))).unwrap_or(&dir);
            p.notes.push(format!(
                "enqueue {} {}: captured in {}/ (`cltap replay` runs it)",
                p.n,
                p.name,
                rel.display()
            ));
        }
        Err(e) => p.notes.push(format!("enqueue {} {}: capture: {e}", p.n, p.name)),
    }
}
