//! ICD mode: cltap poses as an OpenCL driver, loads the real ones, and hands
//! the application layer-owned objects so that every later call comes back
//! through cltap (docs/platform-facts.md#the-dispatch-table-and-icd-handles).

pub mod active;
pub mod handles;
pub mod info;
pub mod props;
pub mod vendors;
