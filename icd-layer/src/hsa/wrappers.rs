//! One `extern "C"` wrapper per HSA table entry, generated from
//! `api/hsa.api` (see build.rs): each opens its call's record, forwards to
//! the runtime's entry that `OnLoad` saved in [`ORIG`], completes the record
//! and returns the result unchanged.

use super::api::COUNT;

/// The wrappers' addresses, by HSA function id.
pub struct Wrappers(pub [*const core::ffi::c_void; COUNT]);
// SAFETY: addresses of functions, never written.
unsafe impl Sync for Wrappers {}

/// A struct of `N` words passed by value (`[struct=N]` in `api/hsa.api`):
/// the same size and alignment as the C struct, so it travels the same way.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ByValue<const N: usize>(pub [u64; N]);

include!(concat!(env!("OUT_DIR"), "/hsa_wrappers.rs"));

/// The runtime's own entry `i` (cltap's calls are never the application's).
pub fn orig(i: usize) -> usize {
    ORIG[i].load(std::sync::atomic::Ordering::Acquire)
}
