//! The figures the docs state hold together.
//!
//! The convention: every measured figure the README states is in one table,
//! its section "What it costs", as `| figure | value |` rows; each row is a
//! row of the "Current figures" table of `docs/measurements/README.md` with
//! the same name and the same value. Outside that section (and outside code
//! blocks, which show a run's output) the README's prose states no figure
//! with a unit of time, size or rate, so a figure cannot slip past the
//! table. And the trace header keys that `docs/trace-format.md` lists are
//! the ones the writer writes.

use std::collections::HashMap;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The lines of a markdown text outside fenced code blocks, numbered from 1.
fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push((i + 1, line));
        }
    }
    out
}

/// The lines of the section under the `## title` heading, up to the next
/// heading of level 1 or 2.
fn section<'a>(lines: &[(usize, &'a str)], title: &str) -> Vec<(usize, &'a str)> {
    let start = lines
        .iter()
        .position(|(_, l)| l.trim() == format!("## {title}"))
        .unwrap_or_else(|| panic!("no section \"## {title}\""));
    lines[start + 1..].iter().take_while(|(_, l)| !(l.starts_with("# ") || l.starts_with("## "))).copied().collect()
}

/// The cells of a table row, trimmed; None for a line that is not a body row.
fn cells(line: &str) -> Option<Vec<String>> {
    let t = line.trim();
    if !t.starts_with('|') || t.starts_with("|---") || t.starts_with("| ---") {
        return None;
    }
    Some(t.trim_matches('|').split('|').map(|c| c.trim().to_string()).collect())
}

/// `figure → value` from the first two columns of a section's table, the
/// header row left out.
fn figures(lines: &[(usize, &str)]) -> Vec<(usize, String, String)> {
    lines
        .iter()
        .filter_map(|(n, l)| cells(l).map(|c| (*n, c)))
        .filter(|(_, c)| c.len() >= 2 && c[0] != "figure")
        .map(|(n, c)| (n, c[0].clone(), c[1].clone()))
        .collect()
}

fn table() -> HashMap<String, String> {
    let text = read("docs/measurements/README.md");
    let lines = prose(&text);
    let rows = figures(&section(&lines, "Current figures"));
    let mut map = HashMap::new();
    for (n, name, value) in rows {
        assert!(
            value.chars().any(|c| c.is_ascii_digit()),
            "docs/measurements/README.md:{n}: {name} has no figure: {value:?}"
        );
        assert!(
            map.insert(name.clone(), value).is_none(),
            "docs/measurements/README.md:{n}: {name} is in the table twice"
        );
    }
    map
}

/// Whether a line states a figure with a unit: a number, then (after an
/// optional space) a unit of time, size or rate.
fn states_a_figure(line: &str) -> Option<String> {
    const UNITS: [&str; 13] =
        ["ns", "µs", "us", "ms", "KiB", "MiB", "GiB", "KB", "MB", "GB", "bytes", "M records/s", "M/s"];
    let line = line.replace('\u{a0}', " ");
    let chars: Vec<char> = line.chars().collect();
    for i in 0..chars.len() {
        if !chars[i].is_ascii_digit() || (i > 0 && (chars[i - 1].is_ascii_alphanumeric() || chars[i - 1] == '_')) {
            continue;
        }
        let mut j = i;
        while j < chars.len() && (chars[j].is_ascii_digit() || chars[j] == '.' || chars[j] == ',') {
            j += 1;
        }
        let rest: String = chars[j..].iter().collect();
        let rest = rest.strip_prefix(' ').unwrap_or(&rest);
        for u in UNITS {
            if let Some(after) = rest.strip_prefix(u) {
                if !after.starts_with(|c: char| c.is_alphanumeric()) {
                    return Some(format!("{}{u}", chars[i..j].iter().collect::<String>()));
                }
            }
        }
    }
    None
}

#[test]
fn every_figure_of_the_readme_is_a_row_of_the_current_figures_with_the_same_value() {
    let table = table();
    assert!(table.len() >= 5, "only {} rows in the current figures: the scanner is broken", table.len());
    let text = read("README.md");
    let lines = prose(&text);
    let stated = figures(&section(&lines, "What it costs"));
    assert!(
        stated.len() >= 5,
        "only {} figures in the README's \"What it costs\": the scanner is broken",
        stated.len()
    );
    let mut bad = Vec::new();
    for (n, name, value) in stated {
        match table.get(&name) {
            None => bad.push(format!("README.md:{n}: \"{name}\" is not a row of docs/measurements/README.md")),
            Some(v) if *v != value => {
                bad.push(format!("README.md:{n}: \"{name}\" is {value:?} here, {v:?} in the table"))
            }
            Some(_) => {}
        }
    }
    assert!(bad.is_empty(), "README figures that differ from the current figures:\n{}", bad.join("\n"));
}

#[test]
fn the_readme_states_figures_only_in_what_it_costs() {
    let text = read("README.md");
    let lines = prose(&text);
    let costs: Vec<usize> = section(&lines, "What it costs").iter().map(|(n, _)| *n).collect();
    let bad: Vec<String> = lines
        .iter()
        .filter(|(n, _)| !costs.contains(n))
        .filter_map(|(n, l)| states_a_figure(l).map(|f| format!("README.md:{n}: {f}")))
        .collect();
    assert!(bad.is_empty(), "figures outside \"What it costs\" (move them into that table):\n{}", bad.join("\n"));
}

#[test]
fn the_figure_scanner_sees_figures_and_only_figures() {
    assert_eq!(states_a_figure("costs +29.7 ns a call"), Some("29.7ns".into()));
    assert_eq!(states_a_figure("at least 1 MiB per thread"), Some("1MiB".into()));
    assert_eq!(states_a_figure("12.7 to 26.4 M records/s"), Some("26.4M records/s".into()));
    assert_eq!(states_a_figure("30 bytes"), Some("30bytes".into()));
    assert_eq!(states_a_figure("ROCm 5.2.3 on gfx906, driver 580, 2 cores"), None);
    assert_eq!(states_a_figure("`CLTAP_BUFFER_SIZE`, H200 and x86_64 names"), None);
}

/// The keys the writer puts in a trace's information: the string literals
/// paired as `("key".into(), …)` or `("key".to_string(), …)`.
fn written_keys(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    for pat in ["\".into()", "\".to_string()"] {
        let mut rest = src;
        while let Some(i) = rest.find(pat) {
            let before = &rest[..i];
            if let Some(q) = before.rfind("(\"") {
                let key = &before[q + 2..];
                if !key.is_empty() && key.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                    out.push(key.to_string());
                }
            }
            rest = &rest[i + pat.len()..];
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn trace_format_lists_every_header_key_the_writer_writes() {
    // The trace's settings and process (settings.rs) and its start (writer.rs).
    let mut keys = written_keys(&(read("src/trace/settings.rs") + &read("src/trace/writer.rs")));
    // The HSA tool adds its clock's offset at OnLoad (src/trace/hsa_clock.rs).
    let hsa = read("src/trace/hsa_clock.rs");
    assert!(hsa.contains("INFO_HSA_CLOCK_OFFSET"), "hsa_clock.rs no longer names INFO_HSA_CLOCK_OFFSET");
    keys.push("hsa_clock_offset".into());
    for k in ["stem", "cmdline", "api_log", "render"] {
        assert!(keys.iter().any(|x| x == k), "the key scanner missed {k}: it is broken ({keys:?})");
    }
    let doc = read("docs/trace-format.md");
    let missing: Vec<&String> = keys.iter().filter(|k| !doc.contains(&format!("`{k}`"))).collect();
    assert!(missing.is_empty(), "docs/trace-format.md does not list the trace header keys {missing:?}");
}
