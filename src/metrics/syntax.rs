//! The part of the ROCP_METRICS / ROCP_INPUT syntax that is not XML, turned
//! into XML so that quick-xml can read the rest:
//!
//! * `#include "file"` on a line of its own: the file (relative to the
//!   including file's folder) is read in its place; an include cycle is an
//!   error;
//! * `#` starts a comment up to the end of the line, outside quoted values —
//!   also inside a tag, as rocprofiler's own input files do;
//! * attribute values may be unquoted (`block=SQ event=4 expr=a/b`): an
//!   unquoted value runs up to white space, `>` or `#`;
//! * quoted values may hold `\"`, `&` and `<` literally (rocprofiler knows no
//!   entities), so they are re-escaped for XML.
//!
//! Every byte of the output remembers the byte of the original file it came
//! from, so errors found later point into the file the user wrote.

use super::error::{MetricsError, Origin};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One file that took part.
pub(crate) struct Source {
    pub name: Arc<str>,
    text: Arc<str>,
    line_starts: Vec<usize>,
}

impl Source {
    fn new(name: &str, text: Arc<str>) -> Source {
        let mut line_starts = vec![0];
        line_starts.extend(text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i + 1));
        Source { name: name.into(), text, line_starts }
    }

    pub fn origin(&self, offset: usize) -> Origin {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        // Columns count characters; a cut inside a character rounds down.
        let col = self.text.get(start..offset).map(|s| s.chars().count()).unwrap_or(offset - start);
        Origin { file: self.name.clone(), line: line as u32 + 1, col: col as u32 + 1 }
    }
}

/// The XML text handed to quick-xml, with its way back to the sources.
pub(crate) struct Preprocessed {
    pub text: String,
    /// (source index, byte offset in that source) for every output byte, and
    /// one more entry for the end of the text.
    map: Vec<(u32, u32)>,
    pub sources: Vec<Source>,
}

impl Preprocessed {
    /// Where output byte `offset` came from.
    pub fn origin(&self, offset: usize) -> Origin {
        let (file, at) = self.map[offset.min(self.map.len() - 1)];
        self.sources[file as usize].origin(at as usize)
    }

    /// The name of the top file.
    pub fn file_name(&self) -> &str {
        &self.sources[0].name
    }
}

/// Reads and preprocesses a file from disk.
pub(crate) fn preprocess_file(path: &Path) -> Result<Preprocessed, MetricsError> {
    let text = crate::bounded::read_text(path, MAX_FILE)
        .map_err(|source| MetricsError::Io { path: path.display().to_string(), source })?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let canon = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    preprocess(&path.display().to_string(), &text, dir, Some(canon))
}

/// The largest file read (the top file or an include).
pub(crate) const MAX_FILE: u64 = 4 << 20;
/// The most text the includes of one file may add up to, all levels together.
const MAX_TOTAL: usize = 16 << 20;
/// Includes nested deeper than this are refused.
const MAX_DEPTH: usize = 16;
/// The most `#include` directives one file may lead to, all levels together:
/// without it, ten includes per level nine levels deep read a billion files.
const MAX_INCLUDES: usize = 256;

/// Preprocesses `text` named `name`; includes are looked up in `dir`.
pub(crate) fn preprocess(
    name: &str,
    text: &str,
    dir: PathBuf,
    canon: Option<PathBuf>,
) -> Result<Preprocessed, MetricsError> {
    let mut pre = Pre {
        out: Vec::with_capacity(text.len() + text.len() / 8),
        map: Vec::new(),
        sources: Vec::new(),
        stack: Vec::new(),
    };
    pre.sources.push(Source::new(name, text.into()));
    pre.stack.push((canon.unwrap_or_else(|| PathBuf::from(name)), name.to_string()));
    pre.file(0, &dir)?;
    pre.map.push((0, text.len() as u32));
    let text = String::from_utf8(pre.out).expect("the preprocessor cuts only at ASCII bytes");
    Ok(Preprocessed { text, map: pre.map, sources: pre.sources })
}

struct Pre {
    out: Vec<u8>,
    map: Vec<(u32, u32)>,
    sources: Vec<Source>,
    /// Files being included, outermost first: (canonical path, display name).
    stack: Vec<(PathBuf, String)>,
}

/// Where the scanner is in one file.
#[derive(PartialEq)]
enum State {
    Text,
    Tag,
}

impl Pre {
    fn emit(&mut self, b: u8, file: usize, at: usize) {
        self.out.push(b);
        self.map.push((file as u32, at as u32));
    }

    fn emit_str(&mut self, s: &str, file: usize, at: usize) {
        for b in s.bytes() {
            self.emit(b, file, at);
        }
    }

    /// Emits one byte of an attribute value, escaped for a `"`-quoted XML value.
    fn emit_value_byte(&mut self, b: u8, file: usize, at: usize) {
        match b {
            b'&' => self.emit_str("&amp;", file, at),
            b'<' => self.emit_str("&lt;", file, at),
            b'>' => self.emit_str("&gt;", file, at),
            b'"' => self.emit_str("&quot;", file, at),
            _ => self.emit(b, file, at),
        }
    }

    fn malformed(&self, file: usize, at: usize, msg: impl Into<String>) -> MetricsError {
        MetricsError::Malformed { at: self.sources[file].origin(at), msg: msg.into() }
    }

    fn file(&mut self, file: usize, dir: &Path) -> Result<(), MetricsError> {
        let text = self.sources[file].text.clone();
        let s = text.as_bytes();
        let mut i = 0;
        let mut state = State::Text;
        let mut line_start = true;
        while i < s.len() {
            let b = s[i];
            if state == State::Text && line_start {
                // `#include` is a directive only where a line begins.
                let ws = s[i..].iter().take_while(|c| **c == b' ' || **c == b'\t').count();
                if s[i + ws..].starts_with(b"#include") {
                    i = self.include(file, i + ws, dir)?;
                    line_start = false;
                    continue;
                }
            }
            line_start = b == b'\n';
            match (&state, b) {
                (_, b'#') => {
                    // A comment: drop it, keep the line end.
                    while i < s.len() && s[i] != b'\n' {
                        i += 1;
                    }
                    continue;
                }
                (State::Text, b'<') if s[i..].starts_with(b"<!--") => {
                    let end = find(s, i + 4, b"-->")
                        .ok_or_else(|| self.malformed(file, i, "comment <!-- is never closed"))?;
                    for (k, &c) in s.iter().enumerate().take(end + 3).skip(i) {
                        self.emit(c, file, k);
                    }
                    i = end + 3;
                    continue;
                }
                (State::Text, b'<') => state = State::Tag,
                (State::Tag, b'>') => state = State::Text,
                (State::Tag, b'=') => {
                    self.emit(b'=', file, i);
                    i = self.value(file, s, i + 1)?;
                    continue;
                }
                _ => {}
            }
            self.emit(b, file, i);
            i += 1;
        }
        Ok(())
    }

    /// Re-emits the value after `=` at `i` as a `"`-quoted XML value; returns
    /// where scanning goes on.
    fn value(&mut self, file: usize, s: &[u8], i: usize) -> Result<usize, MetricsError> {
        // White space after `=` is skipped only before a quote (`a = "v"`);
        // `a= b` is an empty `a` followed by `b`, as in rocprofiler, whose
        // tokens end at white space.
        let ws = s[i..].iter().take_while(|c| **c == b' ' || **c == b'\t').count();
        let i = if matches!(s.get(i + ws), Some(b'"' | b'\'')) { i + ws } else { i };
        let start = i.min(s.len().saturating_sub(1));
        match s.get(i) {
            Some(&q) if q == b'"' || q == b'\'' => {
                self.emit(b'"', file, i);
                let mut i = i + 1;
                loop {
                    match s.get(i) {
                        None => return Err(self.malformed(file, start, "quoted value is never closed")),
                        Some(b'\\') if i + 1 < s.len() => {
                            // rocprofiler's escape: the next character is literal.
                            self.emit_value_byte(s[i + 1], file, i);
                            i += 2;
                        }
                        Some(&c) if c == q => {
                            self.emit(b'"', file, i);
                            return Ok(i + 1);
                        }
                        Some(&c) => {
                            self.emit_value_byte(c, file, i);
                            i += 1;
                        }
                    }
                }
            }
            _ => {
                self.emit(b'"', file, start);
                let mut i = i;
                while let Some(&c) = s.get(i) {
                    if c.is_ascii_whitespace() || c == b'>' || c == b'#' {
                        break;
                    }
                    self.emit_value_byte(c, file, i);
                    i += 1;
                }
                self.emit(b'"', file, i.min(s.len()));
                Ok(i)
            }
        }
    }

    /// Handles `#include "name"` at `i`; returns the offset of the line end.
    fn include(&mut self, file: usize, i: usize, dir: &Path) -> Result<usize, MetricsError> {
        let s = self.sources[file].text.clone();
        let s = s.as_bytes();
        let eol = s[i..].iter().position(|c| *c == b'\n').map_or(s.len(), |p| i + p);
        let line = &s[i..eol];
        let bad = || self.malformed(file, i, "malformed #include: expected #include \"FILE\"");
        let rest = &line[b"#include".len()..];
        let open = rest.iter().position(|c| !c.is_ascii_whitespace()).ok_or_else(bad)?;
        if rest[open] != b'"' {
            return Err(bad());
        }
        let name_start = b"#include".len() + open + 1;
        let close = line[name_start..].iter().position(|c| *c == b'"').ok_or_else(bad)? + name_start;
        let tail = &line[close + 1..];
        let tail_ws = tail.iter().take_while(|c| c.is_ascii_whitespace()).count();
        if tail_ws < tail.len() && tail[tail_ws] != b'#' {
            return Err(bad());
        }
        let name = std::str::from_utf8(&line[name_start..close]).map_err(|_| bad())?;
        if name.is_empty() {
            return Err(bad());
        }
        let at = self.sources[file].origin(i + name_start);
        let path = dir.join(name);
        let shown = path.display().to_string();
        let limit = |msg: String| MetricsError::IncludeLimit { at: at.clone(), msg };
        if self.stack.len() > MAX_DEPTH {
            return Err(limit(format!(
                "'{shown}' would be the include {} levels deep (at most {MAX_DEPTH})",
                self.stack.len()
            )));
        }
        if self.sources.len() > MAX_INCLUDES {
            return Err(limit(format!("more than {MAX_INCLUDES} includes in all")));
        }
        // Resolved once: the name checked for cycles is the name read.
        let canon = path.canonicalize().map_err(|source| MetricsError::Include {
            at: at.clone(),
            path: shown.clone(),
            source,
        })?;
        if self.stack.iter().any(|(c, _)| *c == canon) {
            let mut chain: Vec<&str> = self.stack.iter().map(|(_, n)| n.as_str()).collect();
            chain.push(&shown);
            return Err(MetricsError::IncludeCycle { at, chain: chain.join(" -> ") });
        }
        let text = crate::bounded::read_text(&canon, MAX_FILE).map_err(|source| MetricsError::Include {
            at: at.clone(),
            path: shown.clone(),
            source,
        })?;
        if self.out.len() + text.len() > MAX_TOTAL {
            return Err(limit(format!("the includes add up to more than {} MiB", MAX_TOTAL >> 20)));
        }
        let idx = self.sources.len();
        self.sources.push(Source::new(&shown, text.into()));
        self.stack.push((canon, shown));
        let sub_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        self.file(idx, &sub_dir)?;
        self.stack.pop();
        Ok(eol)
    }
}

fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    hay.get(from..)?.windows(needle.len()).position(|w| w == needle).map(|p| p + from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pre(text: &str) -> Preprocessed {
        preprocess("t.xml", text, PathBuf::from("."), None).unwrap()
    }

    #[test]
    fn quotes_values_and_drops_comments() {
        let p = pre("# top\n<m name=A expr=a/b*2 descr=\"x & y\" ># tail\n</m>\n");
        assert_eq!(p.text, "\n<m name=\"A\" expr=\"a/b*2\" descr=\"x &amp; y\" >\n</m>\n");
    }

    #[test]
    fn comment_inside_a_tag_and_hash_inside_quotes() {
        let p = pre("<metric\n  # why\n  range=\"#1\"\n></metric>");
        assert_eq!(p.text, "<metric\n  \n  range=\"#1\"\n></metric>");
    }

    #[test]
    fn maps_back_to_the_original() {
        let p = pre("# c\n<m  name=ABC>");
        let at = p.text.find("ABC").unwrap();
        assert_eq!(p.origin(at).to_string(), "t.xml:2:10");
        // The quote added before an unquoted value points at the value.
        assert_eq!(p.origin(at - 1).to_string(), "t.xml:2:10");
        assert_eq!(p.origin(p.text.len()).to_string(), "t.xml:2:14");
    }

    #[test]
    fn escapes_and_empty_values() {
        let p = pre(r#"<m a="say \"hi\"" b= c='1<2'>"#);
        assert_eq!(p.text, r#"<m a="say &quot;hi&quot;" b="" c="1&lt;2">"#);
    }

    #[test]
    fn unterminated_quote() {
        let e = preprocess("t.xml", "<m\n a=\"abc>\n", PathBuf::from("."), None).err().unwrap();
        assert_eq!(e.to_string(), "t.xml:2:4: quoted value is never closed");
    }

    #[test]
    fn malformed_include() {
        let e = preprocess("t.xml", "\n  #include base.xml\n", PathBuf::from("."), None).err().unwrap();
        assert_eq!(e.to_string(), "t.xml:2:3: malformed #include: expected #include \"FILE\"");
    }
}
