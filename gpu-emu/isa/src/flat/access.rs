//! What a vector memory instruction does to one lane, apart from where: FLAT/GLOBAL/SCRATCH and
//! MUBUF share their opcode numbers for the untyped loads, stores and atomics, so one table
//! ([`vmem`]) and one lane routine ([`lane`]) serve both; each family computes the [`Place`].

use super::atomic::{self, Op};
use crate::exec::Ctx;
use crate::fault::Fault;
use crate::memory::{self, Site};
use crate::wave::Wave;

/// A load: how many bytes and how they land in the destination VGPRs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Load {
    U8,
    I8,
    U16,
    I16,
    /// 1 to 4 dwords into consecutive VGPRs.
    Dwords(u8),
    /// A d16 load: a byte (zero- or sign-extended to 16 bits) or a short into the low or high half
    /// of the VGPR, the other half kept.
    D16 {
        bytes: u8,
        signed: bool,
        hi: bool,
    },
}

/// A store: which bytes of the data VGPRs go to memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Store {
    /// A byte or a short from bits [7:0]/[15:0], or with `hi` from [23:16]/[31:16].
    Sub {
        bytes: u8,
        hi: bool,
    },
    Dwords(u8),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Load(Load),
    Store(Store),
    /// `wide`: the _x2 form, on 64-bit values.
    Atomic {
        op: Op,
        wide: bool,
    },
}

impl Load {
    pub fn bytes(self) -> usize {
        match self {
            Load::U8 | Load::I8 => 1,
            Load::U16 | Load::I16 => 2,
            Load::Dwords(n) => 4 * n as usize,
            Load::D16 { bytes, .. } => bytes as usize,
        }
    }
}

impl Store {
    pub fn bytes(self) -> usize {
        match self {
            Store::Sub { bytes, .. } => bytes as usize,
            Store::Dwords(n) => 4 * n as usize,
        }
    }
}

/// The untyped access of opcode `op` in the numbering FLAT and MUBUF share (loads 0x10..=0x17,
/// stores 0x18..=0x1F, d16 loads 0x20..=0x25, atomics 0x40..=0x4C and their _x2 forms
/// 0x60..=0x6C).
pub fn vmem(op: u16) -> Option<Access> {
    const ATOMICS: [Op; 13] = [
        Op::Swap,
        Op::CmpSwap,
        Op::Add,
        Op::Sub,
        Op::Smin,
        Op::Umin,
        Op::Smax,
        Op::Umax,
        Op::And,
        Op::Or,
        Op::Xor,
        Op::Inc,
        Op::Dec,
    ];
    let d16 = |bytes, signed, hi| Some(Access::Load(Load::D16 { bytes, signed, hi }));
    match op {
        0x10 => Some(Access::Load(Load::U8)),
        0x11 => Some(Access::Load(Load::I8)),
        0x12 => Some(Access::Load(Load::U16)),
        0x13 => Some(Access::Load(Load::I16)),
        0x14..=0x17 => Some(Access::Load(Load::Dwords((op - 0x13) as u8))),
        0x18 => Some(Access::Store(Store::Sub { bytes: 1, hi: false })),
        0x19 => Some(Access::Store(Store::Sub { bytes: 1, hi: true })),
        0x1A => Some(Access::Store(Store::Sub { bytes: 2, hi: false })),
        0x1B => Some(Access::Store(Store::Sub { bytes: 2, hi: true })),
        0x1C..=0x1F => Some(Access::Store(Store::Dwords((op - 0x1B) as u8))),
        0x20 => d16(1, false, false),
        0x21 => d16(1, false, true),
        0x22 => d16(1, true, false),
        0x23 => d16(1, true, true),
        0x24 => d16(2, false, false),
        0x25 => d16(2, false, true),
        0x40..=0x4C => Some(Access::Atomic { op: ATOMICS[(op - 0x40) as usize], wide: false }),
        0x60..=0x6C => Some(Access::Atomic { op: ATOMICS[(op - 0x60) as usize], wide: true }),
        _ => None,
    }
}

/// Writes a lane's loaded bytes (`data`, little-endian, `load.bytes()` long) to its VGPRs.
pub fn put(w: &mut Wave, vdst: u32, lane: usize, load: Load, data: &[u8; 16]) {
    let word = |k: usize| u32::from_le_bytes([data[4 * k], data[4 * k + 1], data[4 * k + 2], data[4 * k + 3]]);
    match load {
        Load::U8 => w.set_vgpr(vdst, lane, u32::from(data[0])),
        Load::I8 => w.set_vgpr(vdst, lane, data[0] as i8 as i32 as u32),
        Load::U16 => w.set_vgpr(vdst, lane, u32::from(u16::from_le_bytes([data[0], data[1]]))),
        Load::I16 => w.set_vgpr(vdst, lane, i16::from_le_bytes([data[0], data[1]]) as i32 as u32),
        Load::Dwords(n) => {
            for k in 0..n as usize {
                w.set_vgpr(vdst + k as u32, lane, word(k));
            }
        }
        Load::D16 { bytes, signed, hi } => {
            let half = match (bytes, signed) {
                (1, false) => u32::from(data[0]),
                (1, true) => u32::from(data[0] as i8 as i16 as u16),
                _ => u32::from(u16::from_le_bytes([data[0], data[1]])),
            };
            let old = w.vgpr(vdst, lane);
            let v = if hi { (old & 0xFFFF) | half << 16 } else { (old & 0xFFFF_0000) | half };
            w.set_vgpr(vdst, lane, v);
        }
    }
}

/// The bytes a lane stores, in `out`; returns how many.
pub fn take(w: &Wave, vdata: u32, lane: usize, store: Store, out: &mut [u8; 16]) -> usize {
    match store {
        Store::Sub { bytes, hi } => {
            let v = w.vgpr(vdata, lane);
            let v = if hi { v >> 16 } else { v };
            out[..2].copy_from_slice(&(v as u16).to_le_bytes());
            bytes as usize
        }
        Store::Dwords(n) => {
            for k in 0..n as usize {
                out[4 * k..4 * k + 4].copy_from_slice(&w.vgpr(vdata + k as u32, lane).to_le_bytes());
            }
            4 * n as usize
        }
    }
}

/// Where one lane's access goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// GPU memory at this (host) address; `valid` of the access's bytes are in range (a buffer
    /// access partly past num_records): loads read zeros past them, stores drop those bytes.
    /// `valid` is counted in whole dwords for dword accesses.
    Host { addr: u64, valid: usize },
    /// The work-group's LDS at this byte address (a FLAT address in the shared aperture).
    Lds(u32),
    /// Out of range of a buffer: loads read 0, stores and atomics do nothing.
    Nowhere,
    /// A swizzled buffer, scratch among them: the lane's byte `offset + i` lies at
    /// `base + (offset + i) / elem * pitch + (offset + i) % elem` (its `elem`-byte elements are
    /// `pitch` bytes apart, the other lanes' elements between them).
    Swizzled { base: u64, offset: u64, elem: u64, pitch: u64 },
}

impl Place {
    /// The host address of a swizzled access's byte `at` (from the access's start).
    fn swizzled(base: u64, offset: u64, elem: u64, pitch: u64, at: u64) -> u64 {
        let o = offset + at;
        base.wrapping_add(o / elem * pitch + o % elem)
    }

    /// The pieces of an `n`-byte swizzled access that are contiguous in memory: (host address,
    /// start within the access, length).
    fn pieces(base: u64, offset: u64, elem: u64, pitch: u64, n: usize) -> impl Iterator<Item = (u64, usize, usize)> {
        let mut at = 0usize;
        std::iter::from_fn(move || {
            if at >= n {
                return None;
            }
            let left_in_elem = (elem - (offset + at as u64) % elem) as usize;
            let len = left_in_elem.min(n - at);
            let piece = (Place::swizzled(base, offset, elem, pitch, at as u64), at, len);
            at += len;
            Some(piece)
        })
    }

    /// An atomic's place: a swizzled one is plain memory when the word lies within one element.
    fn for_atomic(self, bytes: u64, site: Site) -> Result<Place, Fault> {
        match self {
            Place::Swizzled { base, offset, elem, pitch } => {
                if offset % elem + bytes > elem {
                    return Err(Fault::Illegal {
                        pc: site.pc,
                        name: site.name,
                        why: "atomic across swizzled elements",
                    });
                }
                Ok(Place::Host { addr: Place::swizzled(base, offset, elem, pitch, 0), valid: bytes as usize })
            }
            other => Ok(other),
        }
    }
}

/// Runs `a` for one lane at `place`: `vdata` holds the data to store (for atomics the source, then
/// for cmpswap the compare value), `vdst` receives loads and, with `glc`, an atomic's old value.
#[allow(clippy::too_many_arguments)]
pub fn lane(
    w: &mut Wave,
    ctx: &mut Ctx,
    site: Site,
    lane: usize,
    place: Place,
    a: Access,
    vdata: u32,
    vdst: u32,
    glc: bool,
) -> Result<(), Fault> {
    match a {
        Access::Load(load) => {
            let mut data = [0u8; 16];
            let n = load.bytes();
            match place {
                Place::Host { addr, valid } => {
                    if valid > 0 {
                        memory::read(ctx.mem, addr, &mut data[..n.min(valid)], site)?;
                    }
                }
                Place::Lds(addr) => {
                    crate::ds::lds::read(ctx.lds, addr, &mut data[..n]);
                }
                Place::Swizzled { base, offset, elem, pitch } => {
                    for (addr, at, len) in Place::pieces(base, offset, elem, pitch, n) {
                        memory::read(ctx.mem, addr, &mut data[at..at + len], site)?;
                    }
                }
                Place::Nowhere => {}
            }
            put(w, vdst, lane, load, &data);
        }
        Access::Store(store) => {
            let mut data = [0u8; 16];
            let n = take(w, vdata, lane, store, &mut data);
            match place {
                Place::Host { addr, valid } => {
                    let n = n.min(valid);
                    if n > 0 {
                        memory::write(ctx.mem, addr, &data[..n], site)?;
                    }
                }
                Place::Lds(addr) => crate::ds::lds::write(ctx.lds, addr, &data[..n]),
                Place::Swizzled { base, offset, elem, pitch } => {
                    for (addr, at, len) in Place::pieces(base, offset, elem, pitch, n) {
                        memory::write(ctx.mem, addr, &data[at..at + len], site)?;
                    }
                }
                Place::Nowhere => {}
            }
        }
        Access::Atomic { op, wide: false } => {
            let (src, cmp) = (w.vgpr(vdata, lane), w.vgpr(vdata + 1, lane));
            let old = match place.for_atomic(4, site)? {
                Place::Host { addr, .. } => atomic::host32(ctx.mem, addr, site, op, src, cmp)?,
                Place::Lds(addr) => atomic::lds32(ctx.lds, addr, op, src, cmp),
                // for_atomic made a swizzled place plain.
                Place::Nowhere | Place::Swizzled { .. } => 0,
            };
            if glc {
                w.set_vgpr(vdst, lane, old);
            }
        }
        Access::Atomic { op, wide: true } => {
            let (src, cmp) = (w.vgpr64(vdata, lane), w.vgpr64(vdata + 2, lane));
            let old = match place.for_atomic(8, site)? {
                Place::Host { addr, .. } => atomic::host64(ctx.mem, addr, site, op, src, cmp)?,
                Place::Lds(addr) => atomic::lds64(ctx.lds, addr, op, src, cmp),
                // for_atomic made a swizzled place plain.
                Place::Nowhere | Place::Swizzled { .. } => 0,
            };
            if glc {
                w.set_vgpr64(vdst, lane, old);
            }
        }
    }
    Ok(())
}
