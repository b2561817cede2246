//! A dispatch's grid cut into work-groups and waves, and each wave's initial state as LLVM's
//! AMDGPUUsage ("Initial Kernel Execution State", GFX9) gives it: the enabled user SGPRs in their
//! fixed order from s0, the enabled system SGPRs from COMPUTE_PGM_RSRC2.USER_SGPR_COUNT, the
//! work-item ids in v0..v2, EXEC, the VGPR count and MODE from COMPUTE_PGM_RSRC1.

use super::descriptor::{props, Descriptor, Layout};
use super::Dispatch;
use crate::fault::Fault;
use crate::wave::{Wave, LANES};

/// The most LDS a work-group may have on gfx906.
pub const LDS_LIMIT: usize = 64 * 1024;
/// The largest lane stride the private segment buffer descriptor can hold (its STRIDE field has
/// 14 bits).
pub const STRIDE_LIMIT: u32 = 0x3fff;
/// gfx9 loads at most 16 user SGPRs.
const USER_SGPRS: usize = 16;
/// Word 3 of the private segment buffer descriptor: ROCr's gfx9 scratch descriptor's (DST_SEL
/// XYZW, 32-bit UINT, ELEMENT_SIZE 4, INDEX_STRIDE 64, ADD_TID_ENABLE); word 1 sets
/// SWIZZLE_ENABLE, as the hardware lays scratch out (see [`crate::memory`]).
pub const SCRATCH_RSRC_WORD3: u32 = 0x00EA_4FAC;
/// SWIZZLE_ENABLE in word 1 of a buffer descriptor.
pub const SWIZZLE_ENABLE: u32 = 1 << 31;

/// A dispatch made ready to run: the descriptor's fields, the grid's shape and the dispatch's
/// scratch and LDS sizes.
#[derive(Debug, Clone)]
pub struct Plan {
    pub kd: Descriptor,
    /// The first instruction's address.
    pub entry: u64,
    /// Work-items per dimension (1 past the packet's dimensions).
    pub grid: [u64; 3],
    /// The work-group size per dimension (a 0 in the packet counts as 1).
    pub wg: [u64; 3],
    /// Work-groups per dimension.
    pub groups: [u64; 3],
    /// Scratch bytes per lane (a multiple of 16; 0 for none).
    pub lane_stride: u32,
    /// LDS bytes per work-group.
    pub lds_bytes: usize,
    /// Waves of a whole work-group (the edge groups may have fewer).
    pub waves_per_group: usize,
    /// Where the dispatch's scratch starts (set once it is allocated).
    pub scratch_base: u64,
    pub packet_address: u64,
    pub queue_address: u64,
    pub dispatch_id: u64,
    pub kernarg_address: u64,
}

fn bad(entry: u64, why: &'static str) -> Fault {
    Fault::Illegal { pc: entry, name: "dispatch", why }
}

impl Plan {
    pub fn new(d: &Dispatch, kd: Descriptor) -> Result<Plan, Fault> {
        let p = &d.packet;
        let entry = p.kernel_object.wrapping_add_signed(kd.entry_offset);
        let dims = usize::from(p.setup & 3).clamp(1, 3);
        let (mut grid, mut wg, mut groups) = ([1u64; 3], [1u64; 3], [1u64; 3]);
        for i in 0..dims {
            grid[i] = u64::from(p.grid_size[i]);
            wg[i] = u64::from(p.workgroup_size[i].max(1));
            groups[i] = grid[i].div_ceil(wg[i]);
        }
        let group_items = wg.iter().product::<u64>();
        if group_items > 1024 {
            return Err(bad(entry, "work-group larger than 1024 work-items"));
        }
        let private = kd.private_segment_fixed_size.max(p.private_segment_size);
        let lane_stride =
            private.checked_next_multiple_of(16).ok_or_else(|| bad(entry, "private segment too large"))?;
        if lane_stride > STRIDE_LIMIT {
            return Err(bad(entry, "private segment over 16383 bytes per work-item"));
        }
        // HSA's packet size includes the kernel's static LDS, and ROCclr sets it so; a packet
        // that leaves the static part out still gets it.
        let lds_bytes = kd.group_segment_fixed_size.max(p.group_segment_size) as usize;
        if lds_bytes > LDS_LIMIT {
            return Err(bad(entry, "group segment over 64 KiB"));
        }
        Ok(Plan {
            kd,
            entry,
            grid,
            wg,
            groups,
            lane_stride,
            lds_bytes,
            waves_per_group: (group_items as usize).div_ceil(LANES),
            scratch_base: 0,
            packet_address: d.packet_address,
            queue_address: d.queue_address,
            dispatch_id: d.dispatch_id,
            kernarg_address: p.kernarg_address,
        })
    }

    /// Work-groups in the grid; None when their number does not fit 64 bits.
    pub fn group_count(&self) -> Option<u64> {
        self.groups[0].checked_mul(self.groups[1])?.checked_mul(self.groups[2])
    }

    /// Scratch bytes one wave slot takes.
    pub fn wave_scratch(&self) -> u64 {
        u64::from(self.lane_stride) * LANES as u64
    }

    /// Work-group `g`'s id per dimension (x fastest).
    pub fn group_id(&self, g: u64) -> [u64; 3] {
        let [gx, gy, _] = self.groups;
        [g % gx, g / gx % gy, g / gx / gy]
    }

    /// Work-group `g`'s size per dimension: the work-group size, or what is left of the grid at
    /// its edge (HSA's partial work-groups).
    pub fn group_size(&self, g: u64) -> [u64; 3] {
        let id = self.group_id(g);
        std::array::from_fn(|i| self.wg[i].min(self.grid[i] - id[i] * self.wg[i]))
    }

    /// The waves of work-group `g` in their initial state; their scratch slots start at
    /// `first_slot`.
    pub fn waves(&self, g: u64, first_slot: u32) -> Vec<Wave> {
        let id = self.group_id(g);
        let size = self.group_size(g);
        let items = size.iter().product::<u64>() as usize;
        let count = items.div_ceil(LANES);
        let user = self.user_sgprs();
        (0..count).map(|index| self.wave(g, id, size, items, count, index, first_slot, &user)).collect()
    }

    #[allow(clippy::too_many_arguments)]
    fn wave(
        &self,
        g: u64,
        id: [u64; 3],
        size: [u64; 3],
        items: usize,
        count: usize,
        index: usize,
        first_slot: u32,
        user: &[u32],
    ) -> Wave {
        let kd = &self.kd;
        let mut w = Wave::new(kd.vgprs());
        w.pc = self.entry;
        w.mode = kd.mode();
        w.index = index as u32;
        w.hw_id = hw_id(g, index);
        let n = user.len().min(kd.user_sgpr_count() as usize);
        w.s[..n].copy_from_slice(&user[..n]);
        let mut at = kd.user_sgpr_count() as usize;
        let mut put = |w: &mut Wave, v: u32| {
            w.set_sgpr(at as u32, v);
            at += 1;
        };
        for (dim, &gid) in id.iter().enumerate() {
            if kd.workgroup_id_sgpr(dim) {
                put(&mut w, gid as u32);
            }
        }
        if kd.workgroup_info_sgpr() {
            // {first_wave, 14 zero bits, ordered_append_term[10:0], threadgroup_size_in_waves[5:0]}
            put(&mut w, u32::from(index == 0) << 31 | count as u32 & 0x3f);
        }
        if kd.wave_offset_sgpr() {
            let slot = u64::from(first_slot) + index as u64;
            put(&mut w, (slot * self.wave_scratch()) as u32);
        }
        let first = index * LANES;
        let lanes = (items - first).min(LANES);
        w.set_exec(if lanes == LANES { u64::MAX } else { (1u64 << lanes) - 1 });
        let ids = kd.workitem_id_vgprs();
        for lane in 0..lanes {
            let flat = (first + lane) as u64;
            let xyz = [flat % size[0], flat / size[0] % size[1], flat / size[0] / size[1]];
            for (reg, &v) in xyz.iter().enumerate().take(ids) {
                w.set_vgpr(reg as u32, lane, v as u32);
            }
        }
        w
    }

    /// The user SGPRs the descriptor enables, in the hardware's order (the same for every wave of
    /// the dispatch).
    fn user_sgprs(&self) -> Vec<u32> {
        let kd = &self.kd;
        let mut s = Vec::with_capacity(USER_SGPRS);
        let lo = |v: u64| v as u32;
        let hi = |v: u64| (v >> 32) as u32;
        let on = |bit: u32| kd.properties & bit != 0;
        if on(props::PRIVATE_SEGMENT_BUFFER) {
            let b = self.scratch_base;
            s.extend([lo(b), hi(b) & 0xffff | self.lane_stride << 16 | SWIZZLE_ENABLE, u32::MAX, SCRATCH_RSRC_WORD3]);
        }
        if on(props::DISPATCH_PTR) {
            s.extend([lo(self.packet_address), hi(self.packet_address)]);
        }
        if on(props::QUEUE_PTR) {
            s.extend([lo(self.queue_address), hi(self.queue_address)]);
        }
        if on(props::KERNARG_SEGMENT_PTR) {
            s.extend([lo(self.kernarg_address), hi(self.kernarg_address)]);
        }
        if on(props::DISPATCH_ID) {
            s.extend([lo(self.dispatch_id), hi(self.dispatch_id)]);
        }
        if on(props::FLAT_SCRATCH_INIT) {
            // GFX9: the scratch base; the kernel adds its wave offset into FLAT_SCRATCH itself.
            s.extend([lo(self.scratch_base), hi(self.scratch_base)]);
        }
        if on(props::PRIVATE_SEGMENT_SIZE) {
            s.push(self.lane_stride);
        }
        if kd.layout == Layout::AmdKernelCode {
            for dim in 0..3 {
                if on(props::GRID_WORKGROUP_COUNT_X << dim) {
                    s.push(self.groups[dim] as u32);
                }
            }
        }
        s.truncate(USER_SGPRS);
        s
    }
}

/// HW_REG_HW_ID as gfx9 lays it out: WAVE_ID [3:0], SIMD_ID [5:4], CU_ID [11:8], SE_ID [14:13],
/// TG_ID [19:16]. Work-group g runs on shader engine g % 4 and compute unit g / 4 % 15 of it
/// (gfx906 has 15 per engine); its waves go round the four SIMDs.
pub fn hw_id(g: u64, index: usize) -> u32 {
    let wave = (index / 4) as u32 & 0xf;
    let simd = (index % 4) as u32;
    let cu = (g / 4 % 15) as u32;
    let se = (g % 4) as u32;
    let tg = (g / 60 % 16) as u32;
    wave | simd << 4 | cu << 8 | se << 13 | tg << 16
}
