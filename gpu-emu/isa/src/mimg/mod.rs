//! MIMG: image loads, stores, samples and queries through an image resource (T#, eight SGPRs)
//! and, for samples, a sampler (S#, four SGPRs), as OpenCL image kernels and ROCclr's and ROCr's
//! image blit kernels use them on gfx906.
//!
//! Fields (AMD's Vega ISA reference, "MIMG", checked against `llvm-mc-15 -show-encoding`): word 0
//! dmask 11:8, unorm 12, glc 13, da 14, a16 15 (r128 before gfx9), tfe 16, lwe 17, op 24:18,
//! slc 25; word 1 vaddr 7:0, vdata 15:8, srsrc 20:16 and ssamp 25:21 (in units of four SGPRs),
//! d16 31. The resource type in the T# says how many address VGPRs hold coordinates: x, then y,
//! then z (3D) or the slice (arrays), then the mip level (`_mip`) or the LOD (`_l`). dmask picks
//! the channels a load returns into consecutive VGPRs, or a store takes from them (a channel a
//! store's dmask leaves out is written as 0). Lanes off in EXEC do nothing.
//!
//! Layout: every image is LINEAR whatever the T#'s SW_MODE says: texel (x, y, z) of level 0 is
//! at `base + ((z * height + y) * pitch + x) * bytes`, with the T#'s pitch (in texels) and height
//! (z is the slice of an array, counted from BASE_ARRAY, or the depth of a 3D image). On this
//! emulated GPU nothing but the shader core touches image memory in its own layout: ROCclr and
//! ROCr copy images to and from buffers with kernels (`__amd_rocclr_copyImageToBuffer`, ROCr's
//! image import/export blits; maps of images go through those copies), so one self-consistent
//! layout suffices. It matches ROCr's LINEAR images in the row pitch (the T#'s pitch is
//! addrlib's); the slice pitch `pitch * height` is this emulator's (addrlib may pad it, which
//! only a host reading a linear 3D or array image's memory directly would see). Only mip level
//! 0 is addressed: a nonzero level within the view faults as unimplemented, one past it is out
//! of range.
//!
//! Out of range (x >= width, y >= height, z >= depth or slices, coordinates taken unsigned):
//! loads return 0 in every channel, stores are dropped. Loads convert each channel to its
//! register value ([`format`]) and apply the T#'s dst_sel (SEL_0, SEL_1, x..w); stores apply it
//! in reverse (the register channel whose dst_sel names a texel channel goes there, so a BGRA
//! image's red is written to byte 2). d16, a16, tfe and lwe, image atomics, gather4, the
//! compare, derivative and offset samples, cube and MSAA resources fault as unimplemented.
//!
//! image_get_resinfo (vaddr: the mip level) returns width, height, then depth (3D) or slices
//! (1D arrays: in y, 2D arrays: in z), then the view's mip levels; a level past the view reads 0
//! for the sizes.

pub mod format;
pub mod rsrc;
pub mod sample;

use crate::decode::Inst;
use crate::exec::{Ctx, Flow};
use crate::fault::Fault;
use crate::memory::{self, Site};
use crate::wave::{Wave, LANES};
use format::Fmt;
use rsrc::{Image, Sampler, IMG_1D_ARRAY, IMG_2D_ARRAY, IMG_3D};

#[inline]
fn bits(w: u32, lo: u32, width: u32) -> u32 {
    (w >> lo) & ((1u32 << width) - 1)
}

/// The MIMG fields.
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    pub dmask: u32,
    pub unorm: bool,
    pub glc: bool,
    pub da: bool,
    pub a16: bool,
    pub tfe: bool,
    pub lwe: bool,
    pub slc: bool,
    pub vaddr: u32,
    pub vdata: u32,
    /// First SGPR of the T#.
    pub srsrc: u32,
    /// First SGPR of the S#.
    pub ssamp: u32,
    pub d16: bool,
}

impl Fields {
    pub fn of(i: &Inst) -> Fields {
        let (a, b) = (i.w[0], i.w[1]);
        Fields {
            dmask: bits(a, 8, 4),
            unorm: bits(a, 12, 1) == 1,
            glc: bits(a, 13, 1) == 1,
            da: bits(a, 14, 1) == 1,
            a16: bits(a, 15, 1) == 1,
            tfe: bits(a, 16, 1) == 1,
            lwe: bits(a, 17, 1) == 1,
            slc: bits(a, 25, 1) == 1,
            vaddr: bits(b, 0, 8),
            vdata: bits(b, 8, 8),
            srsrc: bits(b, 16, 5) << 2,
            ssamp: bits(b, 21, 5) << 2,
            d16: bits(b, 31, 1) == 1,
        }
    }
}

/// What an opcode does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Load {
        mip: bool,
    },
    Store {
        mip: bool,
    },
    Resinfo,
    /// image_sample*: address VGPRs before the coordinates (bias) and after them (LOD, clamp).
    Sample {
        before: u32,
        after: u32,
    },
}

fn op(code: u16) -> Option<Op> {
    Some(match code {
        0x00 => Op::Load { mip: false },
        0x01 => Op::Load { mip: true },
        0x08 => Op::Store { mip: false },
        0x09 => Op::Store { mip: true },
        0x0E => Op::Resinfo,
        0x20 | 0x27 => Op::Sample { before: 0, after: 0 },
        // image_sample_cl (LOD clamp), image_sample_l (LOD).
        0x21 | 0x24 => Op::Sample { before: 0, after: 1 },
        // image_sample_b (bias), image_sample_b_cl.
        0x25 => Op::Sample { before: 1, after: 0 },
        0x26 => Op::Sample { before: 1, after: 1 },
        _ => return None,
    })
}

pub fn exec(w: &mut Wave, i: &Inst, ctx: &mut Ctx) -> Result<Flow, Fault> {
    let f = Fields::of(i);
    let Some(op) = op(i.op) else { return Err(Fault::unimplemented(w.pc, i)) };
    if f.d16 || f.a16 || f.tfe || f.lwe {
        return Err(Fault::unimplemented(w.pc, i));
    }
    let exec = w.exec();
    if exec == 0 {
        return Ok(Flow::Next);
    }
    let img = Image::read(w, f.srsrc);
    if !img.supported() {
        return Err(Fault::unimplemented(w.pc, i));
    }
    if op == Op::Resinfo {
        resinfo(w, &f, &img, exec);
        return Ok(Flow::Next);
    }
    let Some(fmt) = Fmt::new(img.dfmt, img.nfmt) else { return Err(Fault::unimplemented(w.pc, i)) };
    let site = Site { pc: w.pc, name: i.name() };
    let n = img.coords() as u32;
    let pc = w.pc;
    let unimplemented = || Fault::unimplemented(pc, i);
    match op {
        Op::Load { mip } | Op::Store { mip } => {
            let store = matches!(op, Op::Store { .. });
            for lane in 0..LANES {
                if exec >> lane & 1 == 0 {
                    continue;
                }
                let c: [u32; 3] =
                    std::array::from_fn(|k| if (k as u32) < n { w.vgpr(f.vaddr + k as u32, lane) } else { 0 });
                let level = if mip { w.vgpr(f.vaddr + n, lane) } else { 0 };
                let at = if level >= img.levels() {
                    None
                } else if level + img.base_level != 0 {
                    return Err(unimplemented());
                } else {
                    img.texel(img.xyz(c), fmt.bytes())
                };
                if store {
                    if let Some(addr) = at {
                        let texel = fmt.pack(unswizzle(img.dst_sel, gather(w, &f, lane)));
                        memory::write(ctx.mem, addr, &texel[..fmt.bytes() as usize], site)?;
                    }
                } else {
                    let v = match at {
                        Some(_) => sample::fetch(ctx.mem, &img, &fmt, img.xyz(c), site)?,
                        None => [0; 4],
                    };
                    scatter(w, &f, lane, v);
                }
            }
        }
        Op::Sample { before, .. } => {
            let s = Sampler::read(w, f.ssamp);
            // Only level 0 is addressed: on an image with more levels, anything but
            // image_sample_lz could pick another.
            if img.levels() > 1 && i.op != 0x27 {
                return Err(unimplemented());
            }
            for lane in 0..LANES {
                if exec >> lane & 1 == 0 {
                    continue;
                }
                let c: [u32; 3] =
                    std::array::from_fn(|k| if (k as u32) < n { w.vgpr(f.vaddr + before + k as u32, lane) } else { 0 });
                let v = match sample::sample(ctx.mem, &img, &fmt, &s, f.unorm, c, site)? {
                    Ok(v) => v,
                    Err(sample::Unsupported) => return Err(unimplemented()),
                };
                scatter(w, &f, lane, v);
            }
        }
        Op::Resinfo => {}
    }
    Ok(Flow::Next)
}

/// Writes the channels dmask picks from `v` to consecutive VGPRs from vdata.
fn scatter(w: &mut Wave, f: &Fields, lane: usize, v: [u32; 4]) {
    let mut reg = f.vdata;
    for (c, &x) in v.iter().enumerate() {
        if f.dmask >> c & 1 == 1 {
            w.set_vgpr(reg, lane, x);
            reg += 1;
        }
    }
}

/// A store's register channels: those dmask picks from consecutive VGPRs, the others 0.
fn gather(w: &Wave, f: &Fields, lane: usize) -> [u32; 4] {
    let mut reg = f.vdata;
    std::array::from_fn(|c| {
        if f.dmask >> c & 1 == 1 {
            reg += 1;
            w.vgpr(reg - 1, lane)
        } else {
            0
        }
    })
}

/// dst_sel in reverse: texel channel k takes the register channel whose select is x + k (0 if
/// none).
fn unswizzle(sel: [u32; 4], reg: [u32; 4]) -> [u32; 4] {
    std::array::from_fn(|k| sel.iter().position(|&s| s == 4 + k as u32).map_or(0, |c| reg[c]))
}

fn resinfo(w: &mut Wave, f: &Fields, img: &Image, exec: u64) {
    for lane in 0..LANES {
        if exec >> lane & 1 == 0 {
            continue;
        }
        let level = w.vgpr(f.vaddr, lane);
        let v = if level < img.levels() {
            let l = level + img.base_level;
            let (wd, ht) = ((img.width >> l).max(1), (img.height >> l).max(1));
            match img.ty {
                IMG_1D_ARRAY => [wd, img.depth, 0, img.levels()],
                IMG_2D_ARRAY => [wd, ht, img.depth, img.levels()],
                IMG_3D => [wd, ht, (img.depth >> l).max(1), img.levels()],
                _ => [wd, ht, 1, img.levels()],
            }
        } else {
            [0, 0, 0, img.levels()]
        };
        scatter(w, f, lane, v);
    }
}
