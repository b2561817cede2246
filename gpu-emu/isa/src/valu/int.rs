//! Integer, bit, move and integer-compare operations of the VOP3 opcode space.

use super::Op;

pub fn op(_op: u16) -> Option<Op> {
    None
}
