//! Device timing on a GPU queue (AMD's OpenCL runtime over the emulated
//! gfx906): a burst past a GPU list's mark (4,096 held events: the enqueue
//! at the mark reads the list, between the application's enqueues, while
//! the GPU is still behind), then bursts ended by the application's
//! synchronisation with more enqueues at once, and a queue and context
//! released straight after their last commands. The program prints what
//! the GPU computed; with cltap it must print the same, and every command
//! must be timed, once, in order.

mod common;
use common::amdocl::on_amd;
use common::*;

/// Kernels of the first burst: past a GPU list's mark (`GPU_BOUND` in
/// `icd-layer/src/opencl/devtime.rs`).
const FIRST: usize = 4500;
/// Kernels of each later burst.
const REST: usize = 300;

#[test]
fn gpu_lists_read_at_their_mark_and_at_synchronisation_lose_no_command() {
    let prog = special("gpu_lists.c", "gpu_lists");
    let args = [FIRST.to_string(), REST.to_string()];
    let args = [args[0].as_str(), args[1].as_str()];
    let dir = scratch("gpu-lists-plain");
    let plain = run(on_amd(&prog, &args, Mode::Plain, &dir));
    let want =
        format!("round 2: every element {}\nround 3: every element {}\nreleased\n", FIRST + REST, FIRST + 2 * REST);
    assert_eq!((plain.code, plain.stdout.as_str()), (Some(0), want.as_str()), "{}", plain.stderr);
    for mode in [Mode::Layer, Mode::Icd] {
        let dir = scratch(&format!("gpu-lists-{mode:?}"));
        let mut c = on_amd(&prog, &args, mode, &dir);
        c.env("CLTAP_DEVICE_TIMING", "1").env("CLTAP_SUMMARY", "1");
        let o = run(c);
        assert_eq!((o.code, o.stdout.as_str()), (Some(0), want.as_str()), "{mode:?}: {}", o.stderr);
        let text = std::fs::read_to_string(only_file(&dir, ".summary.json")).unwrap();
        let s: serde_json::Value = serde_json::from_str(&text).unwrap();
        let cmds = s["commands"].as_array().unwrap();
        for c in cmds {
            let t: Vec<u64> = ["queued", "submit", "start", "end"].iter().map(|k| c[k].as_u64().unwrap()).collect();
            assert!(t[0] > 0 && t.windows(2).all(|w| w[0] <= w[1]), "{mode:?}: QUEUED ≤ SUBMIT ≤ START ≤ END: {c}");
        }
        let mut ids: Vec<u64> = cmds.iter().map(|c| c["cmd_id"].as_u64().unwrap()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), cmds.len(), "{mode:?}: no command timed twice");
        let kernels = cmds.iter().filter(|c| c["kernel"] == "add_one").count();
        assert_eq!(kernels, FIRST + 2 * REST, "{mode:?}: every NDRange timed");
        assert_eq!(cmds.len(), kernels + 2, "{mode:?}: and the two reads: {}", s["transfers"]);
        assert_eq!(s["pending_at_exit"], 0, "{mode:?}");
    }
}
