//! CPU implementations of user kernels, by kernel name (the `.name` of the code object's metadata:
//! an OpenCL C kernel's name, a HIP `extern "C"` kernel's name, or a mangled C++ name). To add one:
//! write a `fn(&Launch)` below that does over the whole grid what the kernel does, reading its
//! explicit arguments by index with [`Launch::u64`] / [`Launch::u32`], and add a line to
//! [`BUILTIN`]. A dispatch of a kernel that is not listed completes without doing anything.

use super::{KernelFn, Launch};

/// The registered kernels: (kernel name, implementation).
pub const BUILTIN: &[(&str, KernelFn)] =
    &[("vadd_f32", vadd_f32), ("fill_u32", fill_u32), ("inc_u32", inc_u32), ("add_one", add_one)];

pub fn lookup(name: &str) -> Option<KernelFn> {
    BUILTIN.iter().find(|(n, _)| *n == name).map(|&(_, f)| f)
}

/// `vadd_f32(const float* a, const float* b, float* c, uint n)`: `c[i] = a[i] + b[i]` for every
/// work-item `i` below `n`.
fn vadd_f32(l: &Launch) {
    let (Some(a), Some(b), Some(c), Some(n)) = (l.u64(0), l.u64(1), l.u64(2), l.u32(3)) else {
        return;
    };
    for i in 0..l.grid_items().min(n.into()) as usize {
        // SAFETY: the kernel's contract: three arrays of at least `n` floats.
        unsafe {
            let v = (a as *const f32).add(i).read_unaligned() + (b as *const f32).add(i).read_unaligned();
            (c as *mut f32).add(i).write_unaligned(v);
        }
    }
}

/// `fill_u32(uint* p, uint value)`: `p[i] = value` for every work-item `i`.
fn fill_u32(l: &Launch) {
    let (Some(p), Some(value)) = (l.u64(0), l.u32(1)) else {
        return;
    };
    for i in 0..l.grid_items() as usize {
        // SAFETY: the kernel's contract: an array covering the grid.
        unsafe { (p as *mut u32).add(i).write_unaligned(value) };
    }
}

/// `inc_u32(uint* p, uint n)`: `p[i] += 1` for every work-item `i` below `n`.
fn inc_u32(l: &Launch) {
    let (Some(p), Some(n)) = (l.u64(0), l.u32(1)) else {
        return;
    };
    for i in 0..l.grid_items().min(n.into()) as usize {
        // SAFETY: the kernel's contract: an array of at least `n` uints.
        unsafe { *(p as *mut u32).add(i) += 1 };
    }
}

/// `add_one(int* buf)`: `buf[x] += 1` for every work-item, `x` its index within its work-group
/// (the kernel reads `workitem_id_x`), so one work-group of the grid's width adds 1 to each.
fn add_one(l: &Launch) {
    let Some(buf) = l.u64(0) else { return };
    let d = l.dispatch;
    let wg = u64::from(d.workgroup_size[0].max(1));
    let others = u64::from(d.grid_size[1].max(1)) * u64::from(d.grid_size[2].max(1));
    for x in 0..u64::from(d.grid_size[0]) {
        // SAFETY: the kernel's contract: an array of at least a work-group's width of ints.
        unsafe { *(buf as *mut i32).add((x % wg) as usize) += others as i32 };
    }
}
