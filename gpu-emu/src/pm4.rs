//! PM4 packets that carry a counter profile from the emulated AQLprofile ([`crate::aqlprofile`]) to
//! the command processor. AQLprofile's start/stop/read fill 64-byte vendor-specific AQL packets that,
//! as ROCr's own, carry a PM4 INDIRECT_BUFFER command (AmdFormat 1) pointing into the profile's
//! command buffer. What that buffer holds is the emulator's own: one PM4 type-3 NOP (which a real
//! command processor would skip) whose payload starts with the magic "CLTD" and a command:
//!
//! ```text
//! START session event_count {block index counter}*   arm the events
//! STOP  session data_address data_size                write the values, disarm
//! READ  session data_address data_size                write the values
//! ```
//!
//! `session` is the command buffer's address: a STOP or READ writes only what the START of the same
//! profile armed on the same queue. The command processor runs them in queue order; each kernel
//! dispatch between START and STOP adds its values ([`crate::pmc`]). The output buffer: a
//! u32 magic "PMCD", a u32 sample count, then one u64 per sample in the profile's event order; the
//! magic is written last, and START clears it, so a reader can tell that no STOP or READ ran. The
//! format is cltap's own (it was the retired HSA test double's).

use crate::pmc::{self, Dispatched, Event};

const PM4_TYPE2: u32 = 2;
const PM4_TYPE3: u32 = 3;
const IT_NOP: u32 = 0x10;
const IT_INDIRECT_BUFFER: u32 = 0x3f;
const IB_SIZE_MASK: u32 = 0xfffff;
const IB_VALID: u32 = 1 << 23;
const CLTD: u32 = 0x4454_4c43;
pub const DATA_MAGIC: u32 = 0x4443_4d50;
/// `hsa_amd_vendor_packet_header_t.AmdFormat` of a PM4 IB packet (ROCr's AMD_AQL_FORMAT_PM4_IB).
const FORMAT_PM4_IB: u16 = 1;
const FORMAT_OFFSET: usize = 2;
const IB_OFFSET: usize = 4;
const DW_REMAIN_OFFSET: usize = 20;
const SIGNAL_OFFSET: usize = 56;
/// The packet's dwords after the IB command, as ROCr sets it.
const DW_REMAIN: u32 = 10;
const SECTION_ALIGN: u32 = 256;
/// Bytes before the samples in the output buffer.
pub const DATA_HEADER: u32 = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Start = 1,
    Stop = 2,
    Read = 3,
}

/// Body dwords (after the NOP header): magic, op, session (2), then the command's own.
const fn start_body(events: u32) -> u32 {
    5 + 3 * events
}
const STOP_BODY: u32 = 7;

fn type3(opcode: u32, body: u32) -> u32 {
    PM4_TYPE3 << 30 | (body - 1) << 16 | opcode << 8
}

/// Command buffer: START at 0; STOP and READ after it, 256-aligned.
fn stop_offset(events: u32) -> u32 {
    (4 * (1 + start_body(events))).div_ceil(SECTION_ALIGN) * SECTION_ALIGN
}
fn read_offset(events: u32) -> u32 {
    stop_offset(events) + 4 * (1 + STOP_BODY)
}

pub fn command_size(events: u32) -> u32 {
    read_offset(events) + 4 * (1 + STOP_BODY)
}

pub fn data_size(samples: u32) -> u32 {
    DATA_HEADER + 8 * samples
}

/// Writes command `op` of a profile into its command buffer `cmd` (of `command_size` bytes) and
/// points the 64-byte AQL packet `pkt` at it: bytes 2 to 55, all but header and completion signal.
pub fn write(op: Op, cmd: *mut u8, events: &[Event], data: u64, data_size: u32, pkt: &mut [u8; 64]) {
    let count = events.len() as u32;
    let (offset, body) = match op {
        Op::Start => (0, start_body(count)),
        Op::Stop => (stop_offset(count), STOP_BODY),
        Op::Read => (read_offset(count), STOP_BODY),
    };
    let mut dw = vec![type3(IT_NOP, body), CLTD, op as u32, cmd as u64 as u32, (cmd as u64 >> 32) as u32];
    if op == Op::Start {
        dw.push(count);
        dw.extend(events.iter().flat_map(|e| [e.block, e.index, e.counter]));
    } else {
        dw.extend([data as u32, (data >> 32) as u32, data_size]);
    }
    // SAFETY: the profile's command buffer, checked by the caller to hold `command_size` bytes.
    let at = unsafe { cmd.add(offset as usize) };
    // SAFETY: as above; `dw` is 1 + body dwords, within the section.
    unsafe { std::ptr::copy_nonoverlapping(dw.as_ptr() as *const u8, at, dw.len() * 4) };
    let ib = at as u64;
    let ib_cmd =
        [type3(IT_INDIRECT_BUFFER, 3), ib as u32 & !3, (ib >> 32) as u32, (1 + body) & IB_SIZE_MASK | IB_VALID];
    pkt[FORMAT_OFFSET..SIGNAL_OFFSET].fill(0);
    pkt[FORMAT_OFFSET..FORMAT_OFFSET + 2].copy_from_slice(&FORMAT_PM4_IB.to_le_bytes());
    for (i, w) in ib_cmd.iter().enumerate() {
        pkt[IB_OFFSET + 4 * i..IB_OFFSET + 4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    pkt[DW_REMAIN_OFFSET..DW_REMAIN_OFFSET + 4].copy_from_slice(&DW_REMAIN.to_le_bytes());
}

fn word(pkt: &[u8; 64], at: usize) -> u32 {
    u32::from_le_bytes(pkt[at..at + 4].try_into().expect("4 bytes"))
}

/// Whether `pkt` is a PM4 IB packet as [`write`] (and ROCr) make them.
pub fn is_ib(pkt: &[u8; 64]) -> bool {
    u16::from_le_bytes([pkt[FORMAT_OFFSET], pkt[FORMAT_OFFSET + 1]]) == FORMAT_PM4_IB
        && word(pkt, IB_OFFSET) == type3(IT_INDIRECT_BUFFER, 3)
}

/// The counters a queue has armed: only its command processor thread touches them.
#[derive(Debug, Default)]
pub struct Counters {
    armed: bool,
    session: u64,
    events: Vec<Event>,
    values: Vec<u64>,
}

impl Counters {
    /// Runs a vendor-specific packet: the emulator's commands in its IB; anything else (ROCr's own
    /// PM4, such as cache invalidates) is skipped.
    pub fn execute(&mut self, pkt: &[u8; 64]) {
        if !is_ib(pkt) {
            return;
        }
        let ib = u64::from(word(pkt, IB_OFFSET + 8)) << 32 | u64::from(word(pkt, IB_OFFSET + 4));
        let size = word(pkt, IB_OFFSET + 12);
        if ib == 0 || size & IB_VALID == 0 {
            return;
        }
        // SAFETY: as a GPU would, the command processor trusts the IB address: it is the tool's.
        let dw = unsafe { std::slice::from_raw_parts(ib as *const u32, (size & IB_SIZE_MASK) as usize) };
        let mut i = 0;
        while i < dw.len() {
            let h = dw[i];
            if h >> 30 == PM4_TYPE2 {
                i += 1;
                continue;
            }
            let body = ((h >> 16 & 0x3fff) + 1) as usize;
            if h >> 30 != PM4_TYPE3 || body > dw.len() - i - 1 {
                return;
            }
            if h >> 8 & 0xff == IT_NOP {
                self.command(&dw[i + 1..i + 1 + body]);
            }
            i += 1 + body;
        }
    }

    fn command(&mut self, body: &[u32]) {
        if body.len() < 2 || body[0] != CLTD {
            return;
        }
        let session = || u64::from(body[3]) << 32 | u64::from(body[2]);
        match body[1] {
            1 if body.len() >= start_body(0) as usize => {
                let count = body[4] as usize;
                if count > (body.len() - 5) / 3 {
                    return;
                }
                let events: Vec<Event> = body[5..5 + 3 * count]
                    .chunks(3)
                    .map(|c| Event { block: c[0], index: c[1], counter: c[2] })
                    .collect();
                self.armed = events.iter().all(|e| pmc::problem(e).is_none());
                self.values = vec![0; pmc::sample_count(&events) as usize];
                self.events = events;
                self.session = session();
            }
            op @ (2 | 3) if body.len() >= STOP_BODY as usize => {
                let data = u64::from(body[5]) << 32 | u64::from(body[4]);
                if self.armed
                    && self.session == session()
                    && data != 0
                    && body[6] >= data_size(self.values.len() as u32)
                {
                    write_out(data, &self.values);
                }
                if op == 2 {
                    self.armed = false;
                }
            }
            _ => {}
        }
    }

    /// Adds a dispatch's values to what is armed.
    pub fn on_dispatch(&mut self, run: &Dispatched) {
        if !self.armed {
            return;
        }
        let mut k = 0;
        for e in &self.events {
            for s in 0..pmc::samples(e) {
                self.values[k] += pmc::value(e, s, run);
                k += 1;
            }
        }
    }
}

fn write_out(data: u64, values: &[u64]) {
    let p = data as *mut u8;
    // SAFETY: the profile's output buffer, checked to hold the header and every sample.
    unsafe {
        std::ptr::copy_nonoverlapping(values.as_ptr() as *const u8, p.add(DATA_HEADER as usize), values.len() * 8);
        (p.add(4) as *mut u32).write_unaligned(values.len() as u32);
        (*(p as *const std::sync::atomic::AtomicU32)).store(DATA_MAGIC, std::sync::atomic::Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pmc::Shape;
    use cltap::hsa::packet::KernelDispatch;
    use gfx906::Counts;

    #[test]
    fn start_dispatch_read_stop_through_packets() {
        let events = [
            Event { block: pmc::block::SQ, index: 0, counter: 4 },
            Event { block: pmc::block::GRBM, index: 0, counter: 0 },
        ];
        let mut cmd = vec![0u32; command_size(2) as usize / 4];
        let mut data = vec![0u64; data_size(5) as usize / 8];
        let (c, d) = (cmd.as_mut_ptr() as *mut u8, data.as_mut_ptr() as u64);
        let mut counters = Counters::default();
        let mut pkt = [0u8; 64];
        write(Op::Start, c, &events, d, data_size(5), &mut pkt);
        assert!(is_ib(&pkt));
        counters.execute(&pkt);
        let d0 = KernelDispatch { setup: 1, workgroup_size: [64, 1, 1], grid_size: [1024, 1, 1], ..Default::default() };
        // 16 work-groups of one wave: 4 waves on each engine but the last, which ran 3.
        let waves = [4, 4, 4, 3];
        let engines = std::array::from_fn(|se| Counts { waves: waves[se], insts: 7 * waves[se], ..Default::default() });
        let run = Dispatched { shape: Shape::of(&d0), engines };
        counters.on_dispatch(&run);
        counters.on_dispatch(&run);
        write(Op::Stop, c, &events, d, data_size(5), &mut pkt);
        counters.execute(&pkt);
        assert_eq!(data[0] as u32, DATA_MAGIC);
        assert_eq!((data[0] >> 32) as u32, 5);
        // The engines' waves, twice; GRBM_COUNT twice (2000 + 64 ns at 1725 MHz).
        assert_eq!(&data[1..], &[8, 8, 8, 6, 2 * (2064 * 1725 / 1000)]);
        // Disarmed: a later dispatch and READ change nothing.
        data[1] = 0;
        counters.on_dispatch(&run);
        write(Op::Read, c, &events, d, data_size(5), &mut pkt);
        counters.execute(&pkt);
        assert_eq!(data[1], 0);
    }
}
