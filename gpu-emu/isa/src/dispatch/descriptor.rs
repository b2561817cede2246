//! The kernel object a dispatch packet names, in either of its two layouts: the 64-byte
//! `kernel_descriptor_t` of code objects v3 and later (LLVM's AMDGPUUsage, "Kernel Descriptor"),
//! and the 256-byte `amd_kernel_code_t` that ROCr puts before its own blit kernels
//! (`amd_hsa_kernel_code.h`; ROCr zeroes the header, sets the entry offset to the header's size,
//! the kernarg pointer bit and the two resource registers). Only the fields that decide a wave's
//! initial state are kept.

use crate::fault::Fault;
use crate::memory::{self, Memory, Site};

/// `kernel_code_entry_byte_offset` of ROCr's blit headers: the size of `amd_kernel_code_t`.
const AMD_KERNEL_CODE_SIZE: i64 = 256;

/// Which layout the kernel object has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Code object v3+ `kernel_descriptor_t`.
    Descriptor,
    /// ROCr's `amd_kernel_code_t`.
    AmdKernelCode,
}

/// A kernel object's fields that set up its waves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Descriptor {
    pub layout: Layout,
    /// The kernel's static LDS bytes per work-group.
    pub group_segment_fixed_size: u32,
    /// The kernel's private bytes per work-item.
    pub private_segment_fixed_size: u32,
    /// Relative to the kernel object.
    pub entry_offset: i64,
    pub rsrc1: u32,
    pub rsrc2: u32,
    /// `kernel_code_properties`: the user SGPRs' enable bits (0..6; and for `amd_kernel_code_t`
    /// the grid work-group counts, 7..9).
    pub properties: u32,
}

/// kernel_code_properties bits: the user SGPRs, in the order the hardware loads them.
pub mod props {
    pub const PRIVATE_SEGMENT_BUFFER: u32 = 1 << 0;
    pub const DISPATCH_PTR: u32 = 1 << 1;
    pub const QUEUE_PTR: u32 = 1 << 2;
    pub const KERNARG_SEGMENT_PTR: u32 = 1 << 3;
    pub const DISPATCH_ID: u32 = 1 << 4;
    pub const FLAT_SCRATCH_INIT: u32 = 1 << 5;
    pub const PRIVATE_SEGMENT_SIZE: u32 = 1 << 6;
    /// `amd_kernel_code_t` only.
    pub const GRID_WORKGROUP_COUNT_X: u32 = 1 << 7;
}

fn field(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

impl Descriptor {
    /// Reads the kernel object at `addr`.
    pub fn read(mem: &dyn Memory, addr: u64) -> Result<Descriptor, Fault> {
        let site = Site { pc: addr, name: "kernel descriptor" };
        let mut b = [0u8; 64];
        memory::read(mem, addr, &mut b, site)?;
        Descriptor::parse(&b, |at, out| memory::read(mem, addr.wrapping_add(at), out, site))
    }

    /// Decodes the first 64 bytes of a kernel object; `more(offset, out)` reads other bytes of it
    /// (`amd_kernel_code_t` keeps its segment sizes at 60..68, past a 64-byte descriptor's end).
    pub fn parse(b: &[u8; 64], more: impl FnOnce(u64, &mut [u8]) -> Result<(), Fault>) -> Result<Descriptor, Fault> {
        let entry_offset = i64::from_le_bytes(b[16..24].try_into().unwrap_or([0; 8]));
        let rsrc1 = field(b, 48);
        let rsrc2 = field(b, 52);
        // ROCr leaves the version and machine fields of its header zero, where a code-object
        // descriptor keeps its group, private and kernarg sizes; a descriptor with all three
        // zero (no kernarg segment: not even hidden arguments) and an entry offset of exactly
        // 256 would be taken for a header.
        if entry_offset == AMD_KERNEL_CODE_SIZE && b[..16].iter().all(|&x| x == 0) {
            let mut sizes = [0u8; 8];
            more(60, &mut sizes)?;
            return Ok(Descriptor {
                layout: Layout::AmdKernelCode,
                group_segment_fixed_size: field(&sizes, 4),
                private_segment_fixed_size: field(&sizes, 0),
                entry_offset,
                rsrc1,
                rsrc2,
                properties: field(b, 56),
            });
        }
        Ok(Descriptor {
            layout: Layout::Descriptor,
            group_segment_fixed_size: field(b, 0),
            private_segment_fixed_size: field(b, 4),
            entry_offset,
            rsrc1,
            rsrc2,
            // A u16 in this layout; its bits 7..9 are reserved (zero).
            properties: u32::from(u16::from_le_bytes([b[56], b[57]])) & 0x7f,
        })
    }

    /// VGPRs a wave has: COMPUTE_PGM_RSRC1.VGPRS is granules of 4, less one.
    pub fn vgprs(&self) -> usize {
        ((self.rsrc1 & 0x3f) as usize + 1) * 4
    }

    /// The MODE register a wave starts with, from COMPUTE_PGM_RSRC1's float fields: round modes
    /// (RSRC1 [15:12] to MODE [3:0]), denormal modes ([19:16] to [7:4]), DX10_CLAMP (21 to 8) and
    /// IEEE_MODE (23 to 9).
    pub fn mode(&self) -> u32 {
        let r = self.rsrc1;
        (r >> 12 & 0xff) | (r >> 21 & 1) << 8 | (r >> 23 & 1) << 9
    }

    /// COMPUTE_PGM_RSRC2.USER_SGPR_COUNT (bits 5:1).
    pub fn user_sgpr_count(&self) -> u32 {
        self.rsrc2 >> 1 & 0x1f
    }
    /// ENABLE_SGPR_PRIVATE_SEGMENT_WAVE_BYTE_OFFSET (SCRATCH_EN, bit 0).
    pub fn wave_offset_sgpr(&self) -> bool {
        self.rsrc2 & 1 != 0
    }
    /// ENABLE_SGPR_WORKGROUP_ID_X/Y/Z (bits 7..9).
    pub fn workgroup_id_sgpr(&self, dim: usize) -> bool {
        self.rsrc2 >> (7 + dim) & 1 != 0
    }
    /// ENABLE_SGPR_WORKGROUP_INFO (TG_SIZE_EN, bit 10).
    pub fn workgroup_info_sgpr(&self) -> bool {
        self.rsrc2 >> 10 & 1 != 0
    }
    /// ENABLE_VGPR_WORKITEM_ID (TIDIG_COMP_CNT, bits 12:11): 0 x, 1 x and y, 2 (or 3) x, y and z.
    pub fn workitem_id_vgprs(&self) -> usize {
        (self.rsrc2 >> 11 & 3).min(2) as usize + 1
    }
}
