#!/usr/bin/env python3
"""Generates gpu-emu/isa/src/names/table.rs: the mnemonic of every opcode of every gfx906 encoding
family, as LLVM 15's disassembler prints it.

For each family and each opcode value the script builds instruction words with that opcode and
neutral fields (register 0, offsets 0, "off" addresses), in a few variants where one set of fields
is not valid for every opcode (a literal for s_setreg_imm32_b32 and v_madmk/v_madak, gds for the
GWS ops, SGPR or VGPR sources for VOP3 ops that insist on one), and has
`llvm-mc-15 -disassemble -arch=amdgcn -mcpu=gfx906` name them: one llvm-mc process per family, one
bracketed instruction per line, so that an invalid encoding costs only its own line. An opcode
is present when some variant disassembles; every variant that does must give the same name.

Usage (from anywhere): python3 gpu-emu/isa/gen-names.py [--stdout]
(--stdout prints the table instead of writing it: tests/oracle.rs compares it with the file.)
"""

import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "src", "names", "table.rs")
SUFFIXES = ("_e32", "_e64", "_sdwa", "_dpp")


# s_nop 0: the literal of the variants that carry one, so that where LLVM takes only the first word
# the rest still decodes (as s_nop) and the output stays in step with the input.
NOP = 0xBF800000


def le(*words):
    return [b for w in words for b in (w & 0xFFFFFFFF).to_bytes(4, "little")]


# Each family: (Rust table name, opcode values to try, function op -> list of variants (bytes)).
# The opcode ranges leave out the values whose words belong to another family (SOP2 0x60+ is
# SOPK/SOP1/SOPC/SOPP, SOPK 0x1D+ is SOP1/SOPC/SOPP, VOP2 0x3E/0x3F are VOPC/VOP1, VOP3 0x380+
# is VOP3P), as decode.rs tells them apart.


def sop2(op):
    base = 0x80000000 | op << 23
    return [le(base), le(base | 0x02 << 16 | 0x04 << 8 | 0x06)]


def sopk(op):
    base = 0xB0000000 | op << 23
    return [le(base), le(base, NOP), le(base | 0x1801)]


def sop1(op):
    base = 0xBE800000 | op << 8
    return [le(base), le(base | 0x02 << 16 | 0x04)]


def sopc(op):
    base = 0xBF000000 | op << 16
    return [le(base), le(base | 0x80 << 8)]


def sopp(op):
    return [le(0xBF800000 | op << 16)]


def smem(op):
    vs = []
    for imm in (1, 0):
        for sdata in (0, 4):
            vs.append(le(0xC0000000 | op << 18 | imm << 17 | sdata << 6 | 2, 0))
    return vs


def vop2(op):
    base = op << 25 | 0x100
    return [le(base), le(base, NOP), le(base & ~0x1FF | 0x80)]


def vop1(op):
    base = 0x7E000000 | op << 9
    return [le(base | 0x100), le(base), le(base | 0x80)]


def vopc(op):
    base = 0x7C000000 | op << 17
    return [le(base | 0x100), le(base)]


def vop3(op):
    w0 = 0xD0000000 | op << 16
    vs = []
    for srcs in ((0x100, 0x100, 0x100), (0, 0, 0), (0x100, 0, 0x100), (0x80, 0x80, 0x80), (0, 0x100, 0x100)):
        w1 = srcs[0] | srcs[1] << 9 | srcs[2] << 18
        vs.append(le(w0, w1))
    return vs


def vop3p(op):
    w0 = 0xD3800000 | op << 16 | 1 << 14
    return [le(w0, 0x100 | 0x100 << 9 | 0x100 << 18 | 3 << 27), le(w0, 0x18000000)]


def vintrp(op):
    return [le(0xD4000000 | op << 16)]


def ds(op):
    return [le(0xD8000000 | op << 17 | gds << 16, 0) for gds in (0, 1)]


def flat(seg):
    def enc(op):
        w0 = 0xDC000000 | op << 18 | seg << 14
        return [le(w0, saddr << 16) for saddr in (0x7F, 0)]

    return enc


def mubuf(op):
    w0 = 0xE0000000 | op << 18
    return [le(w0, 0x80 << 24), le(w0 | 1 << 16, 0x80 << 24)]


def mtbuf(op):
    return [le(0xE8000000 | op << 15 | dfmt << 19, 0x80 << 24) for dfmt in (1, 14)]


def mimg(op):
    w0 = 0xF0000000 | op << 18
    return [le(w0 | dmask << 8, 0) for dmask in (1, 0xF)]


def exp(op):
    return [le(0xC400000F, 0)]


FAMILIES = [
    ("Sop2", "SOP2", range(0x60), sop2),
    ("Sopk", "SOPK", range(0x1D), sopk),
    ("Sop1", "SOP1", range(0x100), sop1),
    ("Sopc", "SOPC", range(0x80), sopc),
    ("Sopp", "SOPP", range(0x80), sopp),
    ("Smem", "SMEM", range(0x100), smem),
    ("Vop2", "VOP2", range(0x3E), vop2),
    ("Vop1", "VOP1", range(0x100), vop1),
    ("Vopc", "VOPC", range(0x100), vopc),
    ("Vop3", "VOP3", range(0x380), vop3),
    ("Vop3p", "VOP3P", range(0x80), vop3p),
    ("Vintrp", "VINTRP", range(4), vintrp),
    ("Ds", "DS", range(0x100), ds),
    ("Flat", "FLAT", range(0x80), flat(0)),
    ("Flat", "SCRATCH", range(0x80), flat(1)),
    ("Flat", "GLOBAL", range(0x80), flat(2)),
    ("Mubuf", "MUBUF", range(0x80), mubuf),
    ("Mtbuf", "MTBUF", range(0x10), mtbuf),
    ("Mimg", "MIMG", range(0x80), mimg),
    ("Exp", "EXP", range(1), exp),
]

LINE = re.compile(r"^\s+(\S+).*; encoding: \[([^\]]*)\]")
WARN = re.compile(r"^<stdin>:(\d+):\d+: (warning|error)")


def disassemble(entries):
    """Names each entry (a list of bytes); None where LLVM finds no valid instruction."""
    text = "".join("[" + " ".join(f"0x{b:02x}" for b in e) + "]\n" for e in entries)
    p = subprocess.run(
        ["llvm-mc-15", "-disassemble", "-show-encoding", "-arch=amdgcn", "-mcpu=gfx906"],
        input=text,
        capture_output=True,
        text=True,
    )
    bad = {int(m.group(1)) - 1 for m in map(WARN.match, p.stderr.splitlines()) if m}
    decoded = [LINE.match(l) for l in p.stdout.splitlines()]
    decoded = [m for m in decoded if m]
    names = []
    it = iter(decoded)
    for i, e in enumerate(entries):
        if i in bad:
            names.append(None)
            continue
        m = next(it)
        enc = [int(b, 16) for b in m.group(2).split(",")]
        name = m.group(1)
        # A name counts only when LLVM took all the bytes we gave it; else skip the s_nop
        # that the rest decoded to.
        while len(enc) < len(e):
            enc += [int(b, 16) for b in next(it).group(2).split(",")]
            name = None
        # (-show-encoding re-encodes the decoded instruction, so unused fields may differ: only
        # the length is compared.)
        if len(enc) != len(e):
            sys.exit(f"llvm-mc out of step at entry {i}: {e} vs {enc}")
        names.append(name)
    if next(it, None) is not None:
        sys.exit("llvm-mc printed more instructions than it was given")
    return names


def strip(name):
    for s in SUFFIXES:
        if name.endswith(s):
            return name[: -len(s)]
    return name


def main():
    out = []
    out.append("// @generated by gpu-emu/isa/gen-names.py from LLVM 15's disassembler")
    out.append("// (`llvm-mc-15 -disassemble -arch=amdgcn -mcpu=gfx906`): the mnemonic of every opcode of every")
    out.append("// gfx906 encoding family, without the _e32/_e64/_sdwa/_dpp suffixes. Do not edit by hand;")
    out.append("// regenerate with `python3 gpu-emu/isa/gen-names.py` (needs llvm-mc-15).")
    out.append("")
    total = 0
    for fmt, table, ops, enc in FAMILIES:
        ops = list(ops)
        entries, owner = [], []
        for op in ops:
            for v in enc(op):
                entries.append(v)
                owner.append(op)
        names = disassemble(entries)
        by_op = {}
        for op, n in zip(owner, names):
            if n is None:
                continue
            n = strip(n)
            if op in by_op and by_op[op] != n:
                sys.exit(f"{table} {op:#x}: variants disagree: {by_op[op]} vs {n}")
            by_op.setdefault(op, n)
        total += len(by_op)
        out.append(f"/// {table} ({fmt}): {len(by_op)} opcodes.")
        out.append(f"pub(super) fn {table.lower()}(op: u16) -> Option<&'static str> {{")
        out.append("    Some(match op {")
        for op in sorted(by_op):
            out.append(f'        {op:#05x} => "{by_op[op]}",')
        out.append("        _ => return None,")
        out.append("    })")
        out.append("}")
        out.append("")
        if "--stdout" not in sys.argv:
            print(f"{table}: {len(by_op)} opcodes", file=sys.stderr)
    text = "\n".join(out).rstrip("\n") + "\n"
    if "--stdout" in sys.argv:
        sys.stdout.write(text)
        return
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write(text)
    print(f"{total} opcodes written to {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
