//! The DS lane exchanges, which move VGPR data between lanes through the LDS crossbar without
//! touching LDS: ds_swizzle_b32, ds_permute_b32 (forward: each lane sends) and ds_bpermute_b32
//! (backward: each lane fetches). Every one reads all source lanes before it writes any result,
//! so the destination may be the data register.

use crate::decode::Inst;
use crate::wave::{Wave, LANES};

fn snapshot(w: &Wave, reg: u32) -> [u32; LANES] {
    std::array::from_fn(|lane| w.vgpr(reg, lane))
}

/// Writes `vals` to `vdst` in the lanes EXEC has on.
fn write_active(w: &mut Wave, vdst: u32, vals: &[u32; LANES]) {
    let exec = w.exec();
    for (lane, &v) in vals.iter().enumerate() {
        if exec >> lane & 1 != 0 {
            w.set_vgpr(vdst, lane, v);
        }
    }
}

/// ds_swizzle_b32: the 16-bit offset is the pattern. Bit 15 set: quad-permute mode, where lane
/// `4q + j` reads lane `4q + offset[2j+1:2j]`. Bit 15 clear: bit-mask mode within each half of 32
/// lanes, lane `i` reading `((i & and) | or) ^ xor` with and = offset[4:0], or = offset[9:5],
/// xor = offset[14:10]. A source lane that EXEC has off gives 0.
pub fn swizzle(w: &mut Wave, i: &Inst) {
    let pattern = i.ds_offset16();
    let exec = w.exec();
    // The data is in the VGPR of the ADDR field (LLVM's encoding: ds_swizzle_b32 vdst, addr).
    let data = snapshot(w, i.ds_addr());
    let out: [u32; LANES] = std::array::from_fn(|lane| {
        let src = if pattern & 0x8000 != 0 {
            (lane & !3) | (pattern as usize >> (2 * (lane & 3)) & 3)
        } else {
            let (and, or, xor) = (pattern as usize & 0x1F, pattern as usize >> 5 & 0x1F, pattern as usize >> 10 & 0x1F);
            (lane & 0x20) | (((lane & and) | or) ^ xor)
        };
        if exec >> src & 1 != 0 {
            data[src]
        } else {
            0
        }
    });
    write_active(w, i.ds_vdst(), &out);
}

/// The lane a DS permute address selects: (address + offset) / 4, modulo the wave size.
fn lane_of(addr: u32, offset: u32) -> usize {
    (addr.wrapping_add(offset) >> 2) as usize % LANES
}

/// ds_permute_b32: each active lane sends its data to the lane its address selects (the highest
/// sending lane wins); lanes nobody sends to receive 0.
pub fn permute(w: &mut Wave, i: &Inst) {
    let exec = w.exec();
    let offset = i.ds_offset16();
    let mut out = [0u32; LANES];
    for lane in 0..LANES {
        if exec >> lane & 1 != 0 {
            out[lane_of(w.vgpr(i.ds_addr(), lane), offset)] = w.vgpr(i.ds_data0(), lane);
        }
    }
    write_active(w, i.ds_vdst(), &out);
}

/// ds_bpermute_b32: each active lane reads the data of the lane its address selects; a source
/// lane that EXEC has off gives 0.
pub fn bpermute(w: &mut Wave, i: &Inst) {
    let exec = w.exec();
    let offset = i.ds_offset16();
    let data = snapshot(w, i.ds_data0());
    let out: [u32; LANES] = std::array::from_fn(|lane| {
        let src = lane_of(w.vgpr(i.ds_addr(), lane), offset);
        if exec >> src & 1 != 0 {
            data[src]
        } else {
            0
        }
    });
    write_active(w, i.ds_vdst(), &out);
}
