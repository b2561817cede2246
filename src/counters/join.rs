//! Two joins the counter files need.
//!
//! **An NDRange and the HSA dispatch it became.** On AMD, an OpenCL runtime
//! runs on HSA, and cltap sees both: the `clEnqueueNDRangeKernel` (command
//! id, kernel name, sizes) and, through the intercept queue, the AQL
//! dispatch (counters, kernel descriptor). The runtime may write the packet
//! from a thread of its own, later, so neither the thread nor the time
//! links them. What does: the kernel's name (the dispatch's symbol is the
//! NDRange's kernel name, with or without `.kd`), the grid (the global
//! size) and, when the application gave one, the work-group (the local
//! size). Each NDRange, in command order, takes the first dispatch not yet
//! taken that matches. Two queues running the same kernel with the same
//! sizes at once can be paired crosswise: the counters then belong to an
//! identical launch of the other queue (docs/counters.md says so).
//!
//! The join of a multi-pass request's runs is in [`super::passes`].

use super::row::Row;

fn same_kernel(ndrange: &str, symbol: &str) -> bool {
    let s = symbol.strip_suffix(".kd").unwrap_or(symbol);
    s == ndrange
}

fn matches(n: &Row, d: &Row) -> bool {
    same_kernel(&n.kernel, &d.kernel) && n.global == d.global && (!n.local_given || n.local == d.local)
}

/// The rows of a run: NDRanges (in command order) with their dispatch's
/// HSA facts, then the dispatches no NDRange claimed (in dispatch order).
pub fn ndranges_with_dispatches(ndranges: Vec<Row>, dispatches: Vec<Row>) -> Vec<Row> {
    let mut taken = vec![false; dispatches.len()];
    let mut out = Vec::with_capacity(ndranges.len() + dispatches.len());
    for mut n in ndranges {
        if let Some(i) = (0..dispatches.len()).find(|&i| !taken[i] && matches(&n, &dispatches[i])) {
            taken[i] = true;
            let d = &dispatches[i];
            if !n.local_given {
                // What the runtime really chose, not a driver's suggestion.
                n.local = d.local;
            }
            n.vgprs = d.vgprs;
            n.sgprs = d.sgprs;
            n.lds = d.lds.or(n.lds);
            n.scratch = d.scratch.or(n.scratch);
            n.hsa = d.hsa.clone();
            n.events = d.events.clone();
            let keep_cpu = n.limits.cpu;
            n.limits = super::row::Limits { lds_per_cu: n.limits.lds_per_cu, cpu: keep_cpu, ..d.limits.clone() };
        }
        out.push(n);
    }
    out.extend(dispatches.into_iter().zip(taken).filter(|(_, t)| !t).map(|(d, _)| d));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counters::row::HsaDispatch;

    fn nd(kernel: &str, cmd: u64, g: u64, l: Option<u64>) -> Row {
        Row {
            kernel: kernel.into(),
            device: "gfx906".into(),
            cmd_id: Some(cmd),
            global: [g, 1, 1],
            local: l.map(|l| [l, 1, 1]),
            local_given: l.is_some(),
            ..Row::default()
        }
    }

    fn disp(kernel: &str, seq: u64, g: u64, l: u64, value: u64) -> Row {
        let mut r = Row {
            kernel: kernel.into(),
            device: "gfx906".into(),
            global: [g, 1, 1],
            local: Some([l, 1, 1]),
            hsa: Some(HsaDispatch { seq, ..Default::default() }),
            ..Row::default()
        };
        r.events.insert(1, value);
        r
    }

    #[test]
    fn each_ndrange_takes_the_first_matching_dispatch() {
        // Dispatches written out of command order by the runtime's thread,
        // plus one of the runtime's own (a blit) that no NDRange claims.
        let rows = ndranges_with_dispatches(
            vec![nd("a", 1, 64, Some(64)), nd("b", 2, 128, None), nd("a", 3, 64, Some(64))],
            vec![
                disp("b.kd", 1, 128, 32, 20),
                disp("a.kd", 2, 64, 64, 10),
                disp("__blit", 3, 16, 16, 99),
                disp("a.kd", 4, 64, 64, 30),
            ],
        );
        let got: Vec<(Option<u64>, Option<u64>, Option<u64>)> =
            rows.iter().map(|r| (r.cmd_id, r.hsa.as_ref().map(|h| h.seq), r.events.get(&1).copied())).collect();
        assert_eq!(
            got,
            vec![
                (Some(1), Some(2), Some(10)),
                (Some(2), Some(1), Some(20)),
                (Some(3), Some(4), Some(30)),
                (None, Some(3), Some(99))
            ]
        );
        // The runtime's choice of local size fills the NDRange's NULL.
        assert_eq!(rows[1].local, Some([32, 1, 1]));
    }

    #[test]
    fn a_driver_suggested_local_size_does_not_block_the_join() {
        // NULL local, the driver suggested 64, the runtime chose 128.
        let mut n = nd("a", 1, 256, None);
        n.local = Some([64, 1, 1]);
        let rows = ndranges_with_dispatches(vec![n], vec![disp("a.kd", 1, 256, 128, 7)]);
        assert_eq!(rows.len(), 1, "{rows:?}");
        assert_eq!((rows[0].local, rows[0].events.get(&1)), (Some([128, 1, 1]), Some(&7)));
    }

    #[test]
    fn a_dispatch_of_other_sizes_is_not_joined() {
        let rows = ndranges_with_dispatches(vec![nd("a", 1, 64, Some(64))], vec![disp("a.kd", 1, 128, 64, 1)]);
        assert_eq!(rows.len(), 2);
        assert!(rows[0].hsa.is_none());
    }
}
