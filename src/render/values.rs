//! One argument's raw value as the API log prints it: how a C type is
//! printed (address, signed or unsigned decimal) and a status by name. The
//! line writer (`line`) and the call builder (`printer::fill`) both print
//! through these.

use cltap_formats::digits;

/// How a raw word of some C type is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    /// 16 upper-case hex digits: pointers, handles, callbacks.
    Hex,
    /// The low 32 bits, signed.
    I32,
    I64,
    U64,
}

impl Scalar {
    pub fn of(c_type: &str) -> Scalar {
        if is_pointer_type(c_type) {
            Scalar::Hex
        } else if is_signed(c_type) {
            match c_type {
                "cl_int" | "cl_build_status" | "cl_GLint" | "int" | "int32_t" | "hsa_file_t" => Scalar::I32,
                _ => Scalar::I64,
            }
        } else {
            Scalar::U64
        }
    }

    pub fn push(self, s: &mut String, v: u64) {
        let mut b = [0u8; 21];
        let n = self.text(v, &mut b);
        // SAFETY: digits, '-' and hex digits are ASCII.
        unsafe { s.as_mut_vec().extend_from_slice(&b[..n]) };
    }

    /// The text of `v` at the start of `out`; returns its length (at most 20).
    #[inline]
    pub fn text(self, v: u64, out: &mut [u8; 21]) -> usize {
        let (neg, magnitude) = match self {
            Scalar::Hex => {
                out[..16].copy_from_slice(&digits::hex16(v, true));
                return 16;
            }
            Scalar::U64 => (false, v),
            Scalar::I32 => {
                let x = v as u32 as i32;
                (x < 0, x.unsigned_abs() as u64)
            }
            Scalar::I64 => {
                let x = v as i64;
                (x < 0, x.unsigned_abs())
            }
        };
        out[0] = b'-';
        let mut d = [0u8; 20];
        let n = digits::decimal(magnitude, &mut d);
        let at = neg as usize;
        out[at..at + n].copy_from_slice(&d[..n]);
        at + n
    }
}

/// 16 upper-case hex digits, as Intel's API log format prints pointers.
pub(crate) fn push_hex(s: &mut String, v: u64) {
    Scalar::Hex.push(s, v)
}

pub(crate) fn is_pointer_type(c_type: &str) -> bool {
    c_type.ends_with('*') || c_type.ends_with("_fn") || c_type.starts_with("cl_cb_") || is_handle(c_type)
}

fn is_handle(t: &str) -> bool {
    matches!(
        t,
        "cl_platform_id"
            | "cl_device_id"
            | "cl_context"
            | "cl_command_queue"
            | "cl_mem"
            | "cl_program"
            | "cl_kernel"
            | "cl_event"
            | "cl_sampler"
            | "cl_semaphore_khr"
            | "cl_command_buffer_khr"
            | "cl_mutable_command_khr"
            | "cl_accelerator_intel"
    )
}

fn is_signed(c_type: &str) -> bool {
    matches!(c_type, "cl_int" | "cl_long" | "intptr_t" | "cl_build_status" | "cl_GLint")
        || c_type.ends_with("_properties")
        || matches!(c_type, "int" | "int32_t" | "hsa_file_t" | "int64_t" | "hsa_signal_value_t")
}

/// A scalar as C would print it.
pub(crate) fn scalar(c_type: &str, v: u64) -> String {
    let mut s = String::new();
    push_scalar(&mut s, c_type, v);
    s
}

pub(crate) fn push_scalar(s: &mut String, c_type: &str, v: u64) {
    Scalar::of(c_type).push(s, v)
}

/// An OpenCL status by name (or its number, for one OpenCL does not define).
pub(crate) fn push_status(s: &mut String, code: i32) {
    match crate::trace::names::status(code) {
        Some(n) => s.push_str(n),
        None => Scalar::I32.push(s, code as u32 as u64),
    }
}
