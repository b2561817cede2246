#![no_main]
// The rocp_input reader; the same function tests/fuzz.rs runs (docs/fuzzing.md).
libfuzzer_sys::fuzz_target!(|data: &[u8]| cltap::fuzz::rocp_input(data));
