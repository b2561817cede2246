//! The decoder against LLVM's disassembler: for every instruction of the code objects the suite
//! builds (its OpenCL C and HIP kernels and ROCclr's blit kernels, at -O2 and -O0), and for a
//! list of instructions of every family and many operand shapes assembled by llvm-mc, our
//! `decode` must find the instruction LLVM finds at the same address, of the same length, with
//! the same mnemonic. A disagreement is reported with its address, its words and both readings.

#[path = "oracle/llvm.rs"]
mod llvm;
#[path = "oracle/sources.rs"]
mod sources;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use gfx906::decode;
use llvm::{Build, LlvmInst};
use object::{Object, ObjectSection};

/// What the checks found.
#[derive(Default)]
struct Tally {
    insts: usize,
    /// Each mnemonic checked, with how many times.
    names: BTreeMap<String, usize>,
    disagreements: Vec<String>,
}

impl Tally {
    fn disagree(&mut self, origin: &str, addr: u64, words: &[u32], ours: &str, theirs: &str) {
        let words: Vec<String> = words.iter().map(|w| format!("{w:08X}")).collect();
        self.disagreements
            .push(format!("{origin} @{addr:#x} [{}]\n    ours: {ours}\n    LLVM: {theirs}", words.join(" ")));
    }

    fn report(&self, what: &str) -> String {
        let mut s = format!(
            "{what}: {} instructions, {} distinct mnemonics checked, {} disagreements\n",
            self.insts,
            self.names.len(),
            self.disagreements.len()
        );
        for d in self.disagreements.iter().take(200) {
            let _ = writeln!(s, "{d}");
        }
        s
    }
}

fn ours(words: &[u32]) -> (String, usize) {
    match decode(words) {
        Ok(i) => (format!("{} ({:?} op {:#x}, {} words)", i.name(), i.format, i.op, i.len), i.len as usize),
        Err(e) => (format!("error: {e}"), 0),
    }
}

/// Walks `text` (the words of .text, at `base`) along LLVM's instructions.
fn check_listing(t: &mut Tally, origin: &str, base: u64, text: &[u32], listing: &[LlvmInst]) {
    let end = base + 4 * text.len() as u64;
    let mut expect_next = base;
    for l in listing {
        if l.addr < base || l.addr >= end || !(l.addr - base).is_multiple_of(4) {
            t.disagree(origin, l.addr, &l.words, "(outside .text)", &l.text);
            continue;
        }
        if l.addr != expect_next {
            t.disagree(origin, expect_next, &[], "(a gap in LLVM's listing)", &l.text);
        }
        expect_next = l.addr + 4 * l.words.len() as u64;
        let at = ((l.addr - base) / 4) as usize;
        let known = !(l.name.starts_with('<') || l.name.starts_with('.') || l.name.is_empty());
        t.insts += 1;
        if known {
            *t.names.entry(l.name.clone()).or_default() += 1;
        }
        match decode(&text[at..]) {
            Ok(i) => {
                let same_words = text.get(at..at + l.words.len()) == Some(&l.words[..]);
                if !known || i.len as usize != l.words.len() || i.name() != l.name || !same_words {
                    t.disagree(origin, l.addr, &l.words, &ours(&text[at..]).0, &l.text);
                }
            }
            Err(e) if known => t.disagree(origin, l.addr, &l.words, &format!("error: {e}"), &l.text),
            Err(_) => {}
        }
    }
    if expect_next != end {
        t.disagree(origin, expect_next, &[], "(LLVM's listing stops before the end of .text)", "");
    }
}

/// The words and address of a code object's .text.
fn text_of(path: &PathBuf) -> (u64, Vec<u32>) {
    let data = std::fs::read(path).expect("the code object");
    let file = object::File::parse(&*data).expect("an ELF code object");
    let text = file.section_by_name(".text").expect("a .text section");
    let bytes = text.data().expect(".text's bytes");
    assert!(bytes.len().is_multiple_of(4), "{}: .text is whole words", path.display());
    (text.address(), bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect())
}

struct TempDir(PathBuf);
impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn suite_code_objects_agree_with_llvm() {
    let sources = sources::suite_sources();
    let dir = TempDir(std::env::temp_dir().join(format!("cltap-oracle-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).unwrap();
    let mut builds = Vec::new();
    for s in &sources {
        for opt in ["-O2", "-O0"] {
            let out = dir.0.join(format!("co{}.co", builds.len()));
            builds.push(Build { source: s, opt, out });
        }
    }
    let results = llvm::compile_all(&builds, &dir.0);
    let mut failures = String::new();
    let mut skipped = Vec::new();
    let mut built = Vec::new();
    for (b, r) in builds.iter().zip(&results) {
        match r {
            Ok(()) => built.push(b),
            Err(e) if b.source.must_compile => {
                let _ = writeln!(failures, "{} {}: {e}", b.source.origin, b.opt);
            }
            Err(_) => skipped.push(format!("{} {}", b.source.origin, b.opt)),
        }
    }
    assert!(failures.is_empty(), "sources that must compile did not:\n{failures}");
    let embedded = built.iter().filter(|b| !b.source.must_compile).count();
    assert!(embedded >= 10, "only {embedded} builds of OpenCL C strings embedded in C programs compiled");
    let files: Vec<PathBuf> = built.iter().map(|b| b.out.clone()).collect();
    let listings = llvm::objdump(&files);
    let mut t = Tally::default();
    for (b, listing) in built.iter().zip(&listings) {
        let (base, text) = text_of(&b.out);
        assert!(!listing.is_empty(), "{}: LLVM lists no instruction", b.source.origin);
        check_listing(&mut t, &format!("{} {}", b.source.origin, b.opt), base, &text, listing);
    }
    println!(
        "{} builds of {} sources; embedded strings that did not compile (deliberately broken or fragments):",
        built.len(),
        sources.len()
    );
    for s in &skipped {
        println!("  {s}");
    }
    println!("{}", t.report("suite code objects"));
    assert!(t.disagreements.is_empty(), "{}", t.report("suite code objects"));
    check_suite_mnemonics(&t);
}

/// `tests/oracle/suite-mnemonics.txt`: the distinct mnemonics of the suite's code objects, for
/// checking what the families cover. It must match; `ORACLE_BLESS=1` rewrites it.
fn check_suite_mnemonics(t: &Tally) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/suite-mnemonics.txt");
    let mut want = String::from(
        "# The distinct mnemonics (without _e32/_e64/_sdwa/_dpp) in the code objects the suite builds\n\
         # (its OpenCL C and HIP kernels and ROCclr's blit kernels, -O2 and -O0), as LLVM 15 names\n\
         # them. Written by tests/oracle.rs with ORACLE_BLESS=1; the test fails when it is stale.\n",
    );
    for name in t.names.keys() {
        want += name;
        want.push('\n');
    }
    if std::env::var_os("ORACLE_BLESS").is_some() {
        std::fs::write(&path, &want).expect("writing suite-mnemonics.txt");
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have != want {
        let old: std::collections::BTreeSet<&str> = have.lines().filter(|l| !l.starts_with('#')).collect();
        let new: std::collections::BTreeSet<&str> = want.lines().filter(|l| !l.starts_with('#')).collect();
        panic!(
            "{} is stale (rerun with ORACLE_BLESS=1): new {:?}, gone {:?}",
            path.display(),
            new.difference(&old).collect::<Vec<_>>(),
            old.difference(&new).collect::<Vec<_>>()
        );
    }
}

#[test]
fn assembled_shapes_agree_with_llvm() {
    let source = include_str!("oracle/shapes.s");
    let lines: Vec<&str> = source.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("//")).collect();
    let assembled = llvm::assemble(source);
    assert_eq!(assembled.len(), lines.len(), "llvm-mc assembled every line of shapes.s");
    let words: Vec<Vec<u32>> = assembled.iter().map(|(w, _)| w.clone()).collect();
    let back = llvm::disassemble(&words);
    let mut t = Tally::default();
    for (((w, asm), dis), line) in assembled.iter().zip(&back).zip(&lines) {
        t.insts += 1;
        let origin = format!("shapes.s `{line}`");
        let Some(dis) = dis else {
            t.disagree(&origin, 0, w, &ours(w).0, "(LLVM's disassembler finds no instruction)");
            continue;
        };
        let name = llvm::normalise(dis.split_whitespace().next().unwrap_or("")).to_string();
        *t.names.entry(name.clone()).or_default() += 1;
        // A literal, SDWA or DPP word is part of the instruction: our length must take all of
        // what llvm-mc emitted, and nothing after it.
        let mut padded = w.to_vec();
        padded.extend([0xBF80_0000; 2]);
        match decode(&padded) {
            Ok(i) if i.len as usize == w.len() && i.name() == name => {}
            _ => t.disagree(&origin, 0, w, &ours(&padded).0, &format!("{dis} (assembled as `{asm}`)")),
        }
    }
    println!("{}", t.report("assembled shapes"));
    assert!(t.disagreements.is_empty(), "{}", t.report("assembled shapes"));
}

/// The checked-in table is what the generator makes from this machine's LLVM now.
#[test]
fn names_table_is_what_the_generator_makes() {
    let isa = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new("python3")
        .arg(isa.join("gen-names.py"))
        .arg("--stdout")
        .output()
        .expect("python3 runs gen-names.py");
    assert!(out.status.success(), "gen-names.py: {}", String::from_utf8_lossy(&out.stderr));
    let have = std::fs::read_to_string(isa.join("src/names/table.rs")).unwrap();
    assert!(
        have == String::from_utf8_lossy(&out.stdout),
        "src/names/table.rs is not what gen-names.py makes now: regenerate it"
    );
}
