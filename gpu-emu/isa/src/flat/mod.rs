//! FLAT, GLOBAL and SCRATCH memory instructions, atomics included. The three segments share one
//! encoding and one opcode table ([`access::vmem`]); they differ in how a lane's address is made:
//!
//! - FLAT: the 64-bit VGPR pair plus the unsigned 12-bit offset, then by aperture: the shared
//!   aperture's high half means LDS at the low 32 bits, the private aperture's means the lane's
//!   scratch (see [`crate::memory`]) at `address - PRIVATE_BASE`, anything else global memory.
//! - GLOBAL: the 64-bit VGPR pair, or with `saddr` an SGPR pair plus the zero-extended 32-bit VGPR;
//!   plus the signed 13-bit offset.
//! - SCRATCH: the lane's scratch at the 32-bit VGPR (or, with `saddr`, the SGPR) plus the signed
//!   13-bit offset, from the wave's FLAT_SCRATCH.

pub mod access;
pub mod atomic;

use access::{Access, Place};

use crate::decode::{Inst, SADDR_OFF};
use crate::exec::{Ctx, Flow};
use crate::fault::Fault;
use crate::memory::Site;
use crate::wave::{aperture, reg, Wave, LANES};

/// Scratch is swizzled in dwords: a lane's consecutive dwords are a wave's width of dwords apart.
pub const SCRATCH_ELEMENT: u64 = 4;

/// Segment numbers of [`Inst::flat_seg`].
const SEG_FLAT: u32 = 0;
const SEG_SCRATCH: u32 = 1;
const SEG_GLOBAL: u32 = 2;

pub fn exec(w: &mut Wave, i: &Inst, ctx: &mut Ctx) -> Result<Flow, Fault> {
    let seg = i.flat_seg();
    let a = match access::vmem(i.op) {
        // gfx9 has no scratch atomics, and segment 3 is reserved.
        Some(Access::Atomic { .. }) if seg == SEG_SCRATCH => None,
        _ if seg > SEG_GLOBAL => None,
        a => a,
    };
    let Some(a) = a else { return Err(Fault::unimplemented(w.pc, i)) };
    let site = Site { pc: w.pc, name: i.name() };
    let exec = w.exec();
    let offset = i.flat_offset();
    let (vaddr, saddr) = (i.flat_addr(), i.flat_saddr());
    let scratch = w.sgpr64(reg::FLAT_SCRATCH_LO);
    // The whole access is in range: only buffers clip.
    let whole = 16;
    for lane in 0..LANES {
        if exec >> lane & 1 == 0 {
            continue;
        }
        // The lane's private bytes, swizzled as the hardware lays scratch out (crate::memory).
        let private = |offset: u64| Place::Swizzled {
            base: scratch.wrapping_add(lane as u64 * SCRATCH_ELEMENT),
            offset,
            elem: SCRATCH_ELEMENT,
            pitch: SCRATCH_ELEMENT * LANES as u64,
        };
        let place = match seg {
            SEG_FLAT => {
                let addr = w.vgpr64(vaddr, lane).wrapping_add(offset as u64);
                match addr >> 32 {
                    hi if hi == aperture::SHARED_BASE >> 32 => Place::Lds(addr as u32),
                    hi if hi == aperture::PRIVATE_BASE >> 32 => private(addr - aperture::PRIVATE_BASE),
                    _ => Place::Host { addr, valid: whole },
                }
            }
            SEG_GLOBAL => {
                let base = if saddr == SADDR_OFF {
                    w.vgpr64(vaddr, lane)
                } else {
                    w.sgpr64(saddr).wrapping_add(u64::from(w.vgpr(vaddr, lane)))
                };
                Place::Host { addr: base.wrapping_add(offset as i64 as u64), valid: whole }
            }
            _ => {
                let o = if saddr == SADDR_OFF { w.vgpr(vaddr, lane) } else { w.sgpr(saddr) };
                private(u64::from(o.wrapping_add(offset as u32)))
            }
        };
        access::lane(w, ctx, site, lane, place, a, i.flat_data(), i.flat_vdst(), i.flat_glc())?;
    }
    Ok(Flow::Next)
}
