//! The read-modify-write operations of the vector memory atomics (FLAT, GLOBAL, MUBUF) and of the
//! LDS atomics (DS), as pure functions of the old value and the instruction's data, and their
//! application to host memory (as host atomics: work-groups run on several host threads) and to
//! LDS (plain bytes: a work-group's waves run one after another on one thread).

use std::sync::atomic::Ordering::SeqCst;

use crate::fault::Fault;
use crate::memory::{self, Memory, Site};

/// One atomic operation. `src` is the instruction's data (DATA), `cmp` the second datum where
/// the operation has one (DATA2 of DS, or the compare half of a FLAT/MUBUF cmpswap).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Swap,
    /// Stores `src` if the old value equals `cmp`.
    CmpSwap,
    Add,
    Sub,
    /// DS only: data minus the old value.
    Rsub,
    Smin,
    Umin,
    Smax,
    Umax,
    And,
    Or,
    Xor,
    /// old >= src ? 0 : old + 1.
    Inc,
    /// old == 0 || old > src ? src : old - 1.
    Dec,
    /// DS: (old & ~src) | cmp.
    Mskor,
    /// DS: old >= src ? old - src : old + cmp (32-bit only).
    Wrap,
    /// DS float forms, on f32 or f64 bits.
    FAdd,
    FMin,
    FMax,
    /// DS cmpst_f32/f64: compares as floats (+0 equals -0, NaN equals nothing).
    FCmpSwap,
}

/// One body for both widths: `$u` the word, `$i` its signed view, `$f` its float view.
macro_rules! apply {
    ($(#[$doc:meta])* $name:ident, $u:ty, $i:ty, $f:ty) => {
        $(#[$doc])*
        pub fn $name(self, old: $u, src: $u, cmp: $u) -> $u {
            let f = <$f>::from_bits;
            let pick = |take: bool| if take { src } else { old };
            match self {
                Op::Swap => src,
                Op::CmpSwap => pick(old == cmp),
                Op::Add => old.wrapping_add(src),
                Op::Sub => old.wrapping_sub(src),
                Op::Rsub => src.wrapping_sub(old),
                Op::Smin => (old as $i).min(src as $i) as $u,
                Op::Umin => old.min(src),
                Op::Smax => (old as $i).max(src as $i) as $u,
                Op::Umax => old.max(src),
                Op::And => old & src,
                Op::Or => old | src,
                Op::Xor => old ^ src,
                Op::Inc => {
                    if old >= src {
                        0
                    } else {
                        old + 1
                    }
                }
                Op::Dec => {
                    if old == 0 || old > src {
                        src
                    } else {
                        old - 1
                    }
                }
                Op::Mskor => (old & !src) | cmp,
                Op::Wrap => {
                    if old >= src {
                        old - src
                    } else {
                        old.wrapping_add(cmp)
                    }
                }
                Op::FAdd => (f(old) + f(src)).to_bits(),
                // A NaN operand loses to a number, as v_min/v_max in IEEE mode.
                Op::FMin => f(old).min(f(src)).to_bits(),
                Op::FMax => f(old).max(f(src)).to_bits(),
                Op::FCmpSwap => pick(f(old) == f(cmp)),
            }
        }
    };
}

impl Op {
    apply!(
        /// The new 32-bit value.
        apply32, u32, i32, f32
    );
    apply!(
        /// The new 64-bit value (Wrap has no 64-bit form and behaves as on 64-bit integers).
        apply64, u64, i64, f64
    );
}

/// Applies `op` to the 32-bit word of GPU memory at `addr` as one host atomic; returns the old
/// value.
pub fn host32(mem: &dyn Memory, addr: u64, site: Site, op: Op, src: u32, cmp: u32) -> Result<u32, Fault> {
    let a = memory::atomic32(mem, addr, site)?;
    Ok(match op {
        Op::Swap => a.swap(src, SeqCst),
        Op::Add => a.fetch_add(src, SeqCst),
        Op::Sub => a.fetch_sub(src, SeqCst),
        Op::And => a.fetch_and(src, SeqCst),
        Op::Or => a.fetch_or(src, SeqCst),
        Op::Xor => a.fetch_xor(src, SeqCst),
        Op::Umin => a.fetch_min(src, SeqCst),
        Op::Umax => a.fetch_max(src, SeqCst),
        Op::CmpSwap => a.compare_exchange(cmp, src, SeqCst, SeqCst).unwrap_or_else(|old| old),
        _ => a.fetch_update(SeqCst, SeqCst, |old| Some(op.apply32(old, src, cmp))).unwrap_or_else(|old| old),
    })
}

/// Applies `op` to the 64-bit word of GPU memory at `addr` as one host atomic; returns the old
/// value.
pub fn host64(mem: &dyn Memory, addr: u64, site: Site, op: Op, src: u64, cmp: u64) -> Result<u64, Fault> {
    let a = memory::atomic64(mem, addr, site)?;
    Ok(match op {
        Op::Swap => a.swap(src, SeqCst),
        Op::Add => a.fetch_add(src, SeqCst),
        Op::Sub => a.fetch_sub(src, SeqCst),
        Op::And => a.fetch_and(src, SeqCst),
        Op::Or => a.fetch_or(src, SeqCst),
        Op::Xor => a.fetch_xor(src, SeqCst),
        Op::Umin => a.fetch_min(src, SeqCst),
        Op::Umax => a.fetch_max(src, SeqCst),
        Op::CmpSwap => a.compare_exchange(cmp, src, SeqCst, SeqCst).unwrap_or_else(|old| old),
        _ => a.fetch_update(SeqCst, SeqCst, |old| Some(op.apply64(old, src, cmp))).unwrap_or_else(|old| old),
    })
}

/// Applies `op` to the 32-bit word of LDS at byte `addr`; returns the old value. Out of range,
/// nothing is written and 0 comes back.
pub fn lds32(lds: &mut [u8], addr: u32, op: Op, src: u32, cmp: u32) -> u32 {
    let mut b = [0u8; 4];
    if !crate::ds::lds::read(lds, addr, &mut b) {
        return 0;
    }
    let old = u32::from_le_bytes(b);
    crate::ds::lds::write(lds, addr, &op.apply32(old, src, cmp).to_le_bytes());
    old
}

/// Applies `op` to the 64-bit word of LDS at byte `addr`; returns the old value (0 out of range).
pub fn lds64(lds: &mut [u8], addr: u32, op: Op, src: u64, cmp: u64) -> u64 {
    let mut b = [0u8; 8];
    if !crate::ds::lds::read(lds, addr, &mut b) {
        return 0;
    }
    let old = u64::from_le_bytes(b);
    crate::ds::lds::write(lds, addr, &op.apply64(old, src, cmp).to_le_bytes());
    old
}

#[cfg(test)]
mod tests {
    use super::Op;

    #[test]
    fn inc_and_dec_wrap_at_the_limit() {
        assert_eq!(Op::Inc.apply32(4, 5, 0), 5);
        assert_eq!(Op::Inc.apply32(5, 5, 0), 0);
        assert_eq!(Op::Dec.apply32(0, 5, 0), 5);
        assert_eq!(Op::Dec.apply32(7, 5, 0), 5);
        assert_eq!(Op::Dec.apply32(3, 5, 0), 2);
        assert_eq!(Op::Inc.apply64(u64::MAX - 1, u64::MAX, 0), u64::MAX);
    }

    #[test]
    fn signed_and_float_forms() {
        assert_eq!(Op::Smin.apply32(1, u32::MAX, 0), u32::MAX);
        assert_eq!(Op::Umin.apply32(1, u32::MAX, 0), 1);
        assert_eq!(Op::FCmpSwap.apply32(0x8000_0000, 7, 0), 7);
        assert_eq!(Op::FMin.apply32(f32::NAN.to_bits(), 2.0f32.to_bits(), 0), 2.0f32.to_bits());
        assert_eq!(Op::Mskor.apply32(0xFF, 0x0F, 0x100), 0x1F0);
        assert_eq!(Op::Wrap.apply32(3, 5, 10), 13);
        assert_eq!(Op::Wrap.apply32(7, 5, 10), 2);
    }
}
