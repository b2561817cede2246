//! The program a captured kernel came from, as the driver holds it: its
//! source, else its IL, else its binary for the capture's device, with the
//! options of its build for that device.

use super::cl::{self, slot, Obj};

const CL_PROGRAM_DEVICES: u32 = 0x1163;

/// (kind, file extension, bytes, build options) of `kernel`'s program.
///
/// # Safety
/// Live driver handles.
pub unsafe fn program(kernel: Obj, device: Obj) -> Result<(&'static str, &'static str, Vec<u8>, String), String> {
    // SAFETY: a live kernel (the contract).
    let prog = unsafe { cl::info(kernel, slot::GET_KERNEL_INFO, cl::CL_KERNEL_PROGRAM) }
        .and_then(|b| cl::word(&b))
        .ok_or("the driver did not name the kernel's program")? as Obj;
    // SAFETY: the kernel's program, live while the kernel is; the queue's device.
    let options =
        unsafe { cl::build_info(prog, device, cl::CL_PROGRAM_BUILD_OPTIONS) }.map(|b| cl::text(&b)).unwrap_or_default();
    // SAFETY: as above.
    let q = |p| unsafe { cl::info(prog, slot::GET_PROGRAM_INFO, p) };
    if let Some(src) = q(cl::CL_PROGRAM_SOURCE).map(|b| cl::text(&b)).filter(|s| !s.is_empty()) {
        return Ok(("source", "cl", src.into_bytes(), options));
    }
    if let Some(il) = q(cl::CL_PROGRAM_IL).filter(|b| !b.is_empty()) {
        return Ok(("il", "spv", il, options));
    }
    let devices: Vec<u64> = q(CL_PROGRAM_DEVICES).map(|b| words(&b)).unwrap_or_default();
    let sizes: Vec<u64> = q(cl::CL_PROGRAM_BINARY_SIZES).map(|b| words(&b)).unwrap_or_default();
    let d = devices.iter().position(|&d| d == device as u64).ok_or("the queue's device is not the program's")?;
    if sizes.len() != devices.len() || sizes[d] == 0 {
        return Err("the program has no source, IL or binary the driver gives".into());
    }
    let mut bins: Vec<Vec<u8>> = sizes.iter().map(|&s| vec![0u8; s as usize]).collect();
    let mut ptrs: Vec<*mut u8> =
        bins.iter_mut().map(|b| if b.is_empty() { std::ptr::null_mut() } else { b.as_mut_ptr() }).collect();
    type Info = unsafe extern "C" fn(Obj, u32, usize, *mut std::ffi::c_void, *mut usize) -> i32;
    // SAFETY: as above; the slot is clGetProgramInfo.
    let f: Info = unsafe { cl::raw(prog, slot::GET_PROGRAM_INFO) }.ok_or("no clGetProgramInfo")?;
    let size = ptrs.len() * std::mem::size_of::<*mut u8>();
    // SAFETY: one pointer per device, each to room for its binary's size (NULL for none).
    let r = unsafe {
        f(prog, cl::CL_PROGRAM_BINARIES, size, ptrs.as_mut_ptr() as *mut std::ffi::c_void, std::ptr::null_mut())
    };
    if r != 0 {
        return Err(format!("CL_PROGRAM_BINARIES failed ({r})"));
    }
    Ok(("binary", "bin", std::mem::take(&mut bins[d]), options))
}

fn words(b: &[u8]) -> Vec<u64> {
    b.chunks_exact(8).map(|c| u64::from_ne_bytes(c.try_into().unwrap())).collect()
}
