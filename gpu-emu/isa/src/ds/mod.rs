//! LDS and GDS: the DS encoding, LDS atomics included. LDS is the work-group's own byte array
//! ([`lds`]); a work-group's waves run one after another on one host thread, so LDS atomics are
//! plain read-modify-writes. GDS, GWS, append/consume, the src2 forms and the addtid forms fault
//! as unimplemented. The lane exchanges that use the LDS crossbar without touching LDS
//! (ds_swizzle_b32, ds_permute_b32, ds_bpermute_b32) are in [`lanes`].

pub mod lanes;
pub mod lds;

use crate::decode::Inst;
use crate::exec::{Ctx, Flow};
use crate::fault::Fault;
use crate::flat::access::{self, Load, Store};
use crate::flat::atomic::{self, Op};
use crate::wave::{Wave, LANES};

/// What a DS opcode does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Read(Load),
    Write(Store),
    /// ds_read2/ds_write2 (and st64): two elements of 4 or 8 bytes at offset0 and offset1 elements
    /// (×64 with st64).
    Read2 {
        wide: bool,
        st64: bool,
    },
    Write2 {
        wide: bool,
        st64: bool,
    },
    Atomic {
        op: Op,
        wide: bool,
        rtn: bool,
    },
    /// ds_wrxchg2(st64)_rtn: two exchanges at offset0 and offset1, both old values returned.
    Wrxchg2 {
        wide: bool,
        st64: bool,
    },
    Swizzle,
    Permute,
    Bpermute,
    Nop,
}

/// The integer atomics in opcode order (add_u32 .. xor_b32, then the same at 0x20, 0x40, 0x60).
const INT_ATOMICS: [Op; 12] =
    [Op::Add, Op::Sub, Op::Rsub, Op::Inc, Op::Dec, Op::Smin, Op::Smax, Op::Umin, Op::Umax, Op::And, Op::Or, Op::Xor];

fn kind(op: u16) -> Option<Kind> {
    let at = |op, wide, rtn| Some(Kind::Atomic { op, wide, rtn });
    let d16 = |bytes, signed, hi| Some(Kind::Read(Load::D16 { bytes, signed, hi }));
    let sub = |bytes, hi| Some(Kind::Write(Store::Sub { bytes, hi }));
    // The 64-bit forms sit 0x40 above the 32-bit ones, the returning forms 0x20 above the others.
    let (wide, rtn, base) = (op & 0x40 != 0, op & 0x20 != 0, op & !0x60);
    match op {
        0x00..=0x0B | 0x20..=0x2B | 0x40..=0x4B | 0x60..=0x6B => at(INT_ATOMICS[base as usize], wide, rtn),
        0x0C | 0x2C | 0x4C | 0x6C => at(Op::Mskor, wide, rtn),
        0x10 | 0x30 | 0x50 | 0x70 => at(Op::CmpSwap, wide, rtn),
        0x11 | 0x31 | 0x51 | 0x71 => at(Op::FCmpSwap, wide, rtn),
        0x12 | 0x32 | 0x52 | 0x72 => at(Op::FMin, wide, rtn),
        0x13 | 0x33 | 0x53 | 0x73 => at(Op::FMax, wide, rtn),
        0x15 | 0x35 => at(Op::FAdd, false, rtn),
        0x2D | 0x6D => at(Op::Swap, wide, true),
        0x34 => at(Op::Wrap, false, true),
        0x0D => Some(Kind::Write(Store::Dwords(1))),
        0x4D => Some(Kind::Write(Store::Dwords(2))),
        0xDE => Some(Kind::Write(Store::Dwords(3))),
        0xDF => Some(Kind::Write(Store::Dwords(4))),
        0x1E => sub(1, false),
        0x1F => sub(2, false),
        0x54 => sub(1, true),
        0x55 => sub(2, true),
        0x0E | 0x4E => Some(Kind::Write2 { wide, st64: false }),
        0x0F | 0x4F => Some(Kind::Write2 { wide, st64: true }),
        0x2E | 0x6E => Some(Kind::Wrxchg2 { wide, st64: false }),
        0x2F | 0x6F => Some(Kind::Wrxchg2 { wide, st64: true }),
        0x36 => Some(Kind::Read(Load::Dwords(1))),
        0x76 => Some(Kind::Read(Load::Dwords(2))),
        0xFE => Some(Kind::Read(Load::Dwords(3))),
        0xFF => Some(Kind::Read(Load::Dwords(4))),
        0x39 => Some(Kind::Read(Load::I8)),
        0x3A => Some(Kind::Read(Load::U8)),
        0x3B => Some(Kind::Read(Load::I16)),
        0x3C => Some(Kind::Read(Load::U16)),
        0x56 => d16(1, false, false),
        0x57 => d16(1, false, true),
        0x58 => d16(1, true, false),
        0x59 => d16(1, true, true),
        0x5A => d16(2, false, false),
        0x5B => d16(2, false, true),
        0x37 | 0x77 => Some(Kind::Read2 { wide, st64: false }),
        0x38 | 0x78 => Some(Kind::Read2 { wide, st64: true }),
        0x3D => Some(Kind::Swizzle),
        0x3E => Some(Kind::Permute),
        0x3F => Some(Kind::Bpermute),
        0x14 => Some(Kind::Nop),
        _ => None,
    }
}

pub fn exec(w: &mut Wave, i: &Inst, ctx: &mut Ctx) -> Result<Flow, Fault> {
    let k = match kind(i.op) {
        Some(Kind::Nop) => return Ok(Flow::Next),
        _ if i.ds_gds() => None,
        k => k,
    };
    let Some(k) = k else { return Err(Fault::unimplemented(w.pc, i)) };
    match k {
        Kind::Swizzle => lanes::swizzle(w, i),
        Kind::Permute => lanes::permute(w, i),
        Kind::Bpermute => lanes::bpermute(w, i),
        _ => each_lane(w, i, ctx.lds, k),
    }
    Ok(Flow::Next)
}

/// The LDS accesses proper, lane by lane in lane order (so the highest lane's write to an address
/// wins, as on the hardware).
fn each_lane(w: &mut Wave, i: &Inst, lds: &mut [u8], k: Kind) {
    let exec = w.exec();
    let (vaddr, d0, d1, vdst) = (i.ds_addr(), i.ds_data0(), i.ds_data1(), i.ds_vdst());
    let offset = i.ds_offset16();
    // ds_read2/write2: offsets in elements of 4 or 8 bytes, ×64 with st64.
    let pair = |wide: bool, st64: bool| {
        let unit = if wide { 8 } else { 4 } * if st64 { 64 } else { 1 };
        (i.ds_offset0() * unit, i.ds_offset1() * unit)
    };
    for lane in 0..LANES {
        if exec >> lane & 1 == 0 {
            continue;
        }
        let base = w.vgpr(vaddr, lane);
        let addr = base.wrapping_add(offset);
        match k {
            Kind::Read(load) => {
                let mut data = [0u8; 16];
                lds::read(lds, addr, &mut data[..load.bytes()]);
                access::put(w, vdst, lane, load, &data);
            }
            Kind::Write(store) => {
                let mut data = [0u8; 16];
                let n = access::take(w, d0, lane, store, &mut data);
                lds::write(lds, addr, &data[..n]);
            }
            Kind::Read2 { wide, st64 } => {
                let (o0, o1) = pair(wide, st64);
                let (a0, a1) = (base.wrapping_add(o0), base.wrapping_add(o1));
                if wide {
                    let (x, y) = (lds::read_u64(lds, a0), lds::read_u64(lds, a1));
                    w.set_vgpr64(vdst, lane, x);
                    w.set_vgpr64(vdst + 2, lane, y);
                } else {
                    let (x, y) = (lds::read_u32(lds, a0), lds::read_u32(lds, a1));
                    w.set_vgpr(vdst, lane, x);
                    w.set_vgpr(vdst + 1, lane, y);
                }
            }
            Kind::Write2 { wide, st64 } => {
                let (o0, o1) = pair(wide, st64);
                let (a0, a1) = (base.wrapping_add(o0), base.wrapping_add(o1));
                if wide {
                    lds::write(lds, a0, &w.vgpr64(d0, lane).to_le_bytes());
                    lds::write(lds, a1, &w.vgpr64(d1, lane).to_le_bytes());
                } else {
                    lds::write(lds, a0, &w.vgpr(d0, lane).to_le_bytes());
                    lds::write(lds, a1, &w.vgpr(d1, lane).to_le_bytes());
                }
            }
            Kind::Wrxchg2 { wide, st64 } => {
                let (o0, o1) = pair(wide, st64);
                let (a0, a1) = (base.wrapping_add(o0), base.wrapping_add(o1));
                if wide {
                    let x = atomic::lds64(lds, a0, Op::Swap, w.vgpr64(d0, lane), 0);
                    let y = atomic::lds64(lds, a1, Op::Swap, w.vgpr64(d1, lane), 0);
                    w.set_vgpr64(vdst, lane, x);
                    w.set_vgpr64(vdst + 2, lane, y);
                } else {
                    let x = atomic::lds32(lds, a0, Op::Swap, w.vgpr(d0, lane), 0);
                    let y = atomic::lds32(lds, a1, Op::Swap, w.vgpr(d1, lane), 0);
                    w.set_vgpr(vdst, lane, x);
                    w.set_vgpr(vdst + 1, lane, y);
                }
            }
            Kind::Atomic { op, wide, rtn } => {
                // DS's compare-and-store takes the compare value first (DATA0) and the new
                // value second (DATA1): the reverse of the buffer and flat cmpswap.
                let (s, c) = if matches!(op, Op::CmpSwap | Op::FCmpSwap) { (d1, d0) } else { (d0, d1) };
                if wide {
                    let old = atomic::lds64(lds, addr, op, w.vgpr64(s, lane), w.vgpr64(c, lane));
                    if rtn {
                        w.set_vgpr64(vdst, lane, old);
                    }
                } else {
                    let old = atomic::lds32(lds, addr, op, w.vgpr(s, lane), w.vgpr(c, lane));
                    if rtn {
                        w.set_vgpr(vdst, lane, old);
                    }
                }
            }
            Kind::Swizzle | Kind::Permute | Kind::Bpermute | Kind::Nop => {}
        }
    }
}
