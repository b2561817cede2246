//! Where timed commands go. Their tallies stay in memory; the commands
//! themselves are appended to a spill file (once one is configured), so a run
//! with millions of enqueues is not held in memory. The end-of-process
//! outputs read them back in one pass, or one by one by command id.

use super::codec::{decode, encode_ref};
use super::{Command, CommandRef, Tables};
use crate::fork::lock::{self, Mutex};
use std::collections::{BTreeSet, HashMap};
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

#[derive(Default)]
struct Store {
    tables: Tables,
    count: u64,
    /// (device name, whether its clock came from its host timer).
    clocks: BTreeSet<(String, bool)>,
    /// Where commands go; `None` until configured, or after a write failed.
    path: Option<PathBuf>,
    spill: Option<BufWriter<File>>,
    /// Bytes written to the spill file.
    spilled: u64,
    /// Commands kept in memory: before a spill file is configured, or when
    /// it cannot be written.
    mem: Vec<Command>,
    scratch: Vec<u8>,
    /// Room for a kernel's sizes as text, for the tables.
    key: String,
}

static STORE: Mutex<Option<Store>> = Mutex::new(None);
/// Commands whose profiling counters could not be read (refused, failed).
static UNTIMED: Mutex<Vec<(u64, &'static str, String)>> = Mutex::new(Vec::new());

fn with<T>(f: impl FnOnce(&mut Store) -> T) -> T {
    let mut g = STORE.lock();
    let s = g.get_or_insert_with(Store::default);
    f(s)
}

/// Locks the store across a `fork`.
pub(super) fn hold() {
    lock::hold(&STORE);
    lock::hold(&UNTIMED);
}

/// Unlocks what [`hold`] locked.
///
/// # Safety
/// [`hold`] ran on this thread, and nothing was released since.
pub(super) unsafe fn release() {
    // SAFETY: `release` needs this thread to hold the lock, taken by `hold`/`prepare`, as this fn's own contract
    // gives: [`hold`] ran on this thread, and nothing was released since (# Safety).
    unsafe { lock::release(&UNTIMED) };
    // SAFETY: `release` needs this thread to hold the lock, taken by `hold`/`prepare` (# Safety).
    unsafe { lock::release(&STORE) };
}

/// In the child of a `fork`, with [`hold`]'s locks held: the parent's
/// commands and spill file are not the child's. Bytes the parent had not
/// yet written to its file are the parent's to write: the child closes its
/// copy of the file without writing them (a flush from here would put them
/// in the parent's file a second time, at the file offset both share).
///
/// # Safety
/// As [`release`], in the child.
pub(super) unsafe fn forked() {
    // SAFETY: the child has one thread, and `hold` took the store's lock before `fork` (# Safety).
    if let Some(mut s) = unsafe { (*STORE.data_ptr()).take() } {
        if let Some(w) = s.spill.take() {
            drop(w.into_parts());
        }
    }
    // SAFETY: as for `STORE` above: one thread, the lock taken before `fork`.
    unsafe { (*UNTIMED.data_ptr()).clear() };
}

/// The store's lock, held as a record holds it.
#[cfg(test)]
pub(super) fn locked() -> impl Drop {
    STORE.lock()
}

/// Spill commands to `dir/name` from now on.
pub fn configure_spill(dir: &Path, name: &str) {
    with(|s| s.path = Some(dir.join(name)));
}

pub fn record(c: Command) {
    if super::deliver::timed(&c) {
        return;
    }
    keep(Kept::Owned(c));
}

/// Records a command a read completed, without a [`Command`] made of it
/// where the trace or the spill file takes it (nothing allocated).
pub fn record_ref(c: &CommandRef) {
    if super::deliver::completed(c) {
        return;
    }
    keep(Kept::Borrowed(*c));
}

/// A command for the store: one made already (kept in memory as it is,
/// where it is kept there) or one a read lends.
enum Kept<'a> {
    Owned(Command),
    Borrowed(CommandRef<'a>),
}

impl Kept<'_> {
    fn view(&self) -> CommandRef<'_> {
        match self {
            Kept::Owned(c) => c.as_ref(),
            Kept::Borrowed(r) => *r,
        }
    }

    fn into_command(self) -> Command {
        match self {
            Kept::Owned(c) => c,
            Kept::Borrowed(r) => r.to_command(),
        }
    }
}

/// The store's part: the tables, and the spill file (else memory).
fn keep(k: Kept) {
    with(move |s| {
        let c = &k.view();
        s.tables.add_ref(c, &mut s.key);
        s.count += 1;
        if !s.clocks.iter().any(|(d, t)| *d == c.device && *t == c.to_host.is_some()) {
            s.clocks.insert((c.device.to_string(), c.to_host.is_some()));
        }
        if s.spill.is_none() {
            if let Some(p) = &s.path {
                match File::create(p) {
                    Ok(f) => s.spill = Some(BufWriter::with_capacity(1 << 16, f)),
                    Err(e) => {
                        crate::warn!("cannot create {}: {e}; device records stay in memory", p.display());
                        s.path = None;
                    }
                }
            }
        }
        let Some(out) = s.spill.as_mut() else {
            s.mem.push(k.into_command());
            return;
        };
        s.scratch.clear();
        encode_ref(c, &mut s.scratch);
        match out.write_all(&s.scratch) {
            Ok(()) => s.spilled += s.scratch.len() as u64,
            Err(e) => {
                crate::warn!("cannot write device records: {e}; the rest stay in memory");
                s.spill = None;
                s.path = None;
                s.mem.push(k.into_command());
            }
        }
    })
}

pub fn untimed(cmd_id: u64, api: &'static str, why: String) {
    if super::deliver::untimed(cmd_id, api, &why) {
        return;
    }
    UNTIMED.lock().push((cmd_id, api, why));
}

pub fn untimed_commands() -> Vec<(u64, &'static str, String)> {
    UNTIMED.lock().clone()
}

/// Commands timed so far.
pub fn count() -> u64 {
    with(|s| s.count)
}

pub fn tables() -> Tables {
    with(|s| s.tables.clone())
}

/// Each device, and whether its clock came from `clGetDeviceAndHostTimer`.
pub fn device_clocks() -> Vec<(String, bool)> {
    with(|s| s.clocks.iter().cloned().collect())
}

/// The spill file flushed, with its length, and the commands in memory.
fn snapshot() -> (Option<(PathBuf, u64)>, Vec<Command>) {
    with(|s| {
        let flushed = s.spill.as_mut().is_some_and(|out| out.flush().is_ok());
        let file = s.path.clone().filter(|_| flushed).map(|p| (p, s.spilled));
        (file, s.mem.clone())
    })
}

/// Every command recorded so far, in the order they completed. Commands
/// recorded while this runs are not included.
pub fn for_each(mut f: impl FnMut(Command)) {
    let (file, mem) = snapshot();
    if let Some((p, len)) = file {
        if let Ok(fh) = File::open(&p) {
            let mut r = std::io::BufReader::with_capacity(1 << 16, fh.take(len));
            let mut buf = Vec::new();
            let mut chunk = [0u8; 1 << 16];
            loop {
                let n = r.read(&mut chunk).unwrap_or(0);
                buf.extend_from_slice(&chunk[..n]);
                let mut at = 0;
                while let Some((c, used)) = decode(&buf[at..]) {
                    f(c);
                    at += used;
                }
                buf.drain(..at);
                if n == 0 {
                    break;
                }
            }
        }
    }
    mem.into_iter().for_each(f);
}

/// Commands by command id, for the `.atp`'s join: an index of offsets into
/// the spill file, with the commands in memory beside it.
pub struct Lookup {
    file: Option<File>,
    offsets: HashMap<u64, u64>,
    mem: HashMap<u64, Command>,
}

impl Lookup {
    pub fn get(&mut self, cmd_id: u64) -> Option<Command> {
        if let Some(c) = self.mem.get(&cmd_id) {
            return Some(c.clone());
        }
        let off = *self.offsets.get(&cmd_id)?;
        let f = self.file.as_mut()?;
        f.seek(SeekFrom::Start(off)).ok()?;
        let mut len = [0u8; 4];
        f.read_exact(&mut len).ok()?;
        let mut rec = len.to_vec();
        rec.resize(4 + u32::from_le_bytes(len) as usize, 0);
        f.read_exact(&mut rec[4..]).ok()?;
        decode(&rec).map(|(c, _)| c)
    }
}

pub fn lookup() -> Lookup {
    let (file, mem) = snapshot();
    let mut offsets = HashMap::new();
    let mut fh = None;
    if let Some((p, len)) = file {
        if let Ok(mut f) = File::open(&p) {
            // Only the id and the length of each record are read here.
            let mut at = 0u64;
            let mut head = [0u8; 12];
            while at + 12 <= len && f.seek(SeekFrom::Start(at)).is_ok() && f.read_exact(&mut head).is_ok() {
                let n = u32::from_le_bytes(head[..4].try_into().unwrap()) as u64;
                offsets.insert(u64::from_le_bytes(head[4..].try_into().unwrap()), at);
                at += 4 + n;
            }
            fh = Some(f);
        }
    }
    Lookup { file: fh, offsets, mem: mem.into_iter().map(|c| (c.cmd_id, c)).collect() }
}

/// At the very end: the spill file is no longer needed.
pub fn remove_spill() {
    with(|s| {
        s.spill = None;
        if let Some(p) = s.path.take() {
            let _ = std::fs::remove_file(p);
        }
    })
}

/// Forgets everything.
#[cfg(test)]
fn clear() {
    remove_spill();
    with(|s| *s = Store::default());
    UNTIMED.lock().clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(id: u64) -> Command {
        super::super::read_buffer_command(id)
    }

    #[test]
    fn spilled_commands_come_back_in_order_and_by_id() {
        clear();
        let tmp = tempfile::Builder::new().prefix("cltap-store-").tempdir().unwrap();
        let dir = tmp.path();
        record(cmd(1)); // before the spill is configured: kept in memory
        configure_spill(dir, "cmds");
        for id in 2..=5000 {
            record(cmd(id));
        }
        assert!(dir.join("cmds").metadata().unwrap().len() > 0, "spilled");
        let mut ids = Vec::new();
        for_each(|c| ids.push(c.cmd_id));
        ids.sort();
        assert_eq!(ids, (1..=5000).collect::<Vec<_>>());
        let mut l = lookup();
        assert_eq!(l.get(4321), Some(cmd(4321)));
        assert_eq!(l.get(1), Some(cmd(1)));
        assert_eq!(l.get(9999), None);
        assert_eq!(count(), 5000);
        assert_eq!(tables().transfers()[0].count, 5000);
        remove_spill();
        assert!(!dir.join("cmds").exists());
        clear();
    }
}
