//! How fast the emulated shader core runs real code: kernels of `tests/kernels/kernels.cl`,
//! compiled by clang-15 at -O2, over large grids, on 1 and 2 host threads. Prints the
//! lane-instructions (instructions issued times the lanes on) per second of each. A benchmark,
//! not a test: `cargo run --release -p cltap-gfx906 --example throughput`.

#[path = "../tests/kernels/loader.rs"]
mod loader;

use std::time::Instant;

use gfx906::{dispatch, Code, Ranges};
use loader::{Kernargs, Loaded, Packet};

/// A grid: items, work-group size, dynamic LDS bytes.
type Shape = (u32, u16, u32);

fn run(p: &Loaded, name: &str, (grid, wg, lds): Shape, args: Kernargs, bufs: &[(u64, usize)], threads: usize) {
    let kernargs = args.finish();
    let packet = Packet::new(p.kernel_object(name), &[grid], &[wg], kernargs.as_ptr() as u64, lds);
    let mut r = vec![p.range(), (&packet as *const Packet as u64, &packet as *const Packet as u64 + 64)];
    r.push((kernargs.as_ptr() as u64, kernargs.as_ptr() as u64 + kernargs.len() as u64 * 8));
    r.extend(bufs.iter().map(|&(a, n)| (a, a + n as u64)));
    let mem = Ranges::new(r);
    // SAFETY: the image lives in `p` for the whole run.
    let code = unsafe { Code::in_memory(p.range().0, p.range().1) };
    let d = dispatch::Dispatch {
        packet: dispatch::Packet {
            setup: 1,
            workgroup_size: packet.workgroup_size,
            grid_size: packet.grid_size,
            private_segment_size: 0,
            group_segment_size: lds,
            kernel_object: packet.kernel_object,
            kernarg_address: packet.kernarg_address,
        },
        packet_address: &packet as *const Packet as u64,
        queue_address: 0,
        dispatch_id: 1,
    };
    let opt = dispatch::Options { threads, ..Default::default() };
    let start = Instant::now();
    let o = dispatch::run(&d, &mem, &code, &opt).expect("the dispatch runs");
    let s = start.elapsed().as_secs_f64();
    println!(
        "{name:<8} grid {grid:>8} on {threads} thread(s): {:>11} lane-instructions ({:>8} wave-instructions) in {:>7.3} s: {:>6.1} M lane-instructions/s",
        o.total.lanes,
        o.total.insts,
        s,
        o.total.lanes as f64 / s / 1e6
    );
}

fn main() {
    let source = include_str!("../tests/kernels/kernels.cl");
    let p = loader::load(&loader::compile("throughput", source, "-O2"));
    let n = 1u32 << 20;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b = vec![1.0f32; n as usize];
    let mut c = vec![0.0f32; n as usize];
    let ints: Vec<i32> = (0..n as i32).collect();
    let mut sums = vec![0i32; (n / 256) as usize];
    let x: Vec<f32> = (0..n).map(|i| 0.5 + (i % 1000) as f32).collect();
    let mut out = vec![0.0f32; 6 * n as usize];
    let buf = |p: *const u8, len: usize| (p as u64, len);
    for threads in [1, 2] {
        let args = Kernargs::default().ptr(a.as_ptr()).ptr(b.as_ptr()).ptr(c.as_mut_ptr()).u32(n);
        let bufs = [
            buf(a.as_ptr().cast(), 4 * n as usize),
            buf(b.as_ptr().cast(), 4 * n as usize),
            buf(c.as_ptr().cast(), 4 * n as usize),
        ];
        run(&p, "vecadd", (n, 256, 0), args, &bufs, threads);
        let args = Kernargs::default().ptr(ints.as_ptr()).ptr(sums.as_mut_ptr()).local(0);
        let bufs = [buf(ints.as_ptr().cast(), 4 * n as usize), buf(sums.as_ptr().cast(), sums.len() * 4)];
        run(&p, "reduce", (n, 256, 1024), args, &bufs, threads);
        let args = Kernargs::default().ptr(x.as_ptr()).ptr(out.as_mut_ptr());
        let bufs = [buf(x.as_ptr().cast(), 4 * n as usize), buf(out.as_ptr().cast(), out.len() * 4)];
        run(&p, "f32math", (n / 4, 256, 0), args, &bufs, threads);
    }
}
