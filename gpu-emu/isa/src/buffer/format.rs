//! Typed buffer accesses: MUBUF buffer_load/store_format_* (the format from the V#) and MTBUF
//! tbuffer_load/store_format_* (the format from the instruction). The emulator converts only the
//! 32-bit-per-channel data formats (32, 32_32, 32_32_32, 32_32_32_32) with UINT, SINT or FLOAT
//! numbers, where a channel is its dword as it is; any other format, the d16 forms and swizzled
//! buffers fault as unimplemented.
//!
//! Loads: channels the format lacks read 0 (y, z) or one (w: 1, or 1.0 for FLOAT), then the V#'s
//! dst_sel picks each destination channel (0, one, or x..w). An element out of range reads 0 in
//! every channel; a store writes the channels both the instruction and the format have.

use super::{in_range, lane_addr, Rsrc};
use crate::decode::Inst;
use crate::exec::{Ctx, Flow};
use crate::fault::Fault;
use crate::memory::{self, Site};
use crate::wave::{Ty, Wave, LANES};

/// BUF_NUM_FORMAT_UINT, _SINT, _FLOAT.
const NFMT_UINT: u32 = 4;
const NFMT_SINT: u32 = 5;
const NFMT_FLOAT: u32 = 7;

/// Channels of the 32-bit data formats (BUF_DATA_FORMAT_32 = 4, 32_32 = 11, 32_32_32 = 13,
/// 32_32_32_32 = 14).
fn channels(dfmt: u32) -> Option<usize> {
    match dfmt {
        4 => Some(1),
        11 => Some(2),
        13 => Some(3),
        14 => Some(4),
        _ => None,
    }
}

/// MUBUF opcodes 0..=7: load_format x..xyzw, then store_format x..xyzw.
pub fn mubuf(w: &mut Wave, i: &Inst, ctx: &mut Ctx) -> Result<Flow, Fault> {
    let r = Rsrc::read(w, i.buf_srsrc());
    typed(w, i, ctx, &r, (r.dfmt, r.nfmt), i.op >= 4, (i.op & 3) as usize + 1)
}

/// MTBUF opcodes 0..=7 as MUBUF's; 8..=15 are the d16 forms.
pub fn mtbuf(w: &mut Wave, i: &Inst, ctx: &mut Ctx) -> Result<Flow, Fault> {
    if i.op >= 8 {
        return Err(Fault::unimplemented(w.pc, i));
    }
    let r = Rsrc::read(w, i.buf_srsrc());
    typed(w, i, ctx, &r, (i.mtbuf_dfmt(), i.mtbuf_nfmt()), i.op >= 4, (i.op & 3) as usize + 1)
}

fn typed(
    w: &mut Wave,
    i: &Inst,
    ctx: &mut Ctx,
    r: &Rsrc,
    (dfmt, nfmt): (u32, u32),
    store: bool,
    n: usize,
) -> Result<Flow, Fault> {
    let Some(m) = channels(dfmt) else { return Err(Fault::unimplemented(w.pc, i)) };
    if r.swizzle || !matches!(nfmt, NFMT_UINT | NFMT_SINT | NFMT_FLOAT) {
        return Err(Fault::unimplemented(w.pc, i));
    }
    let one = if nfmt == NFMT_FLOAT { 1.0f32.to_bits() } else { 1 };
    let soffset = w.scalar32(i.buf_soffset(), Ty::B32, None);
    let site = Site { pc: w.pc, name: i.name() };
    let exec = w.exec();
    let vdata = i.buf_vdata();
    for lane in 0..LANES {
        if exec >> lane & 1 == 0 {
            continue;
        }
        let la = lane_addr(w, i, r, soffset, lane);
        let valid = in_range(r, &la, 4 * m, 4);
        if store {
            for k in 0..n.min(m) {
                if 4 * k + 4 <= valid {
                    memory::write_u32(ctx.mem, la.addr + 4 * k as u64, w.vgpr(vdata + k as u32, lane), site)?;
                }
            }
            continue;
        }
        let mut ch = [0, 0, 0, one];
        for (k, c) in ch.iter_mut().enumerate().take(m) {
            *c = if 4 * k + 4 <= valid { memory::read_u32(ctx.mem, la.addr + 4 * k as u64, site)? } else { 0 };
        }
        for c in 0..n {
            let v = match r.dst_sel[c] {
                _ if valid == 0 => 0,
                1 => one,
                s @ 4..=7 => ch[s as usize - 4],
                _ => 0,
            };
            w.set_vgpr(vdata + c as u32, lane, v);
        }
    }
    Ok(Flow::Next)
}
