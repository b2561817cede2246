//! HIP's (ROCclr's) blit kernels, compiled at HIP start-up from ROCclr's OpenCL source into an
//! ordinary code object; their arguments come from its metadata note. What they do is what the
//! device library's `__amd_copyBuffer`, `__amd_copyBufferAligned` and `__amd_fillBufferAligned`
//! do, over all of the grid at once.

use super::{KernelFn, Launch};

pub fn lookup(name: &str) -> Option<KernelFn> {
    Some(match name {
        "__amd_rocclr_copyBuffer" => copy_buffer,
        "__amd_rocclr_copyBufferAligned" => copy_buffer_aligned,
        "__amd_rocclr_fillBufferAligned" => fill_buffer_aligned,
        _ => return None,
    })
}

fn copy_bytes(src: u64, dst: u64, len: u64) {
    // SAFETY: device memory HIP asked to copy; ranges may overlap only as memmove allows.
    unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, len as usize) };
}

/// (src, dst, srcOrigin, dstOrigin, size, remain): bytes at byte origins; `size` work-items, each a
/// byte when `remain` is 8, else a dword except the last, which copies `remain` bytes.
fn copy_buffer(l: &Launch) {
    let (Some(src), Some(dst), Some(so), Some(d_o), Some(size), Some(remain)) =
        (l.u64(0), l.u64(1), l.u64(2), l.u64(3), l.u64(4), l.u32(5))
    else {
        return;
    };
    let items = size.min(l.grid_items());
    let len = if remain == 8 {
        items
    } else if items == 0 {
        0
    } else {
        (items - 1) * 4 + u64::from(remain.min(4))
    };
    copy_bytes(src + so, dst + d_o, len);
}

/// (src, dst, srcOrigin, dstOrigin, size, alignment): `size` elements of 16 bytes when `alignment`
/// is 16, else of 4, with the origins counted in elements.
fn copy_buffer_aligned(l: &Launch) {
    let (Some(src), Some(dst), Some(so), Some(d_o), Some(size), Some(alignment)) =
        (l.u64(0), l.u64(1), l.u64(2), l.u64(3), l.u64(4), l.u32(5))
    else {
        return;
    };
    let e = if alignment == 16 { 16 } else { 4 };
    copy_bytes(src + so * e, dst + d_o * e, size.min(l.grid_items()) * e);
}

/// (bufUChar, bufUShort, bufUInt, bufULong, pattern, patternSize, offset, size): the one non-null
/// buffer gives the element width; `size` work-items each write `patternSize` elements of the
/// pattern at element `offset + id * patternSize`.
fn fill_buffer_aligned(l: &Launch) {
    let bufs = [(l.u64(0), 1u64), (l.u64(1), 2), (l.u64(2), 4), (l.u64(3), 8)];
    let Some((buf, width)) = bufs.iter().find_map(|&(b, w)| b.filter(|&b| b != 0).map(|b| (b, w))) else {
        return;
    };
    let (Some(pattern), Some(pattern_size), Some(offset), Some(size)) = (l.u64(4), l.u32(5), l.u64(6), l.u64(7)) else {
        return;
    };
    let chunk = u64::from(pattern_size) * width;
    for id in 0..size.min(l.grid_items()) {
        copy_bytes(pattern, buf + (offset + id * u64::from(pattern_size)) * width, chunk);
    }
}
