//! What a dispatch executed, counted as the SQ block counts it: per wave-instruction issued (not
//! per lane), by the instruction's class. These are exact counts of what the emulator ran, from
//! which the emulated AQLprofile's SQ_INSTS_* and SQ_WAVES counters read.

use crate::decode::{Format, Inst};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Waves launched.
    pub waves: u64,
    /// Every instruction issued.
    pub insts: u64,
    pub valu: u64,
    pub salu: u64,
    pub smem: u64,
    /// Vector memory reads and writes (MUBUF, MTBUF, MIMG and FLAT/GLOBAL/SCRATCH; atomics are
    /// both).
    pub vmem_rd: u64,
    pub vmem_wr: u64,
    /// FLAT, GLOBAL and SCRATCH instructions.
    pub flat: u64,
    /// LDS instructions (DS, GDS excluded).
    pub lds: u64,
    pub gds: u64,
    /// Branches: the SOPP jumps and s_setpc/s_swappc/s_getpc.
    pub branch: u64,
    pub sendmsg: u64,
    /// s_waitcnt.
    pub waitcnt: u64,
    /// Lane-instructions: each instruction issued times the lanes EXEC had on at its issue (the
    /// emulator's throughput is measured in these).
    pub lanes: u64,
}

impl Counts {
    pub fn add(&mut self, o: &Counts) {
        self.waves += o.waves;
        self.insts += o.insts;
        self.valu += o.valu;
        self.salu += o.salu;
        self.smem += o.smem;
        self.vmem_rd += o.vmem_rd;
        self.vmem_wr += o.vmem_wr;
        self.flat += o.flat;
        self.lds += o.lds;
        self.gds += o.gds;
        self.branch += o.branch;
        self.sendmsg += o.sendmsg;
        self.waitcnt += o.waitcnt;
        self.lanes += o.lanes;
    }

    /// Counts one issued instruction.
    #[inline]
    pub fn count(&mut self, i: &Inst) {
        self.insts += 1;
        match i.format {
            Format::Sop1 | Format::Sop2 | Format::Sopk | Format::Sopc => {
                if is_scalar_branch(i) {
                    self.branch += 1;
                } else {
                    self.salu += 1;
                }
            }
            Format::Sopp => match i.op {
                // s_branch, s_cbranch_*
                2 | 4..=9 | 23..=26 => self.branch += 1,
                // s_sendmsg, s_sendmsghalt
                16 | 17 => self.sendmsg += 1,
                12 => self.waitcnt += 1,
                _ => {}
            },
            Format::Smem => self.smem += 1,
            Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3 | Format::Vop3p | Format::Vintrp => {
                self.valu += 1
            }
            Format::Ds => {
                if i.ds_gds() {
                    self.gds += 1
                } else {
                    self.lds += 1
                }
            }
            Format::Flat | Format::Mubuf | Format::Mtbuf | Format::Mimg => {
                if i.format == Format::Flat {
                    self.flat += 1;
                }
                let (rd, wr) = crate::names::memory_direction(i.format, i.op);
                self.vmem_rd += u64::from(rd);
                self.vmem_wr += u64::from(wr);
            }
            Format::Exp => {}
        }
    }
}

/// s_getpc_b64, s_setpc_b64, s_swappc_b64 (SOP1 28, 29, 30) change or read the program counter.
fn is_scalar_branch(i: &Inst) -> bool {
    i.format == Format::Sop1 && matches!(i.op, 28..=30)
}
