//! The documentation holds together: the README stays a front page (at most
//! 300 lines), and every relative link in README.md and docs/*.md reaches a
//! file of the repository, and a heading of it where the link names one
//! (`page.md#section`, with GitHub's rule for heading anchors). The
//! `docs/page.md#section` citations in Rust comments resolve the same way.
//! The measurement notebooks (`docs/measurements/`) are checked too; their
//! own index is `docs/measurements/README.md`, which docs/README.md links.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

const README_MAX_LINES: usize = 300;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The markdown pages of one folder, sorted.
fn md_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    v.sort();
    v
}

/// README.md, every page under docs/, and the measurement notebooks under
/// docs/measurements/.
fn pages() -> Vec<PathBuf> {
    let mut v = vec![root().join("README.md")];
    v.extend(md_in(&root().join("docs")));
    v.extend(md_in(&root().join("docs/measurements")));
    v
}

/// The lines of a markdown file outside fenced code blocks.
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push((i + 1, line));
        }
    }
    out
}

/// Inline code spans removed, so that `[x](y)` inside backticks is no link.
fn without_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
        } else if !in_code {
            out.push(c);
        }
    }
    out
}

/// The targets of `[text](target)` links on a line.
fn link_targets(line: &str) -> Vec<String> {
    let line = without_code_spans(line);
    let mut out = Vec::new();
    let mut rest = line.as_str();
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        match after.find(')') {
            Some(j) => {
                out.push(after[..j].trim().to_string());
                rest = &after[j..];
            }
            None => break,
        }
    }
    out
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces
/// as hyphens; link text kept, code marks dropped.
fn slug(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    // [text](url) → text
    while let Some(i) = rest.find('[') {
        text.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match (after.find("]("), after.find(')')) {
            (Some(j), Some(k)) if j < k => {
                text.push_str(&after[..j]);
                rest = &after[k + 1..];
            }
            _ => {
                text.push('[');
                rest = after;
            }
        }
    }
    text.push_str(rest);
    text.to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// Every heading anchor of a markdown file, duplicates numbered as GitHub does.
fn anchors(path: &Path) -> HashSet<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut seen = HashSet::new();
    for (_, line) in prose_lines(&text) {
        let t = line.trim_start();
        if !t.starts_with('#') {
            continue;
        }
        let title = t.trim_start_matches('#');
        if !title.starts_with(' ') {
            continue;
        }
        let base = slug(title.trim());
        let mut s = base.clone();
        let mut n = 0;
        while seen.contains(&s) {
            n += 1;
            s = format!("{base}-{n}");
        }
        seen.insert(s);
    }
    seen
}

/// What is wrong with one link of `page`, if anything.
fn check(page: &Path, target: &str) -> Option<String> {
    if target.is_empty() {
        return Some("an empty link".into());
    }
    if target.contains("://") || target.starts_with("mailto:") {
        return None;
    }
    let (file, anchor) = match target.split_once('#') {
        Some((f, a)) => (f, Some(a)),
        None => (target, None),
    };
    let dest = if file.is_empty() { page.to_path_buf() } else { page.parent().unwrap().join(file) };
    if !dest.exists() {
        return Some(format!("{} does not exist", dest.display()));
    }
    if !dest.canonicalize().unwrap().starts_with(root().canonicalize().unwrap()) {
        return Some(format!("{} is outside the repository", dest.display()));
    }
    if let Some(a) = anchor {
        if dest.extension().is_some_and(|x| x == "md") && !anchors(&dest).contains(a) {
            return Some(format!("{} has no heading with the anchor #{a}", dest.display()));
        }
    }
    None
}

#[test]
fn the_readme_is_a_front_page_of_at_most_300_lines() {
    let n = std::fs::read_to_string(root().join("README.md")).unwrap().lines().count();
    assert!(n <= README_MAX_LINES, "README.md has {n} lines; move detail into docs/ (at most {README_MAX_LINES})");
}

#[test]
fn every_relative_link_of_the_readme_and_the_docs_resolves() {
    let mut bad = Vec::new();
    let mut links = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for (n, line) in prose_lines(&text) {
            for target in link_targets(line) {
                links += 1;
                if let Some(why) = check(&page, &target) {
                    bad.push(format!("{}:{n}: ({target}): {why}", page.strip_prefix(root()).unwrap().display()));
                }
            }
        }
    }
    assert!(links > 50, "only {links} links found: the scanner is broken");
    assert!(bad.is_empty(), "broken links:\n{}", bad.join("\n"));
}

/// Every `.rs` file of the workspace's sources, tests and build scripts.
fn rust_sources() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    for d in ["src", "icd-layer", "formats", "apidesc", "tests"] {
        walk(&root().join(d), &mut out);
    }
    out.push(root().join("build.rs"));
    // This file's own examples are not citations.
    out.retain(|p| !p.ends_with("tests/docs_links.rs"));
    out
}

/// The `docs/PAGE.md` and `docs/PAGE.md#anchor` citations in a text.
fn doc_citations(text: &str) -> Vec<String> {
    let ok = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' || c == '#';
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("docs/") {
        let tail = &rest[i..];
        let end = tail.find(|c: char| !(ok(c) || c == '/')).unwrap_or(tail.len());
        let cite = tail[..end].trim_end_matches('.');
        if cite.contains(".md") {
            out.push(cite.to_string());
        }
        rest = &tail[5..];
    }
    out
}

#[test]
fn every_docs_page_a_rust_comment_cites_exists_with_its_anchor() {
    let mut bad = Vec::new();
    let mut seen = 0;
    for file in rust_sources() {
        let text = std::fs::read_to_string(&file).unwrap();
        for cite in doc_citations(&text) {
            seen += 1;
            if let Some(why) = check(&root().join("README.md"), &cite) {
                bad.push(format!("{}: {cite}: {why}", file.strip_prefix(root()).unwrap().display()));
            }
        }
    }
    assert!(seen > 10, "only {seen} citations found: the scanner is broken");
    assert!(bad.is_empty(), "citations that do not resolve:\n{}", bad.join("\n"));
}

#[test]
fn the_docs_index_lists_every_page() {
    let index = std::fs::read_to_string(root().join("docs/README.md")).unwrap();
    let missing: Vec<String> = md_in(&root().join("docs"))
        .into_iter()
        .filter_map(|p| p.file_name().map(|f| f.to_string_lossy().into_owned()))
        .filter(|f| f != "README.md" && !index.contains(&format!("]({f})")))
        .collect();
    assert!(missing.is_empty(), "docs/README.md does not link {missing:?}");
}

#[test]
fn the_anchor_rule_matches_githubs() {
    assert_eq!(slug("The `.atp` trace"), "the-atp-trace");
    assert_eq!(slug("ROCr's tool loading"), "rocrs-tool-loading");
    assert_eq!(slug("Buffered records (`include/cltap_buffer.h`)"), "buffered-records-includecltap_bufferh");
    assert_eq!(slug("See [x](y.md) now"), "see-x-now");
    assert_eq!(link_targets("a [b](c.md#d) and `[e](f)` [g](h)"), vec!["c.md#d", "h"]);
    assert_eq!(doc_citations("(docs/a.md#b-c). and docs/x/ docs/e.md."), vec!["docs/a.md#b-c", "docs/e.md"]);
}
