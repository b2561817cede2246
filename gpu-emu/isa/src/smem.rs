//! Scalar memory: SMEM loads (s_load_*, s_buffer_load_*) and stores, the scalar cache controls
//! and the time counters.
//!
//! The offset (Vega ISA, "Scalar Memory Operations"): with imm=1 the 21-bit field is a byte
//! offset, signed on gfx9 (LLVM assembles s_load offsets as 21-bit signed and s_buffer_load ones
//! as 20-bit unsigned, so one sign extension serves both); soe=1 adds the SGPR in soffset; with
//! imm=0 and soe=0 the field names the SGPR holding the offset, with imm=0 and soe=1 only soffset
//! counts. Scalar accesses are dword-aligned: the address's two low bits are ignored.
//!
//! s_buffer_* take the base and the size from a buffer resource (V#) in four SGPRs: base =
//! bits [47:0], stride = dword 1 bits [29:16], num_records = dword 2. A dword is in range when it
//! lies wholly within num_records bytes (num_records × stride when the stride is not 0); a load
//! reads 0 for a dword out of range and a store drops it.

use crate::decode::Inst;
use crate::exec::{Ctx, Flow};
use crate::fault::Fault;
use crate::memory::{self, Site};
use crate::wave::Wave;

pub fn exec(w: &mut Wave, i: &Inst, ctx: &mut Ctx) -> Result<Flow, Fault> {
    match i.op {
        0..=4 => load(w, i, ctx, 1 << i.op),
        8..=12 => buffer_load(w, i, ctx, 1 << (i.op - 8)),
        16..=18 => store(w, i, ctx, 1 << (i.op - 16)),
        24..=26 => buffer_store(w, i, ctx, 1 << (i.op - 24)),
        // s_dcache_inv, s_dcache_wb, s_dcache_inv_vol, s_dcache_wb_vol: there is no scalar cache;
        // s_atc_probe, s_atc_probe_buffer: address translation needs no warming.
        32..=35 | 38 | 39 => Ok(Flow::Next),
        36 => {
            w.set_sgpr64(i.smem_sdata(), memtime());
            Ok(Flow::Next)
        }
        37 => {
            w.set_sgpr64(i.smem_sdata(), memrealtime());
            Ok(Flow::Next)
        }
        // s_scratch_*, the scalar atomics and anything else.
        _ => Err(Fault::unimplemented(w.pc, i)),
    }
}

/// The byte offset the instruction adds to its base.
fn offset(w: &Wave, i: &Inst) -> i64 {
    let soffset = || i64::from(w.sgpr(i.smem_soffset()));
    match (i.smem_imm(), i.smem_soe()) {
        (true, soe) => {
            let imm = i64::from(((i.smem_offset() << 11) as i32) >> 11);
            if soe {
                imm + soffset()
            } else {
                imm
            }
        }
        (false, false) => i64::from(w.sgpr(i.smem_offset())),
        (false, true) => soffset(),
    }
}

fn site(w: &Wave, i: &Inst) -> Site {
    Site { pc: w.pc, name: i.name() }
}

/// The address of s_load/s_store: the SGPR pair at sbase plus the offset, dword-aligned.
fn address(w: &Wave, i: &Inst) -> u64 {
    w.sgpr64(i.smem_sbase()).wrapping_add(offset(w, i) as u64) & !3
}

fn load(w: &mut Wave, i: &Inst, ctx: &mut Ctx, dwords: usize) -> Result<Flow, Fault> {
    let addr = address(w, i);
    let mut buf = [0u8; 64];
    let bytes = &mut buf[..dwords * 4];
    memory::read(ctx.mem, addr, bytes, site(w, i))?;
    let sdata = i.smem_sdata();
    for (k, c) in bytes.chunks_exact(4).enumerate() {
        w.set_sgpr(sdata + k as u32, u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
    }
    Ok(Flow::Next)
}

fn store(w: &mut Wave, i: &Inst, ctx: &mut Ctx, dwords: usize) -> Result<Flow, Fault> {
    let addr = address(w, i);
    let mut buf = [0u8; 16];
    let sdata = i.smem_sdata();
    for (k, c) in buf[..dwords * 4].chunks_exact_mut(4).enumerate() {
        c.copy_from_slice(&w.sgpr(sdata + k as u32).to_le_bytes());
    }
    memory::write(ctx.mem, addr, &buf[..dwords * 4], site(w, i))?;
    Ok(Flow::Next)
}

/// A buffer access's resource: the base address and the byte size dwords are checked against.
struct Resource {
    base: u64,
    limit: u64,
}

impl Resource {
    fn of(w: &Wave, i: &Inst) -> Resource {
        let s = i.smem_sbase();
        let (d0, d1, d2) = (w.sgpr(s), w.sgpr(s + 1), w.sgpr(s + 2));
        let stride = u64::from((d1 >> 16) & 0x3FFF);
        let records = u64::from(d2);
        Resource {
            base: u64::from(d0) | u64::from(d1 & 0xFFFF) << 32,
            limit: if stride == 0 { records } else { records * stride },
        }
    }

    /// The address of dword `k` of an access at byte `offset`, or None when it is out of range.
    fn dword(&self, offset: i64, k: usize) -> Option<u64> {
        let at = (offset & !3).checked_add(4 * k as i64)?;
        let at = u64::try_from(at).ok()?;
        (at + 4 <= self.limit).then(|| self.base.wrapping_add(at))
    }
}

fn buffer_load(w: &mut Wave, i: &Inst, ctx: &mut Ctx, dwords: usize) -> Result<Flow, Fault> {
    let r = Resource::of(w, i);
    let off = offset(w, i);
    let site = site(w, i);
    let mut vals = [0u32; 16];
    for (k, v) in vals[..dwords].iter_mut().enumerate() {
        if let Some(addr) = r.dword(off, k) {
            *v = memory::read_u32(ctx.mem, addr, site)?;
        }
    }
    let sdata = i.smem_sdata();
    for (k, &v) in vals[..dwords].iter().enumerate() {
        w.set_sgpr(sdata + k as u32, v);
    }
    Ok(Flow::Next)
}

fn buffer_store(w: &mut Wave, i: &Inst, ctx: &mut Ctx, dwords: usize) -> Result<Flow, Fault> {
    let r = Resource::of(w, i);
    let off = offset(w, i);
    let site = site(w, i);
    let sdata = i.smem_sdata();
    for k in 0..dwords {
        if let Some(addr) = r.dword(off, k) {
            memory::write_u32(ctx.mem, addr, w.sgpr(sdata + k as u32), site)?;
        }
    }
    Ok(Flow::Next)
}

/// The shader clock s_memtime counts: the engine clock the emulated GPU's topology reports
/// (`MaxEngineClockMhzFCompute` in `gpu-emu/src/topology.rs`, HIP's `clockRate`), so that
/// clock64() differences divided by it give real time.
pub const SHADER_CLOCK_HZ: u64 = 1_725_000_000;

/// s_memtime: the host's CLOCK_MONOTONIC scaled to [`SHADER_CLOCK_HZ`]; it never goes backwards.
fn memtime() -> u64 {
    (u128::from(now_ns(libc::CLOCK_MONOTONIC)) * u128::from(SHADER_CLOCK_HZ) / 1_000_000_000) as u64
}

/// s_memrealtime: the fixed-frequency "REFCLK" counter. It counts at 100 MHz on CLOCK_BOOTTIME,
/// the domain of the emulated GPU's clock counter that KFD's GET_CLOCK_COUNTERS hands ROCr
/// (`gpu-emu/src/clocks.rs`), so kernel timestamps and ROCr's agree.
fn memrealtime() -> u64 {
    now_ns(libc::CLOCK_BOOTTIME) / 10
}

fn now_ns(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid clock id and a valid out pointer.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}
