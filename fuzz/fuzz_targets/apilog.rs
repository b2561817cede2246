#![no_main]
// The apilog reader; the same function tests/fuzz.rs runs (docs/fuzzing.md).
libfuzzer_sys::fuzz_target!(|data: &[u8]| cltap::fuzz::apilog(data));
