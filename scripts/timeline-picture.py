#!/usr/bin/env python3
"""The README's timeline picture (docs/timeline.svg), made by cltap itself.

Builds the bundled sample, runs it under `cltap run --timeline
--device-timing` on PoCL, and draws the timeline JSON that run wrote as an
SVG: one row per host thread (API calls), one for the perf markers (nested
ranges stacked), one per device queue (commands), with the enqueue-to-start
flows as lines. Only the standard library; the drawing is ours, so that the
picture shows exactly what the .json holds.

    python3 scripts/timeline-picture.py [--json FILE] [--out docs/timeline.svg]

With --json, draws an existing timeline instead of running the sample.
Needs target/release/cltap (cargo build --release --workspace) and PoCL.
"""

import argparse
import glob
import html
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
POCL = "/usr/lib/x86_64-linux-gnu/libpocl.so.2"

WIDTH = 960
LEFT = 150
RIGHT = 20
ROW = 26
COLOURS = {"api": "#4e79a7", "marker": "#f28e2b", "device": "#59a14f"}


def run_sample(tmp):
    exe = os.path.join(tmp, "vecadd")
    subprocess.run(
        ["gcc", "-std=c11", "-O2", "-DCL_TARGET_OPENCL_VERSION=300",
         os.path.join(ROOT, "samples/vecadd.c"), "-o", exe, "-lOpenCL"],
        check=True)
    env = dict(os.environ, OCL_ICD_VENDORS=POCL)
    out = os.path.join(tmp, "out")
    subprocess.run(
        [os.path.join(ROOT, "target/release/cltap"), "run", "--timeline",
         "--device-timing", "--no-api-log", "--output", out, "--", exe],
        check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    found = glob.glob(os.path.join(out, "*.json"))
    found = [f for f in found if not f.endswith(".summary.json")]
    if len(found) != 1:
        sys.exit(f"timeline-picture: expected one timeline in {out}, found {found}")
    return found[0]


def rows_of(events):
    """(label, kind, [(start, dur, name)]) rows and the flows, in µs."""
    names = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]
    api, device, flows = {}, {}, {}
    markers, stack = [], []
    for e in events:
        ph, cat = e.get("ph"), e.get("cat")
        if ph == "X" and cat == "api":
            api.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["dur"], e["name"]))
        elif ph == "X" and cat == "device":
            device.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["dur"], e["name"]))
        elif ph == "B" and cat == "marker":
            stack.append((e["ts"], e["name"]))
        elif ph == "E" and cat == "marker" and stack:
            ts, name = stack.pop()
            markers.append((len(stack), ts, e["ts"] - ts, name))
        elif cat == "flow" and ph in ("s", "f"):
            flows.setdefault(e["id"], {})[ph] = e["ts"]
    rows = []
    for key, spans in sorted(api.items()):
        rows.append((f"host thread {key[1]}", "api", spans))
    depth = max((m[0] for m in markers), default=-1) + 1
    for d in range(depth):
        rows.append(("perf markers" if d == 0 else "", "marker",
                     [(ts, dur, n) for (lv, ts, dur, n) in markers if lv == d]))
    for key, spans in sorted(device.items()):
        label = names.get(key, f"queue {key[1]}")
        label = "device queue" if "queue" in label else label
        rows.append((label, "device", spans))
    return rows, [(f["s"], f["f"]) for f in flows.values() if "s" in f and "f" in f]


def draw(rows, flows, title):
    spans = [s for _, _, ss in rows for s in ss]
    t0 = min(s[0] for s in spans)
    t1 = max(s[0] + s[1] for s in spans)
    scale = (WIDTH - LEFT - RIGHT) / (t1 - t0)
    x = lambda t: LEFT + (t - t0) * scale
    top = 40
    height = top + ROW * len(rows) + 50
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{WIDTH}" height="{height}" fill="white"/>',
           f'<text x="10" y="20" font-size="13" font-weight="bold">{html.escape(title)}</text>']
    row_y = {}
    for i, (label, kind, ss) in enumerate(rows):
        y = top + i * ROW
        row_y.setdefault(kind, y)
        out.append(f'<text x="10" y="{y + 16}">{html.escape(label)}</text>')
        out.append(f'<line x1="{LEFT}" y1="{y + ROW - 2}" x2="{WIDTH - RIGHT}" '
                   f'y2="{y + ROW - 2}" stroke="#eee"/>')
        for ts, dur, name in ss:
            w = max(dur * scale, 1.0)
            out.append(f'<rect x="{x(ts):.1f}" y="{y + 3}" width="{w:.1f}" height="{ROW - 8}" '
                       f'fill="{COLOURS[kind]}" stroke="white" stroke-width="0.3">'
                       f'<title>{html.escape(name)}: {dur:.1f} µs</title></rect>')
            if w > 7 * len(name):
                out.append(f'<text x="{x(ts) + 3:.1f}" y="{y + 16}" fill="white">'
                           f'{html.escape(name)}</text>')
    if "api" in row_y and "device" in row_y:
        for s, f in flows:
            out.append(f'<line x1="{x(s):.1f}" y1="{row_y["api"] + ROW - 5}" x2="{x(f):.1f}" '
                       f'y2="{row_y["device"] + 3}" stroke="#888" stroke-dasharray="2,2"/>')
    axis = top + ROW * len(rows) + 10
    out.append(f'<line x1="{LEFT}" y1="{axis}" x2="{WIDTH - RIGHT}" y2="{axis}" stroke="black"/>')
    step = nice_step((t1 - t0) / 8)
    t = 0.0
    while t <= t1 - t0:
        out.append(f'<line x1="{x(t0 + t):.1f}" y1="{axis}" x2="{x(t0 + t):.1f}" '
                   f'y2="{axis + 4}" stroke="black"/>')
        out.append(f'<text x="{x(t0 + t):.1f}" y="{axis + 16}" text-anchor="middle">'
                   f'{t / 1000:g} ms</text>')
        t += step
    out.append("</svg>")
    return "\n".join(out) + "\n"


def nice_step(raw):
    mag = 1.0
    while mag * 10 <= raw:
        mag *= 10
    for m in (1, 2, 5, 10):
        if m * mag >= raw:
            return m * mag
    return 10 * mag


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="draw this timeline instead of running the sample")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs/timeline.svg"))
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = a.json or run_sample(tmp)
        with open(path) as f:
            events = json.load(f)["traceEvents"]
        rows, flows = rows_of(events)
        if not any(kind == "device" for _, kind, _ in rows):
            sys.exit(f"timeline-picture: {path} has no device commands")
        svg = draw(rows, flows, "samples/vecadd.c under cltap run --timeline --device-timing, PoCL")
    with open(a.out, "w") as f:
        f.write(svg)
    print(f"timeline-picture: wrote {a.out} from {os.path.basename(path)}")


if __name__ == "__main__":
    main()
