//! The programs this process made, by the driver's handle: their number,
//! their files' base name, and how many builds they had. Only program
//! calls with a control on reach it (a lock is fine there).

use super::files;
use std::collections::BTreeMap;
use std::sync::Mutex;

#[derive(Debug, Clone)]
pub struct Program {
    /// From 1, in the order the process made its programs.
    pub n: u64,
    /// `<stem>.p<n>.<hash>`.
    pub base: String,
    /// Builds, compiles or links so far.
    pub builds: u32,
}

struct Registry {
    next: u64,
    programs: BTreeMap<u64, Program>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry { next: 1, programs: BTreeMap::new() });

/// The prepare handler's part ([`crate::fork`]).
pub(crate) fn hold_for_fork() {
    crate::fork::kept::keep(REGISTRY.lock().unwrap_or_else(|e| e.into_inner()));
}

fn with<R>(f: impl FnOnce(&mut Registry) -> R) -> R {
    let mut g = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut g)
}

/// A program was made (a handle the driver may have reused replaces the
/// old entry); `bytes` is what names it (its source, IL or nothing). The
/// name's stem is the process's now (a forked child's has its own pid).
pub fn created(handle: u64, bytes: &[u8]) -> Program {
    let stem = crate::naming::stem();
    with(|r| {
        let n = r.next;
        r.next += 1;
        let p = Program { n, base: files::base(&stem, n, files::hash(bytes)), builds: 0 };
        r.programs.insert(handle, p.clone());
        p
    })
}

/// A build (compile, link) of `handle` starts: the program with its new
/// build count. A program cltap did not see made (from a binary, or
/// before the dumps were on) is numbered now, named by no bytes.
pub fn build(handle: u64) -> (Program, u32) {
    let known = with(|r| {
        r.programs.get_mut(&handle).map(|p| {
            p.builds += 1;
            (p.clone(), p.builds)
        })
    });
    known.unwrap_or_else(|| {
        created(handle, &[]);
        build(handle)
    })
}

/// The program of `handle`, if cltap numbered it.
pub fn get(handle: u64) -> Option<Program> {
    with(|r| r.programs.get(&handle).cloned())
}
