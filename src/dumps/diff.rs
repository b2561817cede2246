//! `cltap dumps diff BEFORE AFTER`: two folders of dumps (an enqueue's
//! `before/` and `after/`, or one run's `after/` and another's) compared
//! file by file, by name: which arguments changed, and where each first
//! differs.

use std::collections::BTreeSet;
use std::path::Path;

/// One file's comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Same,
    /// First differing byte, its values, and how many bytes differ.
    Differs {
        at: usize,
        a: u8,
        b: u8,
        count: usize,
    },
    /// Sizes differ (and, within the shorter, the first differing byte).
    Sizes {
        a: usize,
        b: usize,
        at: Option<usize>,
    },
    OnlyIn(&'static str),
}

/// The first difference of two byte strings: its offset and how many
/// bytes differ within the common length.
pub fn first_difference(a: &[u8], b: &[u8]) -> Option<(usize, usize)> {
    let mut first = None;
    let mut count = 0;
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if x != y {
            first.get_or_insert(i);
            count += 1;
        }
    }
    first.map(|f| (f, count))
}

/// Compares two files' bytes.
pub fn compare(a: &[u8], b: &[u8]) -> Change {
    let d = first_difference(a, b);
    if a.len() != b.len() {
        return Change::Sizes { a: a.len(), b: b.len(), at: d.map(|d| d.0) };
    }
    match d {
        None => Change::Same,
        Some((at, count)) => Change::Differs { at, a: a[at], b: b[at], count },
    }
}

/// Every file name of either folder with its change, in name order.
pub fn folders(a: &Path, b: &Path) -> std::io::Result<Vec<(String, Change)>> {
    let names = |d: &Path| -> std::io::Result<BTreeSet<String>> {
        let mut s = BTreeSet::new();
        let listing =
            std::fs::read_dir(d).map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", d.display())))?;
        for e in listing {
            let e = e?;
            if e.file_type()?.is_file() {
                s.insert(e.file_name().to_string_lossy().into_owned());
            }
        }
        Ok(s)
    };
    let (na, nb) = (names(a)?, names(b)?);
    let mut out = Vec::new();
    for n in na.union(&nb) {
        let c = match (na.contains(n), nb.contains(n)) {
            (true, true) => compare(&std::fs::read(a.join(n))?, &std::fs::read(b.join(n))?),
            (true, false) => Change::OnlyIn("the first"),
            _ => Change::OnlyIn("the second"),
        };
        out.push((n.clone(), c));
    }
    Ok(out)
}

/// A line for one file (`None` when it is the same in both).
pub fn line(name: &str, c: &Change) -> Option<String> {
    Some(match c {
        Change::Same => return None,
        Change::Differs { at, a, b, count } => {
            format!("{name}: changed: first difference at byte {at} ({a:#04x} -> {b:#04x}), {count} bytes differ")
        }
        Change::Sizes { a, b, at } => format!(
            "{name}: sizes differ ({a} and {b} bytes){}",
            at.map(|x| format!(", first difference at byte {x}")).unwrap_or_default()
        ),
        Change::OnlyIn(w) => format!("{name}: only in {w} folder"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_differences() {
        assert_eq!(compare(b"abcd", b"abcd"), Change::Same);
        assert_eq!(compare(b"abcd", b"abXY"), Change::Differs { at: 2, a: b'c', b: b'X', count: 2 });
        assert_eq!(compare(b"abc", b"abcd"), Change::Sizes { a: 3, b: 4, at: None });
        assert_eq!(
            line("e1-k.a0.m1.bin", &compare(&[0, 1], &[0, 2])).unwrap(),
            "e1-k.a0.m1.bin: changed: first difference at byte 1 (0x01 -> 0x02), 1 bytes differ"
        );
    }
}
