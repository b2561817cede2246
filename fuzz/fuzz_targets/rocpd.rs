#![no_main]
// The rocpd database reader; the same function tests/fuzz.rs runs (docs/fuzzing.md).
libfuzzer_sys::fuzz_target!(|data: &[u8]| cltap::fuzz::rocpd(data));
