//! What one call did, read from its record: the handles it made, counted
//! or destroyed, the memory it allocated or freed. Reading is apart from
//! following ([`super::tracker`]), which takes the steps in the order the
//! calls returned, whatever order their threads' records were rendered in.

use super::calls::{self, Action, Made, Resolved, Size};
use crate::meta::FnMeta;
use crate::trace::record::{Tag, View};

/// The call a step is of.
#[derive(Debug, Clone, Copy)]
pub struct Call {
    /// Its place among the trace's calls in render order.
    pub index: u64,
    /// When it returned: the trace's ticks (the order), and host ns.
    pub t1: u64,
    pub time_ns: u64,
    pub thread: u32,
    pub name: &'static str,
}

/// An allocation as the call made it, before it is put on devices.
#[derive(Debug, Clone)]
pub struct Allocation {
    pub kind: &'static str,
    pub address: u64,
    pub bytes: u64,
    pub flags: u64,
    /// The owner's label prefix (`context`, `buffer`, `pool`, `region`) and handle.
    pub owner: (&'static str, u64),
    /// The one device it names (USM), or 0.
    pub device: u64,
    /// The memory object it is the memory of (else a pointer allocation).
    pub object: Option<(&'static str, u64)>,
}

#[derive(Debug, Clone)]
pub struct Step {
    pub call: Call,
    /// A context made, with the devices its creation named.
    pub context: Option<(u64, Vec<u64>)>,
    pub creates: Vec<(&'static str, u64)>,
    pub alloc: Option<Allocation>,
    /// A retain (+1) or release (−1) of `(type, handle)`.
    pub count: Option<(&'static str, u64, i64)>,
    pub destroy: Option<(&'static str, u64)>,
    /// A pointer freed.
    pub free: Option<u64>,
}

fn word(v: &View<'_>, i: usize) -> u64 {
    v.args.get(i).copied().unwrap_or(0)
}

fn capture<'v>(v: &'v View<'_>, param: usize, tag: Tag) -> Option<&'v [u8]> {
    v.captures.iter().find(|(c, _)| c.param as usize == param && c.tag == tag as u8).map(|(_, d)| &**d)
}

fn out_word(v: &View<'_>, param: usize) -> Option<u64> {
    capture(v, param, Tag::Out).and_then(|d| crate::decode::words(d, 8).first().copied())
}

/// The step of a call `v` of `f` that succeeded and that `a` says is
/// followed.
pub fn read(v: &View<'_>, f: &FnMeta, a: &Action, call: Call) -> Step {
    let ret = v.header.ret;
    let context = a
        .context_devices
        .map(|p| (ret, capture(v, p, Tag::Array).map(|d| crate::decode::words(d, 8)).unwrap_or_default()));
    let mut creates = Vec::new();
    for (ty, made) in &a.creates {
        let handles = match made {
            Made::Returned => vec![ret],
            Made::Out(p) => out_word(v, *p).into_iter().collect(),
            Made::OutArray(p) => capture(v, *p, Tag::OutArray).map(|d| crate::decode::words(d, 8)).unwrap_or_default(),
        };
        creates.extend(handles.into_iter().filter(|x| *x != 0).map(|x| (*ty, x)));
    }
    let object = match a.creates.first() {
        Some((ty, Made::Returned)) => Some((*ty, ret)),
        _ => None,
    };
    let count = a.counts.and_then(|(p, delta)| {
        let ty = f.params.first().map_or("", |p| p.c_type);
        calls::CL_OBJECTS.iter().find(|t| **t == ty).map(|t| (*t, word(v, p), delta))
    });
    Step {
        call,
        context,
        creates,
        alloc: a.alloc.map(|r| allocation(v, &r, object)),
        count,
        destroy: a.destroys.map(|(ty, p)| (ty, word(v, p))),
        free: a.frees.map(|p| word(v, p)),
    }
}

fn allocation(v: &View<'_>, r: &Resolved, object: Option<(&'static str, u64)>) -> Allocation {
    let arg = |p: Option<usize>| p.map_or(0, |p| word(v, p));
    let bytes = match r.size {
        Size::Param(_) => arg(r.sizes[0]),
        Size::Product(..) => arg(r.sizes[0]).saturating_mul(arg(r.sizes[1])),
        Size::Image | Size::ImageDims => {
            let format = r.sizes[0].and_then(|p| capture(v, p, Tag::Array)).unwrap_or(&[]);
            let f = crate::decode::words(format, 4);
            let pixel =
                calls::pixel_bytes(f.first().copied().unwrap_or(0) as u32, f.get(1).copied().unwrap_or(0) as u32)
                    .unwrap_or(0);
            let texels = if r.size == Size::Image {
                r.sizes[1].and_then(|p| capture(v, p, Tag::Array)).map_or(0, calls::image_texels)
            } else {
                arg(r.sizes[1]).saturating_mul(arg(r.sizes[2]).max(1)).saturating_mul(arg(r.sizes[3]).max(1))
            };
            pixel.saturating_mul(texels)
        }
        Size::Aliased => 0,
    };
    let address = match r.from {
        Made::Returned => v.header.ret,
        Made::Out(p) | Made::OutArray(p) => out_word(v, p).unwrap_or(0),
    };
    Allocation {
        kind: r.kind,
        address,
        bytes,
        flags: arg(r.flags),
        owner: (r.owner.0, arg(r.owner.1)),
        device: arg(r.device),
        object,
    }
}
