//! Every file format cltap writes, each with a reader; round-trip tests show
//! that the two agree.

pub mod apilog;
