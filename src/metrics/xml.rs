//! Reading the preprocessed text with quick-xml: first into a flat list of
//! elements (shared with the ROCP_INPUT reader), then into the sections and
//! entries of a metrics file.

use super::blocks::Block;
use super::error::{MetricsError, Origin};
use super::expr::{self, Expr, Name, ParseErrorKind};
use super::syntax::Preprocessed;
use quick_xml::events::attributes::AttrError;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

/// One attribute; `at` is the offset (in the preprocessed text) of the
/// value's first character. `exact` says that offsets inside the value map
/// one to one (nothing was unescaped).
pub(crate) struct Attr {
    pub key: String,
    pub value: String,
    pub at: usize,
    pub exact: bool,
}

pub(crate) struct Element {
    pub tag: String,
    pub at: usize,
    pub attrs: Vec<Attr>,
}

impl Element {
    pub fn attr(&self, key: &str) -> Option<&Attr> {
        self.attrs.iter().find(|a| a.key == key)
    }
}

pub(crate) enum Node {
    Open(Element),
    Close,
}

fn malformed(pre: &Preprocessed, at: usize, msg: impl Into<String>) -> MetricsError {
    MetricsError::Malformed { at: pre.origin(at), msg: msg.into() }
}

/// The elements of the text in document order, an `Open` and a `Close` for
/// each; text other than white space is an error.
pub(crate) fn nodes(pre: &Preprocessed) -> Result<Vec<Node>, MetricsError> {
    let text = pre.text.as_str();
    let mut reader = Reader::from_str(text);
    let mut out = Vec::new();
    let mut open: Vec<(String, usize)> = Vec::new();
    loop {
        let before = reader.buffer_position() as usize;
        let event = reader
            .read_event()
            .map_err(|e| malformed(pre, reader.error_position() as usize, format!("malformed XML: {e}")))?;
        match event {
            Event::Start(e) => {
                let el = element(pre, text, &e, before)?;
                open.push((el.tag.clone(), before));
                out.push(Node::Open(el));
            }
            Event::Empty(e) => {
                out.push(Node::Open(element(pre, text, &e, before)?));
                out.push(Node::Close);
            }
            Event::End(_) => {
                open.pop();
                out.push(Node::Close);
            }
            Event::Text(t) => {
                let raw = String::from_utf8_lossy(&t);
                if let Some(skip) = raw.find(|c: char| !c.is_whitespace()) {
                    let word: String = raw[skip..].split_whitespace().next().unwrap_or("").chars().take(24).collect();
                    return Err(malformed(pre, before + skip, format!("unexpected text '{word}' outside a tag")));
                }
            }
            Event::CData(_) => return Err(malformed(pre, before, "unexpected CDATA section")),
            Event::Eof => {
                if let Some((tag, at)) = open.pop() {
                    return Err(malformed(pre, at, format!("<{tag}> is never closed")));
                }
                return Ok(out);
            }
            // Declarations, XML comments, processing instructions: nothing to read.
            _ => {}
        }
    }
}

fn element(pre: &Preprocessed, text: &str, e: &BytesStart<'_>, at: usize) -> Result<Element, MetricsError> {
    let tag = String::from_utf8_lossy(e.name().as_ref()).into_owned();
    let mut attrs = Vec::new();
    for a in e.attributes() {
        let a = a.map_err(|err| attr_error(pre, at, &tag, &err))?;
        let key = String::from_utf8_lossy(a.key.as_ref()).into_owned();
        // With a borrowed reader the raw value is a slice of `text`: its
        // address gives its place.
        let raw: &[u8] = &a.value;
        let offset =
            (raw.as_ptr() as usize).checked_sub(text.as_ptr() as usize).filter(|o| *o <= text.len()).unwrap_or(at);
        let value = a
            .unescape_value()
            .map_err(|err| malformed(pre, offset, format!("bad value of '{key}': {err}")))?
            .into_owned();
        let exact = value.as_bytes() == raw;
        attrs.push(Attr { key, value, at: offset, exact });
    }
    Ok(Element { tag, at, attrs })
}

/// quick-xml counts attribute positions from the character after `<`.
fn attr_error(pre: &Preprocessed, tag_at: usize, tag: &str, err: &AttrError) -> MetricsError {
    let (pos, what) = match err {
        AttrError::ExpectedEq(p) => (*p, "an attribute name must be followed by '='".to_string()),
        AttrError::ExpectedValue(p) => (*p, "attribute without a value".to_string()),
        AttrError::UnquotedValue(p) => (*p, "bad attribute value".to_string()),
        AttrError::ExpectedQuote(p, _) => (*p, "attribute value without a closing quote".to_string()),
        AttrError::Duplicated(p, prev) => {
            (*p, format!("attribute given twice (first at {})", pre.origin(tag_at + 1 + prev)))
        }
    };
    malformed(pre, tag_at + 1 + pos, format!("bad attribute in <{tag}>: {what}"))
}

/// A `<metric>` entry of a section.
pub(crate) struct RawMetric {
    pub name: String,
    pub name_at: usize,
    pub descr: String,
    pub body: RawBody,
}

pub(crate) enum RawBody {
    Basic { block: Block, event: u32 },
    Derived { text: String, text_at: usize, exact: bool, tree: Expr<Name> },
}

/// All occurrences of one section tag, merged (rocprofiler merges them too:
/// `metrics.xml` adds `<gfx9 base="gfx9_expr">` to the `<gfx9>` of the file it
/// includes).
pub(crate) struct RawSection {
    pub name: String,
    pub at: usize,
    pub bases: Vec<(String, usize)>,
    pub metrics: Vec<RawMetric>,
}

pub(crate) struct Document {
    pub pre: Preprocessed,
    pub sections: Vec<RawSection>,
}

impl Document {
    pub fn section(&self, name: &str) -> Option<usize> {
        self.sections.iter().position(|s| s.name == name)
    }

    /// Where byte `offset` of a derived metric's expression is.
    pub fn expr_origin(&self, m: &RawMetric, offset: usize) -> Origin {
        match &m.body {
            RawBody::Derived { text_at, exact: true, .. } => self.pre.origin(text_at + offset),
            RawBody::Derived { text_at, .. } => self.pre.origin(*text_at),
            RawBody::Basic { .. } => self.pre.origin(m.name_at),
        }
    }
}

enum Frame {
    Wrapper,
    Section,
    Metric,
}

/// Reads a metrics file: sections of `<metric>` entries, optionally inside one
/// `<metrics>` wrapper (the layout of rocprofiler's `derived/metrics.xml`).
/// Checks what does not depend on the GPU: tags, attributes, block names,
/// expression syntax. Duplicates are looked for only in the sections a GPU
/// uses (as rocprofiler, which finds them when importing a section).
pub(crate) fn read(pre: Preprocessed) -> Result<Document, MetricsError> {
    let mut sections: Vec<RawSection> = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut current = 0usize;
    for node in nodes(&pre)? {
        let el = match node {
            Node::Close => {
                stack.pop();
                continue;
            }
            Node::Open(el) => el,
        };
        match stack.last() {
            None if el.tag == "metrics" => stack.push(Frame::Wrapper),
            None | Some(Frame::Wrapper) => {
                if el.tag == "metric" {
                    return Err(malformed(&pre, el.at, "<metric> outside a section (put it in <gfx9>, <global>, ...)"));
                }
                current = match sections.iter().position(|s| s.name == el.tag) {
                    Some(i) => i,
                    None => {
                        sections.push(RawSection {
                            name: el.tag.clone(),
                            at: el.at,
                            bases: Vec::new(),
                            metrics: Vec::new(),
                        });
                        sections.len() - 1
                    }
                };
                if let Some(base) = el.attr("base").filter(|b| !b.value.is_empty()) {
                    sections[current].bases.push((base.value.clone(), base.at));
                }
                stack.push(Frame::Section);
            }
            Some(Frame::Section) => {
                if el.tag != "metric" {
                    let section = &sections[current].name;
                    return Err(malformed(
                        &pre,
                        el.at,
                        format!("unexpected <{}> in section <{section}> (only <metric> entries)", el.tag),
                    ));
                }
                let m = metric(&pre, &el)?;
                sections[current].metrics.push(m);
                stack.push(Frame::Metric);
            }
            Some(Frame::Metric) => {
                return Err(malformed(
                    &pre,
                    el.at,
                    format!("unexpected <{}> inside <metric> (entries have no children)", el.tag),
                ));
            }
        }
    }
    Ok(Document { pre, sections })
}

pub(crate) fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(f) if f.is_ascii_alphabetic() || f == '_')
        && c.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn metric(pre: &Preprocessed, el: &Element) -> Result<RawMetric, MetricsError> {
    let name = el
        .attr("name")
        .filter(|a| !a.value.is_empty())
        .ok_or_else(|| malformed(pre, el.at, "<metric> without name="))?;
    if !is_identifier(&name.value) {
        return Err(malformed(
            pre,
            name.at,
            format!("metric name '{}' is not a name an expression can use (letters, digits, _)", name.value),
        ));
    }
    let descr = el.attr("descr").map(|a| a.value.clone()).unwrap_or_default();
    let expr = el.attr("expr").filter(|a| !a.value.trim().is_empty());
    let block = el.attr("block");
    let event = el.attr("event");
    let body = match (expr, block, event) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            return Err(malformed(pre, name.at, format!("metric '{}' has both expr= and block=/event=", name.value)))
        }
        (Some(e), None, None) => {
            let tree = expr::parse(&e.value).map_err(|err| {
                let at = if e.exact { pre.origin(e.at + err.at) } else { pre.origin(e.at) };
                match err.kind {
                    ParseErrorKind::Syntax(msg) => MetricsError::ExprSyntax { at, msg },
                    ParseErrorKind::UnknownFunction(name) => MetricsError::UnknownFunction { at, name },
                }
            })?;
            RawBody::Derived { text: e.value.clone(), text_at: e.at, exact: e.exact, tree }
        }
        (None, Some(b), Some(ev)) => {
            let block = Block::from_name(&b.value).ok_or_else(|| MetricsError::UnknownBlock {
                at: pre.origin(b.at),
                block: b.value.clone(),
                known: Block::names(),
            })?;
            let event = parse_u32(&ev.value).ok_or_else(|| {
                malformed(pre, ev.at, format!("event '{}' of metric '{}' is not a number", ev.value, name.value))
            })?;
            RawBody::Basic { block, event }
        }
        _ => {
            return Err(malformed(
                pre,
                name.at,
                format!("metric '{}' needs block= and event= (a counter) or expr= (a derived metric)", name.value),
            ))
        }
    };
    Ok(RawMetric { name: name.value.clone(), name_at: name.at, descr, body })
}

/// Decimal or `0x` hexadecimal.
pub(crate) fn parse_u32(s: &str) -> Option<u32> {
    let s = s.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}
