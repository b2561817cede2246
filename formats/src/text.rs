//! Pieces the line-oriented text formats share: reading non-blank lines
//! with their numbers, and writing `key=value` header lines.

/// Non-blank lines with their 1-based numbers, CRLF accepted, one line of
/// look-ahead.
pub(crate) struct Lines<'a> {
    inner: std::iter::Enumerate<std::str::Lines<'a>>,
    peeked: Option<(usize, &'a str)>,
}

impl<'a> Lines<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Lines { inner: text.lines().enumerate(), peeked: None }
    }

    fn fetch(&mut self) -> Option<(usize, &'a str)> {
        for (i, l) in self.inner.by_ref() {
            let l = l.strip_suffix('\r').unwrap_or(l);
            if !l.trim().is_empty() {
                return Some((i + 1, l));
            }
        }
        None
    }

    pub(crate) fn peek(&mut self) -> Option<(usize, &'a str)> {
        if self.peeked.is_none() {
            self.peeked = self.fetch();
        }
        self.peeked
    }

    pub(crate) fn take(&mut self) -> Option<(usize, &'a str)> {
        self.peeked.take().or_else(|| self.fetch())
    }
}

/// `key=value` and a line break. The reader splits at the first `=`, so an
/// `=` in the key becomes `_`; line breaks in either become spaces.
pub(crate) fn push_key_value(out: &mut String, key: &str, value: &str) {
    out.extend(key.chars().map(|c| match c {
        '=' => '_',
        '\n' | '\r' => ' ',
        c => c,
    }));
    out.push('=');
    out.extend(value.chars().map(|c| if c == '\n' || c == '\r' { ' ' } else { c }));
    out.push('\n');
}

/// RCP's `FullEnvironment=` and `EnvVar=NAME=VALUE` header lines, written
/// only when there are variables to list.
pub(crate) fn push_environment(h: &mut Vec<(String, String)>, full: bool, vars: &[(String, String)]) {
    if vars.is_empty() {
        return;
    }
    h.push(("FullEnvironment".to_string(), if full { "1" } else { "0" }.to_string()));
    for (name, value) in vars {
        h.push(("EnvVar".to_string(), format!("{name}={value}")));
    }
}

/// `s` with its control characters escaped (`\n`, `\u{1b}`), so that a
/// name or message from a file cannot break a line, or a terminal, it is
/// printed on.
pub fn escape_controls(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return s.into();
    }
    s.chars().flat_map(|c| if c.is_control() { c.escape_default().collect() } else { vec![c] }).collect()
}
