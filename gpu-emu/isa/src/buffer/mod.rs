//! MUBUF and MTBUF: buffer loads, stores and atomics through a buffer resource (V#, four SGPRs).
//!
//! A lane's address, linear (swizzled buffers: see [`swizzled`]):
//! `base + soffset + offset + stride * index`, where offset = inst_offset (+ the offset VGPR with
//! offen) and index = the index VGPR with idxen (+ the lane's id with ADD_TID_ENABLE). With both
//! idxen and offen the VGPR pair holds the index, then the offset.
//!
//! Range checking against num_records, soffset not included: with stride != 0 an access whose
//! index is >= num_records is out of range as a whole; with stride == 0 num_records counts bytes
//! and each dword (or the byte or short) of an access is checked on its own. Out of range, loads
//! read 0, stores are dropped and atomics do nothing (and return 0).
//!
//! The emulator's scratch goes through here too: the private segment buffer in s[0:3] is swizzled
//! with 4-byte elements over 64 lanes and ADD_TID_ENABLE (see [`crate::memory`]), so
//! `buffer_store_dword v1, off, s[0:3], s7 offset:4` writes lane L's private bytes 4..8 at
//! `base + s7 + 1 * 256 + L * 4`.

pub mod format;

use crate::decode::{Format, Inst};
use crate::exec::{Ctx, Flow};
use crate::fault::Fault;
use crate::flat::access::{self, Access, Load, Place, Store};
use crate::memory::Site;
use crate::wave::{Ty, Wave, LANES};

/// The fields of a buffer resource (V#) the emulator uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rsrc {
    pub base: u64,
    /// Bytes between elements. With ADD_TID_ENABLE, data_format supplies bits 17:14 of it (so that
    /// a scratch lane stride may exceed 14 bits), as gfx9 does.
    pub stride: u64,
    pub swizzle: bool,
    pub num_records: u32,
    /// Channel selects x, y, z, w (0: zero, 1: one, 4..7: the element's x..w).
    pub dst_sel: [u32; 4],
    pub nfmt: u32,
    pub dfmt: u32,
    pub add_tid: bool,
    /// Swizzling: bytes per element (2, 4, 8 or 16) and elements per index group (8 to 64).
    pub element_size: u64,
    pub index_stride: u64,
}

impl Rsrc {
    /// The V# in the four SGPRs from `first`.
    pub fn read(w: &Wave, first: u32) -> Rsrc {
        let d = [w.sgpr(first), w.sgpr(first + 1), w.sgpr(first + 2), w.sgpr(first + 3)];
        let dfmt = d[3] >> 15 & 0xF;
        let add_tid = d[3] >> 23 & 1 == 1;
        let mut stride = u64::from(d[1] >> 16 & 0x3FFF);
        if add_tid {
            stride |= u64::from(dfmt) << 14;
        }
        Rsrc {
            base: u64::from(d[0]) | u64::from(d[1] & 0xFFFF) << 32,
            stride,
            swizzle: d[1] >> 31 == 1,
            num_records: d[2],
            dst_sel: [d[3] & 7, d[3] >> 3 & 7, d[3] >> 6 & 7, d[3] >> 9 & 7],
            nfmt: d[3] >> 12 & 7,
            dfmt,
            add_tid,
            element_size: 2 << (d[3] >> 19 & 3),
            index_stride: 8 << (d[3] >> 21 & 3),
        }
    }
}

/// One lane's address, before range checking: the byte address, the offset within the element
/// (inst_offset + offset VGPR) and the index.
#[derive(Debug, Clone, Copy)]
pub struct LaneAddr {
    pub addr: u64,
    pub offset: u64,
    pub index: u64,
}

/// Where lane `lane` of `i` points in `r`.
pub fn lane_addr(w: &Wave, i: &Inst, r: &Rsrc, soffset: u32, lane: usize) -> LaneAddr {
    let vaddr = i.buf_vaddr();
    let (index, voffset) = match (i.buf_idxen(), i.buf_offen()) {
        (true, true) => (w.vgpr(vaddr, lane), w.vgpr(vaddr + 1, lane)),
        (true, false) => (w.vgpr(vaddr, lane), 0),
        (false, true) => (0, w.vgpr(vaddr, lane)),
        (false, false) => (0, 0),
    };
    let index = u64::from(index) + if r.add_tid { lane as u64 } else { 0 };
    let offset = u64::from(voffset) + u64::from(i.buf_offset());
    let addr = r.base.wrapping_add(u64::from(soffset)).wrapping_add(offset).wrapping_add(r.stride.wrapping_mul(index));
    LaneAddr { addr, offset, index }
}

/// How many of an access's `bytes` are in range; `unit` is the size checked on its own (a dword,
/// or the whole of a byte or short access).
pub fn in_range(r: &Rsrc, a: &LaneAddr, bytes: usize, unit: usize) -> usize {
    if r.stride != 0 {
        return if a.index < u64::from(r.num_records) { bytes } else { 0 };
    }
    let left = u64::from(r.num_records).saturating_sub(a.offset);
    let units = (left / unit as u64).min((bytes / unit) as u64);
    units as usize * unit
}

/// A lane's place in a swizzled buffer (the ISA's swizzled addressing): the index splits into
/// its group (times the stride) and its place in the group, the offset into elements; an
/// element's bytes are contiguous and the group's lanes' elements interleave. Scratch is such a
/// buffer (ROCr's and the emulator's private segment descriptor: 4-byte elements, 64 lanes).
/// Swizzled accesses are not range-checked (the scratch descriptor's num_records is the whole
/// 32-bit range).
fn swizzled(r: &Rsrc, soffset: u32, la: &LaneAddr) -> Place {
    let (msb, lsb) = (la.index / r.index_stride, la.index % r.index_stride);
    let base = r
        .base
        .wrapping_add(u64::from(soffset))
        .wrapping_add(msb.wrapping_mul(r.stride).wrapping_mul(r.index_stride))
        .wrapping_add(lsb * r.element_size);
    Place::Swizzled { base, offset: la.offset, elem: r.element_size, pitch: r.element_size * r.index_stride }
}

pub fn exec(w: &mut Wave, i: &Inst, ctx: &mut Ctx) -> Result<Flow, Fault> {
    if i.format == Format::Mtbuf {
        return format::mtbuf(w, i, ctx);
    }
    match i.op {
        // buffer_wbinvl1, buffer_wbinvl1_vol: the emulator has no vector L1 to invalidate.
        0x3E | 0x3F => return Ok(Flow::Next),
        0x00..=0x07 if !i.buf_lds() => return format::mubuf(w, i, ctx),
        _ => {}
    }
    let a = match access::vmem(i.op) {
        Some(a) if !i.buf_lds() => a,
        _ => return Err(Fault::unimplemented(w.pc, i)),
    };
    let r = Rsrc::read(w, i.buf_srsrc());
    let soffset = w.scalar32(i.buf_soffset(), Ty::B32, None);
    let site = Site { pc: w.pc, name: i.name() };
    let exec = w.exec();
    let (bytes, unit) = match a {
        Access::Load(Load::Dwords(n)) | Access::Store(Store::Dwords(n)) => (4 * n as usize, 4),
        Access::Load(l) => (l.bytes(), l.bytes()),
        Access::Store(s) => (s.bytes(), s.bytes()),
        Access::Atomic { wide, .. } => {
            let b = if wide { 8 } else { 4 };
            (b, b)
        }
    };
    for lane in 0..LANES {
        if exec >> lane & 1 == 0 {
            continue;
        }
        let la = lane_addr(w, i, &r, soffset, lane);
        let place = if r.swizzle {
            swizzled(&r, soffset, &la)
        } else {
            let valid = in_range(&r, &la, bytes, unit);
            if valid == 0 {
                Place::Nowhere
            } else {
                Place::Host { addr: la.addr, valid }
            }
        };
        access::lane(w, ctx, site, lane, place, a, i.buf_vdata(), i.buf_vdata(), i.buf_glc())?;
    }
    Ok(Flow::Next)
}
