//! Device timing: what each enqueued command did on the device, from its
//! event's profiling counters, and the tables made from it. The layer holds
//! each enqueue's event and reads the counters in batches, at the
//! application's synchronisation points (see [`pending`]).

use std::collections::BTreeMap;
use std::sync::Arc;

/// One command as the device ran it. Times are the device's nanoseconds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    pub cmd_id: u64,
    pub api: &'static str,
    /// Host thread that enqueued it.
    pub tid: u32,
    /// The application's queue handle, for grouping per queue.
    pub queue: u64,
    /// The application's context handle.
    pub context: u64,
    /// The name of the queue's device.
    pub device: Arc<str>,
    /// `CL_EVENT_COMMAND_TYPE` (0 where the driver would not say).
    pub cmd_type: u32,
    /// Nanoseconds to add to this device's times to put them on the host's
    /// `CLOCK_MONOTONIC`, from `clGetDeviceAndHostTimer`; `None` where the
    /// driver does not support it (then [`offsets`] measures one).
    pub kernel: Option<String>,
    pub global: Vec<usize>,
    pub local: Option<Vec<usize>>,
    /// Bytes moved, for transfers.
    pub bytes: Option<u64>,
    pub queued: u64,
    pub submit: u64,
    pub start: u64,
    pub end: u64,
    /// `CL_COMPLETE` (0) or the negative error the command ended with.
    pub status: i32,
    /// Host TSC when the enqueue call began and ended: the command was
    /// queued in between.
    pub enqueue_tsc: u64,
    pub enqueue_end_tsc: u64,
    pub to_host: Option<i64>,
}

/// How a queue's device times were put on the host's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alignment {
    /// The driver's `clGetDeviceAndHostTimer`, sampled once per device.
    HostTimer,
    /// No host timer: the smallest shift that puts no command before its
    /// enqueue call.
    Measured,
}

/// Per queue, the nanoseconds to add to a device time to get host
/// `CLOCK_MONOTONIC` nanoseconds. Commands are added one by one (a long run
/// is read back from its spill file); `host_ns` turns an enqueue's TSC into
/// host nanoseconds. Without a host timer, each command was queued during
/// its enqueue call, which bounds the offset from both sides; the middle of
/// the tightest bounds is taken (or the lower bound, should they cross).
#[derive(Debug, Default)]
pub struct Offsets {
    timer: BTreeMap<u64, i64>,
    bounds: BTreeMap<u64, (i64, i64)>,
}

pub type QueueOffsets = BTreeMap<u64, (i64, Alignment)>;

impl Offsets {
    pub fn add(&mut self, c: &Command, host_ns: impl Fn(u64) -> u64) {
        match c.to_host {
            Some(o) => {
                self.timer.entry(c.queue).or_insert(o);
            }
            None => {
                let lo = host_ns(c.enqueue_tsc) as i64 - c.queued as i64;
                let hi = host_ns(c.enqueue_end_tsc.max(c.enqueue_tsc)) as i64 - c.queued as i64;
                let b = self.bounds.entry(c.queue).or_insert((i64::MIN, i64::MAX));
                *b = (b.0.max(lo), b.1.min(hi));
            }
        }
    }

    pub fn finish(self) -> QueueOffsets {
        let mut m: QueueOffsets = self.timer.into_iter().map(|(q, o)| (q, (o, Alignment::HostTimer))).collect();
        for (q, (lo, hi)) in self.bounds {
            let off = if lo <= hi { lo + (hi - lo) / 2 } else { lo };
            m.entry(q).or_insert((off, Alignment::Measured));
        }
        m
    }
}

/// A device time on the host's clock.
pub fn on_host(t: u64, off: i64) -> u64 {
    (t as i64).saturating_add(off).max(0) as u64
}

pub mod borrowed;
pub mod cl;
pub mod clock;
mod codec;
pub mod collected;
pub mod deliver;
pub mod devices;
pub mod enqueue;
pub mod fork;
pub mod kernels;
pub mod memo;
pub mod pending;
pub mod queues;
pub mod reader;
pub mod recent;
mod store;
pub use borrowed::CommandRef;
pub use collected::Commands;
pub use pending::{enable, on};
pub use store::{
    configure_spill, count, device_clocks, for_each, lookup, record, record_ref, remove_spill, tables, untimed,
    untimed_commands, Lookup,
};

#[derive(Debug, Clone, PartialEq)]
pub struct KernelRow {
    pub kernel: String,
    pub launches: u64,
    pub total_ns: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    /// (global, local) size → (launches, total ns).
    pub by_size: Vec<(String, u64, u64)>,
}

/// Sizes as `16x4`, appended to `out`.
fn sizes(v: &[usize], out: &mut String) {
    use std::fmt::Write;
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            out.push('x');
        }
        let _ = write!(out, "{x}");
    }
}

/// The kernel and transfer tallies, built one command at a time.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tables {
    kernels: Vec<KernelRow>,
    transfers: Vec<TransferRow>,
}

impl Tables {
    pub fn add(&mut self, c: &Command) {
        self.add_ref(&c.as_ref(), &mut String::new());
    }

    /// Adds `c`; `key` is room for its sizes' text, kept by the caller so
    /// that adding a command allocates nothing once its rows exist.
    pub fn add_ref(&mut self, c: &CommandRef, key: &mut String) {
        if c.status != 0 {
            return;
        }
        if let Some(k) = c.kernel {
            self.add_kernel(k, c, key);
        }
        if let (Some(dir), Some(b)) = (c.direction(), c.bytes) {
            match self.transfers.iter_mut().find(|r| r.direction == dir) {
                Some(r) => {
                    r.count += 1;
                    r.bytes = r.bytes.saturating_add(b);
                    r.total_ns = r.total_ns.saturating_add(c.duration_ns());
                }
                None => {
                    self.transfers.push(TransferRow { direction: dir, count: 1, bytes: b, total_ns: c.duration_ns() })
                }
            }
        }
    }

    fn add_kernel(&mut self, k: &str, c: &CommandRef, key: &mut String) {
        let i = match self.kernels.iter().position(|r| r.kernel == k) {
            Some(i) => i,
            None => {
                self.kernels.push(KernelRow {
                    kernel: k.to_string(),
                    launches: 0,
                    total_ns: 0,
                    min_ns: u64::MAX,
                    max_ns: 0,
                    by_size: Vec::new(),
                });
                self.kernels.len() - 1
            }
        };
        let r = &mut self.kernels[i];
        let d = c.duration_ns();
        r.launches += 1;
        r.total_ns = r.total_ns.saturating_add(d);
        r.min_ns = r.min_ns.min(d);
        r.max_ns = r.max_ns.max(d);
        key.clear();
        key.push_str("global ");
        sizes(c.global, key);
        key.push_str(" local ");
        match c.local {
            Some(l) => sizes(l, key),
            None => key.push_str("NULL"),
        }
        match r.by_size.iter_mut().find(|(s, _, _)| s == key) {
            Some(e) => {
                e.1 += 1;
                e.2 = e.2.saturating_add(d);
            }
            None => r.by_size.push((key.clone(), 1, d)),
        }
    }

    /// Busiest kernel first.
    pub fn kernels(&self) -> Vec<KernelRow> {
        let mut rows = self.kernels.clone();
        rows.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then(a.kernel.cmp(&b.kernel)));
        rows
    }

    /// Busiest direction first.
    pub fn transfers(&self) -> Vec<TransferRow> {
        let mut rows = self.transfers.clone();
        rows.sort_by_key(|r| std::cmp::Reverse(r.total_ns));
        rows
    }
}

fn tally(cmds: &[Command]) -> Tables {
    let mut t = Tables::default();
    for c in cmds {
        t.add(c);
    }
    t
}

pub fn kernel_table(cmds: &[Command]) -> Vec<KernelRow> {
    tally(cmds).kernels()
}

#[derive(Debug, Clone, PartialEq)]
pub struct TransferRow {
    pub direction: &'static str,
    pub count: u64,
    pub bytes: u64,
    pub total_ns: u64,
}

impl TransferRow {
    pub fn gb_per_s(&self) -> f64 {
        if self.total_ns == 0 {
            0.0
        } else {
            self.bytes as f64 / self.total_ns as f64
        }
    }
}

pub fn transfer_table(cmds: &[Command]) -> Vec<TransferRow> {
    tally(cmds).transfers()
}

fn us(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

pub fn render_kernels(rows: &[KernelRow]) -> String {
    let total = rows.iter().fold(0u64, |t, r| t.saturating_add(r.total_ns));
    let w = rows.iter().map(|r| r.kernel.len()).max().unwrap_or(6).clamp(6, crate::report::MAX_NAME_WIDTH);
    let mut s = format!(
        "{:<w$}  {:>8}  {:>12}  {:>6}  {:>10}  {:>10}  {:>10}\n",
        "kernel", "launches", "total µs", "%", "avg µs", "min µs", "max µs"
    );
    for r in rows {
        let pct = if total == 0 { 0.0 } else { 100.0 * r.total_ns as f64 / total as f64 };
        s += &format!(
            "{:<w$}  {:>8}  {:>12.1}  {:>6.2}  {:>10.2}  {:>10.2}  {:>10.2}\n",
            r.kernel,
            r.launches,
            us(r.total_ns),
            pct,
            us(r.total_ns) / r.launches as f64,
            us(r.min_ns),
            us(r.max_ns)
        );
        for (k, n, t) in &r.by_size {
            s += &format!("  {:<width$}  {:>8}  {:>12.1}\n", k, n, us(*t), width = w - 2);
        }
    }
    s
}

pub fn render_transfers(rows: &[TransferRow]) -> String {
    let mut s = format!("{:<18}  {:>7}  {:>14}  {:>12}  {:>8}\n", "direction", "count", "bytes", "total µs", "GB/s");
    for r in rows {
        s += &format!(
            "{:<18}  {:>7}  {:>14}  {:>12.1}  {:>8.2}\n",
            r.direction,
            r.count,
            r.bytes,
            us(r.total_ns),
            r.gb_per_s()
        );
    }
    s
}

/// A read-buffer command `id` of `10 * id` bytes, its times `id` to
/// `id + 3`: what the store's and the spill's tests keep and read back.
#[cfg(test)]
pub(crate) fn read_buffer_command(id: u64) -> Command {
    Command {
        cmd_id: id,
        api: "clEnqueueReadBuffer",
        tid: 1,
        queue: 2,
        context: 3,
        device: std::sync::Arc::from("dev"),
        cmd_type: 0x11F3,
        kernel: None,
        global: vec![],
        local: None,
        bytes: Some(id * 10),
        queued: id,
        submit: id + 1,
        start: id + 2,
        end: id + 3,
        status: 0,
        enqueue_tsc: 0,
        enqueue_end_tsc: 0,
        to_host: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(id: u64, api: &'static str, kernel: Option<&str>, start: u64, end: u64, bytes: Option<u64>) -> Command {
        Command {
            cmd_id: id,
            api,
            tid: 1,
            queue: 7,
            context: 3,
            device: "dev".into(),
            cmd_type: 0x11F0,
            kernel: kernel.map(str::to_string),
            global: vec![1024],
            local: None,
            bytes,
            queued: start - 30,
            submit: start - 10,
            start,
            end,
            status: 0,
            enqueue_tsc: 0,
            enqueue_end_tsc: 0,
            to_host: None,
        }
    }

    fn offsets(cmds: &[Command], host_ns: impl Fn(u64) -> u64) -> QueueOffsets {
        let mut o = Offsets::default();
        for c in cmds {
            o.add(c, &host_ns);
        }
        o.finish()
    }

    #[test]
    fn measured_offsets_keep_each_command_inside_its_enqueue_call() {
        // Host ns below (identity clock). Device clock = host - 9000.
        let mut a = cmd(1, "clEnqueueNDRangeKernel", Some("k"), 1000, 2000, None);
        let mut b = cmd(2, "clEnqueueReadBuffer", None, 5000, 6000, Some(4));
        (a.enqueue_tsc, a.enqueue_end_tsc) = (a.queued + 8990, a.queued + 9100);
        // A blocking read: its call lasts long after the command was queued.
        (b.enqueue_tsc, b.enqueue_end_tsc) = (b.queued + 8950, b.queued + 9000 + 50_000);
        let off = offsets(&[a.clone(), b.clone()], |t| t);
        let (o, how) = off[&7];
        assert_eq!(how, Alignment::Measured);
        for c in [&a, &b] {
            let q = on_host(c.queued, o);
            assert!(c.enqueue_tsc <= q && q <= c.enqueue_end_tsc, "{q} outside its call");
        }
        assert_eq!(o, 8990 + (9100 - 8990) / 2, "the middle of the tightest bounds");
        b.to_host = Some(-5);
        let off = offsets(&[b], |t| t);
        assert_eq!(off[&7], (-5, Alignment::HostTimer));
    }

    #[test]
    fn kernels_and_transfers_are_tallied() {
        let c = vec![
            cmd(1, "clEnqueueNDRangeKernel", Some("add"), 100, 1100, None),
            cmd(2, "clEnqueueNDRangeKernel", Some("add"), 2000, 2500, None),
            cmd(3, "clEnqueueNDRangeKernel", Some("mul"), 3000, 3100, None),
            cmd(4, "clEnqueueReadBuffer", None, 4000, 6000, Some(4_000_000)),
        ];
        let k = kernel_table(&c);
        assert_eq!(k[0].kernel, "add");
        assert_eq!((k[0].launches, k[0].total_ns, k[0].min_ns, k[0].max_ns), (2, 1500, 500, 1000));
        assert_eq!(k[0].by_size, vec![("global 1024 local NULL".to_string(), 2, 1500)]);
        let t = transfer_table(&c);
        assert_eq!(t[0].direction, "device to host");
        assert!((t[0].gb_per_s() - 2000.0).abs() < 1e-9);
        assert!(render_kernels(&k).contains("add"));
        assert!(render_transfers(&t).contains("device to host"));
    }
}
