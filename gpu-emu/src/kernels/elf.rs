//! Reading a kernel's name and argument layout from a code object as ROCr's loader placed it in
//! memory: the ELF header sits at the start of the (page-aligned) image, the first PT_LOAD maps it
//! at virtual address 0, and the loaded part holds the program headers, `.dynamic`, `.dynsym`,
//! `.hash`, `.dynstr` and the `NT_AMDGPU_METADATA` note. Section headers are not loaded, so all of
//! it is found through the program headers. Every read stays inside the allocation.

use serde::Deserialize;

const PAGE: usize = 0x1000;
const EM_AMDGPU: u16 = 224;
const PT_DYNAMIC: u32 = 2;
const PT_NOTE: u32 = 4;
const DT_HASH: u64 = 4;
const DT_STRTAB: u64 = 5;
const DT_SYMTAB: u64 = 6;
const NT_AMDGPU_METADATA: u32 = 32;

/// One argument slot of the kernarg segment.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ArgSlot {
    #[serde(rename = ".name", default)]
    pub name: Option<String>,
    #[serde(rename = ".offset")]
    pub offset: usize,
    #[serde(rename = ".size")]
    pub size: usize,
    #[serde(rename = ".value_kind")]
    pub value_kind: String,
}

#[derive(Debug, Deserialize)]
struct KernelEntry {
    #[serde(rename = ".name")]
    name: String,
    #[serde(rename = ".symbol")]
    symbol: String,
    #[serde(rename = ".args", default)]
    args: Vec<ArgSlot>,
}

#[derive(Debug, Deserialize)]
struct Metadata {
    #[serde(rename = "amdhsa.kernels", default)]
    kernels: Vec<KernelEntry>,
}

/// A named kernel: its name and its explicit arguments (hidden ones dropped), in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedKernel {
    pub name: String,
    pub args: Vec<ArgSlot>,
}

/// Bounded reads over one allocation.
struct Image {
    start: usize,
    end: usize,
}

impl Image {
    fn bytes(&self, addr: usize, len: usize) -> Option<&[u8]> {
        (addr >= self.start && addr.checked_add(len)? <= self.end)
            // SAFETY: inside a live allocation of the emulator's memory table.
            .then(|| unsafe { std::slice::from_raw_parts(addr as *const u8, len) })
    }
    fn u16(&self, a: usize) -> Option<u16> {
        Some(u16::from_le_bytes(self.bytes(a, 2)?.try_into().ok()?))
    }
    fn u32(&self, a: usize) -> Option<u32> {
        Some(u32::from_le_bytes(self.bytes(a, 4)?.try_into().ok()?))
    }
    fn u64(&self, a: usize) -> Option<u64> {
        Some(u64::from_le_bytes(self.bytes(a, 8)?.try_into().ok()?))
    }
    fn cstr(&self, a: usize) -> Option<&str> {
        let max = self.end.checked_sub(a)?.min(4096);
        let b = self.bytes(a, max)?;
        std::str::from_utf8(&b[..b.iter().position(|&c| c == 0)?]).ok()
    }
}

fn is_amdgpu_elf(img: &Image, at: usize) -> bool {
    img.bytes(at, 4) == Some(b"\x7fELF") && img.bytes(at + 4, 1) == Some(&[2]) && img.u16(at + 18) == Some(EM_AMDGPU)
}

/// The kernel whose descriptor is at `kd`, inside the allocation `[start, end)`.
pub fn find(kd: usize, start: usize, end: usize) -> Option<NamedKernel> {
    let img = Image { start, end };
    let mut at = kd & !(PAGE - 1);
    loop {
        if is_amdgpu_elf(&img, at) {
            return lookup(&img, at, kd);
        }
        if at < start + PAGE {
            return None;
        }
        at -= PAGE;
    }
}

fn lookup(img: &Image, base: usize, kd: usize) -> Option<NamedKernel> {
    let phoff = img.u64(base + 32)? as usize;
    let phentsize = img.u16(base + 54)? as usize;
    let phnum = img.u16(base + 56)? as usize;
    let (mut dynamic, mut note) = (None, None);
    for i in 0..phnum {
        let ph = base + phoff + i * phentsize;
        let vaddr = img.u64(ph + 16)? as usize;
        let filesz = img.u64(ph + 32)? as usize;
        match img.u32(ph)? {
            PT_DYNAMIC => dynamic = Some((base + vaddr, filesz)),
            PT_NOTE => note = Some((base + vaddr, filesz)),
            _ => {}
        }
    }
    let symbol = symbol_at(img, base, dynamic?, (kd - base) as u64)?;
    let metadata = metadata(img, note?)?;
    let entry = metadata.kernels.into_iter().find(|k| k.symbol == symbol)?;
    let args = entry.args.into_iter().filter(|a| !a.value_kind.starts_with("hidden_")).collect();
    Some(NamedKernel { name: entry.name, args })
}

/// The name of the dynamic symbol whose value is `value`.
fn symbol_at(img: &Image, base: usize, (dynamic, len): (usize, usize), value: u64) -> Option<String> {
    let (mut symtab, mut strtab, mut hash) = (None, None, None);
    for i in 0..len / 16 {
        let tag = img.u64(dynamic + i * 16)?;
        let val = img.u64(dynamic + i * 16 + 8)? as usize;
        match tag {
            0 => break,
            DT_SYMTAB => symtab = Some(base + val),
            DT_STRTAB => strtab = Some(base + val),
            DT_HASH => hash = Some(base + val),
            _ => {}
        }
    }
    let (symtab, strtab) = (symtab?, strtab?);
    // DT_HASH's nchain is the number of symbols.
    let count = img.u32(hash? + 4)? as usize;
    (0..count).find_map(|i| {
        let sym = symtab + i * 24;
        (img.u64(sym + 8)? == value && img.u16(sym + 6)? != 0)
            .then(|| img.cstr(strtab + img.u32(sym)? as usize).map(str::to_string))
            .flatten()
    })
}

fn metadata(img: &Image, (note, len): (usize, usize)) -> Option<Metadata> {
    let mut at = note;
    while at + 12 <= note + len {
        let namesz = img.u32(at)? as usize;
        let descsz = img.u32(at + 4)? as usize;
        let kind = img.u32(at + 8)?;
        let name_at = at + 12;
        let desc_at = name_at + namesz.div_ceil(4) * 4;
        if kind == NT_AMDGPU_METADATA && img.bytes(name_at, 6) == Some(b"AMDGPU") {
            return rmp_serde::from_slice(img.bytes(desc_at, descsz)?).ok();
        }
        at = desc_at + descsz.div_ceil(4) * 4;
    }
    None
}
