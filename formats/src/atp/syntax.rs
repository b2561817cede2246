//! What the reader's parts share: the error that names a line, and the
//! test for a section's first line (where the header, or a block, ends).

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct ReadError {
    /// 1-based.
    pub line: usize,
    pub reason: String,
}

pub(super) fn err(line: usize, reason: impl Into<String>) -> ReadError {
    ReadError { line, reason: reason.into() }
}

/// A line that ends the header: RCP's parser takes any line starting with `=`
/// as the first section marker.
pub(super) fn starts_section(l: &str) -> bool {
    l.trim_start().starts_with('=')
}
