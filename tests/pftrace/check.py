"""Checks .pftrace files against Perfetto's own schema (the `perfetto`
package's perfetto_trace_pb2, installed by scripts/setup.sh).

Usage: check.py FILE...  Prints one JSON object per file: its counts. Exits
non-zero, naming the file and what is wrong, when a packet does not decode,
carries a field Perfetto's schema does not know, a slice or counter names
a track no descriptor described, or an interned id is used on a sequence
before (or without) being defined there.
"""
import json
import sys
from collections import Counter, defaultdict

from google.protobuf.unknown_fields import UnknownFieldSet
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb


def unknown(msg, path="packet"):
    """Paths of fields in `msg` (recursively) that the schema does not know."""
    out = []
    if len(UnknownFieldSet(msg)):
        out.append(path)
    for fd, value in msg.ListFields():
        if fd.type != fd.TYPE_MESSAGE:
            continue
        items = value if fd.label == fd.LABEL_REPEATED else [value]
        for i, v in enumerate(items):
            out += unknown(v, f"{path}.{fd.name}")
    return out


def check(path):
    data = open(path, "rb").read()
    trace = pb.Trace()
    trace.ParseFromString(data)
    if trace.ByteSize() != len(data):
        raise SystemExit(f"{path}: {len(data)} bytes, but its packets re-encode to {trace.ByteSize()}")
    tracks = {}
    defined = defaultdict(lambda: {"name": set(), "cat": set(), "ann": set()})
    counts = Counter()
    open_slices = Counter()
    flow_events = Counter()
    series = defaultdict(list)
    for i, p in enumerate(trace.packet):
        bad = unknown(p)
        if bad:
            raise SystemExit(f"{path}: packet {i}: fields unknown to Perfetto's schema in {bad}")
        seq = p.trusted_packet_sequence_id
        if p.sequence_flags & pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED:
            defined[seq] = {"name": set(), "cat": set(), "ann": set()}
        if p.HasField("interned_data"):
            d = p.interned_data
            defined[seq]["name"] |= {e.iid for e in d.event_names}
            defined[seq]["cat"] |= {e.iid for e in d.event_categories}
            defined[seq]["ann"] |= {e.iid for e in d.debug_annotation_names}
        if p.HasField("track_descriptor"):
            tracks[p.track_descriptor.uuid] = p.track_descriptor
            counts["tracks"] += 1
            if p.track_descriptor.HasField("counter"):
                counts["counter_tracks"] += 1
        if p.HasField("clock_snapshot"):
            counts["clock_snapshots"] += 1
        if not p.HasField("track_event"):
            continue
        e = p.track_event
        if e.track_uuid not in tracks:
            raise SystemExit(f"{path}: packet {i}: track {e.track_uuid} was not described before it")
        if not p.HasField("timestamp"):
            raise SystemExit(f"{path}: packet {i}: an event without a timestamp")
        need = [("name", e.name_iid)] if e.HasField("name_iid") else []
        need += [("cat", c) for c in e.category_iids]
        need += [("ann", a.name_iid) for a in e.debug_annotations if a.HasField("name_iid")]
        for table, iid in need:
            if iid not in defined[seq][table]:
                raise SystemExit(f"{path}: packet {i}: interned {table} id {iid} not defined on sequence {seq}")
        if e.type == pb.TrackEvent.TYPE_SLICE_BEGIN:
            counts["slices"] += 1
            open_slices[e.track_uuid] += 1
            counts["flow_ids"] += len(e.flow_ids)
            flow_events.update(set(e.flow_ids) | set(e.terminating_flow_ids))
            counts["terminating_flow_ids"] += len(e.terminating_flow_ids)
            counts["category_iid:%d:%d" % (seq, e.category_iids[0])] += 1
        elif e.type == pb.TrackEvent.TYPE_SLICE_END:
            open_slices[e.track_uuid] -= 1
        elif e.type == pb.TrackEvent.TYPE_COUNTER:
            counts["counter_values"] += 1
            series[tracks[e.track_uuid].name].append(e.counter_value)
    if any(open_slices.values()):
        raise SystemExit(f"{path}: slices begun and not ended: {dict(+open_slices)}")
    # Slices per category name (the ids resolved on their sequence).
    cat_names = {}
    for p in trace.packet:
        if p.HasField("interned_data"):
            for c in p.interned_data.event_categories:
                cat_names[(p.trusted_packet_sequence_id, c.iid)] = c.name
    out = {k: v for k, v in counts.items() if not k.startswith("category_iid:")}
    # Flows that join two events or more (an arrow in the UI).
    out["flows_joined"] = sum(1 for n in flow_events.values() if n >= 2)
    out["packets"] = len(trace.packet)
    out["sequences"] = len({p.trusted_packet_sequence_id for p in trace.packet})
    out["by_category"] = Counter()
    for k, v in counts.items():
        if k.startswith("category_iid:"):
            _, seq, iid = k.split(":")
            out["by_category"][cat_names[(int(seq), int(iid))]] += v
    # Each counter track's values, in the file's order, by the track's name.
    out["counter_series"] = dict(series)
    out["processes"] = sorted(t.process.pid for t in tracks.values() if t.HasField("process"))
    return out


for f in sys.argv[1:]:
    print(json.dumps({"file": f, **check(f)}))
