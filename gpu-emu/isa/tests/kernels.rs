//! Whole kernels: OpenCL C compiled by Debian's clang-15 for gfx906 (`tests/kernels/kernels.cl`),
//! loaded into host memory, dispatched on the shader core and checked against results computed
//! here on the host. Each runs at -O2 and -O0 (different code: -O0 keeps everything in scratch).

#[path = "kernels/loader.rs"]
mod loader;

use std::sync::OnceLock;

use gfx906::{dispatch, Counts, Fault, Ranges};
use loader::{Kernargs, Loaded, Packet};

const SOURCE: &str = include_str!("kernels/kernels.cl");

fn program(opt: &str) -> &'static Loaded {
    static O2: OnceLock<Loaded> = OnceLock::new();
    static O0: OnceLock<Loaded> = OnceLock::new();
    let cell = if opt == "-O2" { &O2 } else { &O0 };
    cell.get_or_init(|| loader::load(&loader::compile("kernels", SOURCE, opt)))
}

/// Memory a dispatch may touch: the code object, the packet, the kernarg segment and the buffers.
fn ranges(p: &Loaded, packet: &Packet, kernargs: &[u64], buffers: &[(u64, usize)]) -> Ranges {
    let mut r = vec![p.range(), (packet as *const Packet as u64, packet as *const Packet as u64 + 64)];
    r.push((kernargs.as_ptr() as u64, kernargs.as_ptr() as u64 + kernargs.len() as u64 * 8));
    r.extend(buffers.iter().map(|&(a, n)| (a, a + n as u64)));
    Ranges::new(r)
}

fn buf<T>(v: &[T]) -> (u64, usize) {
    (v.as_ptr() as u64, std::mem::size_of_val(v))
}

/// Dispatches kernel `name` of the program built at `opt` over `grid` in groups of `wg`.
fn launch(
    opt: &str,
    name: &str,
    grid: &[u32],
    wg: &[u16],
    args: Kernargs,
    dynamic_lds: u32,
    buffers: &[(u64, usize)],
) -> Result<Counts, Fault> {
    let p = program(opt);
    let kernargs = args.finish();
    let packet = Packet::new(p.kernel_object(name), grid, wg, kernargs.as_ptr() as u64, dynamic_lds);
    let mem = ranges(p, &packet, &kernargs, buffers);
    dispatch(p, &packet, &mem)
}

fn dispatch(p: &Loaded, packet: &Packet, mem: &Ranges) -> Result<Counts, Fault> {
    // SAFETY: the image lives in `p` (a static) for the whole test.
    let code = unsafe { gfx906::Code::in_memory(p.range().0, p.range().1) };
    let d = dispatch::Dispatch {
        packet: dispatch::Packet {
            setup: packet.setup,
            workgroup_size: packet.workgroup_size,
            grid_size: packet.grid_size,
            private_segment_size: packet.private_segment_size,
            group_segment_size: packet.group_segment_size,
            kernel_object: packet.kernel_object,
            kernarg_address: packet.kernarg_address,
        },
        packet_address: packet as *const Packet as u64,
        queue_address: 0,
        dispatch_id: 7,
    };
    // Two host threads, so that work-groups really run side by side.
    let opt = dispatch::Options { threads: 2, ..Default::default() };
    dispatch::run(&d, mem, &code, &opt).map(|o| o.total)
}

fn both(f: impl Fn(&str)) {
    for opt in ["-O2", "-O0"] {
        f(opt);
    }
}

#[test]
fn vecadd_with_a_partial_last_group() {
    both(|opt| {
        let n = 1000u32;
        let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
        let b: Vec<f32> = (0..n).map(|i| 1000.0 - i as f32 * 0.25).collect();
        let mut c = vec![-1.0f32; n as usize + 64];
        let args = Kernargs::default().ptr(a.as_ptr()).ptr(b.as_ptr()).ptr(c.as_mut_ptr()).u32(n);
        let counts = launch(opt, "vecadd", &[n + 24], &[64], args, 0, &[buf(&a), buf(&b), buf(&c)]).unwrap();
        for i in 0..n as usize {
            assert_eq!(c[i], a[i] + b[i], "{opt} c[{i}]");
        }
        assert!(c[n as usize..].iter().all(|&x| x == -1.0), "{opt}: nothing past n is written");
        assert_eq!(counts.waves, 1024 / 64, "{opt}");
    });
}

#[test]
fn a_reduction_with_barriers_across_four_waves() {
    both(|opt| {
        let groups = 8usize;
        let input: Vec<i32> = (0..256 * groups as i32).map(|i| (i * 37) % 101 - 50).collect();
        let mut out = vec![0i32; groups];
        let args = Kernargs::default().ptr(input.as_ptr()).ptr(out.as_mut_ptr()).local(0);
        launch(opt, "reduce", &[256 * groups as u32], &[256], args, 256 * 4, &[buf(&input), buf(&out)]).unwrap();
        let want: Vec<i32> = input.chunks(256).map(|c| c.iter().sum()).collect();
        assert_eq!(out, want, "{opt}");
    });
}

#[test]
fn an_inclusive_scan_in_static_lds() {
    both(|opt| {
        let input: Vec<u32> = (0..512u32).map(|i| i % 7 + 1).collect();
        let mut out = vec![0u32; 512];
        let args = Kernargs::default().ptr(input.as_ptr()).ptr(out.as_mut_ptr());
        launch(opt, "scan", &[512], &[256], args, 0, &[buf(&input), buf(&out)]).unwrap();
        for (g, chunk) in input.chunks(256).enumerate() {
            let mut sum = 0;
            for (l, v) in chunk.iter().enumerate() {
                sum += v;
                assert_eq!(out[g * 256 + l], sum, "{opt} item {}", g * 256 + l);
            }
        }
    });
}

#[test]
fn atomics_under_contention() {
    both(|opt| {
        let items = 640u32;
        let mut counter = vec![0u32; 1];
        let mut maximum = vec![i32::MIN; 1];
        let mut sum = vec![0.0f32; 1];
        let mut groups = vec![0u32; 10];
        let args = Kernargs::default()
            .ptr(counter.as_mut_ptr())
            .ptr(maximum.as_mut_ptr())
            .ptr(sum.as_mut_ptr())
            .ptr(groups.as_mut_ptr());
        let bufs = [buf(&counter), buf(&maximum), buf(&sum), buf(&groups)];
        launch(opt, "contention", &[items], &[64], args, 0, &bufs).unwrap();
        assert_eq!(counter[0], items, "{opt}");
        let want_max = (0..items as i64).map(|g| (g * 7919 % 1000) as i32 - 500).max().unwrap();
        assert_eq!(maximum[0], want_max, "{opt}");
        // 640 additions of 0.5 are exact in f32.
        assert_eq!(sum[0], 320.0, "{opt}");
        assert_eq!(groups, vec![128; 10], "{opt}");
    });
}

#[test]
fn double_precision_divides_and_roots_correctly_rounded() {
    both(|opt| {
        let x: Vec<f64> = (0..128).map(|i| 1.0 + i as f64 * 0.731).collect();
        let y: Vec<f64> = (0..128).map(|i| 3.0 - i as f64 * 0.0173).collect();
        let mut out = vec![0.0f64; 4 * 128];
        let mut ints = vec![0i64; 128];
        let args = Kernargs::default().ptr(x.as_ptr()).ptr(y.as_ptr()).ptr(out.as_mut_ptr()).ptr(ints.as_mut_ptr());
        launch(opt, "f64math", &[128], &[64], args, 0, &[buf(&x), buf(&y), buf(&out), buf(&ints)]).unwrap();
        for i in 0..128 {
            let (a, b) = (x[i], y[i]);
            assert_eq!(out[4 * i], a / b, "{opt} {a}/{b}");
            assert_eq!(out[4 * i + 1], a.sqrt(), "{opt} sqrt {a}");
            assert_eq!(out[4 * i + 2], a.mul_add(b, -1.0), "{opt} fma");
            assert_eq!(out[4 * i + 3], a as f32 as f64, "{opt} round trip");
            assert_eq!(ints[i], (a * 1000.0) as i64, "{opt} to long");
        }
    });
}

#[test]
fn a_called_function_with_a_loop() {
    both(|opt| {
        let mut out = vec![0i32; 200];
        let args = Kernargs::default().ptr(out.as_mut_ptr());
        launch(opt, "calls", &[200], &[64], args, 0, &[buf(&out)]).unwrap();
        for (i, &steps) in out.iter().enumerate() {
            let (mut x, mut n) = (i as i64 + 1, 0);
            while x != 1 && n < 1000 {
                x = if x & 1 == 1 { 3 * x + 1 } else { x / 2 };
                n += 1;
            }
            assert_eq!(steps, n, "{opt} collatz({})", i + 1);
        }
    });
}

#[test]
fn private_arrays_live_in_scratch() {
    both(|opt| {
        let input: Vec<i32> = (0..256).map(|i| (i * 97 + 13) % 1024).collect();
        let mut out = vec![0i32; 256];
        let args = Kernargs::default().ptr(input.as_ptr()).ptr(out.as_mut_ptr());
        launch(opt, "private_array", &[256], &[128], args, 0, &[buf(&input), buf(&out)]).unwrap();
        for i in 0..256 {
            let a = |j: i32| input[i] * j + i as i32;
            assert_eq!(out[i], a(input[i] & 31) + a((input[i] >> 5) & 31), "{opt} item {i}");
        }
    });
}

#[test]
fn a_two_dimensional_grid_with_edge_groups() {
    both(|opt| {
        let (w, h) = (40u32, 10u32);
        let mut out = vec![0u32; (w * h) as usize];
        let args = Kernargs::default().ptr(out.as_mut_ptr()).u32(w);
        launch(opt, "grid2d", &[w, h], &[16, 4], args, 0, &[buf(&out)]).unwrap();
        for y in 0..h {
            for x in 0..w {
                let want = (x * 1000 + y) ^ ((y / 4) << 24) ^ ((x % 16) << 20);
                assert_eq!(out[(y * w + x) as usize], want, "{opt} ({x}, {y})");
            }
        }
    });
}

#[test]
fn single_precision_through_the_device_library() {
    both(|opt| {
        let x: Vec<f32> = (0..64).map(|i| 0.1 + i as f32 * 1.37).collect();
        let mut out = vec![0.0f32; 6 * 64];
        let args = Kernargs::default().ptr(x.as_ptr()).ptr(out.as_mut_ptr());
        launch(opt, "f32math", &[64], &[64], args, 0, &[buf(&x), buf(&out)]).unwrap();
        let close = |got: f32, want: f64, ulps: f32, what: &str| {
            let tol = (want.abs() as f32) * f32::EPSILON * ulps + f32::MIN_POSITIVE;
            assert!((got as f64 - want).abs() as f32 <= tol, "{opt} {what}: {got} vs {want}");
        };
        for i in 0..64 {
            let a = x[i];
            assert_eq!(out[6 * i], 1.0 / a, "{opt} 1/{a}");
            assert_eq!(out[6 * i + 1], a.sqrt(), "{opt} sqrt {a}");
            close(out[6 * i + 2], (a as f64).sin(), 4.0, "sin");
            close(out[6 * i + 3], ((a * 0.01) as f64).exp(), 4.0, "exp");
            close(out[6 * i + 4], (a as f64).ln(), 4.0, "log");
            assert_eq!(out[6 * i + 5], (a * 3.7) as i32 as f32, "{opt} trunc");
        }
    });
}

#[test]
fn a_wild_pointer_faults_the_dispatch_naming_the_address() {
    let args = Kernargs::default()
        .ptr(0x10usize as *const f32)
        .ptr(0x10usize as *const f32)
        .ptr(0x10usize as *const f32)
        .u32(64);
    let err = launch("-O2", "vecadd", &[64], &[64], args, 0, &[]).unwrap_err();
    match err {
        Fault::Memory { addr, .. } => assert!((0x10..0x10 + 256).contains(&addr), "{err}"),
        other => panic!("not a memory fault: {other}"),
    }
}
