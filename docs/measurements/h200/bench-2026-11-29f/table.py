#!/usr/bin/env python3
"""Tables of run.sh's rounds.txt: per round, µs added per enqueue (clFinish
included) over the round's run without a layer (the median of each
configuration's processes; with --floor, their minimum), and ns added per
clGetEventInfo. Usage: python3 table.py [--floor] rounds.txt"""
import sys
from collections import defaultdict
from statistics import median

v = defaultdict(list)
modes = []
floor = "--floor" in sys.argv
for line in open(sys.argv[-1]):
    f = line.split()
    if len(f) == 6:
        r, mode, spec, k, row, x = f
        v[(r, mode, spec, row)].append(float(x))
        if mode != "none" and mode not in modes:
            modes.append(mode)
rounds = sorted({k[0] for k in v}, key=int)
m = {k: (min(x) if floor else median(x)) for k, x in v.items()}
print("| round | no layer: no event / app event | " + " | ".join(modes) + " |")
print("|---|---|" + "---|" * len(modes))
for r in rounds:
    base = [m[(r, "none", s, "stream")] for s in ("stream:2000:none", "stream:2000:event")]
    cli = [m[(r, "cli", s, "stream")] for s in ("stream:2000:none", "stream:2000:event")]
    cells = []
    for mode in modes:
        x = [m[(r, mode, s, "stream")] for s in ("stream:2000:none", "stream:2000:event")]
        cells.append(" / ".join(
            (f"**{(a - b) / 1000:+.2f}**" if mode != "cli" and a < c else f"{(a - b) / 1000:+.2f}")
            for a, b, c in zip(x, base, cli)))
    print(f"| {r} | {base[0] / 1000:.2f} / {base[1] / 1000:.2f} | " + " | ".join(cells) + " |")
print()
if any(k[2] == "stream:20000:none" for k in v):
    print("stream of 20,000: µs per enqueue, rounds " + rounds[0] + "-" + rounds[-1])
    for mode in ["none"] + modes:
        print(f"  {mode:6} " + ", ".join(f"{m.get((r, mode, 'stream:20000:none', 'stream'), float('nan')) / 1000:.2f}" for r in rounds))
    print()
for row in ["clGetEventInfo", "clGetEventInfo.complete", "clEnqueueNDRangeKernel", "clEnqueueNDRangeKernel+profiling,event"]:
    print(f"{row}: ns added over no layer, rounds {rounds[0]}-{rounds[-1]}")
    for mode in modes:
        xs = [m.get((r, mode, "calls", row), float("nan")) - m.get((r, "none", "calls", row), float("nan")) for r in rounds]
        print(f"  {mode:6} " + ", ".join(f"{x:+.1f}" for x in xs))
