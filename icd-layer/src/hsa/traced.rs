//! The tracer API's check in front of the HSA entries cltap writes by hand
//! (`hsa_queue_create` when intercepting, the async copies when timing
//! them): `OnLoad` puts those in the table instead of the generated
//! wrappers, so they carry the same check the generator puts in front of
//! every generated one (`tracer_shim` in build.rs). A prologue may change
//! the parameters; the call then goes on with the changed values.

/// `traced!(INDEX, (params…), body)`: `body` with HSA function `INDEX`'s
/// tracers around it, when one is enabled; the parameters must be `mut`
/// bindings, and `body` uses them after the prologue ran.
macro_rules! traced {
    ($index:expr, ($($p:ident),*), $body:expr) => {{
        let slot = ::cltap::tools::tracer_ids::slot_of(1, $index);
        if ::cltap::tools::tracer::on(slot) {
            let mut params = [$(::core::ptr::addr_of_mut!($p) as *mut ::core::ffi::c_void),*];
            let params = params.as_mut_ptr() as *mut ::core::ffi::c_void;
            // cltap's own part, caught apart from the call (docs/architecture.md#panics).
            // SAFETY: `enter`'s # Safety follows from this fn's.
            let e = crate::guard::part("an HSA tracer", || unsafe { ::cltap::tools::tracer::enter(slot, params) });
            let r = $body;
            if let Some(e) = e {
                // SAFETY: `exit`'s # Safety follows from this fn's.
                crate::guard::part("an HSA tracer", || unsafe { crate::tools::tracer_call::exit(e, slot, params, &r) });
            }
            r
        } else {
            $body
        }
    }};
}

pub(crate) use traced;
