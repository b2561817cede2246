//! Float operations of the VOP3 opcode space: f16, f32 and f64 arithmetic, transcendentals,
//! conversions, float compares and classes, with the MODE register's denormal handling.

use super::Op;

pub fn op(_op: u16) -> Option<Op> {
    None
}
