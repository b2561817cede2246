//! The harness itself: llvm-mc's words run to s_endpgm.

mod common;

#[test]
fn an_empty_program_ends() {
    let w = common::run("s_nop 0", |_| {});
    assert_eq!(w.exec(), u64::MAX);
}
