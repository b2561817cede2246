//! Kernel identification against a real gfx906 code object (built here with clang-15 from
//! `tests/gpu_emu/kernels.cl`), laid out in emulator memory as ROCr's loader lays it out: each
//! PT_LOAD segment at its virtual address from the start of one allocation.

use hsakmt_emu::kernels::{identify, ArgSlot, Kernel};
use object::read::elf::{ElfFile64, ProgramHeader};
use object::{Object, ObjectSymbol};
use std::process::Command;

fn code_object() -> Vec<u8> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let out = std::env::temp_dir().join(format!("gpu-emu-kernels-{}.co", std::process::id()));
    let st = Command::new("clang-15")
        .args(["-target", "amdgcn-amd-amdhsa", "-mcpu=gfx906", "-nogpulib", "-cl-std=CL2.0", "-O2"])
        .arg(format!("{root}/tests/gpu_emu/kernels.cl"))
        .arg("-o")
        .arg(&out)
        .status()
        .expect("clang-15 (scripts/setup.sh installs it)");
    assert!(st.success());
    let bytes = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    bytes
}

fn slot(offset: usize, size: usize, kind: &str) -> (usize, usize, String) {
    (offset, size, kind.to_string())
}

#[test]
fn kernels_of_a_loaded_code_object_are_named_with_their_arguments() {
    let bytes = code_object();
    let elf = ElfFile64::<object::LittleEndian>::parse(&*bytes).unwrap();
    let e = elf.endian();
    let segments: Vec<_> = elf
        .elf_program_headers()
        .iter()
        .filter(|p| p.p_type(e) == object::elf::PT_LOAD)
        .map(|p| (p.p_vaddr(e) as usize, p.p_offset(e) as usize, p.p_filesz(e) as usize, p.p_memsz(e) as usize))
        .collect();
    let size = segments.iter().map(|&(v, _, _, m)| v + m).max().unwrap();
    // Preceded by a page that is not the code object, as in a larger device allocation.
    let block = hsakmt_emu::memory::allocate(1, (size + 2 * 4096) as u64, 0).unwrap();
    let base = block + 4096;
    for &(vaddr, offset, filesz, _) in &segments {
        // SAFETY: inside the allocation just made.
        unsafe { std::ptr::copy_nonoverlapping(bytes[offset..].as_ptr(), (base + vaddr) as *mut u8, filesz) };
    }
    let kd = |name: &str| base + elf.symbols().find(|s| s.name() == Ok(name)).unwrap().address() as usize;
    let args = |k: &Kernel| match k {
        Kernel::Named(n) => {
            n.args.iter().map(|a: &ArgSlot| (a.offset, a.size, a.value_kind.clone())).collect::<Vec<_>>()
        }
        other => panic!("not a named kernel: {other:?}"),
    };

    let vadd = identify(kd("vadd_f32.kd") as u64);
    assert_eq!(vadd.kernel.name(), Some("vadd_f32"));
    assert_eq!(
        args(&vadd.kernel),
        [
            slot(0, 8, "global_buffer"),
            slot(8, 8, "global_buffer"),
            slot(16, 8, "global_buffer"),
            slot(24, 4, "by_value")
        ]
    );
    let other = identify(kd("minus_one.kd") as u64);
    assert_eq!(other.kernel.name(), Some("minus_one"));
    assert_eq!(args(&other.kernel), [slot(0, 8, "global_buffer")]);
    // Not a kernel descriptor of the code object, nor a ROCr blit header.
    assert_eq!(identify((base + 8) as u64).kernel, Kernel::Unnamed);
    assert!(identify((base + 8) as u64).code.is_some(), "its code can still run");
    assert!(hsakmt_emu::memory::free(block));
}
