//! What a parameter is for, and what a function returns, inferred from its C types where the
//! description gives no attribute.

use crate::types::{self, callback_kind, is_const_pointer, is_handle, is_pointer, prop_kind};
use crate::{CallbackKind, Function, RetKind, Role};

pub(crate) fn infer_role(c_type: &str, pointee: &str, name: &str) -> Option<Role> {
    if let Some(k) = callback_kind(c_type) {
        return Some(Role::Callback(k));
    }
    if !is_pointer(c_type) {
        return Some(if is_handle(c_type) { Role::Handle } else { Role::Scalar });
    }
    if c_type == "cl_int*" && name == "errcode_ret" {
        return Some(Role::Errcode);
    }
    if c_type == "const char*" {
        return Some(Role::InString);
    }
    if c_type == "void*" || c_type == "const void*" {
        return Some(Role::HostPtr);
    }
    if is_const_pointer(c_type) {
        return prop_kind(pointee).map(Role::Properties);
    }
    // Non-const single-level pointer: the callee writes one value through it.
    if pointee.contains('*') {
        return None;
    }
    Some(if is_handle(pointee) { Role::OutHandle } else { Role::OutValue })
}

/// An HSA parameter's role from its C type (api/HSA.md).
pub(crate) fn infer_role_hsa(c_type: &str, pointee: &str) -> Option<Role> {
    if types::hsa_callback(c_type).is_some() {
        return Some(Role::Callback(CallbackKind::Hsa));
    }
    if !is_pointer(c_type) {
        return if types::hsa_is_handle(c_type) {
            Some(Role::Handle)
        } else {
            types::hsa_scalar(c_type).map(|_| Role::Scalar)
        };
    }
    // `T**`: the callee writes a pointer (`hsa_queue_t** queue`, `void** ptr`).
    if c_type.ends_with("**") {
        return Some(Role::OutHandle);
    }
    // A queue is the runtime's object, known by its address.
    if pointee == "hsa_queue_t" {
        return Some(Role::Handle);
    }
    if c_type == "const char*" {
        return Some(Role::InString);
    }
    if c_type == "void*" || c_type == "const void*" {
        return Some(Role::HostPtr);
    }
    if is_const_pointer(c_type) {
        return None;
    }
    if types::hsa_is_handle(pointee) {
        Some(Role::OutHandle)
    } else {
        types::hsa_scalar(pointee).map(|_| Role::OutValue)
    }
}

/// `void* user_data` right after a callback is that callback's data.
pub(crate) fn infer_user_data(f: &mut Function) {
    for i in 1..f.params.len() {
        if matches!(f.params[i - 1].role, Role::Callback(_)) && f.params[i].role == Role::HostPtr {
            f.params[i].role = Role::UserData;
        }
    }
}

/// An HSA result: `hsa_status_t`, `void`, or a scalar of known width.
pub(crate) fn hsa_ret_kind(t: &str) -> Option<RetKind> {
    Some(match t {
        "hsa_status_t" => RetKind::Status,
        "void" => RetKind::Void,
        t if types::hsa_scalar(t).is_some() => RetKind::Scalar,
        _ => return None,
    })
}

pub(crate) fn ret_kind(t: &str) -> Option<RetKind> {
    Some(match t {
        "cl_int" => RetKind::Status,
        "void*" => RetKind::Pointer,
        "void" => RetKind::Void,
        t if is_handle(t) => RetKind::Handle,
        t if types::abi_ok(t).is_some() && !is_pointer(t) => RetKind::Scalar,
        _ => return None,
    })
}
