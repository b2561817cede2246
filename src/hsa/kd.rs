//! The AMDHSA kernel descriptor of code object v3 and later (LLVM
//! AMDGPUUsage, "Kernel Descriptor"): 64 bytes, little-endian, 64-byte
//! aligned, at the `NAME.kd` symbol; a dispatch packet's `kernel_object` is
//! its address. cltap reads the segment sizes and the register granules the
//! command processor uses, for the counter files and the occupancy model.

/// A kernel descriptor is 64 bytes.
pub const KD_SIZE: usize = 64;

/// The descriptor's fields, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelDescriptor {
    /// Bytes 0-3: LDS bytes per work-group, not counting what the dispatch
    /// adds for dynamic `__local` arguments.
    pub group_segment_fixed_size: u32,
    /// Bytes 4-7: scratch bytes per work-item, without a dynamic call stack.
    pub private_segment_fixed_size: u32,
    /// Bytes 8-11: the kernel argument block's size.
    pub kernarg_size: u32,
    /// Bytes 16-23: from the descriptor to the code, possibly negative.
    pub kernel_code_entry_byte_offset: i64,
    /// Bytes 44-47: gfx90a/gfx94x (accumulation offset) and gfx10+ fields;
    /// 0 on other gfx9 parts.
    pub compute_pgm_rsrc3: u32,
    /// Bytes 48-51.
    pub compute_pgm_rsrc1: u32,
    /// Bytes 52-55.
    pub compute_pgm_rsrc2: u32,
    /// Bytes 56-57.
    pub kernel_code_properties: u16,
    /// Bytes 58-59: kernel arguments preloaded into SGPRs (gfx940+); 0
    /// before.
    pub kernarg_preload: u16,
}

fn u16_at(b: &[u8; KD_SIZE], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8; KD_SIZE], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// `width` bits of `v` from bit `shift`.
fn bits(v: u32, shift: u32, width: u32) -> u32 {
    (v >> shift) & ((1 << width) - 1)
}

/// Reads a descriptor; reserved bytes are ignored.
pub fn decode(bytes: &[u8; KD_SIZE]) -> KernelDescriptor {
    let mut entry = [0u8; 8];
    entry.copy_from_slice(&bytes[16..24]);
    KernelDescriptor {
        group_segment_fixed_size: u32_at(bytes, 0),
        private_segment_fixed_size: u32_at(bytes, 4),
        kernarg_size: u32_at(bytes, 8),
        kernel_code_entry_byte_offset: i64::from_le_bytes(entry),
        compute_pgm_rsrc3: u32_at(bytes, 44),
        compute_pgm_rsrc1: u32_at(bytes, 48),
        compute_pgm_rsrc2: u32_at(bytes, 52),
        kernel_code_properties: u16_at(bytes, 56),
        kernarg_preload: u16_at(bytes, 58),
    }
}

impl KernelDescriptor {
    /// The 64 bytes, reserved ones zero: the inverse of [`decode`].
    pub fn encode(&self) -> [u8; KD_SIZE] {
        let mut b = [0u8; KD_SIZE];
        b[0..4].copy_from_slice(&self.group_segment_fixed_size.to_le_bytes());
        b[4..8].copy_from_slice(&self.private_segment_fixed_size.to_le_bytes());
        b[8..12].copy_from_slice(&self.kernarg_size.to_le_bytes());
        b[16..24].copy_from_slice(&self.kernel_code_entry_byte_offset.to_le_bytes());
        b[44..48].copy_from_slice(&self.compute_pgm_rsrc3.to_le_bytes());
        b[48..52].copy_from_slice(&self.compute_pgm_rsrc1.to_le_bytes());
        b[52..56].copy_from_slice(&self.compute_pgm_rsrc2.to_le_bytes());
        b[56..58].copy_from_slice(&self.kernel_code_properties.to_le_bytes());
        b[58..60].copy_from_slice(&self.kernarg_preload.to_le_bytes());
        b
    }

    /// `COMPUTE_PGM_RSRC1.GRANULATED_WORKITEM_VGPR_COUNT` (bits 5:0).
    pub fn granulated_vgprs(&self) -> u32 {
        bits(self.compute_pgm_rsrc1, 0, 6)
    }

    /// `COMPUTE_PGM_RSRC1.GRANULATED_WAVEFRONT_SGPR_COUNT` (bits 9:6).
    pub fn granulated_sgprs(&self) -> u32 {
        bits(self.compute_pgm_rsrc1, 6, 4)
    }

    /// VGPRs per work-item on gfx9 (not gfx90a/gfx94x), where the granule is
    /// 4: `(GRANULATED_WORKITEM_VGPR_COUNT + 1) * 4`. An upper bound of the
    /// code object's `.vgpr_count`: what the hardware allocates, rounded up
    /// to the granule.
    pub fn gfx9_vgprs(&self) -> u32 {
        (self.granulated_vgprs() + 1) * 4
    }

    /// SGPRs per wave on gfx6-gfx9: `(GRANULATED_WAVEFRONT_SGPR_COUNT + 1) *
    /// 8`, the encoding granule LLVM writes. An upper bound of `.sgpr_count`
    /// (which includes VCC, FLAT_SCRATCH and XNACK); gfx8-9 hardware then
    /// allocates in blocks of 16, which the occupancy model applies. gfx10+
    /// always allocates 128 and leaves the field 0.
    pub fn gfx9_sgprs(&self) -> u32 {
        (self.granulated_sgprs() + 1) * 8
    }

    /// What rocprofiler v1's tool (ROCm 5.2.3, `test/tool/tool.cpp`) prints
    /// as `sgpr`: `(granule + 2) * 8` except on gfx8 (`+ 1`), i.e. 8 more
    /// than [`Self::gfx9_sgprs`] on gfx9.
    pub fn rocprof_v1_sgprs(&self, gfx8: bool) -> u32 {
        (self.granulated_sgprs() + if gfx8 { 1 } else { 2 }) * 8
    }

    /// `COMPUTE_PGM_RSRC2.ENABLE_PRIVATE_SEGMENT` (bit 0): the kernel uses
    /// scratch.
    pub fn private_segment_enabled(&self) -> bool {
        bits(self.compute_pgm_rsrc2, 0, 1) != 0
    }

    /// `COMPUTE_PGM_RSRC2.USER_SGPR_COUNT` (bits 5:1).
    pub fn user_sgpr_count(&self) -> u32 {
        bits(self.compute_pgm_rsrc2, 1, 5)
    }

    /// `COMPUTE_PGM_RSRC2.ENABLE_VGPR_WORKITEM_ID` (bits 12:11): 0 X, 1 XY,
    /// 2 XYZ.
    pub fn workitem_id_dims(&self) -> u32 {
        bits(self.compute_pgm_rsrc2, 11, 2)
    }

    /// `KERNEL_CODE_PROPERTIES.ENABLE_WAVEFRONT_SIZE32` (bit 10; gfx10+).
    pub fn wave32(&self) -> bool {
        self.kernel_code_properties >> 10 & 1 != 0
    }

    /// `KERNEL_CODE_PROPERTIES.USES_DYNAMIC_STACK` (bit 11).
    pub fn uses_dynamic_stack(&self) -> bool {
        self.kernel_code_properties >> 11 & 1 != 0
    }

    /// gfx90a/gfx94x `COMPUTE_PGM_RSRC3.ACCUM_OFFSET` (bits 5:0): the first
    /// AGPR is at `(value + 1) * 4` in the unified register file.
    pub fn gfx90a_accum_offset(&self) -> u32 {
        (bits(self.compute_pgm_rsrc3, 0, 6) + 1) * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> [u8; KD_SIZE] {
        let mut b = [0u8; KD_SIZE];
        for (i, slot) in b.iter_mut().enumerate() {
            *slot = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
        }
        b
    }

    // Descriptors from gfx906 code objects that clang-15 built
    // (`-target amdgcn-amd-amdhsa -mcpu=gfx906 -nogpulib -cl-std=CL2.0
    // -O2`), read at the `.kd` symbols; the metadata values in the comments
    // are the same objects' NT_AMDGPU_METADATA as llvm-readelf-14 shows it.

    /// `add_one(__global int*)`: .vgpr_count 2, .sgpr_count 6,
    /// .kernarg_segment_size 8.
    const ADD_ONE: &str = "000000000000000008000000000000008011000000000000\
        0000000000000000000000000000000000000000000000000000af008c0000000900000000000000";
    /// `wide(float4*, const float4*, int)`: .vgpr_count 38, .sgpr_count 9,
    /// .kernarg_segment_size 20.
    const WIDE: &str = "000000000000000014000000000000004012000000000000\
        0000000000000000000000000000000000000000000000004900af008c0000000900000000000000";
    /// `tile`, with `__local float t[10240]`: .group_segment_fixed_size 40960.
    const TILE: &str = "00a00000000000001000000000000000001500000000000000\
        00000000000000000000000000000000000000000000000000af008c0000000900000000000000";
    /// `scratchy`, a dynamically indexed private array: .sgpr_count 52,
    /// .private_segment_fixed_size 260.
    const SCRATCHY: &str = "00000000040100000c000000000000000011000000000000\
        0000000000000000000000000000000000000000000000008001af00910000002900000000000000";

    #[test]
    fn decodes_segment_sizes_and_entry() {
        let kd = decode(&hex(ADD_ONE));
        assert_eq!(kd.group_segment_fixed_size, 0);
        assert_eq!(kd.private_segment_fixed_size, 0);
        assert_eq!(kd.kernarg_size, 8);
        assert_eq!(kd.kernel_code_entry_byte_offset, 0x1180);
        assert_eq!(kd.compute_pgm_rsrc1, 0x00af_0000);
        assert_eq!(kd.compute_pgm_rsrc2, 0x8c);
        assert_eq!(kd.kernel_code_properties, 0x9);
        assert_eq!(decode(&hex(TILE)).group_segment_fixed_size, 40960);
        let s = decode(&hex(SCRATCHY));
        assert_eq!((s.private_segment_fixed_size, s.kernarg_size), (260, 12));
    }

    #[test]
    fn register_counts_bound_the_metadata_from_above() {
        for (text, vgpr_count, sgpr_count, vgprs, sgprs) in
            [(ADD_ONE, 2, 6, 4, 8), (WIDE, 38, 9, 40, 16), (SCRATCHY, 3, 52, 4, 56)]
        {
            let kd = decode(&hex(text));
            assert_eq!((kd.gfx9_vgprs(), kd.gfx9_sgprs()), (vgprs, sgprs));
            assert!(vgpr_count <= vgprs && vgprs < vgpr_count + 4);
            assert!(sgpr_count <= sgprs && sgprs < sgpr_count + 8);
        }
        let wide = decode(&hex(WIDE));
        assert_eq!((wide.granulated_vgprs(), wide.granulated_sgprs()), (9, 1));
        assert_eq!(wide.rocprof_v1_sgprs(false), 24);
        assert_eq!(wide.rocprof_v1_sgprs(true), 16);
    }

    #[test]
    fn decodes_rsrc2_and_code_properties() {
        let add_one = decode(&hex(ADD_ONE));
        assert!(!add_one.private_segment_enabled());
        assert_eq!(add_one.user_sgpr_count(), 6);
        assert_eq!(add_one.workitem_id_dims(), 0);
        assert!(!add_one.wave32() && !add_one.uses_dynamic_stack());
        let s = decode(&hex(SCRATCHY));
        assert!(s.private_segment_enabled());
        assert_eq!(s.user_sgpr_count(), 8);
        // Private segment buffer, kernarg pointer and flat scratch init.
        assert_eq!(s.kernel_code_properties, 0b10_1001);
    }

    #[test]
    fn encode_inverts_decode() {
        for text in [ADD_ONE, WIDE, TILE, SCRATCHY] {
            let b = hex(text);
            assert_eq!(decode(&b).encode(), b);
        }
        let kd = KernelDescriptor {
            group_segment_fixed_size: 1,
            private_segment_fixed_size: 2,
            kernarg_size: 3,
            kernel_code_entry_byte_offset: -256,
            compute_pgm_rsrc3: 0x8000_0001,
            compute_pgm_rsrc1: 0xffff_ffff,
            compute_pgm_rsrc2: 0x1234_5678,
            kernel_code_properties: 0x0c00,
            kernarg_preload: 7,
        };
        assert_eq!(decode(&kd.encode()), kd);
        assert!(kd.wave32() && kd.uses_dynamic_stack());
        assert_eq!((kd.granulated_vgprs(), kd.granulated_sgprs()), (63, 15));
        assert_eq!(kd.gfx90a_accum_offset(), 8);
    }
}
