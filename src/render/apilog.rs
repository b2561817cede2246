//! The API log's sink (Intel's format, `cltap_formats::apilog`): a header,
//! one entry per record, and a trailer with the counts. Its text can be
//! formatted on other threads ahead of time (`cltap render` on every core).

use super::outputs::{clock_text, Dest};
use super::printer::{self, Options, Timebase};
use super::sink::{End, Kinds, Open, Results, Sink};
use crate::trace::record::View;
use cltap_formats::apilog;
use std::io::Write;
use std::path::PathBuf;

pub struct ApiLog {
    out: Option<Box<dyn Write + Send>>,
    path: PathBuf,
    written_to_file: bool,
    tb: Timebase,
    options: Options,
    line: String,
}

/// Bytes of text gathered before a write.
const BATCH: usize = 1 << 20;

impl ApiLog {
    pub fn open(cx: &Open<'_>, dest: &Dest) -> ApiLog {
        let path = cx.outputs.path("apilog");
        let mut written_to_file = false;
        let out: Box<dyn Write + Send> = match dest {
            Dest::Stderr => Box::new(std::io::stderr()),
            Dest::Stdout => Box::new(std::io::stdout()),
            Dest::File => match std::fs::File::create(&path) {
                Ok(f) => {
                    written_to_file = true;
                    // Text comes in pieces of about `BATCH` bytes, which a buffer
                    // smaller than that passes straight to the file, uncopied.
                    Box::new(std::io::BufWriter::with_capacity(1 << 14, f))
                }
                Err(e) => {
                    crate::warn!("cannot create {}: {e}; the API log goes to stderr", path.display());
                    Box::new(std::io::stderr())
                }
            },
        };
        let mut s = ApiLog {
            out: Some(out),
            path,
            written_to_file,
            tb: cx.timebase,
            options: cx.outputs.options,
            line: String::new(),
        };
        let r = cx.reader;
        let mut header = vec![
            format!("cltap {} API log", env!("CARGO_PKG_VERSION")),
            format!("application: {}", r.info("cmdline").unwrap_or("")),
            format!("pid: {}", r.header.pid),
            format!("clock: {}", clock_text(r.header.clock)),
            format!("ticks per microsecond: {:.3}", cx.timebase.ticks_per_us),
        ];
        if let Some(rank) = r.info("rank") {
            header.push(format!("rank: {rank}"));
        }
        for h in header {
            s.emit(&apilog::Entry::Comment(h));
        }
        s
    }

    fn emit(&mut self, e: &apilog::Entry) {
        self.line.clear();
        apilog::write_entry(&mut self.line, e);
        self.write_line();
    }

    /// Writes the pending text. The first failure (a full disk, the
    /// file-size limit) is reported once; the log ends there.
    fn write_line(&mut self) {
        if let Some(o) = self.out.as_mut() {
            if let Err(e) = o.write_all(self.line.as_bytes()) {
                self.failed(e);
            }
        }
        self.line.clear();
    }

    fn failed(&mut self, e: std::io::Error) {
        crate::warn!(
            "cannot write {}: {e}; the API log ends here (the trace has every record: `cltap render`)",
            self.path.display()
        );
        self.out = None;
    }
}

impl Sink for ApiLog {
    fn kinds(&self) -> Kinds {
        Kinds::ALL
    }

    fn record(&mut self, v: &View<'_>) {
        if self.out.is_none() {
            return;
        }
        printer::print(&mut self.line, v, &self.tb, self.options);
        if self.line.len() > BATCH {
            self.write_line();
        }
    }

    fn chunk(&mut self, _c: &cltap_formats::cltrace::ChunkInfo, _records: &super::sink::ChunkRecords<'_>) {
        if !self.line.is_empty() {
            self.write_line();
        }
    }

    fn formats_text(&self) -> Option<Options> {
        self.out.is_some().then_some(self.options)
    }

    fn text(&mut self, text: String, _records: u64) -> String {
        let spent = std::mem::replace(&mut self.line, text);
        self.write_line();
        spent
    }

    fn flush(&mut self) {
        if let Some(o) = self.out.as_mut() {
            if let Err(e) = o.flush() {
                self.failed(e);
            }
        }
    }

    fn finish(mut self: Box<Self>, end: &End<'_>, results: &mut Results) {
        // The tally finished first: the windows recorded, one line each.
        for w in &results.windows {
            self.emit(&apilog::Entry::Comment(w.text()));
        }
        let trailer = format!("end: {} records, {} dropped", end.records, end.drops);
        self.emit(&apilog::Entry::Comment(trailer));
        self.flush();
        if self.written_to_file {
            results.files.push(self.path.clone());
        }
    }
}
