//! The work-group's LDS as DS and FLAT instructions touch it: byte copies, an access past its end
//! reading 0 and writing nothing (as gfx9 does under its LDS size limit), never a fault.

/// Copies `out.len()` bytes of LDS at `addr` into `out`; out of range, `out` is zeroed and false
/// comes back.
pub fn read(lds: &[u8], addr: u32, out: &mut [u8]) -> bool {
    match span(lds.len(), addr, out.len()) {
        Some(r) => {
            out.copy_from_slice(&lds[r]);
            true
        }
        None => {
            out.fill(0);
            false
        }
    }
}

/// Copies `data` into LDS at `addr`; out of range, nothing is written.
pub fn write(lds: &mut [u8], addr: u32, data: &[u8]) {
    if let Some(r) = span(lds.len(), addr, data.len()) {
        lds[r].copy_from_slice(data);
    }
}

pub fn read_u32(lds: &[u8], addr: u32) -> u32 {
    let mut b = [0u8; 4];
    read(lds, addr, &mut b);
    u32::from_le_bytes(b)
}

pub fn read_u64(lds: &[u8], addr: u32) -> u64 {
    let mut b = [0u8; 8];
    read(lds, addr, &mut b);
    u64::from_le_bytes(b)
}

fn span(size: usize, addr: u32, len: usize) -> Option<std::ops::Range<usize>> {
    let start = addr as usize;
    let end = start.checked_add(len)?;
    (end <= size).then_some(start..end)
}

#[cfg(test)]
mod tests {
    #[test]
    fn out_of_range_reads_zero_and_drops_writes() {
        let mut lds = vec![1u8; 8];
        let mut b = [9u8; 4];
        assert!(!super::read(&lds, 6, &mut b));
        assert_eq!(b, [0; 4]);
        super::write(&mut lds, 5, &[7; 4]);
        assert_eq!(lds, vec![1u8; 8]);
        super::write(&mut lds, 4, &[7; 4]);
        assert_eq!(lds[4..], [7; 4]);
        assert_eq!(super::read_u32(&lds, u32::MAX), 0);
    }
}
