//! What each call means for memory and object lifetimes, resolved once per
//! function into an [`Action`]. The OpenCL reference-counted objects follow
//! from the API description (a function returning a handle or writing one
//! creates it; `clRetain*`/`clRelease*` count it); what allocates memory,
//! and how much, is per function and listed here by parameter name, checked
//! against the description by the tests.

use crate::meta::{FnMeta, Kind, Ret};

/// How an allocation's size is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    Param(&'static str),
    Product(&'static str, &'static str),
    /// `image_format` and `image_desc` (`clCreateImage*`).
    Image,
    /// `image_format`, `image_width`, `image_height`, `image_depth`.
    ImageDims,
    /// Aliases memory another allocation holds (a sub-buffer): 0 bytes.
    Aliased,
}

/// Where the allocated handle or pointer comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum From {
    Returned,
    Out(&'static str),
}

/// A function that allocates memory.
#[derive(Debug, Clone, Copy)]
pub struct Alloc {
    pub name: &'static str,
    pub kind: &'static str,
    pub size: Size,
    pub flags: Option<&'static str>,
    /// The owner's label prefix and parameter: `("context", "context")`.
    pub owner: (&'static str, &'static str),
    /// A parameter naming the one device it is for (USM).
    pub device: Option<&'static str>,
    pub from: From,
}

const fn cl(name: &'static str, kind: &'static str, size: Size, flags: Option<&'static str>) -> Alloc {
    Alloc { name, kind, size, flags, owner: ("context", "context"), device: None, from: From::Returned }
}

const fn usm(name: &'static str, kind: &'static str, device: Option<&'static str>) -> Alloc {
    Alloc {
        name,
        kind,
        size: Size::Param("size"),
        flags: None,
        owner: ("context", "context"),
        device,
        from: From::Returned,
    }
}

/// Every function that allocates memory.
pub const ALLOCS: &[Alloc] = &[
    cl("clCreateBuffer", "buffer", Size::Param("size"), Some("flags")),
    cl("clCreateBufferWithProperties", "buffer", Size::Param("size"), Some("flags")),
    cl("clCreateBufferWithPropertiesINTEL", "buffer", Size::Param("size"), Some("flags")),
    Alloc { owner: ("buffer", "buffer"), ..cl("clCreateSubBuffer", "sub-buffer", Size::Aliased, Some("flags")) },
    cl("clCreateImage", "image", Size::Image, Some("flags")),
    cl("clCreateImageWithProperties", "image", Size::Image, Some("flags")),
    cl("clCreateImage2D", "image", Size::ImageDims, Some("flags")),
    cl("clCreateImage3D", "image", Size::ImageDims, Some("flags")),
    cl("clCreatePipe", "pipe", Size::Product("pipe_packet_size", "pipe_max_packets"), Some("flags")),
    cl("clSVMAlloc", "svm", Size::Param("size"), Some("flags")),
    cl("clSVMAllocARM", "svm", Size::Param("size"), Some("flags")),
    usm("clHostMemAllocINTEL", "usm-host", None),
    usm("clDeviceMemAllocINTEL", "usm-device", Some("device")),
    usm("clSharedMemAllocINTEL", "usm-shared", Some("device")),
    Alloc {
        name: "hsa_memory_allocate",
        kind: "hsa-region",
        size: Size::Param("size"),
        flags: None,
        owner: ("region", "region"),
        device: None,
        from: From::Out("ptr"),
    },
    Alloc {
        name: "hsa_amd_memory_pool_allocate",
        kind: "hsa-pool",
        size: Size::Param("size"),
        flags: Some("flags"),
        owner: ("pool", "memory_pool"),
        device: None,
        from: From::Out("ptr"),
    },
];

/// Functions that free a pointer allocation, and the pointer's parameter.
pub const FREES: &[(&str, &str)] = &[
    ("clSVMFree", "svm_pointer"),
    ("clSVMFreeARM", "svm_pointer"),
    ("clMemFreeINTEL", "ptr"),
    ("clMemBlockingFreeINTEL", "ptr"),
    ("hsa_memory_free", "ptr"),
    ("hsa_amd_memory_pool_free", "ptr"),
];

/// HSA objects the leak check follows: `(function, type, parameter)`,
/// creators first (the parameter receives the object), then destroyers.
pub const HSA_CREATES: &[(&str, &str, &str)] = &[
    ("hsa_queue_create", "hsa_queue", "queue"),
    ("hsa_soft_queue_create", "hsa_queue", "queue"),
    ("hsa_signal_create", "hsa_signal", "signal"),
    ("hsa_amd_signal_create", "hsa_signal", "signal"),
    ("hsa_executable_create", "hsa_executable", "executable"),
    ("hsa_executable_create_alt", "hsa_executable", "executable"),
];
pub const HSA_DESTROYS: &[(&str, &str, &str)] = &[
    ("hsa_queue_destroy", "hsa_queue", "queue"),
    ("hsa_signal_destroy", "hsa_signal", "signal"),
    ("hsa_executable_destroy", "hsa_executable", "executable"),
];

/// The OpenCL handle types whose references the leak check counts. Devices
/// are left out: the root devices are not reference-counted.
pub const CL_OBJECTS: &[&str] = &[
    "cl_context",
    "cl_command_queue",
    "cl_mem",
    "cl_program",
    "cl_kernel",
    "cl_event",
    "cl_sampler",
    "cl_semaphore_khr",
    "cl_command_buffer_khr",
    "cl_accelerator_intel",
    "cl_perfcounter_amd",
    "cl_threadtrace_amd",
    "cl_file_amd",
];

/// What one function does, with its parameters resolved to positions.
#[derive(Debug, Clone, Default)]
pub struct Action {
    /// Objects it creates: `(type, where)`; `Out` by parameter position.
    pub creates: Vec<(&'static str, Made)>,
    /// The object it retains (+1) or releases (−1): `(parameter, delta)`.
    pub counts: Option<(usize, i64)>,
    /// The HSA object it destroys: `(type, parameter)`.
    pub destroys: Option<(&'static str, usize)>,
    pub alloc: Option<Resolved>,
    /// The pointer parameter of a free.
    pub frees: Option<usize>,
    /// For a function creating a context: its `devices` parameter.
    pub context_devices: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Made {
    Returned,
    Out(usize),
    OutArray(usize),
}

impl Action {
    /// Whether the function does nothing the tracker follows.
    pub fn is_none(&self) -> bool {
        self.creates.is_empty()
            && self.counts.is_none()
            && self.destroys.is_none()
            && self.alloc.is_none()
            && self.frees.is_none()
            && self.context_devices.is_none()
    }
}

/// An [`Alloc`] with its parameters as positions.
#[derive(Debug, Clone, Copy)]
pub struct Resolved {
    pub kind: &'static str,
    pub size: Size,
    pub sizes: [Option<usize>; 4],
    pub flags: Option<usize>,
    pub owner: (&'static str, Option<usize>),
    pub device: Option<usize>,
    pub from: Made,
}

fn position(f: &FnMeta, name: &str) -> Option<usize> {
    f.params.iter().position(|p| p.name == name)
}

fn pointee(c_type: &str) -> &str {
    c_type.trim_start_matches("const ").trim_end_matches('*').trim()
}

/// The action of `f` (`hsa`: whether it is an HSA function).
pub fn action(f: &FnMeta, hsa: bool) -> Action {
    let mut a = Action::default();
    if !hsa {
        if f.ret == Ret::Handle && CL_OBJECTS.contains(&f.ret_type) {
            a.creates.push((type_name(f.ret_type), Made::Returned));
        }
        for (i, p) in f.params.iter().enumerate() {
            let t = pointee(p.c_type);
            match p.kind {
                Kind::OutHandle if CL_OBJECTS.contains(&t) => a.creates.push((type_name(t), Made::Out(i))),
                Kind::OutArray { .. } if CL_OBJECTS.contains(&t) => a.creates.push((type_name(t), Made::OutArray(i))),
                _ => {}
            }
        }
        if f.params.first().is_some_and(|p| p.kind == Kind::Handle && CL_OBJECTS.contains(&p.c_type)) {
            if f.name.starts_with("clRetain") {
                a.counts = Some((0, 1));
            } else if f.name.starts_with("clRelease") {
                a.counts = Some((0, -1));
            }
        }
        if f.ret_type == "cl_context" {
            a.context_devices = position(f, "devices");
        }
    } else {
        for (name, t, p) in HSA_CREATES {
            if *name == f.name {
                a.creates.extend(position(f, p).map(|i| (*t, Made::Out(i))));
            }
        }
        for (name, t, p) in HSA_DESTROYS {
            if *name == f.name {
                a.destroys = position(f, p).map(|i| (*t, i));
            }
        }
    }
    if let Some(al) = ALLOCS.iter().find(|al| al.name == f.name) {
        let names: [Option<&str>; 4] = match al.size {
            Size::Param(n) => [Some(n), None, None, None],
            Size::Product(x, y) => [Some(x), Some(y), None, None],
            Size::Image => [Some("image_format"), Some("image_desc"), None, None],
            Size::ImageDims => [Some("image_format"), Some("image_width"), Some("image_height"), Some("image_depth")],
            Size::Aliased => [None; 4],
        };
        a.alloc = Some(Resolved {
            kind: al.kind,
            size: al.size,
            sizes: names.map(|n| n.and_then(|n| position(f, n))),
            flags: al.flags.and_then(|n| position(f, n)),
            owner: (al.owner.0, position(f, al.owner.1)),
            device: al.device.and_then(|n| position(f, n)),
            from: match al.from {
                From::Returned => Made::Returned,
                From::Out(n) => position(f, n).map_or(Made::Returned, Made::Out),
            },
        });
    }
    a.frees = FREES.iter().find(|(n, _)| *n == f.name).and_then(|(_, p)| position(f, p));
    a
}

/// A type's name as the leak list gives it (the C type itself).
fn type_name(t: &str) -> &'static str {
    CL_OBJECTS.iter().find(|c| **c == t).copied().unwrap_or("?")
}

/// Bytes per pixel of a `cl_image_format` (`order`, `data type`); `None`
/// for values the OpenCL headers do not define.
pub fn pixel_bytes(order: u32, data_type: u32) -> Option<u64> {
    // Packed types: one value per pixel whatever the channel order.
    match data_type {
        0x10D4 | 0x10D5 => return Some(2),
        0x10D6 | 0x10E0 => return Some(4),
        _ => {}
    }
    let channel = match data_type {
        0x10D0 | 0x10D2 | 0x10D7 | 0x10DA => 1,
        0x10D1 | 0x10D3 | 0x10D8 | 0x10DB | 0x10DD => 2,
        0x10D9 | 0x10DC | 0x10DE | 0x10DF => 4,
        _ => return None,
    };
    let channels = match order {
        0x10B0 | 0x10B1 | 0x10B8 | 0x10B9 | 0x10BA | 0x10BD | 0x10BE => 1,
        0x10B2 | 0x10B3 | 0x10BB => 2,
        0x10B4 | 0x10BF => 3,
        0x10B5..=0x10B7 | 0x10BC | 0x10C0..=0x10C3 => 4,
        _ => return None,
    };
    Some(channel * channels)
}

/// The texels of a `cl_image_desc` (its bytes as the record holds them);
/// 0 for an image over a buffer (it aliases the buffer's memory).
pub fn image_texels(desc: &[u8]) -> u64 {
    let w = |i: usize| desc.get(i * 8..i * 8 + 8).map_or(0, |b| u64::from_ne_bytes(b.try_into().unwrap_or([0; 8])));
    let image_type = w(0) as u32;
    let (width, height, depth, array) = (w(1), w(2), w(3), w(4));
    if w(8) != 0 {
        return 0;
    }
    match image_type {
        0x10F1 => width * height,
        0x10F2 => width * height * depth,
        0x10F3 => width * height * array,
        0x10F4 => width,
        0x10F5 => width * array,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meta::{by_name, hsa_by_name, FUNCTIONS, HSA_FUNCTIONS};

    #[test]
    fn every_listed_function_and_parameter_is_in_the_description() {
        for al in ALLOCS {
            let f = by_name(al.name).map(|i| &FUNCTIONS[i]).or_else(|| hsa_by_name(al.name).map(|i| &HSA_FUNCTIONS[i]));
            let f = f.unwrap_or_else(|| panic!("{} is not described", al.name));
            let a = action(f, f.name.starts_with("hsa_"));
            let r = a.alloc.unwrap();
            assert!(r.owner.1.is_some(), "{}: owner", al.name);
            assert_eq!(r.flags.is_some(), al.flags.is_some(), "{}: flags", al.name);
            assert_eq!(r.device.is_some(), al.device.is_some(), "{}: device", al.name);
            let wanted = match al.size {
                Size::Param(_) => 1,
                Size::Product(..) | Size::Image => 2,
                Size::ImageDims => 3,
                Size::Aliased => 0,
            };
            assert!(r.sizes.iter().flatten().count() >= wanted, "{}: sizes {:?}", al.name, r.sizes);
            if let From::Out(_) = al.from {
                assert!(matches!(r.from, Made::Out(_)), "{}", al.name);
            }
        }
        for (n, p) in FREES {
            let f = by_name(n).map(|i| &FUNCTIONS[i]).or_else(|| hsa_by_name(n).map(|i| &HSA_FUNCTIONS[i])).unwrap();
            assert!(position(f, p).is_some(), "{n}: {p}");
        }
        for (n, _, p) in HSA_CREATES.iter().chain(HSA_DESTROYS) {
            let f = &HSA_FUNCTIONS[hsa_by_name(n).unwrap_or_else(|| panic!("{n}"))];
            assert!(position(f, p).is_some(), "{n}: {p}");
        }
    }

    #[test]
    fn opencl_lifetimes_follow_from_the_description() {
        let a = action(&FUNCTIONS[by_name("clCreateBuffer").unwrap()], false);
        assert_eq!(a.creates, vec![("cl_mem", Made::Returned)]);
        let a = action(&FUNCTIONS[by_name("clReleaseMemObject").unwrap()], false);
        assert_eq!(a.counts, Some((0, -1)));
        let a = action(&FUNCTIONS[by_name("clRetainKernel").unwrap()], false);
        assert_eq!(a.counts, Some((0, 1)));
        let a = action(&FUNCTIONS[by_name("clEnqueueWriteBuffer").unwrap()], false);
        assert_eq!(a.creates, vec![("cl_event", Made::Out(8))]);
        let a = action(&FUNCTIONS[by_name("clCreateKernelsInProgram").unwrap()], false);
        assert_eq!(a.creates, vec![("cl_kernel", Made::OutArray(2))]);
        let a = action(&FUNCTIONS[by_name("clGetDeviceIDs").unwrap()], false);
        assert!(a.creates.is_empty());
        let a = action(&FUNCTIONS[by_name("clReleaseDevice").unwrap()], false);
        assert_eq!(a.counts, None);
        let a = action(&FUNCTIONS[by_name("clCreateContext").unwrap()], false);
        assert_eq!(a.context_devices, Some(2));
    }

    #[test]
    fn image_sizes() {
        assert_eq!(pixel_bytes(0x10B5, 0x10D2), Some(4)); // CL_RGBA, CL_UNORM_INT8
        assert_eq!(pixel_bytes(0x10B0, 0x10DE), Some(4)); // CL_R, CL_FLOAT
        assert_eq!(pixel_bytes(0x10B4, 0x10D4), Some(2)); // CL_RGB, CL_UNORM_SHORT_565
        assert_eq!(pixel_bytes(1, 0x10D2), None);
        let desc = |t: u64, w: u64, h: u64, d: u64, a: u64, buffer: u64| {
            [t, w, h, d, a, 0, 0, 0, buffer].iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<u8>>()
        };
        assert_eq!(image_texels(&desc(0x10F1, 64, 32, 9, 9, 0)), 64 * 32);
        assert_eq!(image_texels(&desc(0x10F2, 8, 4, 2, 9, 0)), 64);
        assert_eq!(image_texels(&desc(0x10F5, 8, 4, 2, 3, 0)), 24);
        assert_eq!(image_texels(&desc(0x10F1, 64, 32, 0, 0, 0x77)), 0);
    }
}
