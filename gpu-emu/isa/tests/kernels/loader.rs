//! A code object made ready to dispatch without ROCr: compiled from OpenCL C by Debian's clang-15
//! (the compile line of the suite's HSA kernels), its loadable segments placed in host memory as a
//! loader would place them, the kernel descriptor found by its `.kd` symbol, and an AQL dispatch
//! packet and kernarg segment made for it.

use std::path::PathBuf;
use std::process::Command;

use object::{Object, ObjectSegment, ObjectSymbol};

const BITCODE: &str = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode";
/// The device libraries and their controls, as comgr links them for an OpenCL program built with
/// default options.
const LIBS: [&str; 10] = [
    "opencl",
    "ocml",
    "ockl",
    "oclc_isa_version_906",
    "oclc_abi_version_400",
    "oclc_correctly_rounded_sqrt_on",
    "oclc_daz_opt_off",
    "oclc_finite_only_off",
    "oclc_unsafe_math_off",
    "oclc_wavefrontsize64_on",
];

/// Compiles OpenCL C `source` for gfx906 into a code object's bytes, at `opt` (`-O2`, `-O0`…).
pub fn compile(name: &str, source: &str, opt: &str) -> Vec<u8> {
    let dir = std::env::temp_dir().join(format!("gfx906-kernels-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src: PathBuf = dir.join(format!("{name}{opt}.cl"));
    let out = dir.join(format!("{name}{opt}.co"));
    std::fs::write(&src, source).unwrap();
    let mut c = Command::new("clang-15");
    c.args(["-target", "amdgcn-amd-amdhsa", "-mcpu=gfx906", "-cl-std=CL2.0", opt, "-nogpulib"]);
    for lib in LIBS {
        c.args(["-Xclang", "-mlink-builtin-bitcode", "-Xclang"]).arg(format!("{BITCODE}/{lib}.bc"));
    }
    let o = c.arg("-o").arg(&out).arg(&src).output().expect("clang-15 runs (scripts/setup.sh installs it)");
    assert!(o.status.success(), "clang-15 failed on {name}:\n{}", String::from_utf8_lossy(&o.stderr));
    std::fs::read(&out).unwrap()
}

/// A code object placed in host memory.
pub struct Loaded {
    /// The image, page-aligned: segment virtual address 0 is `image.as_ptr()`.
    pub image: Vec<u8>,
    start: usize,
    /// The image's bytes in use (from `start`).
    pub size: usize,
    /// Offsets of the kernels' descriptors, by kernel name.
    pub kernels: Vec<(String, u64)>,
}

impl Loaded {
    pub fn base(&self) -> u64 {
        self.image.as_ptr() as u64 + self.start as u64
    }
    /// The kernel object (descriptor address) of kernel `name`.
    pub fn kernel_object(&self, name: &str) -> u64 {
        let kd = self.kernels.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no kernel {name}")).1;
        self.base() + kd
    }
    /// (start, end) of the image, for the memory the GPU may touch.
    pub fn range(&self) -> (u64, u64) {
        (self.base(), self.base() + self.size as u64)
    }
}

/// Places the PT_LOAD segments of `elf` at their virtual addresses from a page-aligned base. The
/// suite's kernels need no relocation (checked: a code object with dynamic relocations is refused).
pub fn load(elf: &[u8]) -> Loaded {
    let file = object::File::parse(elf).expect("an ELF code object");
    assert!(file.dynamic_relocations().is_none_or(|mut r| r.next().is_none()), "the test loader does not relocate");
    let size = file.segments().map(|s| s.address() + s.size()).max().unwrap() as usize;
    let mut image = vec![0u8; size + 0x1000];
    let start = image.as_ptr().align_offset(0x1000);
    for s in file.segments() {
        let data = s.data().unwrap();
        let at = start + s.address() as usize;
        image[at..at + data.len()].copy_from_slice(data);
    }
    let kernels = file
        .dynamic_symbols()
        .filter_map(|s| Some((s.name().ok()?.strip_suffix(".kd")?.to_string(), s.address())))
        .collect();
    Loaded { image, start, size, kernels }
}

/// An AQL kernel dispatch packet (`hsa_kernel_dispatch_packet_t`, 64 bytes), as the kernel reads it
/// through its dispatch pointer.
#[repr(C, align(64))]
#[derive(Debug, Clone, Copy, Default)]
pub struct Packet {
    pub header: u16,
    pub setup: u16,
    pub workgroup_size: [u16; 3],
    pub reserved0: u16,
    pub grid_size: [u32; 3],
    pub private_segment_size: u32,
    pub group_segment_size: u32,
    pub kernel_object: u64,
    pub kernarg_address: u64,
    pub reserved2: u64,
    pub completion_signal: u64,
}

impl Packet {
    /// A packet for a 1-, 2- or 3-dimensional grid.
    pub fn new(kernel_object: u64, grid: &[u32], workgroup: &[u16], kernarg: u64, group_segment: u32) -> Packet {
        let mut p = Packet {
            header: 2, // HSA_PACKET_TYPE_KERNEL_DISPATCH
            setup: grid.len() as u16,
            workgroup_size: [1; 3],
            grid_size: [1; 3],
            group_segment_size: group_segment,
            kernel_object,
            kernarg_address: kernarg,
            ..Default::default()
        };
        p.grid_size[..grid.len()].copy_from_slice(grid);
        p.workgroup_size[..workgroup.len()].copy_from_slice(workgroup);
        p
    }
}

/// A kernarg segment: the explicit arguments in order at their natural alignment, then zeros for
/// the hidden ones (global offsets 0, no printf buffer, no default queue), up to `size` bytes.
#[derive(Default)]
pub struct Kernargs(Vec<u8>);

impl Kernargs {
    fn push(&mut self, bytes: &[u8], align: usize) {
        while !self.0.len().is_multiple_of(align) {
            self.0.push(0);
        }
        self.0.extend_from_slice(bytes);
    }
    pub fn ptr<T>(mut self, p: *const T) -> Self {
        self.push(&(p as u64).to_le_bytes(), 8);
        self
    }
    pub fn u32(mut self, v: u32) -> Self {
        self.push(&v.to_le_bytes(), 4);
        self
    }
    /// A `local` pointer argument: its offset in the group segment.
    pub fn local(self, offset: u32) -> Self {
        self.u32(offset)
    }
    /// The segment, 16-byte aligned in memory, padded with zeros to 256 bytes of hidden arguments.
    pub fn finish(mut self) -> Vec<u64> {
        self.0.resize(self.0.len().next_multiple_of(8) + 256, 0);
        self.0.chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect()
    }
}
