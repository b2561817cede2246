//! Argument text of API lines: RCP's string quoting on the way out, and the
//! bracket- and string-aware scan that splits an argument list on `;` (and
//! finds ` = `) on the way in. The reader returns quoted text as written.

/// RCP's string quoting (`CLStringUtils::GetStringString`), plus `\\` so that
/// the reader can always find the closing quote.
pub fn push_quoted(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn has_line_break(s: &str) -> bool {
    s.contains(['\n', '\r'])
}

/// True when `a`, between two `;`, reads back as exactly itself.
pub(super) fn arg_is_safe(a: &str) -> bool {
    if has_line_break(a) {
        return false;
    }
    let mut scan = Scan::default();
    for c in a.chars() {
        if c == ';' && scan.at_top() {
            return false;
        }
        scan.step(c);
    }
    scan.at_top()
}

/// True when the reader's search for the first top-level ` = ` stops right
/// after `r`.
pub(super) fn ret_is_safe(r: &str) -> bool {
    !has_line_break(r) && find_top(&format!("{r} = "), " = ") == Some(r.len())
}

/// Splits an argument list on `;` outside brackets and quoted strings.
pub(super) fn split_args(body: &str) -> Result<Vec<String>, String> {
    let mut args = Vec::new();
    if body.is_empty() {
        return Ok(args);
    }
    let mut scan = Scan::default();
    let mut from = 0;
    for (i, c) in body.char_indices() {
        if c == ';' && scan.at_top() {
            args.push(body[from..i].to_string());
            from = i + 1;
        } else {
            scan.step(c);
        }
    }
    if !scan.at_top() {
        return Err("unclosed bracket or string in the argument list".into());
    }
    args.push(body[from..].to_string());
    Ok(args)
}

/// Index of the first `pat` outside brackets and quoted strings.
pub(super) fn find_top(s: &str, pat: &str) -> Option<usize> {
    let mut scan = Scan::default();
    for (i, c) in s.char_indices() {
        if scan.at_top() && s[i..].starts_with(pat) {
            return Some(i);
        }
        scan.step(c);
    }
    None
}

/// Bracket depth and string state while walking argument text. Any of `([{`
/// opens and any of `)]}` closes; a stray closer is ignored, so that it cannot
/// swallow a later separator.
#[derive(Default)]
struct Scan {
    depth: u32,
    quoted: bool,
    escaped: bool,
}

impl Scan {
    fn at_top(&self) -> bool {
        self.depth == 0 && !self.quoted
    }

    fn step(&mut self, c: char) {
        if self.quoted {
            if self.escaped {
                self.escaped = false;
            } else if c == '\\' {
                self.escaped = true;
            } else if c == '"' {
                self.quoted = false;
            }
            return;
        }
        match c {
            '"' => self.quoted = true,
            '(' | '[' | '{' => self.depth = self.depth.saturating_add(1),
            ')' | ']' | '}' => self.depth = self.depth.saturating_sub(1),
            _ => {}
        }
    }
}
