//! What the emulated GPU's memory instructions touch. Its addresses are the host's: a global or
//! flat address is a host pointer, checked first against what is mapped for the GPU ([`Memory`]),
//! so a wild address faults the dispatch instead of the host process. LDS is the work-group's
//! own byte array; scratch is memory of the dispatch's.
//!
//! Scratch layout (the hardware's, the same for MUBUF through the private segment buffer and for
//! FLAT and SCRATCH instructions through FLAT_SCRATCH): a wave's scratch starts at its wave offset
//! from the dispatch's scratch base and is swizzled in dwords: lane L's private byte `o` is at
//! `wave base + (o / 4) * 256 + L * 4 + o % 4`. The private segment buffer descriptor the dispatch
//! gives the kernel (s[0:3]) says the same (SWIZZLE_ENABLE, 4-byte elements, index stride 64,
//! ADD_TID_ENABLE); the kernel adds the wave offset itself (soffset, or FLAT_SCRATCH from
//! flat_scratch_init), and a callee's stack pointer counts wave-sized bytes (64 per lane byte), as
//! clang's code for gfx9 expects. A wave's scratch is `64 * lane_stride` bytes.

use std::sync::atomic::{AtomicU32, AtomicU64};

use crate::fault::Fault;

/// The ranges the GPU may access.
pub trait Memory: Sync {
    /// Whether the GPU may touch `len` bytes at `addr`.
    fn valid(&self, addr: u64, len: u64) -> bool;
}

/// A sorted list of (start, end) ranges, end exclusive.
#[derive(Debug, Clone, Default)]
pub struct Ranges(Vec<(u64, u64)>);

impl Ranges {
    pub fn new(mut ranges: Vec<(u64, u64)>) -> Ranges {
        ranges.sort_unstable();
        Ranges(ranges)
    }
    /// Adds a range (kept sorted).
    pub fn add(&mut self, start: u64, len: u64) {
        let at = self.0.partition_point(|r| r.0 < start);
        self.0.insert(at, (start, start + len));
    }
    /// Ranges covering host slices, for tests.
    pub fn of_slices(slices: &[&[u8]]) -> Ranges {
        Ranges::new(slices.iter().map(|s| (s.as_ptr() as u64, s.as_ptr() as u64 + s.len() as u64)).collect())
    }
}

impl Memory for Ranges {
    fn valid(&self, addr: u64, len: u64) -> bool {
        let Some(end) = addr.checked_add(len) else { return false };
        let i = self.0.partition_point(|r| r.0 <= addr);
        i > 0 && end <= self.0[i - 1].1
    }
}

/// Where an access was made from, for its fault.
#[derive(Debug, Clone, Copy)]
pub struct Site {
    pub pc: u64,
    pub name: &'static str,
}

impl Site {
    pub fn fault(&self, addr: u64, len: u64) -> Fault {
        Fault::Memory { pc: self.pc, addr, len, name: self.name }
    }
}

fn check(mem: &dyn Memory, addr: u64, len: u64, site: Site) -> Result<(), Fault> {
    if mem.valid(addr, len) {
        Ok(())
    } else {
        Err(site.fault(addr, len))
    }
}

/// Reads `out.len()` bytes of GPU memory at `addr`.
pub fn read(mem: &dyn Memory, addr: u64, out: &mut [u8], site: Site) -> Result<(), Fault> {
    check(mem, addr, out.len() as u64, site)?;
    // SAFETY: checked against the ranges mapped for the GPU, which are live host memory.
    unsafe { std::ptr::copy_nonoverlapping(addr as *const u8, out.as_mut_ptr(), out.len()) };
    Ok(())
}

/// Writes `data` to GPU memory at `addr`.
pub fn write(mem: &dyn Memory, addr: u64, data: &[u8], site: Site) -> Result<(), Fault> {
    check(mem, addr, data.len() as u64, site)?;
    // SAFETY: checked against the ranges mapped for the GPU, which are live host memory.
    unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), addr as *mut u8, data.len()) };
    Ok(())
}

pub fn read_u32(mem: &dyn Memory, addr: u64, site: Site) -> Result<u32, Fault> {
    let mut b = [0u8; 4];
    read(mem, addr, &mut b, site)?;
    Ok(u32::from_le_bytes(b))
}

pub fn write_u32(mem: &dyn Memory, addr: u64, value: u32, site: Site) -> Result<(), Fault> {
    write(mem, addr, &value.to_le_bytes(), site)
}

/// The 32-bit word at `addr` as a host atomic (work-groups may run on several host threads). An
/// unaligned atomic faults, as on the GPU.
pub fn atomic32(mem: &dyn Memory, addr: u64, site: Site) -> Result<&'static AtomicU32, Fault> {
    check(mem, addr, 4, site)?;
    if !addr.is_multiple_of(4) {
        return Err(site.fault(addr, 4));
    }
    // SAFETY: checked, aligned, live host memory; all of the emulator's accesses to it are atomic
    // or plain copies, as on a GPU.
    Ok(unsafe { &*(addr as *const AtomicU32) })
}

/// The 64-bit word at `addr` as a host atomic.
pub fn atomic64(mem: &dyn Memory, addr: u64, site: Site) -> Result<&'static AtomicU64, Fault> {
    check(mem, addr, 8, site)?;
    if !addr.is_multiple_of(8) {
        return Err(site.fault(addr, 8));
    }
    // SAFETY: as in atomic32.
    Ok(unsafe { &*(addr as *const AtomicU64) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_admit_only_what_they_cover() {
        let r = Ranges::new(vec![(0x1000, 0x2000), (0x3000, 0x3010)]);
        assert!(r.valid(0x1000, 0x1000));
        assert!(!r.valid(0x1FFF, 2));
        assert!(r.valid(0x3008, 8));
        assert!(!r.valid(0x2800, 4));
        assert!(!r.valid(0x0FFF, 1));
        assert!(!r.valid(u64::MAX, 2));
    }
}
