//! Kernels' names for a decoded API log: learnt at render time from the
//! records of the calls that made the kernels (`clCreateKernel`'s name
//! and the handle it returned, `clCloneKernel`'s source), so that a call
//! taking a `cl_kernel` shows the kernel's name beside its handle, as
//! CLIntercept's log does. Nothing is asked of the driver and nothing is
//! added to the recorded calls.
//!
//! A handle a driver reuses after `clReleaseKernel` names the kernel made
//! last before the call. The workers that format chunks ahead of the
//! driver's thread read the table only after the whole trace was learnt
//! (`Renderer::render_many`); a live render learns chunk by chunk, in seal
//! order, so a kernel made on a thread whose chunk is sealed later than the
//! call's is not named there.

use crate::meta::by_name;
use crate::trace::record::{View, FLAG_OK, KIND_OPENCL_CALL};
use parking_lot::RwLock;
use std::collections::HashMap;
use std::sync::OnceLock;

/// The kernels one handle named, each with its creator's start time, in time order.
type Named = Vec<(u64, Box<str>)>;

/// Handle → the kernels it named.
#[derive(Debug, Default)]
pub struct KernelNames {
    by_handle: RwLock<HashMap<u64, Named>>,
}

/// The function ids of the calls that make kernels.
struct Creators {
    create: Option<usize>,
    clone: Option<usize>,
}

fn creators() -> &'static Creators {
    static C: OnceLock<Creators> = OnceLock::new();
    C.get_or_init(|| Creators { create: by_name("clCreateKernel"), clone: by_name("clCloneKernel") })
}

impl KernelNames {
    /// Learns from `v` if it is a call that made a kernel.
    pub fn learn(&self, v: &View<'_>) {
        let h = &v.header;
        if h.kind != KIND_OPENCL_CALL || h.flags & FLAG_OK == 0 || h.ret == 0 {
            return;
        }
        let c = creators();
        let id = Some(h.fn_id as usize);
        let name = if id == c.create {
            v.string_arg(1)
        } else if id == c.clone {
            v.args.first().and_then(|&k| self.name(k, h.t0))
        } else {
            return;
        };
        if let Some(name) = name {
            self.add(h.ret, h.t0, name);
        }
    }

    fn add(&self, handle: u64, t: u64, name: String) {
        let mut m = self.by_handle.write();
        let list = m.entry(handle).or_default();
        // The same record may be learnt twice (live, then before the rest).
        let at = list.partition_point(|(x, _)| *x < t);
        if list.get(at).is_some_and(|(x, n)| *x == t && **n == *name) {
            return;
        }
        list.insert(at, (t, name.into()));
    }

    /// The name of the kernel `handle` was at time `t` (the last made at
    /// or before it).
    pub fn name(&self, handle: u64, t: u64) -> Option<String> {
        let m = self.by_handle.read();
        let list = m.get(&handle)?;
        let at = list.partition_point(|(x, _)| *x <= t);
        at.checked_sub(1).map(|i| list[i].1.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meta::FUNCTIONS;
    use crate::trace::capture::write_record;
    use crate::trace::record::{records, MAX_RECORD};

    fn call(name: &str, t: u64, ret: u64, args: &[u64]) -> Vec<u8> {
        let id = by_name(name).unwrap();
        let mut b = vec![0u8; MAX_RECORD];
        // SAFETY: every pointer among `args` is a live string or NULL.
        let n = unsafe { write_record(&mut b, id, &FUNCTIONS[id], 1, None, t, t + 1, ret, args, None) };
        b.truncate(n);
        b
    }

    #[test]
    fn a_handle_names_the_kernel_made_last_before_the_call() {
        let k = KernelNames::default();
        let (a, b) = (b"vecadd\0", b"scale\0");
        let mut err = 0i32;
        let e = &mut err as *mut i32 as u64;
        for r in [
            call("clCreateKernel", 10, 0xA0, &[1, a.as_ptr() as u64, e]),
            call("clCreateKernel", 50, 0xA0, &[1, b.as_ptr() as u64, e]),
            call("clCloneKernel", 60, 0xB0, &[0xA0, e]),
        ] {
            let v = records(&r).next().unwrap();
            k.learn(&v);
            k.learn(&v);
        }
        // A failed creation names nothing.
        let r = call("clCreateKernel", 70, 0, &[1, a.as_ptr() as u64, e]);
        k.learn(&records(&r).next().unwrap());
        assert_eq!(k.name(0xA0, 5), None);
        assert_eq!(k.name(0xA0, 10).as_deref(), Some("vecadd"));
        assert_eq!(k.name(0xA0, 49).as_deref(), Some("vecadd"));
        assert_eq!(k.name(0xA0, 51).as_deref(), Some("scale"));
        assert_eq!(k.name(0xB0, 61).as_deref(), Some("scale"));
        assert_eq!(k.name(0, 100), None);
        assert_eq!(k.by_handle.read()[&0xA0].len(), 2);
    }
}
