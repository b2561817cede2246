//! The timed commands of one rendering, as the trace's records gave them
//! (or, in a process without a trace, as the store kept them): their
//! tallies in memory, the commands themselves encoded one after another,
//! moved to an unlinked file in the output folder past a few MiB, so that
//! a run with millions of enqueues is not held in memory. Read back in
//! order, or one by one by command id (the `.atp`'s join).

use super::codec::{decode, encode};
use super::{Command, Offsets, QueueOffsets, Tables};
use std::collections::{BTreeSet, HashMap};
use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::OnceLock;

/// Encoded commands kept in memory before they move to the file.
const SPILL_AT: usize = 4 << 20;

#[derive(Debug, Default)]
pub struct Commands {
    /// Encoded commands after the file's.
    mem: Vec<u8>,
    file: Option<File>,
    /// Bytes in the file: a command at position `p < spilled` is there.
    spilled: u64,
    /// Command id → position in the file and `mem` taken as one stream,
    /// made by the first [`Commands::get`] (only the `.atp` asks).
    index: OnceLock<HashMap<u64, u64>>,
    tables: Tables,
    count: u64,
    /// (device name, whether its clock came from its host timer).
    clocks: BTreeSet<(String, bool)>,
    untimed: Vec<(u64, &'static str, String)>,
    /// Where the file may go (`None`: everything stays in memory).
    spill: Option<PathBuf>,
}

impl Commands {
    /// Empty; past a few MiB the commands move to a file made (and at once
    /// unlinked) at `spill`.
    pub fn new(spill: Option<PathBuf>) -> Commands {
        Commands { spill, ..Commands::default() }
    }

    /// The commands the process's store kept (a process that writes no
    /// trace); `spill` as for [`Commands::new`].
    pub fn from_store(spill: Option<PathBuf>) -> Commands {
        let mut c = Commands::new(spill);
        super::for_each(|x| c.add(&x));
        for (id, api, why) in super::untimed_commands() {
            c.add_untimed(id, api, why);
        }
        c
    }

    pub fn add(&mut self, c: &Command) {
        self.tables.add(c);
        self.count += 1;
        if !self.clocks.iter().any(|(d, t)| **d == *c.device && *t == c.to_host.is_some()) {
            self.clocks.insert((c.device.to_string(), c.to_host.is_some()));
        }
        self.index = OnceLock::new();
        encode(c, &mut self.mem);
        if self.mem.len() >= SPILL_AT {
            self.spill_now();
        }
    }

    /// Moves the commands in memory to the file, when one can be made.
    fn spill_now(&mut self) {
        if self.file.is_none() {
            let Some(p) = self.spill.take() else { return };
            let f = File::options().read(true).write(true).create_new(true).open(&p);
            let _ = std::fs::remove_file(&p);
            match f {
                Ok(f) => self.file = Some(f),
                Err(e) => {
                    crate::warn!("cannot create {}: {e}; device records stay in memory", p.display());
                    return;
                }
            }
        }
        let Some(f) = self.file.as_mut() else { return };
        match f.write_all(&self.mem) {
            Ok(()) => {
                self.spilled += self.mem.len() as u64;
                self.mem.clear();
            }
            Err(e) => {
                crate::warn!("cannot write device records: {e}; the rest stay in memory");
                // What the failed write left is never read: positions past
                // `spilled` are in memory.
                self.file = None;
            }
        }
    }

    /// A command whose counters could not be read.
    pub fn add_untimed(&mut self, cmd_id: u64, api: &'static str, why: String) {
        self.untimed.push((cmd_id, api, why));
    }

    /// Every command, in the order added.
    pub fn for_each(&self, mut f: impl FnMut(Command)) {
        if let Some(file) = self.file.as_ref().filter(|_| self.spilled > 0) {
            let mut buf = Vec::new();
            let mut chunk = vec![0u8; 1 << 16];
            let mut at = 0u64;
            while at < self.spilled {
                let want = chunk.len().min((self.spilled - at) as usize);
                let n = match file.read_at(&mut chunk[..want], at) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                at += n as u64;
                buf.extend_from_slice(&chunk[..n]);
                let mut used = 0;
                while let Some((c, n)) = decode(&buf[used..]) {
                    f(c);
                    used += n;
                }
                buf.drain(..used);
            }
        }
        let mut used = 0;
        while let Some((c, n)) = decode(&self.mem[used..]) {
            f(c);
            used += n;
        }
    }

    /// Each command's id and position, read from the encoded stream (a
    /// record is its length, then its command id).
    fn index(&self) -> &HashMap<u64, u64> {
        self.index.get_or_init(|| {
            let mut m = HashMap::new();
            let mut head = [0u8; 12];
            let mut at = 0u64;
            while at + 12 <= self.spilled {
                match self.file.as_ref().map(|f| f.read_exact_at(&mut head, at)) {
                    Some(Ok(())) => {}
                    _ => break,
                }
                m.insert(u64::from_le_bytes(head[4..].try_into().unwrap_or_default()), at);
                at += 4 + u32::from_le_bytes(head[..4].try_into().unwrap_or_default()) as u64;
            }
            let mut i = 0usize;
            while let Some(h) = self.mem.get(i..i + 12) {
                m.insert(u64::from_le_bytes(h[4..].try_into().unwrap_or_default()), self.spilled + i as u64);
                i += 4 + u32::from_le_bytes(h[..4].try_into().unwrap_or_default()) as usize;
            }
            m
        })
    }

    /// The command with id `cmd_id`.
    pub fn get(&self, cmd_id: u64) -> Option<Command> {
        let at = *self.index().get(&cmd_id)?;
        if at >= self.spilled {
            return decode(self.mem.get((at - self.spilled) as usize..)?).map(|(c, _)| c);
        }
        let f = self.file.as_ref()?;
        let mut len = [0u8; 4];
        f.read_exact_at(&mut len, at).ok()?;
        let mut rec = len.to_vec();
        rec.resize(4 + u32::from_le_bytes(len) as usize, 0);
        f.read_exact_at(&mut rec[4..], at + 4).ok()?;
        decode(&rec).map(|(c, _)| c)
    }

    /// Commands timed.
    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn tables(&self) -> &Tables {
        &self.tables
    }

    /// Each device, and whether its clock came from `clGetDeviceAndHostTimer`.
    pub fn device_clocks(&self) -> Vec<(String, bool)> {
        self.clocks.iter().cloned().collect()
    }

    /// Commands whose counters could not be read: command id, API, why.
    pub fn untimed(&self) -> &[(u64, &'static str, String)] {
        &self.untimed
    }

    /// Each queue's offset onto the host clock; `host_ns` turns the record
    /// clock into host nanoseconds.
    pub fn offsets(&self, host_ns: impl Fn(u64) -> u64) -> QueueOffsets {
        let mut off = Offsets::default();
        self.for_each(|c| off.add(&c, &host_ns));
        off.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(id: u64) -> Command {
        Command {
            kernel: id.is_multiple_of(2).then(|| format!("k{id}")),
            global: vec![id as usize],
            ..super::super::read_buffer_command(id)
        }
    }

    #[test]
    fn spilled_commands_come_back_in_order_and_by_id() {
        let tmp = std::env::temp_dir().join(format!("cltap-collected-{}", std::process::id()));
        let mut c = Commands::new(Some(tmp.clone()));
        let n = 200_000;
        for id in 1..=n {
            c.add(&cmd(id));
        }
        assert!(c.spilled > 0, "past SPILL_AT the commands moved to the file");
        assert!(!tmp.exists(), "the file is unlinked at once");
        let mut ids = Vec::new();
        c.for_each(|x| {
            assert_eq!(x, cmd(x.cmd_id));
            ids.push(x.cmd_id)
        });
        assert_eq!(ids, (1..=n).collect::<Vec<_>>());
        for id in [1, 2, 4321, n / 2, n] {
            assert_eq!(c.get(id), Some(cmd(id)), "{id}");
        }
        assert_eq!(c.get(n + 1), None);
        assert_eq!(c.count(), n);
        assert_eq!(c.tables().transfers()[0].count, n);
        assert_eq!(c.device_clocks(), vec![("dev".to_string(), false)]);
    }
}
