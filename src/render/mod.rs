//! Rendering, apart from capture: every output is a [`Sink`] fed the
//! trace's records in order by the [`Renderer`]. `select` turns the
//! [`Outputs`] asked for into sinks; each has its own file here: the API
//! log (`apilog`: its call lines written by `line`, other records' by
//! `comments`, `printer` choosing), the timeline (`timeline`),
//! Perfetto's protobuf trace (`pftrace`), the memory trace and leak check (`memory`), rocpd's database (`rocpd`), the
//! `.atp` (`atp`), the counter
//! files (`counters`), the tools' buffers (`tools`) and the summary's tally
//! (`tally`). On several threads (`parallel`) workers format the API log's
//! text and write it at its place in the file (`placed`), and fill the
//! sinks' per-chunk parts.

pub mod apilog;
pub mod atp;
pub mod atp_call;
mod comments;
mod controls;
pub mod counters;
mod cursor;
mod decoded;
pub mod device;
pub mod driver;
pub mod end_facts;
pub mod hsa_time;
pub mod kernel_names;
mod line;
pub mod memory;
pub mod outputs;
mod parallel;
pub mod pftrace;
pub mod placed;
pub mod printer;
#[doc(hidden)]
pub mod reference;
pub mod rocpd;
pub mod select;
pub mod sink;
pub mod tally;
pub mod thread_names;
mod timebase;
pub mod timeline;
pub mod tools;
mod values;

pub use driver::Renderer;
pub use outputs::{atp_header, clock_text, plain_stem, process_of, stem_of, Dest, Outputs};
pub use sink::{End, InFlight, Kinds, NewPart, Open, Part, Results, Sink};
