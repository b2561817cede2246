//! The one list that turns the outputs asked for into sinks: a new output
//! is a writer in `cltap-formats`, a sink, and one line here.

use super::outputs::Outputs;
use super::sink::{Open, Sink};

/// The sinks `o` asks for, in the order they finish: the device's
/// commands and the end's facts read back, the memory trace,
/// the device outputs, then the tools (which end before the API log's trailer), the
/// summary's tally, and the API log last.
pub fn select(o: &Outputs, cx: &Open<'_>) -> Vec<Box<dyn Sink>> {
    let mut sinks: Vec<Box<dyn Sink>> = Vec::new();
    let mut add = |s: Option<Box<dyn Sink>>| sinks.extend(s);
    // First: the device's commands, which the others draw.
    add(Some(super::device::Device::sink(Some(o.dir.join(format!(".{}.render.commands", o.stem))))));
    // Then the memory trace: the timelines and rocpd's database draw its report.
    add(o.memory.on().then(|| super::memory::Memory::sink(cx, o.memory)));
    add(o.timeline.then(|| super::timeline::Timeline::sink(cx)).flatten());
    add(o.pftrace.then(|| super::pftrace::Pftrace::sink(cx)).flatten());
    add(o.rocpd.then(|| super::rocpd::Rocpd::sink(cx)).flatten());
    add(o.atp.then(|| super::atp::AtpWriter::sink(cx)).flatten());
    add(o.counters.as_ref().map(|r| super::counters::CounterFiles::sink(cx, r.clone())));
    add(Some(Box::new(super::tools::ToolBuffers)));
    add(Some(super::controls::Controls::sink(cx)));
    add(Some(Box::new(super::tally::Tally::new(cx.timebase))));
    add(o.api_log.as_ref().map(|d| Box::new(super::apilog::ApiLog::open(cx, d)) as Box<dyn Sink>));
    sinks
}
