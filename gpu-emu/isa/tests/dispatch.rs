//! Dispatches: the kernel object's two layouts, each wave's initial registers, partial waves and
//! work-groups, the barrier scheduler, counts per shader engine and faults. Only s_nop, s_barrier,
//! s_waitcnt and s_endpgm run here; the kernels' own registers are inspected in the waves the plan
//! sets up.

mod common;

use std::cell::RefCell;

use gfx906::dispatch::descriptor::Layout;
use gfx906::dispatch::group::run_group;
use gfx906::dispatch::{self, Descriptor, Dispatch, Options, Packet, Plan};
use gfx906::exec::{self, Ctx, Flow};
use gfx906::{Code, Counts, Fault, Ranges, Wave};

/// A code-object v3 kernel descriptor followed by the kernel's code (entry offset 64).
fn kernel_v3(group: u32, private: u32, rsrc1: u32, rsrc2: u32, props: u16, source: &str) -> Vec<u32> {
    let mut w = vec![0u32; 16];
    w[0] = group;
    w[1] = private;
    w[2] = 16; // kernarg_size
    w[4] = 64; // entry offset (i64 at 16)
    w[12] = rsrc1;
    w[13] = rsrc2;
    w[14] = u32::from(props);
    w.extend(common::assemble(source));
    w
}

/// ROCr's blit header (`amd_kernel_code_t`, 256 bytes) followed by the code.
fn kernel_amd(rsrc1: u32, rsrc2: u32, props: u32, source: &str) -> Vec<u32> {
    let mut w = vec![0u32; 64];
    w[4] = 256;
    w[12] = rsrc1;
    w[13] = rsrc2;
    w[14] = props;
    w.extend(common::assemble(source));
    w
}

struct Kernel {
    code: Code,
    mem: Ranges,
}

impl Kernel {
    fn new(words: Vec<u32>) -> Kernel {
        let n = words.len() as u64 * 4;
        let code = Code::from_words(words);
        let mem = Ranges::new(vec![(code.start(), code.start() + n)]);
        Kernel { code, mem }
    }
    fn object(&self) -> u64 {
        self.code.start()
    }
    fn dispatch(&self, grid: [u32; 3], wg: [u16; 3], dims: u16) -> Dispatch {
        Dispatch {
            packet: Packet {
                setup: dims,
                workgroup_size: wg,
                grid_size: grid,
                kernel_object: self.object(),
                kernarg_address: 0x7000_1234_5678,
                ..Default::default()
            },
            packet_address: 0x1111_2222_3340,
            queue_address: 0x5555_6666_7000,
            dispatch_id: 0x0000_0009_0000_0003,
        }
    }
    fn plan(&self, d: &Dispatch) -> Plan {
        Plan::new(d, Descriptor::read(&self.mem, d.packet.kernel_object).unwrap()).unwrap()
    }
}

/// RSRC2 with USER_SGPR_COUNT `user`, and the given enable bits.
fn rsrc2(user: u32, wave_offset: bool, tgid: [bool; 3], info: bool, tidig: u32) -> u32 {
    u32::from(wave_offset)
        | user << 1
        | u32::from(tgid[0]) << 7
        | u32::from(tgid[1]) << 8
        | u32::from(tgid[2]) << 9
        | u32::from(info) << 10
        | tidig << 11
}

#[test]
fn a_v3_descriptor_gives_vgprs_mode_and_sizes() {
    // VGPRS granule 2 (12 VGPRs); round 32 = 1, round 16/64 = 2, denorm 32 = 3, denorm 16/64 = 0,
    // DX10_CLAMP and IEEE_MODE on.
    let rsrc1 = 2 | 1 << 12 | 2 << 14 | 3 << 16 | 1 << 21 | 1 << 23;
    let k = Kernel::new(kernel_v3(256, 20, rsrc1, rsrc2(6, true, [true, false, false], false, 0), 0x7f, "s_endpgm"));
    let kd = Descriptor::read(&k.mem, k.object()).unwrap();
    assert_eq!(kd.layout, Layout::Descriptor);
    assert_eq!((kd.group_segment_fixed_size, kd.private_segment_fixed_size, kd.entry_offset), (256, 20, 64));
    assert_eq!(kd.vgprs(), 12);
    // MODE: round [3:0] = 0b1001, denorm [7:4] = 0b0011, bit 8, bit 9.
    assert_eq!(kd.mode(), 0b11_0011_1001);
    assert_eq!(kd.user_sgpr_count(), 6);
}

#[test]
fn rocr_blit_header_is_read_as_amd_kernel_code() {
    let mut words = kernel_amd(0, rsrc2(2, false, [true, false, false], false, 0), 1 << 3, "s_endpgm");
    words[15] = 48; // workitem_private_segment_byte_size
    words[16] = 512; // workgroup_group_segment_byte_size
    let k = Kernel::new(words);
    let kd = Descriptor::read(&k.mem, k.object()).unwrap();
    assert_eq!(kd.layout, Layout::AmdKernelCode);
    assert_eq!((kd.private_segment_fixed_size, kd.group_segment_fixed_size, kd.entry_offset), (48, 512, 256));
    let d = k.dispatch([300, 1, 1], [64, 1, 1], 1);
    let plan = k.plan(&d);
    assert_eq!(plan.entry, k.object() + 256);
    let waves = plan.waves(3, 0);
    // kernarg pointer in s[0:1], the work-group id in s2.
    assert_eq!((waves[0].s[0], waves[0].s[1], waves[0].s[2]), (0x1234_5678, 0x7000, 3));
    assert_eq!(waves[0].pc, k.object() + 256);
}

#[test]
fn grid_workgroup_counts_follow_amd_kernel_code_user_sgprs() {
    // Kernarg pointer, then the X and Z counts (bits 7 and 9); 4 user SGPRs.
    let props = 1 << 3 | 1 << 7 | 1 << 9;
    let k = Kernel::new(kernel_amd(0, rsrc2(4, false, [false; 3], false, 0), props, "s_endpgm"));
    let d = k.dispatch([100, 7, 9], [16, 2, 4], 3);
    let w = &k.plan(&d).waves(0, 0)[0];
    assert_eq!(&w.s[..5], &[0x1234_5678, 0x7000, 7, 3, 0]);
}

#[test]
fn every_user_and_system_sgpr_in_order() {
    // Buffer (4), dispatch (2), queue (2), kernarg (2), dispatch id (2), flat scratch (2), private
    // size (1) = 15; then wg id x, y, z, info and the wave offset from s15.
    let rs2 = rsrc2(15, true, [true; 3], true, 2);
    let k = Kernel::new(kernel_v3(0, 40, 0, rs2, 0x7f, "s_endpgm"));
    let mut d = k.dispatch([64 * 2, 3, 5], [64, 2, 1], 3);
    d.packet.private_segment_size = 24;
    let mut plan = k.plan(&d);
    // max(40, 24) rounded up to 16.
    assert_eq!(plan.lane_stride, 48);
    plan.scratch_base = 0x0000_7654_3210_0000;
    // Work-group 5: x = 5 % 2 = 1, y = 5 / 2 % 2 = 0 (3 rows in groups of 2: 2 groups), z = 1.
    let waves = plan.waves(5, 6);
    assert_eq!(waves.len(), 2);
    let w = &waves[1];
    // The base's high bits, the lane stride and SWIZZLE_ENABLE.
    let stride_word = 0x7654 | 48 << 16 | 1 << 31;
    let want = [
        0x3210_0000,
        stride_word,
        u32::MAX,
        0x00EA_4FAC,
        0x2222_3340,
        0x1111,
        0x6666_7000,
        0x5555,
        0x1234_5678,
        0x7000,
        3,
        9,
        0x3210_0000,
        0x7654,
        48,
        1,
        0,
        1,
        // Not the first wave; 2 waves in the group.
        2,
        // Slot 6 + 1 = 7, 64 lanes of 48 bytes each.
        7 * 64 * 48,
    ];
    assert_eq!(&w.s[..want.len()], &want);
    assert_eq!(w.s[want.len()], 0);
    assert_eq!(waves[0].s[18], 1 << 31 | 2, "the first wave says so");
    assert_eq!(waves[0].s[19], 6 * 64 * 48);
    assert_eq!((w.index, waves[0].index), (1, 0));
    // HW_ID: wave 1 on SIMD 1, work-group 5 on engine 1, CU 1.
    assert_eq!(w.hw_id, 1 << 4 | 1 << 8 | 1 << 13);
}

#[test]
fn user_sgprs_past_user_sgpr_count_are_not_loaded() {
    // Kernarg and dispatch id enabled (4 SGPRs) but a count of 2: the work-group id lands in s2.
    let k =
        Kernel::new(kernel_v3(0, 0, 0, rsrc2(2, false, [true, false, false], false, 0), 1 << 3 | 1 << 4, "s_endpgm"));
    let d = k.dispatch([64, 1, 1], [64, 1, 1], 1);
    let w = &k.plan(&d).waves(0, 0)[0];
    assert_eq!(&w.s[..4], &[0x1234_5678, 0x7000, 0, 0]);
}

#[test]
fn workitem_ids_and_exec_cover_partial_waves_and_edge_groups() {
    // 2D: work-groups of 10 x 10 (two waves: 64 and 36 lanes); the grid is 25 x 12, so the last
    // group in x has 5 columns and the last in y has 2 rows.
    let k = Kernel::new(kernel_v3(0, 0, 0, rsrc2(0, false, [false; 3], false, 1), 0, "s_endpgm"));
    let d = k.dispatch([25, 12, 1], [10, 10, 1], 2);
    let plan = k.plan(&d);
    assert_eq!(plan.group_count(), Some(3 * 2));
    let full = plan.waves(0, 0);
    assert_eq!(full.len(), 2);
    assert_eq!(full[0].exec(), u64::MAX);
    assert_eq!(full[1].exec(), (1 << 36) - 1);
    // Lane 5 of wave 1 is work-item 69: x 9, y 6.
    assert_eq!((full[1].vgpr(0, 5), full[1].vgpr(1, 5)), (9, 6));
    // Absent lanes are zero; no z: v2 untouched.
    assert_eq!((full[1].vgpr(0, 40), full[1].vgpr(1, 40)), (0, 0));
    assert_eq!(full[0].vgpr(2, 63), 0);
    // Group 2: x id 2, 5 columns of 10 rows = 50 work-items, one wave.
    let edge = plan.waves(2, 0);
    assert_eq!(edge.len(), 1);
    assert_eq!(edge[0].exec(), (1 << 50) - 1);
    // Work-item 12: x 2, y 2.
    assert_eq!((edge[0].vgpr(0, 12), edge[0].vgpr(1, 12)), (2, 2));
    // Group 5 (x 2, y 1): 5 columns of 2 rows.
    let corner = plan.waves(5, 0);
    assert_eq!(corner[0].exec(), (1 << 10) - 1);
    assert_eq!((corner[0].vgpr(0, 7), corner[0].vgpr(1, 7)), (2, 1));
}

#[test]
fn three_dimensional_ids() {
    let k = Kernel::new(kernel_v3(0, 0, 0, rsrc2(0, false, [false; 3], false, 2), 0, "s_endpgm"));
    let d = k.dispatch([4, 4, 8], [4, 4, 8], 3);
    let waves = k.plan(&d).waves(0, 0);
    assert_eq!(waves.len(), 2);
    // Work-item 64 + 37 = 101: x 1, y 1, z 6.
    let w = &waves[1];
    assert_eq!((w.vgpr(0, 37), w.vgpr(1, 37), w.vgpr(2, 37)), (1, 1, 6));
}

#[test]
fn lds_and_private_limits() {
    let k = Kernel::new(kernel_v3(0, 0, 0, 0, 0, "s_endpgm"));
    let mut d = k.dispatch([64, 1, 1], [64, 1, 1], 1);
    d.packet.group_segment_size = 64 * 1024;
    assert_eq!(k.plan(&d).lds_bytes, 64 * 1024);
    d.packet.group_segment_size = 64 * 1024 + 4;
    let kd = Descriptor::read(&k.mem, k.object()).unwrap();
    assert!(matches!(Plan::new(&d, kd), Err(Fault::Illegal { why: "group segment over 64 KiB", .. })));
    d.packet.group_segment_size = 0;
    d.packet.private_segment_size = 16384;
    assert!(matches!(Plan::new(&d, kd), Err(Fault::Illegal { .. })));
    // The kernel's static LDS when the packet leaves it out.
    let k = Kernel::new(kernel_v3(1000, 0, 0, 0, 0, "s_endpgm"));
    let mut d = k.dispatch([64, 1, 1], [64, 1, 1], 1);
    d.packet.group_segment_size = 200;
    assert_eq!(k.plan(&d).lds_bytes, 1000);
    d.packet.group_segment_size = 1200;
    assert_eq!(k.plan(&d).lds_bytes, 1200);
}

/// Runs `waves` through the scheduler, recording (wave, pc where it stopped, how).
fn schedule(code: &Code, waves: &mut [Wave]) -> Vec<(u32, u64, Flow)> {
    let log = RefCell::new(Vec::new());
    let mut counts = Counts::default();
    let mem = Ranges::default();
    let mut ctx = Ctx { mem: &mem, code, lds: &mut [], scratch_lane_stride: 0, counts: &mut counts };
    run_group(waves, |w| {
        let r = exec::run(w, &mut ctx, 100);
        if let Ok(f) = r {
            log.borrow_mut().push((w.index, w.pc - code.start(), f));
        }
        r
    })
    .unwrap();
    log.into_inner()
}

#[test]
fn waves_wait_at_barriers_for_each_other_and_ended_waves_count_as_arrived() {
    // Offsets: 0 s_nop, 4 s_barrier, 8 s_nop, 12 s_barrier, 16 s_endpgm; a short path from 20:
    // 20 s_barrier, 24 s_endpgm.
    let code = Code::from_words(common::assemble(
        "s_nop 0\ns_barrier\ns_nop 0\ns_barrier\ns_endpgm\ns_barrier\ns_endpgm\ns_endpgm",
    ));
    let mut waves: Vec<Wave> = (0..3)
        .map(|i| {
            let mut w = Wave::new(4);
            w.index = i;
            w.pc = code.start() + if i == 1 { 20 } else { 0 };
            w
        })
        .collect();
    let log = schedule(&code, &mut waves);
    use Flow::*;
    assert_eq!(
        log,
        vec![
            (0, 8, Barrier),
            (1, 24, Barrier),
            (2, 8, Barrier),
            // All three arrived: on to the second barrier, which wave 1 never reaches.
            (0, 16, Barrier),
            (1, 28, End),
            (2, 16, Barrier),
            (0, 20, End),
            (2, 20, End),
        ]
    );
}

fn nops(kernel: &Kernel, d: &Dispatch, threads: usize) -> Result<dispatch::Outcome, Fault> {
    dispatch::run(d, &kernel.mem, &kernel.code, &Options { threads, ..Default::default() })
}

#[test]
fn counts_per_engine_whatever_the_threads() {
    // 4 instructions a wave: s_nop, s_barrier, s_waitcnt, s_endpgm.
    let k = Kernel::new(kernel_v3(0, 0, 0, 0, 0, "s_nop 0\ns_barrier\ns_waitcnt 0\ns_endpgm"));
    // Grid 950 in work-groups of 100: groups 0..8 of 2 waves, group 9 of 50 work-items (one
    // wave); 19 waves.
    let d = k.dispatch([950, 1, 1], [100, 1, 1], 1);
    for threads in [1, 3, 16] {
        let o = nops(&k, &d, threads).unwrap();
        assert_eq!(o.total.waves, 19, "{threads} threads");
        assert_eq!(o.total.insts, 19 * 4);
        assert_eq!(o.total.waitcnt, 19);
        // Engines 0 and 1 get groups 0, 4, 8 and 1, 5, 9 (the last has one wave); 2 and 3 two each.
        let waves: Vec<u64> = o.engines.iter().map(|e| e.waves).collect();
        assert_eq!(waves, vec![6, 5, 4, 4]);
        assert_eq!(o.engines[1].insts, 20);
    }
}

#[test]
fn an_empty_grid_runs_nothing() {
    let k = Kernel::new(kernel_v3(0, 0, 0, 0, 0, "s_endpgm"));
    let d = k.dispatch([0, 1, 1], [64, 1, 1], 1);
    assert_eq!(nops(&k, &d, 4).unwrap(), dispatch::Outcome::default());
}

#[test]
fn a_fault_stops_the_dispatch_naming_the_instruction() {
    // v_cubeid_f32 is not implemented (no compiler emits it for compute): at entry + 4.
    let k = Kernel::new(kernel_v3(0, 0, 0, 0, 0, "s_nop 0\nv_cubeid_f32 v0, v1, v2, v3\ns_endpgm"));
    let d = k.dispatch([64 * 40, 1, 1], [64, 1, 1], 1);
    match nops(&k, &d, 4) {
        Err(Fault::Unimplemented { pc, .. }) => assert_eq!(pc, k.object() + 64 + 4),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_wave_over_the_instruction_limit_faults() {
    let k = Kernel::new(kernel_v3(0, 0, 0, 0, 0, "s_nop 0\ns_barrier\ns_nop 0\ns_nop 0\ns_endpgm"));
    let d = k.dispatch([64, 1, 1], [64, 1, 1], 1);
    let run = |limit| dispatch::run(&d, &k.mem, &k.code, &Options { threads: 1, limit });
    assert!(run(5).is_ok());
    // The limit counts across the barrier: 2 before it, 3 after.
    assert!(matches!(run(4), Err(Fault::Illegal { why: "ran past the instruction limit", .. })));
}

#[test]
fn a_kernel_object_outside_memory_is_a_memory_fault() {
    let k = Kernel::new(kernel_v3(0, 0, 0, 0, 0, "s_endpgm"));
    let mut d = k.dispatch([64, 1, 1], [64, 1, 1], 1);
    d.packet.kernel_object = 0x1000;
    assert!(matches!(nops(&k, &d, 1), Err(Fault::Memory { addr: 0x1000, .. })));
}
