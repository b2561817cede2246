//! The call record's layout lives with the trace format in `cltap-formats`.
pub use cltap_formats::cltrace::record::*;
