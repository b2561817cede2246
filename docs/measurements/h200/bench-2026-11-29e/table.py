#!/usr/bin/env python3
"""The notebook's tables from rounds.txt: µs added per enqueue (clFinish
included) over the same round's run without a layer, and ns added per
clGetEventInfo. Usage: python3 table.py rounds.txt (or rounds2.txt, rounds3.txt)"""
import sys
from collections import defaultdict

v = defaultdict(dict)
modes = []
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 5:
        r, mode, spec, row, x = f
        v[(r, spec, row)][mode] = float(x)
        if mode != "none" and mode not in modes:
            modes.append(mode)
print("| round | no layer: no event / app event | " + " | ".join(modes) + " |")
print("|---|---|" + "---|" * len(modes))
for r in sorted({k[0] for k in v}):
    a, b = v[(r, "stream:2000:none", "stream")], v[(r, "stream:2000:event", "stream")]
    cells = [f"{(a[m] - a['none']) / 1000:+.2f} / {(b[m] - b['none']) / 1000:+.2f}" for m in modes]
    print(f"| {r} | {a['none'] / 1000:.2f} / {b['none'] / 1000:.2f} | " + " | ".join(cells) + " |")
print()
for row in ["clGetEventInfo", "clGetEventInfo.complete"]:
    print(f"{row}: ns added over no layer, rounds 1-4")
    for m in modes:
        xs = [v[(r, "calls", row)].get(m, float("nan")) - v[(r, "calls", row)].get("none", float("nan"))
              for r in sorted({k[0] for k in v})]
        print(f"  {m:6} " + ", ".join(f"{x:+.1f}" for x in xs))
