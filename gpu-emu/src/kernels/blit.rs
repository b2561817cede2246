//! ROCr's own blit kernels (`amd_blit_kernel.cpp`, 5.2.3): precompiled ISA behind a 256-byte
//! `amd_kernel_code_t` header that ROCr fills in `GpuAgent::AssembleShader`, told apart by the
//! SGPR/VGPR granules it writes into COMPUTE_PGM_RSRC1 from each shader's declared counts
//! (CopyAligned 32/12, CopyMisaligned 23/10, Fill 19/8). Each is one `memmove` or fill over the
//! phases its kernarg block describes; the phases only split the work between work-items.

/// `amd_kernel_code_t.kernel_code_entry_byte_offset`: the header's own size.
const ENTRY_OFFSET: i64 = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlitKind {
    CopyAligned,
    CopyMisaligned,
    Fill,
}

impl BlitKind {
    pub fn name(self) -> &'static str {
        match self {
            BlitKind::CopyAligned => "CopyAligned",
            BlitKind::CopyMisaligned => "CopyMisaligned",
            BlitKind::Fill => "Fill",
        }
    }
}

/// (SGPR granule, VGPR granule) → kind: `(count - 1) / 8` and `(count - 1) / 4` of the counts above.
fn kind_of(sgpr_granule: u32, vgpr_granule: u32) -> Option<BlitKind> {
    match (sgpr_granule, vgpr_granule) {
        (3, 2) => Some(BlitKind::CopyAligned),
        (2, 2) => Some(BlitKind::CopyMisaligned),
        (2, 1) => Some(BlitKind::Fill),
        _ => None,
    }
}

/// Recognises a ROCr blit header at `code` (which lies in an allocation ending at `end`).
pub fn recognise(code: usize, end: usize) -> Option<BlitKind> {
    if code + 256 > end {
        return None;
    }
    // SAFETY: 256 bytes inside a live allocation of the emulator's memory table.
    let header = unsafe { std::slice::from_raw_parts(code as *const u8, 256) };
    let word = |o: usize| u32::from_le_bytes(header[o..o + 4].try_into().expect("4 bytes"));
    let entry = i64::from_le_bytes(header[16..24].try_into().expect("8 bytes"));
    // ROCr zeroes the header and sets no version: a code-object kernel descriptor would not look so.
    if entry != ENTRY_OFFSET || header[..16].iter().any(|&b| b != 0) {
        return None;
    }
    let rsrc1 = word(48);
    kind_of(rsrc1 >> 6 & 0xf, rsrc1 & 0x3f)
}

fn arg(kernarg: usize, index: usize) -> u64 {
    // SAFETY: ROCr's kernarg block for this blit, of at least `index + 1` u64s (amd_blit_kernel.h).
    unsafe { (kernarg as *const u64).add(index).read_unaligned() }
}

pub fn run(kind: BlitKind, kernarg: usize) {
    if kernarg == 0 {
        return;
    }
    match kind {
        // phase1_src_start, phase1_dst_start, …, phase4_src_end at index 8.
        BlitKind::CopyAligned => copy(arg(kernarg, 0), arg(kernarg, 1), arg(kernarg, 8)),
        // phase1_src_start, phase1_dst_start, …, phase2_src_end at index 4.
        BlitKind::CopyMisaligned => copy(arg(kernarg, 0), arg(kernarg, 1), arg(kernarg, 4)),
        // phase1_dst_start, phase2_dst_start, phase2_dst_end, then the u32 fill value.
        BlitKind::Fill => {
            let (start, end) = (arg(kernarg, 0), arg(kernarg, 2));
            let value = arg(kernarg, 3) as u32;
            let mut p = start;
            while p + 4 <= end {
                // SAFETY: ROCr's fill range: 4-byte aligned device memory it owns.
                unsafe { (p as *mut u32).write_unaligned(value) };
                p += 4;
            }
        }
    }
}

fn copy(src: u64, dst: u64, src_end: u64) {
    let len = src_end.saturating_sub(src) as usize;
    // SAFETY: the ranges ROCr asked to copy; they may overlap, as memmove allows.
    unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, len) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn granules_of_the_three_shaders_are_told_apart() {
        let granules = |s: u32, v: u32| ((s - 1) / 8, (v - 1) / 4);
        let (s, v) = granules(32, 12);
        assert_eq!(kind_of(s, v), Some(BlitKind::CopyAligned));
        let (s, v) = granules(23, 10);
        assert_eq!(kind_of(s, v), Some(BlitKind::CopyMisaligned));
        let (s, v) = granules(19, 8);
        assert_eq!(kind_of(s, v), Some(BlitKind::Fill));
    }

    #[test]
    fn copy_and_fill_follow_the_kernarg_block() {
        let src: Vec<u8> = (0..100).collect();
        let mut dst = vec![0u8; 100];
        let (s, d) = (src.as_ptr() as u64, dst.as_mut_ptr() as u64);
        let misaligned = [s + 1, d, 0, 0, s + 1 + 50, 0, 0, 0];
        run(BlitKind::CopyMisaligned, misaligned.as_ptr() as usize);
        assert_eq!(&dst[..50], &src[1..51]);
        assert_eq!(dst[50], 0);
        let mut words = [0u32; 8];
        let w = words.as_mut_ptr() as u64;
        let fill = [w + 4, 0, w + 20, 0xabcd];
        run(BlitKind::Fill, fill.as_ptr() as usize);
        assert_eq!(words, [0, 0xabcd, 0xabcd, 0xabcd, 0xabcd, 0, 0, 0]);
    }
}
