//! AQL packets (HSA 1.2 §2.9, `hsa.h`): 64 bytes each, the first 16 bits a
//! header giving the type, the barrier bit and the fences. cltap reads the
//! kernel dispatches that pass through an intercept queue, and writes them
//! on (with packets of its own around them) unchanged.

/// Every AQL packet is 64 bytes.
pub const PACKET_SIZE: usize = 64;

/// `hsa_packet_type_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketType {
    VendorSpecific,
    Invalid,
    KernelDispatch,
    BarrierAnd,
    AgentDispatch,
    BarrierOr,
    Other(u8),
}

impl PacketType {
    pub fn from_u8(v: u8) -> PacketType {
        match v {
            0 => PacketType::VendorSpecific,
            1 => PacketType::Invalid,
            2 => PacketType::KernelDispatch,
            3 => PacketType::BarrierAnd,
            4 => PacketType::AgentDispatch,
            5 => PacketType::BarrierOr,
            n => PacketType::Other(n),
        }
    }

    pub fn as_u8(self) -> u8 {
        match self {
            PacketType::VendorSpecific => 0,
            PacketType::Invalid => 1,
            PacketType::KernelDispatch => 2,
            PacketType::BarrierAnd => 3,
            PacketType::AgentDispatch => 4,
            PacketType::BarrierOr => 5,
            PacketType::Other(n) => n,
        }
    }
}

/// A packet header's fields (`hsa_packet_header_t` bit positions: type at
/// 0, 8 bits; barrier at 8; acquire fence scope at 9, 2 bits; release fence
/// scope at 11, 2 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub kind: PacketType,
    pub barrier: bool,
    pub acquire: u8,
    pub release: u8,
}

impl Header {
    pub fn decode(h: u16) -> Header {
        Header {
            kind: PacketType::from_u8(h as u8),
            barrier: h >> 8 & 1 != 0,
            acquire: (h >> 9 & 3) as u8,
            release: (h >> 11 & 3) as u8,
        }
    }

    pub fn encode(self) -> u16 {
        self.kind.as_u8() as u16
            | (self.barrier as u16) << 8
            | ((self.acquire & 3) as u16) << 9
            | ((self.release & 3) as u16) << 11
    }
}

/// `hsa_kernel_dispatch_packet_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KernelDispatch {
    pub header: u16,
    /// Dimensions in the low 2 bits.
    pub setup: u16,
    pub workgroup_size: [u16; 3],
    pub reserved0: u16,
    pub grid_size: [u32; 3],
    pub private_segment_size: u32,
    pub group_segment_size: u32,
    pub kernel_object: u64,
    pub kernarg_address: u64,
    pub reserved2: u64,
    /// An `hsa_signal_t`'s handle; 0 for none.
    pub completion_signal: u64,
}

/// `hsa_barrier_and_packet_t` (and `_or_`, the same layout).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Barrier {
    pub header: u16,
    pub reserved0: u16,
    pub reserved1: u32,
    pub dep_signal: [u64; 5],
    pub reserved2: u64,
    pub completion_signal: u64,
}

const _: () = assert!(std::mem::size_of::<KernelDispatch>() == PACKET_SIZE);
const _: () = assert!(std::mem::size_of::<Barrier>() == PACKET_SIZE);

impl Barrier {
    pub fn bytes(&self) -> [u8; PACKET_SIZE] {
        // SAFETY: a plain repr(C) struct of integers, of the packet's size.
        unsafe { std::mem::transmute_copy(self) }
    }
}

impl KernelDispatch {
    /// Reads a packet from 64 bytes.
    pub fn read(b: &[u8; PACKET_SIZE]) -> KernelDispatch {
        // SAFETY: a plain repr(C) struct of integers, read from its size.
        unsafe { std::ptr::read_unaligned(b.as_ptr() as *const KernelDispatch) }
    }

    pub fn bytes(&self) -> [u8; PACKET_SIZE] {
        // SAFETY: as above.
        unsafe { std::mem::transmute_copy(self) }
    }

    pub fn header(&self) -> Header {
        Header::decode(self.header)
    }

    pub fn dimensions(&self) -> u32 {
        (self.setup & 3) as u32
    }

    /// Work-groups in the grid (rounded up in each dimension).
    pub fn workgroups(&self) -> u64 {
        (0..3)
            .map(|i| {
                let (g, w) = (self.grid_size[i].max(1) as u64, self.workgroup_size[i].max(1) as u64);
                g.div_ceil(w)
            })
            .product()
    }

    /// The packet as RCP's kernel timestamp line shows it: its fields by
    /// name, in order.
    pub fn describe(&self) -> String {
        let h = self.header();
        format!(
            "header={{type={},barrier={},acquire={},release={}}} setup={} workgroup_size={{{},{},{}}} grid_size={{{},{},{}}} private_segment_size={} group_segment_size={} kernel_object=0x{:x} kernarg_address=0x{:x} completion_signal=0x{:x}",
            h.kind.as_u8(),
            h.barrier as u8,
            h.acquire,
            h.release,
            self.setup,
            self.workgroup_size[0],
            self.workgroup_size[1],
            self.workgroup_size[2],
            self.grid_size[0],
            self.grid_size[1],
            self.grid_size[2],
            self.private_segment_size,
            self.group_segment_size,
            self.kernel_object,
            self.kernarg_address,
            self.completion_signal
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_round_trip_every_field() {
        for kind in 0..=5u8 {
            for barrier in [false, true] {
                for acquire in 0..4 {
                    for release in 0..4 {
                        let h = Header { kind: PacketType::from_u8(kind), barrier, acquire, release };
                        assert_eq!(Header::decode(h.encode()), h);
                    }
                }
            }
        }
        // A kernel dispatch with the barrier bit and system-scope fences.
        assert_eq!(
            Header::decode(2 | 1 << 8 | 2 << 9 | 2 << 11),
            Header { kind: PacketType::KernelDispatch, barrier: true, acquire: 2, release: 2 }
        );
    }

    #[test]
    fn dispatch_packets_read_back_and_count_workgroups() {
        let p = KernelDispatch {
            header: 2,
            setup: 2,
            workgroup_size: [64, 4, 1],
            grid_size: [1000, 8, 1],
            kernel_object: 0xABC0,
            completion_signal: 0x77,
            ..Default::default()
        };
        assert_eq!(KernelDispatch::read(&p.bytes()), p);
        assert_eq!(p.dimensions(), 2);
        assert_eq!(p.workgroups(), 16 * 2);
        assert!(
            p.describe().contains("grid_size={1000,8,1}") && p.describe().contains("kernel_object=0xabc0"),
            "{}",
            p.describe()
        );
    }

    /// The layouts against Debian's `hsa.h` (libhsa-runtime-dev), compiled
    /// with gcc: every field's offset.
    #[test]
    fn layouts_match_the_real_header() {
        let header = std::path::Path::new("/usr/include/hsa/hsa.h");
        assert!(
            header.is_file(),
            "{} is missing: install libhsa-runtime-dev (scripts/setup.sh does)",
            header.display()
        );
        let dir = tempfile::tempdir().unwrap();
        let c = dir.path().join("offsets.c");
        let fields = [
            ("hsa_kernel_dispatch_packet_t", "header"),
            ("hsa_kernel_dispatch_packet_t", "setup"),
            ("hsa_kernel_dispatch_packet_t", "workgroup_size_x"),
            ("hsa_kernel_dispatch_packet_t", "workgroup_size_z"),
            ("hsa_kernel_dispatch_packet_t", "grid_size_x"),
            ("hsa_kernel_dispatch_packet_t", "grid_size_z"),
            ("hsa_kernel_dispatch_packet_t", "private_segment_size"),
            ("hsa_kernel_dispatch_packet_t", "group_segment_size"),
            ("hsa_kernel_dispatch_packet_t", "kernel_object"),
            ("hsa_kernel_dispatch_packet_t", "kernarg_address"),
            ("hsa_kernel_dispatch_packet_t", "completion_signal"),
            ("hsa_barrier_and_packet_t", "dep_signal"),
            ("hsa_barrier_and_packet_t", "completion_signal"),
        ];
        let mut src = String::from("#include <stdio.h>\n#include <stddef.h>\n#include <hsa/hsa.h>\nint main(void) {\n");
        for (t, f) in fields {
            src += &format!("  printf(\"%zu\\n\", offsetof({t}, {f}));\n");
        }
        src += "  printf(\"%zu %zu\\n\", sizeof(hsa_kernel_dispatch_packet_t), sizeof(hsa_barrier_and_packet_t));\n  return 0;\n}\n";
        std::fs::write(&c, src).unwrap();
        let exe = dir.path().join("offsets");
        let st = std::process::Command::new("gcc").arg(&c).arg("-o").arg(&exe).status().unwrap();
        assert!(st.success(), "compiling against hsa.h failed");
        let out = String::from_utf8(std::process::Command::new(&exe).output().unwrap().stdout).unwrap();
        let ours: Vec<String> = {
            let k = KernelDispatch::default();
            let b = Barrier::default();
            let base = &k as *const _ as usize;
            let bb = &b as *const _ as usize;
            let off = |p: *const u8, base: usize| (p as usize - base).to_string();
            vec![
                off(&k.header as *const _ as *const u8, base),
                off(&k.setup as *const _ as *const u8, base),
                off(&k.workgroup_size[0] as *const _ as *const u8, base),
                off(&k.workgroup_size[2] as *const _ as *const u8, base),
                off(&k.grid_size[0] as *const _ as *const u8, base),
                off(&k.grid_size[2] as *const _ as *const u8, base),
                off(&k.private_segment_size as *const _ as *const u8, base),
                off(&k.group_segment_size as *const _ as *const u8, base),
                off(&k.kernel_object as *const _ as *const u8, base),
                off(&k.kernarg_address as *const _ as *const u8, base),
                off(&k.completion_signal as *const _ as *const u8, base),
                off(&b.dep_signal as *const _ as *const u8, bb),
                off(&b.completion_signal as *const _ as *const u8, bb),
                format!("{} {}", std::mem::size_of::<KernelDispatch>(), std::mem::size_of::<Barrier>()),
            ]
        };
        assert_eq!(out.lines().collect::<Vec<_>>(), ours);
    }
}
