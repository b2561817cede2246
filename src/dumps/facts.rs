//! What the run's dumps did and cost, as the summary shows it: its text
//! lines and its `"dumps"` object. The layer makes it at the end of the
//! process and writes it into the trace (`END_DUMPS`), so that `cltap
//! render` gives the same summary.

use serde_json::json;

/// The dumps' counts at the end of the run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DumpFacts {
    /// Enqueues whose arguments were dumped.
    pub enqueues: u64,
    pub files: u64,
    pub bytes: u64,
    /// Nanoseconds the application's threads waited for the dumps' reads
    /// and writes (and the finish before the reads after an enqueue).
    pub waited_ns: u64,
    /// The dumps' folder.
    pub folder: String,
    /// With capture on: enqueues captured, and the captures' folder.
    pub captured: Option<(u64, String)>,
    /// With injection on: arguments injected.
    pub injected: Option<u64>,
}

/// A word of the trace's record for a count that is not there.
const ABSENT: u64 = u64::MAX;

impl DumpFacts {
    /// The summary's lines (each to be prefixed with `cltap: `).
    pub fn lines(&self) -> Vec<String> {
        let mut v = vec![format!(
            "dumps: {} enqueues dumped, {} files, {} bytes in {}; the application's threads waited {:.3} ms for the dumps' reads and writes",
            self.enqueues,
            self.files,
            self.bytes,
            self.folder,
            self.waited_ns as f64 / 1e6
        )];
        if let Some((n, folder)) = &self.captured {
            v.push(format!("dumps: {n} enqueues captured in {folder}"));
        }
        if let Some(n) = self.injected {
            v.push(format!("dumps: {n} arguments injected"));
        }
        v
    }

    /// The summary's `"dumps"` object.
    pub fn json(&self) -> serde_json::Value {
        let mut o = json!({
            "enqueues_dumped": self.enqueues,
            "files": self.files,
            "bytes": self.bytes,
            "waited_ns": self.waited_ns,
            "folder": self.folder,
        });
        if let (Some((n, folder)), Some(m)) = (&self.captured, o.as_object_mut()) {
            m.insert("captured".into(), json!(n));
            m.insert("capture_folder".into(), json!(folder));
        }
        if let (Some(n), Some(m)) = (self.injected, o.as_object_mut()) {
            m.insert("injected".into(), json!(n));
        }
        o
    }

    /// The trace record's words and capture (folders tab-separated).
    pub fn to_record(&self) -> ([u64; 6], String) {
        let (captured, capture_folder) = self.captured.clone().unwrap_or((ABSENT, String::new()));
        let words = [self.enqueues, self.files, self.bytes, self.waited_ns, captured, self.injected.unwrap_or(ABSENT)];
        (words, format!("{}\t{capture_folder}", self.folder))
    }

    /// Back from a record's words and capture (a word missing reads 0).
    pub fn from_record(words: &[u64], text: &str) -> DumpFacts {
        let w = |i: usize| words.get(i).copied().unwrap_or(0);
        let (folder, capture_folder) = text.split_once('\t').unwrap_or((text, ""));
        DumpFacts {
            enqueues: w(0),
            files: w(1),
            bytes: w(2),
            waited_ns: w(3),
            folder: folder.to_string(),
            captured: (w(4) != ABSENT).then(|| (w(4), capture_folder.to_string())),
            injected: (w(5) != ABSENT).then(|| w(5)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_gives_back_the_same_facts() {
        let f = DumpFacts {
            enqueues: 2,
            files: 6,
            bytes: 3072,
            waited_ns: 1_500_000,
            folder: "out/app.1.dumps".into(),
            captured: Some((1, "out/app.1.capture".into())),
            injected: None,
        };
        let (w, t) = f.to_record();
        assert_eq!(DumpFacts::from_record(&w, &t), f);
        assert_eq!(
            f.lines(),
            [
                "dumps: 2 enqueues dumped, 6 files, 3072 bytes in out/app.1.dumps; the application's threads waited 1.500 ms for the dumps' reads and writes",
                "dumps: 1 enqueues captured in out/app.1.capture"
            ]
        );
        assert_eq!(f.json()["waited_ns"], 1_500_000);
        assert!(f.json().get("injected").is_none());
        let plain = DumpFacts { folder: "d".into(), injected: Some(3), ..Default::default() };
        let (w, t) = plain.to_record();
        assert_eq!(DumpFacts::from_record(&w, &t), plain);
    }
}
