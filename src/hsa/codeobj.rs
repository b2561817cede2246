//! AMDGPU code objects (v3 and later, LLVM AMDGPUUsage "Code Object V3
//! Metadata" and later): an ELF64 file whose `NT_AMDGPU_METADATA` note (owner
//! `AMDGPU`, type 32) is a MessagePack map describing each kernel, and whose
//! `NAME.kd` symbols are the kernel descriptors. cltap reads both to know the
//! registers, LDS and scratch a dispatched kernel uses.

use object::elf::{FileHeader64, EM_AMDGPU, SHT_DYNSYM, SHT_NOTE, SHT_SYMTAB};
use object::read::elf::{FileHeader, SectionHeader, Sym};
use object::LittleEndian;
use serde::Deserialize;

use super::kd::{decode, KernelDescriptor, KD_SIZE};

/// `NT_AMDGPU_METADATA`.
pub const NT_AMDGPU_METADATA: u32 = 32;

/// `ELFOSABI_AMDGPU_HSA`: `EI_ABIVERSION` then gives the code object version.
const ELFOSABI_AMDGPU_HSA: u8 = 64;

#[derive(Debug, thiserror::Error)]
pub enum CodeObjectError {
    #[error("not a readable ELF64 file: {0}")]
    Elf(#[from] object::read::Error),
    #[error("ELF machine {0} is not AMDGPU ({EM_AMDGPU})")]
    NotAmdgpu(u16),
    #[error("no NT_AMDGPU_METADATA note (a code object before v3?)")]
    NoMetadata,
    #[error("NT_AMDGPU_METADATA is not the expected MessagePack map: {0}")]
    Metadata(#[from] rmp_serde::decode::Error),
    #[error("kernel descriptor symbol {0:?} is not in the symbol tables")]
    MissingDescriptor(String),
    #[error("kernel descriptor symbol {0:?} does not lie on 64 bytes of its section")]
    BadDescriptor(String),
}

/// What a code object tells about itself and its kernels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeObject {
    /// `amdhsa.target`, e.g. `amdgcn-amd-amdhsa--gfx906` (v4 and later; v3
    /// metadata has none).
    pub target: Option<String>,
    /// The processor `e_flags` names (`EF_AMDGPU_MACH`), e.g. `gfx906`, for
    /// the processors in [`processor_name`]'s table.
    pub processor: Option<&'static str>,
    /// The ELF header's `e_flags`: the processor in bits 7:0, then the
    /// XNACK and SRAMECC settings.
    pub e_flags: u32,
    /// `amdhsa.version`: `[1, 0]` is v3, `[1, 1]` v4, `[1, 2]` v5.
    pub metadata_version: Vec<u32>,
    /// From the ELF header (`EI_ABIVERSION` + 2), when `EI_OSABI` is AMDHSA.
    pub code_object_version: Option<u32>,
    pub kernels: Vec<Kernel>,
}

/// One kernel: its metadata entry and its descriptor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    pub metadata: KernelMetadata,
    pub descriptor: KernelDescriptor,
}

/// The fields of an `amdhsa.kernels` entry cltap uses; the rest (`.args`,
/// `.language`, …) is skipped.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct KernelMetadata {
    #[serde(rename = ".name")]
    pub name: String,
    /// The descriptor's symbol, `NAME.kd`.
    #[serde(rename = ".symbol")]
    pub symbol: String,
    #[serde(rename = ".vgpr_count")]
    pub vgpr_count: u32,
    /// VCC, FLAT_SCRATCH and XNACK included.
    #[serde(rename = ".sgpr_count")]
    pub sgpr_count: u32,
    /// gfx90a and later.
    #[serde(rename = ".agpr_count", default)]
    pub agpr_count: Option<u32>,
    #[serde(rename = ".group_segment_fixed_size")]
    pub group_segment_fixed_size: u32,
    #[serde(rename = ".private_segment_fixed_size")]
    pub private_segment_fixed_size: u32,
    #[serde(rename = ".kernarg_segment_size")]
    pub kernarg_segment_size: u32,
    #[serde(rename = ".wavefront_size")]
    pub wavefront_size: u32,
    #[serde(rename = ".max_flat_workgroup_size")]
    pub max_flat_workgroup_size: u32,
    #[serde(rename = ".sgpr_spill_count", default)]
    pub sgpr_spill_count: Option<u32>,
    #[serde(rename = ".vgpr_spill_count", default)]
    pub vgpr_spill_count: Option<u32>,
    #[serde(rename = ".uses_dynamic_stack", default)]
    pub uses_dynamic_stack: Option<bool>,
}

#[derive(Deserialize)]
struct Metadata {
    #[serde(rename = "amdhsa.target", default)]
    target: Option<String>,
    #[serde(rename = "amdhsa.version", default)]
    version: Vec<u32>,
    #[serde(rename = "amdhsa.kernels", default)]
    kernels: Vec<KernelMetadata>,
}

type Elf = FileHeader64<LittleEndian>;

/// Parses a code object: its metadata note, then each kernel's descriptor
/// at the symbol the metadata names (`.symtab` first, `.dynsym` if the file
/// is stripped).
pub fn read_code_object(bytes: &[u8]) -> Result<CodeObject, CodeObjectError> {
    let header = Elf::parse(bytes)?;
    let endian = header.endian()?;
    let machine = header.e_machine(endian);
    if machine != EM_AMDGPU {
        return Err(CodeObjectError::NotAmdgpu(machine));
    }
    let ident = header.e_ident();
    let code_object_version = (ident.os_abi == ELFOSABI_AMDGPU_HSA).then(|| u32::from(ident.abi_version) + 2);
    let sections = header.sections(endian, bytes)?;
    let meta: Metadata = rmp_serde::from_slice(metadata_note(&sections, endian, bytes)?)?;

    let symtab = sections.symbols(endian, bytes, SHT_SYMTAB)?;
    let dynsym = sections.symbols(endian, bytes, SHT_DYNSYM)?;
    let mut kernels = Vec::with_capacity(meta.kernels.len());
    for m in meta.kernels {
        let raw = [&symtab, &dynsym]
            .into_iter()
            .find_map(|t| descriptor_bytes(t, &sections, endian, bytes, &m.symbol).transpose())
            .ok_or_else(|| CodeObjectError::MissingDescriptor(m.symbol.clone()))??;
        kernels.push(Kernel { descriptor: decode(raw), metadata: m });
    }
    let e_flags = header.e_flags(endian);
    Ok(CodeObject {
        target: meta.target,
        processor: processor_name(e_flags),
        e_flags,
        metadata_version: meta.version,
        code_object_version,
        kernels,
    })
}

/// `EF_AMDGPU_MACH_AMDGCN_*` (`e_flags & 0xff`) for the processors cltap
/// has seen; each value checked against what clang-15 writes for `-mcpu`.
pub fn processor_name(e_flags: u32) -> Option<&'static str> {
    Some(match e_flags & 0xff {
        0x2a => "gfx803",
        0x2c => "gfx900",
        0x2d => "gfx902",
        0x2e => "gfx904",
        0x2f => "gfx906",
        0x30 => "gfx908",
        0x31 => "gfx909",
        0x32 => "gfx90c",
        0x33 => "gfx1010",
        0x36 => "gfx1030",
        0x3f => "gfx90a",
        0x40 => "gfx940",
        0x41 => "gfx1100",
        _ => return None,
    })
}

type Sections<'d> = object::read::elf::SectionTable<'d, Elf>;
type Symbols<'d> = object::read::elf::SymbolTable<'d, Elf>;

/// The first `NT_AMDGPU_METADATA` note's payload in a `SHT_NOTE` section.
fn metadata_note<'d>(
    sections: &Sections<'d>,
    endian: LittleEndian,
    bytes: &'d [u8],
) -> Result<&'d [u8], CodeObjectError> {
    for section in sections.iter().filter(|s| s.sh_type(endian) == SHT_NOTE) {
        let Some(mut notes) = section.notes(endian, bytes)? else {
            continue;
        };
        while let Some(note) = notes.next()? {
            if note.name() == b"AMDGPU" && note.n_type(endian) == NT_AMDGPU_METADATA {
                return Ok(note.desc());
            }
        }
    }
    Err(CodeObjectError::NoMetadata)
}

/// The 64 bytes at `symbol` in `table`: `Ok(None)` when the table has no
/// such defined symbol.
fn descriptor_bytes<'d>(
    table: &Symbols<'d>,
    sections: &Sections<'d>,
    endian: LittleEndian,
    bytes: &'d [u8],
    symbol: &str,
) -> Result<Option<&'d [u8; KD_SIZE]>, CodeObjectError> {
    for (index, sym) in table.enumerate() {
        if table.symbol_name(endian, sym)? != symbol.as_bytes() {
            continue;
        }
        let Some(section_index) = table.symbol_section(endian, sym, index)? else {
            continue;
        };
        let bad = || CodeObjectError::BadDescriptor(symbol.to_string());
        let section = sections.section(section_index)?;
        let data = section.data(endian, bytes).map_err(|_| bad())?;
        // Executables hold addresses, relocatable objects section offsets
        // (and sections at address 0): the difference is the offset.
        let at = sym
            .st_value(endian)
            .checked_sub(section.sh_addr(endian))
            .and_then(|o| usize::try_from(o).ok())
            .ok_or_else(bad)?;
        let raw = data.get(at..at.checked_add(KD_SIZE).ok_or_else(bad)?).ok_or_else(bad)?;
        return Ok(Some(raw.try_into().map_err(|_| bad())?));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};
    use std::process::Command;

    /// Three kernels that use different resources: a few registers, many
    /// VGPRs, 40 KiB of LDS, scratch.
    const SOURCE: &str = r#"
__kernel void add_one(__global int* buf) {
  buf[__builtin_amdgcn_workitem_id_x()] += 1;
}
__kernel void wide(__global float4* o, __global const float4* in, int n) {
  uint i = __builtin_amdgcn_workitem_id_x();
  float4 a0 = in[i], a1 = in[i + 64], a2 = in[i + 128], a3 = in[i + 192];
  float4 a4 = in[i + 256], a5 = in[i + 320], a6 = in[i + 384], a7 = in[i + 448];
  for (int k = 0; k < n; ++k) {
    a0 = a0 * a1 + a2; a1 = a1 * a2 + a3; a2 = a2 * a3 + a4; a3 = a3 * a4 + a5;
    a4 = a4 * a5 + a6; a5 = a5 * a6 + a7; a6 = a6 * a7 + a0; a7 = a7 * a0 + a1;
  }
  o[i] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}
__kernel void tile(__global float* out, __global const float* in) {
  __local float t[10240];
  uint l = __builtin_amdgcn_workitem_id_x();
  t[l] = in[l];
  __builtin_amdgcn_s_barrier();
  out[l] = t[10239 - l];
}
__kernel void scratchy(__global int* o, int k) {
  int a[64];
  for (int j = 0; j < 64; ++j) a[j] = o[j] * j;
  o[__builtin_amdgcn_workitem_id_x()] = a[k & 63];
}
"#;

    fn have(tool: &str) -> bool {
        Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success())
    }

    /// Compiles `SOURCE` for gfx906 into `dir/name` (`extra` adds clang
    /// flags); `None`, with the reason printed, when clang-15 is not
    /// installed.
    fn compile(dir: &Path, name: &str, extra: &[&str]) -> Option<(PathBuf, Vec<u8>)> {
        if !have("clang-15") {
            eprintln!("skipped: clang-15 is not installed (apt-get install clang-15 lld-15)");
            return None;
        }
        let src = dir.join("k.cl");
        let out = dir.join(name);
        std::fs::write(&src, SOURCE).unwrap();
        let status = Command::new("clang-15")
            .args(["-target", "amdgcn-amd-amdhsa", "-mcpu=gfx906", "-nogpulib"])
            .args(["-cl-std=CL2.0", "-O2"])
            .args(extra)
            .arg(&src)
            .arg("-o")
            .arg(&out)
            .status()
            .unwrap();
        assert!(status.success(), "clang-15 failed");
        let bytes = std::fs::read(&out).unwrap();
        Some((out, bytes))
    }

    fn kernel<'c>(co: &'c CodeObject, name: &str) -> &'c Kernel {
        co.kernels.iter().find(|k| k.metadata.name == name).unwrap_or_else(|| panic!("no kernel {name}"))
    }

    #[test]
    fn reads_metadata_and_descriptors_of_a_real_code_object() {
        let dir = tempfile::tempdir().unwrap();
        let Some((_, bytes)) = compile(dir.path(), "k.co", &[]) else {
            return;
        };
        let co = read_code_object(&bytes).unwrap();
        assert_eq!(co.target.as_deref(), Some("amdgcn-amd-amdhsa--gfx906"));
        assert_eq!(co.processor, Some("gfx906"));
        assert_eq!(co.kernels.len(), 4);
        // clang-15 writes code object v4 by default.
        assert_eq!(co.code_object_version, Some(4));
        assert_eq!(co.metadata_version, [1, 1]);

        let add_one = &kernel(&co, "add_one").metadata;
        assert_eq!(add_one.symbol, "add_one.kd");
        assert_eq!(add_one.kernarg_segment_size, 8);
        assert_eq!(add_one.wavefront_size, 64);
        assert_eq!(add_one.max_flat_workgroup_size, 256);
        assert_eq!(kernel(&co, "tile").metadata.group_segment_fixed_size, 40960);
        assert!(kernel(&co, "scratchy").metadata.private_segment_fixed_size > 0);
        assert!(kernel(&co, "wide").metadata.vgpr_count > 16);

        for k in &co.kernels {
            let (m, d) = (&k.metadata, &k.descriptor);
            assert_eq!(d.group_segment_fixed_size, m.group_segment_fixed_size, "{}", m.name);
            assert_eq!(d.private_segment_fixed_size, m.private_segment_fixed_size, "{}", m.name);
            assert_eq!(d.kernarg_size, m.kernarg_segment_size, "{}", m.name);
            assert_eq!(d.private_segment_enabled(), m.private_segment_fixed_size > 0, "{}", m.name);
            assert!(!d.wave32());
            // The granules are upper bounds, less than one granule above.
            let (v, s) = (d.gfx9_vgprs(), d.gfx9_sgprs());
            assert!(m.vgpr_count <= v && v < m.vgpr_count.max(1) + 4, "{}: {v}", m.name);
            assert!(m.sgpr_count <= s && s < m.sgpr_count.max(1) + 8, "{}: {s}", m.name);
        }
    }

    #[test]
    fn reads_relocatable_objects_and_code_object_v3() {
        let dir = tempfile::tempdir().unwrap();
        let Some((_, linked)) = compile(dir.path(), "k.co", &[]) else {
            return;
        };
        let (_, object) = compile(dir.path(), "k.o", &["-c"]).unwrap();
        let linked = read_code_object(&linked).unwrap();
        let object = read_code_object(&object).unwrap();
        assert_eq!(object.kernels.len(), linked.kernels.len());
        for (a, b) in object.kernels.iter().zip(&linked.kernels) {
            assert_eq!(a.metadata, b.metadata);
            // Only the code's position may differ before linking.
            let mut a = a.descriptor;
            a.kernel_code_entry_byte_offset = b.descriptor.kernel_code_entry_byte_offset;
            assert_eq!(a, b.descriptor);
        }
        let (_, v3) = compile(dir.path(), "v3.co", &["-mcode-object-version=3"]).unwrap();
        let v3 = read_code_object(&v3).unwrap();
        assert_eq!(v3.code_object_version, Some(3));
        assert_eq!(v3.metadata_version, [1, 0]);
        assert_eq!((v3.target, v3.processor), (None, Some("gfx906")));
        assert_eq!(v3.kernels.len(), 4);
    }

    /// `.name:` and the counts as `llvm-readelf --notes` prints the YAML.
    fn readelf_counts(tool: &str, co: &Path) -> Vec<(String, String, String)> {
        let out = Command::new(tool).arg("--notes").arg(co).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let mut kernels = Vec::new();
        let (mut name, mut vgpr, mut sgpr) = (None, None, None);
        for line in text.lines() {
            let Some((k, v)) = line.trim().split_once(':') else {
                continue;
            };
            let v = v.trim().to_string();
            match k.trim_start_matches("- ") {
                ".name" => name = Some(v),
                ".vgpr_count" => vgpr = Some(v),
                ".sgpr_count" => sgpr = Some(v),
                _ => continue,
            }
            if let (Some(n), Some(vg), Some(sg)) = (&name, &vgpr, &sgpr) {
                kernels.push((n.clone(), vg.clone(), sg.clone()));
                (name, vgpr, sgpr) = (None, None, None);
            }
        }
        kernels
    }

    #[test]
    fn agrees_with_llvm_readelf() {
        let dir = tempfile::tempdir().unwrap();
        let Some((path, bytes)) = compile(dir.path(), "k.co", &[]) else {
            return;
        };
        let Some(tool) = ["llvm-readelf-15", "llvm-readelf-14", "llvm-readelf"].into_iter().find(|t| have(t)) else {
            eprintln!("skipped: no llvm-readelf to compare with");
            return;
        };
        let mut theirs = readelf_counts(tool, &path);
        let mut ours: Vec<_> = read_code_object(&bytes)
            .unwrap()
            .kernels
            .iter()
            .map(|k| {
                let m = &k.metadata;
                (m.name.clone(), m.vgpr_count.to_string(), m.sgpr_count.to_string())
            })
            .collect();
        theirs.sort();
        ours.sort();
        assert_eq!(ours, theirs, "{tool}");
    }

    #[test]
    fn rejects_what_is_not_an_amdgpu_code_object() {
        assert!(matches!(read_code_object(b"not an elf"), Err(CodeObjectError::Elf(_))));
        let dir = tempfile::tempdir().unwrap();
        let Some((_, bytes)) = compile(dir.path(), "k.co", &[]) else {
            return;
        };
        // e_machine is at offset 18: make it x86-64.
        let mut x86 = bytes.clone();
        x86[18..20].copy_from_slice(&62u16.to_le_bytes());
        assert!(matches!(read_code_object(&x86), Err(CodeObjectError::NotAmdgpu(62))));
        // A note owner other than "AMDGPU" is not the metadata.
        let mut no_note = bytes.clone();
        let owners = find_all(&no_note, b"AMDGPU\0");
        assert!(!owners.is_empty());
        for at in owners {
            no_note[at..at + 6].copy_from_slice(b"XMDGPU");
        }
        assert!(matches!(read_code_object(&no_note), Err(CodeObjectError::NoMetadata)));
        // A descriptor symbol that is not there.
        let mut renamed = bytes.clone();
        for at in find_all(&renamed, b"tile.kd\0") {
            renamed[at..at + 4].copy_from_slice(b"pile");
        }
        match read_code_object(&renamed) {
            Err(CodeObjectError::MissingDescriptor(s)) => assert_eq!(s, "tile.kd"),
            other => panic!("{other:?}"),
        }
    }

    fn find_all(hay: &[u8], needle: &[u8]) -> Vec<usize> {
        hay.windows(needle.len()).enumerate().filter(|(_, w)| *w == needle).map(|(i, _)| i).collect()
    }
}
