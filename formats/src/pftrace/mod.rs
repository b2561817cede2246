//! Perfetto's protobuf trace (`.pftrace`), TrackEvent flavour: written
//! packet by packet (each a `Trace.packet` field, so files concatenate into
//! one valid trace), with interned names on one packet sequence per writer,
//! and read back packet by packet.

pub mod proto;

use prost::Message;
use proto::*;
use std::collections::HashMap;
use std::io::Write;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("packet at byte {at}: {what}")]
    Bad { at: usize, what: String },
}

/// `Trace.packet`'s key: field 1, length-delimited.
const PACKET_KEY: u8 = 0x0A;

/// What kind of interned string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Table {
    Category,
    Name,
    Annotation,
}

/// A slice's start, as [`Writer::begin`] takes it.
#[derive(Debug, Clone, Default)]
pub struct Slice<'a> {
    pub track: u64,
    pub ts: u64,
    pub name: &'a str,
    pub category: &'a str,
    /// Flows that start or pass here.
    pub flows: Vec<u64>,
    /// Flows that end here.
    pub ends_flows: Vec<u64>,
    pub args: Vec<(&'a str, Arg)>,
}

#[derive(Debug, Clone)]
pub enum Arg {
    Uint(u64),
    Str(String),
}

/// Writes one packet sequence. Every timestamp is `CLOCK_MONOTONIC` ns.
pub struct Writer<W: Write> {
    out: W,
    seq: u32,
    first: bool,
    interned: HashMap<(Table, String), u64>,
    next_iid: u64,
    pending: InternedData,
    buf: Vec<u8>,
    packets: u64,
}

impl<W: Write> Writer<W> {
    /// `seq`: the packet sequence's id, distinct per writer of one trace
    /// (cltap uses the process id), never 0.
    pub fn new(out: W, seq: u32) -> Writer<W> {
        Writer {
            out,
            seq: seq.max(1),
            first: true,
            interned: HashMap::new(),
            next_iid: 1,
            pending: InternedData::default(),
            buf: Vec::new(),
            packets: 0,
        }
    }

    pub fn packets(&self) -> u64 {
        self.packets
    }

    fn iid(&mut self, t: Table, s: &str) -> u64 {
        if let Some(&i) = self.interned.get(&(t, s.to_string())) {
            return i;
        }
        let i = self.next_iid;
        self.next_iid += 1;
        self.interned.insert((t, s.to_string()), i);
        let e = InternedString { iid: Some(i), name: Some(s.to_string()) };
        match t {
            Table::Category => self.pending.event_categories.push(e),
            Table::Name => self.pending.event_names.push(e),
            Table::Annotation => self.pending.debug_annotation_names.push(e),
        }
        i
    }

    /// Writes `p` on this sequence, with the names interned since the last
    /// packet.
    pub fn packet(&mut self, mut p: TracePacket) -> std::io::Result<()> {
        p.trusted_packet_sequence_id = Some(self.seq);
        if self.first {
            p.sequence_flags = Some(SEQ_INCREMENTAL_STATE_CLEARED | SEQ_NEEDS_INCREMENTAL_STATE);
            p.first_packet_on_sequence = Some(true);
            self.first = false;
        } else if p.track_event.is_some() {
            p.sequence_flags = Some(SEQ_NEEDS_INCREMENTAL_STATE);
        }
        if p.timestamp.is_some() {
            p.timestamp_clock_id = Some(CLOCK_MONOTONIC);
        }
        let pending = std::mem::take(&mut self.pending);
        if pending != InternedData::default() {
            p.interned_data = Some(pending);
        }
        self.buf.clear();
        self.buf.push(PACKET_KEY);
        prost::encoding::encode_varint(p.encoded_len() as u64, &mut self.buf);
        p.encode(&mut self.buf).map_err(std::io::Error::other)?;
        self.packets += 1;
        self.out.write_all(&self.buf)
    }

    /// Host and boot clocks read at one instant: the trace's timestamps
    /// (`CLOCK_MONOTONIC`) placed on Perfetto's default clock.
    pub fn clock_snapshot(&mut self, monotonic: u64, boottime: u64) -> std::io::Result<()> {
        let clock = |id, ts| Clock { clock_id: Some(id), timestamp: Some(ts) };
        self.packet(TracePacket {
            clock_snapshot: Some(ClockSnapshot {
                clocks: vec![clock(CLOCK_MONOTONIC, monotonic), clock(CLOCK_BOOTTIME, boottime)],
                primary_trace_clock: Some(CLOCK_BOOTTIME as i32),
            }),
            ..Default::default()
        })
    }

    pub fn track(&mut self, d: TrackDescriptor) -> std::io::Result<()> {
        self.packet(TracePacket { track_descriptor: Some(d), ..Default::default() })
    }

    fn event(&mut self, ts: u64, e: TrackEvent) -> std::io::Result<()> {
        self.packet(TracePacket { timestamp: Some(ts), track_event: Some(e), ..Default::default() })
    }

    pub fn begin(&mut self, s: Slice<'_>) -> std::io::Result<()> {
        let name_iid = Some(self.iid(Table::Name, s.name));
        let category_iids = vec![self.iid(Table::Category, s.category)];
        let debug_annotations = s
            .args
            .into_iter()
            .map(|(k, v)| {
                let mut a = DebugAnnotation { name_iid: Some(self.iid(Table::Annotation, k)), ..Default::default() };
                match v {
                    Arg::Uint(u) => a.uint_value = Some(u),
                    Arg::Str(t) => a.string_value = Some(t),
                }
                a
            })
            .collect();
        let e = TrackEvent {
            r#type: Some(TYPE_SLICE_BEGIN),
            track_uuid: Some(s.track),
            category_iids,
            name_iid,
            flow_ids: s.flows,
            terminating_flow_ids: s.ends_flows,
            debug_annotations,
            ..Default::default()
        };
        self.event(s.ts, e)
    }

    pub fn end(&mut self, track: u64, ts: u64) -> std::io::Result<()> {
        self.event(ts, TrackEvent { r#type: Some(TYPE_SLICE_END), track_uuid: Some(track), ..Default::default() })
    }

    pub fn counter(&mut self, track: u64, ts: u64, value: i64) -> std::io::Result<()> {
        let e = TrackEvent {
            r#type: Some(TYPE_COUNTER),
            track_uuid: Some(track),
            counter_value: Some(value),
            ..Default::default()
        };
        self.event(ts, e)
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

/// The packets of a trace, in file order. A file cut off inside its last
/// packet is an error naming where.
pub fn read(bytes: &[u8]) -> Result<Vec<TracePacket>, Error> {
    let mut out = Vec::new();
    each_packet(bytes, |_, body| {
        out.push(TracePacket::decode(body).map_err(|e| e.to_string())?);
        Ok(())
    })?;
    Ok(out)
}

/// Calls `f` with each packet's offset and bytes, without decoding them.
pub fn each_packet(bytes: &[u8], mut f: impl FnMut(usize, &[u8]) -> Result<(), String>) -> Result<(), Error> {
    let mut at = 0;
    while at < bytes.len() {
        let bad = |what: &str| Error::Bad { at, what: what.to_string() };
        if bytes[at] != PACKET_KEY {
            return Err(bad("not a Trace.packet field"));
        }
        let mut rest = &bytes[at + 1..];
        let before = rest.len();
        let len = prost::encoding::decode_varint(&mut rest).map_err(|_| bad("bad length"))? as usize;
        let start = at + 1 + (before - rest.len());
        let end = start.checked_add(len).filter(|e| *e <= bytes.len()).ok_or_else(|| bad("cut off"))?;
        f(at, &bytes[start..end]).map_err(|w| bad(&w))?;
        at = end;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(seq: u32) -> Vec<u8> {
        let mut w = Writer::new(Vec::new(), seq);
        w.clock_snapshot(1_000, 5_000).unwrap();
        let thread = TrackDescriptor {
            uuid: Some(7),
            thread: Some(ThreadDescriptor { pid: Some(1), tid: Some(2), thread_name: Some("t".into()) }),
            ..Default::default()
        };
        w.track(thread).unwrap();
        for ts in [10, 30] {
            let s = Slice {
                track: 7,
                ts,
                name: "clFinish",
                category: "api",
                flows: vec![9],
                args: vec![("cmd", Arg::Uint(4))],
                ..Default::default()
            };
            w.begin(s).unwrap();
            w.end(7, ts + 5).unwrap();
        }
        w.counter(7, 40, -3).unwrap();
        w.into_inner()
    }

    #[test]
    fn packets_read_back_with_names_interned_once() {
        let p = read(&sample(3)).unwrap();
        assert_eq!(p.len(), 7);
        assert!(p.iter().all(|p| p.trusted_packet_sequence_id == Some(3)));
        assert_eq!(p[0].sequence_flags, Some(SEQ_INCREMENTAL_STATE_CLEARED | SEQ_NEEDS_INCREMENTAL_STATE));
        let first = p[2].interned_data.as_ref().unwrap();
        assert_eq!(first.event_names[0].name.as_deref(), Some("clFinish"));
        assert_eq!(first.debug_annotation_names[0].name.as_deref(), Some("cmd"));
        // The second slice reuses the ids.
        assert!(p[4].interned_data.is_none());
        let (a, b) = (p[2].track_event.as_ref().unwrap(), p[4].track_event.as_ref().unwrap());
        assert_eq!((a.name_iid, a.flow_ids.clone()), (b.name_iid, vec![9]));
        assert_eq!(p[4].timestamp, Some(30));
        assert_eq!(p[6].track_event.as_ref().unwrap().counter_value, Some(-3));
    }

    #[test]
    fn two_files_concatenate_and_a_cut_one_is_refused() {
        let (a, b) = (sample(1), sample(2));
        let both = [a.clone(), b].concat();
        let p = read(&both).unwrap();
        assert_eq!(p.len(), 14);
        assert_eq!(p[7].trusted_packet_sequence_id, Some(2));
        let cut = &a[..a.len() - 1];
        assert!(matches!(read(cut), Err(Error::Bad { .. })));
    }
}
