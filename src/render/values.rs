//! One argument's raw value as the API log prints it: how a C type is
//! printed (address, signed or unsigned decimal) and a status by name. The
//! line writer (`line`) prints through these, and so do the decoded
//! contents and the tests' reference (`reference`).

use super::cursor::Cursor;

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
        self.put(&mut Cursor::new(s), v)
    }

    #[inline(always)]
    pub fn put(self, c: &mut Cursor<'_>, v: u64) {
        let signed = |c: &mut Cursor<'_>, x: i64| {
            if x < 0 {
                c.put_array(b"-", 1);
            }
            c.put_decimal(x.unsigned_abs());
        };
        match self {
            Scalar::Hex => c.put_hex(v),
            Scalar::U64 => c.put_decimal(v),
            Scalar::I32 => signed(c, v as u32 as i32 as i64),
            Scalar::I64 => signed(c, v as i64),
        }
    }
}

/// 16 upper-case hex digits, as Intel's API log format prints pointers.
pub(crate) fn push_hex(s: &mut String, v: u64) {
    Scalar::Hex.push(s, v)
}

pub(crate) fn is_pointer_type(c_type: &str) -> bool {
    c_type.ends_with('*')
        || c_type.ends_with("_fn")
        || c_type.starts_with("cl_cb_")
        || is_handle(c_type)
        || is_opaque_pointer(c_type)
}

/// Typedefs of `void*` from the GL and EGL sharing headers: addresses, printed as pointers.
fn is_opaque_pointer(t: &str) -> bool {
    matches!(t, "cl_GLsync" | "CLeglImageKHR" | "CLeglDisplayKHR" | "CLeglSyncKHR")
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
            | "cl_perfcounter_amd"
            | "cl_threadtrace_amd"
            | "cl_file_amd"
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
