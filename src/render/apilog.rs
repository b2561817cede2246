//! The API log's sink (Intel's format, `cltap_formats::apilog`): a header,
//! one entry per record, and a trailer with the counts. Its text can be
//! formatted on other threads ahead of time (`cltap render` on every core).

use super::outputs::{clock_text, Dest};
use super::placed::{self, Failed, TextFile};
use super::printer::{self, Options, Timebase};
use super::sink::{End, Kinds, Open, Results, Sink};
use crate::trace::record::View;
use cltap_formats::apilog;
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

/// Where the log goes.
enum Out {
    /// Standard error or output, written in order.
    Stream(Box<dyn Write + Send>),
    /// The log's file, every text written at its place (other threads
    /// write chunks' texts there too); `at`: where the next text goes.
    File(TextFile),
}

pub struct ApiLog {
    out: Option<Out>,
    /// Where a file whose writing failed was cut back to, once no thread
    /// writes it any more (another thread may write a later chunk's text
    /// after the failure).
    cut: Option<(Arc<File>, u64)>,
    path: PathBuf,
    written_to_file: bool,
    tb: Timebase,
    options: Options,
    line: String,
    /// `CLTAP_OUTPUT_LIMIT`: the file holds the text of the records up to
    /// the first whose text would end past it (the same records whichever
    /// thread formats them, so that `cltap render` writes what the run
    /// wrote).
    limit: Option<u64>,
    /// Records whose text is in the file.
    written: u64,
    /// The log stopped at its limit (its closing lines still go in).
    stopped: bool,
}

/// Bytes of text gathered before a write.
const BATCH: usize = 1 << 20;

impl ApiLog {
    pub fn open(cx: &Open<'_>, dest: &Dest) -> ApiLog {
        let path = cx.outputs.path("apilog");
        let mut written_to_file = false;
        let out = match dest {
            Dest::Stderr => Out::Stream(Box::new(std::io::stderr())),
            Dest::Stdout => Out::Stream(Box::new(std::io::stdout())),
            Dest::File => match File::create(&path) {
                Ok(f) => {
                    written_to_file = true;
                    Out::File(TextFile { file: Arc::new(f), at: 0, limit: cx.outputs.limit })
                }
                Err(e) => {
                    crate::warn!("cannot create {}: {e}; the API log goes to stderr", path.display());
                    Out::Stream(Box::new(std::io::stderr()))
                }
            },
        };
        let mut s = ApiLog {
            out: Some(out),
            cut: None,
            path,
            written_to_file,
            tb: cx.timebase,
            options: {
                let mut o = cx.outputs.options.clone();
                o.kernels = o.decode.then(Default::default);
                o
            },
            line: String::new(),
            limit: cx.outputs.limit,
            written: 0,
            stopped: false,
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
        // What was active, as CLIntercept's log opens with its settings.
        for (key, text) in [("activation", "activation"), ("drivers", "drivers"), ("settings", "settings")] {
            if let Some(v) = r.info(key) {
                header.push(format!("{text}: {}", if v.is_empty() { "(none)" } else { v }));
            }
        }
        if let Some(c) = r.info("controls").filter(|c| !c.is_empty()) {
            header.push(format!("controls: {c}"));
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
        let r = match self.out.as_mut() {
            Some(Out::Stream(o)) => o.write_all(self.line.as_bytes()).map_err(|error| Failed { error, whole: 0 }),
            Some(Out::File(f)) => placed::write_at(&f.file, f.at, self.line.as_bytes()).map(|()| {
                f.at += self.line.len() as u64;
            }),
            None => Ok(()),
        };
        if let Err(e) = r {
            self.failed(e);
        }
        self.line.clear();
    }

    /// The log ends where it was whole: a file is cut back to the end of
    /// the last text written in full, so it never holds part of a text or
    /// a hole where a text failed.
    fn failed(&mut self, e: Failed) {
        crate::warn!(
            "cannot write {}: {}; the API log ends here (the trace has every record: `cltap render`)",
            self.path.display(),
            e.error
        );
        if let Some(Out::File(f)) = self.out.take() {
            self.cut = Some((f.file, f.at + e.whole));
            self.cut_back();
        }
    }

    fn cut_back(&self) {
        if let Some((f, at)) = &self.cut {
            let _ = f.set_len(*at);
        }
    }
}

impl Sink for ApiLog {
    fn kinds(&self) -> Kinds {
        // A log that stopped takes nothing more: the chunks need not be read
        // for it.
        if self.out.is_some() && !self.stopped {
            Kinds::ALL
        } else {
            Kinds::NONE
        }
    }

    fn record(&mut self, v: &View<'_>) {
        if self.out.is_none() || self.stopped {
            return;
        }
        if let Some(k) = &self.options.kernels {
            k.learn(v);
        }
        let before = self.line.len();
        printer::print(&mut self.line, v, &self.tb, &self.options);
        if let (Some(Out::File(f)), Some(l)) = (&self.out, self.limit) {
            if f.at.saturating_add(self.line.len() as u64) > l {
                self.line.truncate(before);
                self.write_line();
                self.stopped = true;
                return;
            }
        }
        self.written += 1;
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
        (self.out.is_some() && !self.stopped).then(|| self.options.clone())
    }

    /// A stream's text (a file's is placed): no limit.
    fn text(&mut self, text: String, records: u64) -> String {
        let spent = std::mem::replace(&mut self.line, text);
        self.write_line();
        self.written += records;
        spent
    }

    fn text_file(&self) -> Option<TextFile> {
        match &self.out {
            Some(Out::File(f)) if !self.stopped => Some(f.clone()),
            _ => None,
        }
    }

    fn text_placed(&mut self, written: Result<u64, Failed>, records: u64) {
        match (written, self.out.as_mut()) {
            (Ok(n), Some(Out::File(f))) => {
                f.at += n;
                self.written += records;
            }
            (Err(e), Some(_)) => self.failed(e),
            _ => {}
        }
    }

    fn text_dropped(&mut self) {
        self.stopped = true;
    }

    fn flush(&mut self) {
        match self.out.as_mut() {
            Some(Out::Stream(o)) => {
                if let Err(error) = o.flush() {
                    self.failed(Failed { error, whole: 0 });
                }
            }
            Some(Out::File(_)) => {}
            // Texts of chunks after the failure may have been written since.
            None => self.cut_back(),
        }
    }

    fn finish(mut self: Box<Self>, end: &End<'_>, results: &mut Results) {
        // The tally finished first: the windows recorded, one line each.
        for w in &results.windows {
            self.emit(&apilog::Entry::Comment(w.text()));
        }
        if self.stopped {
            if let Some(limit) = self.limit {
                let l = super::sink::Limited {
                    path: self.path.clone(),
                    limit,
                    left_out: end.records.saturating_sub(self.written),
                    total: end.records,
                    what: "records",
                };
                self.emit(&apilog::Entry::Comment(format!("cltap: {}", l.text_in_file())));
                results.limited.push(l);
            }
        }
        let mut trailer = format!("end: {} records, {} dropped", end.records, end.drops);
        if end.lost > 0 {
            trailer += &format!(", {} bytes of records lost (the trace is damaged or cut short)", end.lost);
        }
        self.emit(&apilog::Entry::Comment(trailer));
        self.flush();
        if self.written_to_file {
            results.files.push(self.path.clone());
        }
    }
}
