"""Dumps the slices of a .pftrace, in the order they begin, one JSON object a line:
track uuid, name and category (interned ids resolved on their sequence),
begin and end (ns), the flow ids it starts or joins, and its arguments
(debug annotations, by name). For tests that
compare where slices lie (tests/hsa_clock.rs).

Usage: slices.py FILE
"""
import json
import sys

from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

trace = pb.Trace()
trace.ParseFromString(open(sys.argv[1], "rb").read())
names, cats, anns = {}, {}, {}
open_by_track = {}
begun = []
for p in trace.packet:
    seq = p.trusted_packet_sequence_id
    if p.HasField("interned_data"):
        for e in p.interned_data.event_names:
            names[(seq, e.iid)] = e.name
        for c in p.interned_data.event_categories:
            cats[(seq, c.iid)] = c.name
        for a in p.interned_data.debug_annotation_names:
            anns[(seq, a.iid)] = a.name
    if not p.HasField("track_event"):
        continue
    e = p.track_event
    if e.type == pb.TrackEvent.TYPE_SLICE_BEGIN:
        name = e.name if e.HasField("name") else names[(seq, e.name_iid)]
        cat = cats[(seq, e.category_iids[0])] if e.category_iids else ""
        s = {"track": e.track_uuid, "name": name, "cat": cat, "ts": p.timestamp,
             "flows": list(e.flow_ids) + list(e.terminating_flow_ids),
             "args": {anns[(seq, a.name_iid)]: (a.uint_value if a.HasField("uint_value") else a.string_value)
                      for a in e.debug_annotations}}
        open_by_track.setdefault(e.track_uuid, []).append(s)
        begun.append(s)
    elif e.type == pb.TrackEvent.TYPE_SLICE_END:
        s = open_by_track[e.track_uuid].pop()
        s["end"] = p.timestamp
for s in begun:
    print(json.dumps(s))
