//! The memory trace's and the leak check's sink (`CLTAP_MEMORY`,
//! `CLTAP_LEAKS`): every call record goes to a [`Tracker`] (returned or
//! not, so that a row's record index is the call's place in render order,
//! its line among the API log's calls); at the end
//! it writes `<stem>.memory.csv` (memory trace only) and puts the report in
//! [`Results::memory`], where the summary, the timelines and rocpd's
//! database find it. It comes first in `select`, so it ends before them.

use super::sink::{End, Kinds, Open, Results, Sink};
use crate::memory::Tracker;
use crate::trace::record::{View, KIND_HSA_CALL, KIND_OPENCL_CALL};

pub struct Memory {
    tracker: Tracker,
    /// Write the memory file (`CLTAP_MEMORY`); else only the leak check.
    file: Option<std::path::PathBuf>,
}

impl Memory {
    pub fn sink(cx: &Open<'_>, asked: crate::config::memory::Memory) -> Box<dyn Sink> {
        let file = asked.trace.then(|| cx.outputs.path("memory.csv"));
        Box::new(Memory { tracker: Tracker::new(asked, cx.clock), file })
    }
}

impl Sink for Memory {
    fn kinds(&self) -> Kinds {
        Kinds::of(&[KIND_OPENCL_CALL, KIND_HSA_CALL])
    }

    fn record(&mut self, v: &View<'_>) {
        self.tracker.record(v);
    }

    fn finish(self: Box<Self>, _end: &End<'_>, results: &mut Results) {
        let report = self.tracker.report();
        if let Some(p) = self.file {
            let written = std::fs::File::create(&p).and_then(|f| {
                let mut out = std::io::BufWriter::new(f);
                cltap_formats::memory::write(&mut out, &report.rows)?;
                std::io::Write::flush(&mut out)
            });
            match written {
                Ok(()) => results.files.push(p),
                Err(e) => crate::warn!("cannot write {}: {e}", p.display()),
            }
        }
        results.memory = Some(report);
    }
}
