//! Window records as the files show them: the reasons' names, and the
//! windows paired from their opening and closing records. Nothing here
//! reads or changes the window (that is `window`'s), so the renderers use
//! it without depending on capture.

use cltap_formats::cltrace::record::WINDOW_OPEN;

/// Why a window opened or closed (a `KIND_WINDOW` record's reason word).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub enum Reason {
    Start = 0,
    End = 1,
    Time = 2,
    Calls = 3,
    Enqueues = 4,
    App = 5,
}

impl Reason {
    pub fn from_word(w: u64) -> Option<Reason> {
        use Reason::*;
        [Start, End, Time, Calls, Enqueues, App].into_iter().find(|r| *r as u64 == w)
    }

    /// As the files show it.
    pub fn text(w: u64, open: bool) -> &'static str {
        match (Reason::from_word(w), open) {
            (Some(Reason::Start), _) => "start",
            (Some(Reason::End), _) => "end",
            (Some(Reason::Time), _) => "time",
            (Some(Reason::Calls), _) => "call limit",
            (Some(Reason::Enqueues), _) => "enqueue range",
            (Some(Reason::App), true) => "cltap_resume",
            (Some(Reason::App), false) => "cltap_pause",
            (None, _) => "?",
        }
    }
}

/// A window as the files show it: its number, its opening and closing
/// (ns since the trace began) and their reasons; `close` is `None` when
/// the trace ended without its close (a process killed).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Span {
    pub number: u64,
    pub open_ns: u64,
    pub open_reason: &'static str,
    pub close_ns: Option<u64>,
    pub close_reason: Option<&'static str>,
}

impl Span {
    /// `[0.120 ms, 3.400 ms] cltap_resume .. cltap_pause`.
    pub fn text(&self) -> String {
        let ms = |ns: u64| format!("{:.3} ms", ns as f64 / 1e6);
        format!(
            "window {}: {} ({}) to {} ({})",
            self.number,
            ms(self.open_ns),
            self.open_reason,
            self.close_ns.map_or_else(|| "the end".to_string(), ms),
            self.close_reason.unwrap_or("not closed")
        )
    }
}

/// Pairs window records into spans. The records come in the trace's
/// render order, which is each thread's chunks in turn, not time: a window
/// closed by the schedule's thread may come before its opening.
#[derive(Debug, Default)]
pub struct Spans(pub Vec<Span>);

impl Spans {
    pub fn add(&mut self, number: u64, ns: u64, words: &[u64]) {
        let open = words.first() == Some(&WINDOW_OPEN);
        let why = Reason::text(words.get(1).copied().unwrap_or(u64::MAX), open);
        let at = match self.0.iter().position(|s| s.number == number) {
            Some(i) => i,
            None => {
                let blank = Span { number, open_ns: 0, open_reason: "", close_ns: None, close_reason: None };
                let i = self.0.partition_point(|s| s.number < number);
                self.0.insert(i, blank);
                i
            }
        };
        let s = &mut self.0[at];
        if open {
            (s.open_ns, s.open_reason) = (ns, why);
        } else {
            (s.close_ns, s.close_reason) = (Some(ns), Some(why));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cltap_formats::cltrace::record::WINDOW_CLOSE;

    #[test]
    fn spans_pair_each_open_with_its_close() {
        let mut s = Spans::default();
        s.add(1, 10, &[WINDOW_OPEN, Reason::Start as u64]);
        s.add(1, 20, &[WINDOW_CLOSE, Reason::App as u64]);
        s.add(3, 40, &[WINDOW_CLOSE, Reason::Time as u64]);
        s.add(2, 30, &[WINDOW_OPEN, Reason::App as u64]);
        s.add(3, 35, &[WINDOW_OPEN, Reason::Time as u64]);
        assert_eq!(s.0.len(), 3);
        // A closing met before its opening (another thread's chunk) pairs too.
        assert_eq!((s.0[2].number, s.0[2].open_ns, s.0[2].close_ns), (3, 35, Some(40)));
        assert_eq!(
            (s.0[0].open_reason, s.0[0].close_ns, s.0[0].close_reason),
            ("start", Some(20), Some("cltap_pause"))
        );
        assert_eq!((s.0[1].open_reason, s.0[1].close_ns), ("cltap_resume", None));
        assert_eq!(s.0[0].text(), "window 1: 0.000 ms (start) to 0.000 ms (cltap_pause)");
    }
}
