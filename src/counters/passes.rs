//! Joining the runs of a multi-pass request.
//!
//! A request too big for the hardware's counters runs the application once
//! per pass, and each run's rows get the other runs' counter values. The
//! rows are joined by what identifies a launch across runs, never by their
//! place in the file: the file lists NDRanges in command order, and when the
//! application enqueues from several threads, that order is the threads'
//! interleaving, which changes from run to run. So:
//! - an NDRange is the n-th NDRange of its thread; a thread of one run is
//!   the thread of the other run that launched the same kernels with the
//!   same sizes in the same order (threads alike in that are taken in the
//!   order of their first NDRange);
//! - any other dispatch (an HSA program's, or a runtime's own blit) is the
//!   n-th of the dispatches of the same kernel and sizes.
//!
//! A run whose launches cannot be paired so is refused: its counters
//! would belong to other work.

use super::row::{Pass, Row};
use std::collections::HashMap;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum JoinError {
    #[error("no pass to join")]
    Empty,
    #[error("pass {pass} launched {got} kernels where pass 0 launched {want}: the application does not dispatch the same kernels each run, so the passes' counters cannot be joined")]
    Count { pass: u32, got: usize, want: usize },
    #[error("pass {pass} differs from pass 0 at launch {index}: {got} there, {want} in pass 0; the application does not dispatch the same kernels in the same order on each thread each run, so the passes' counters cannot be joined")]
    Launch { pass: u32, index: usize, got: String, want: String },
}

fn describe(r: &Row) -> String {
    let l = r.local.map_or_else(|| "NULL".to_string(), |l| format!("{{{} {} {}}}", l[0], l[1], l[2]));
    format!("{} on {} global {{{} {} {}}} local {l}", r.kernel, r.device, r.global[0], r.global[1], r.global[2])
}

/// Joins the runs of a multi-pass request (given in any order) into one:
/// pass 0's rows, in pass 0's order, with every pass's counter values.
pub fn passes(mut runs: Vec<Pass>) -> Result<Pass, JoinError> {
    runs.sort_by_key(|p| p.pass);
    let mut it = runs.into_iter();
    let mut first = it.next().ok_or(JoinError::Empty)?;
    for p in it {
        if p.rows.len() != first.rows.len() {
            return Err(JoinError::Count { pass: p.pass, got: p.rows.len(), want: first.rows.len() });
        }
        let pairs = pair(&first.rows, &p.rows).map_err(|(index, got)| JoinError::Launch {
            pass: p.pass,
            index,
            got: got.map_or_else(|| "no such launch".to_string(), describe),
            want: describe(&first.rows[index]),
        })?;
        let mut theirs: Vec<Option<Row>> = p.rows.into_iter().map(Some).collect();
        for (mine, other) in pairs.into_iter().enumerate() {
            let b = theirs[other].take().expect("each row is paired once");
            first.rows[mine].events.extend(b.events);
        }
    }
    Ok(first)
}

/// For each of `a`'s rows, the index of its row in `b`; else the index of
/// the first of `a`'s rows without one, and what `b` has in its place.
fn pair<'b>(a: &[Row], b: &'b [Row]) -> Result<Vec<usize>, (usize, Option<&'b Row>)> {
    let mut out = vec![usize::MAX; a.len()];
    let (a_threads, b_threads) = (threads(a), threads(b));
    let mut used = vec![false; b_threads.len()];
    for mine in &a_threads {
        let same =
            |t: &Vec<usize>| t.len() == mine.len() && t.iter().zip(mine).all(|(&j, &i)| b[j].launch() == a[i].launch());
        match (0..b_threads.len()).find(|&k| !used[k] && same(&b_threads[k])) {
            Some(k) => {
                used[k] = true;
                for (&i, &j) in mine.iter().zip(&b_threads[k]) {
                    out[i] = j;
                }
            }
            None => {
                // Say where it parts from the likeliest counterpart: the
                // first unpaired thread of the other run.
                let other = (0..b_threads.len()).find(|&k| !used[k]).map_or(&[][..], |k| &b_threads[k][..]);
                let n = (0..mine.len()).find(|&n| other.get(n).is_none_or(|&j| b[j].launch() != a[mine[n]].launch()));
                let n = n.unwrap_or(0);
                return Err((mine[n], other.get(n).map(|&j| &b[j])));
            }
        }
    }
    let mut b_dispatches: HashMap<_, Vec<usize>> = HashMap::new();
    for (j, r) in b.iter().enumerate().filter(|(_, r)| r.cmd_id.is_none()).rev() {
        b_dispatches.entry(r.launch()).or_default().push(j);
    }
    for (i, r) in a.iter().enumerate().filter(|(_, r)| r.cmd_id.is_none()) {
        // Reversed above, so popping takes them in the run's order. None left: the other
        // run's row at the same place says what it launched instead.
        out[i] = b_dispatches.get_mut(&r.launch()).and_then(Vec::pop).ok_or((i, b.get(i)))?;
    }
    Ok(out)
}

/// A run's NDRange rows by thread, each in its thread's order, the threads
/// in the order of their first NDRange.
fn threads(rows: &[Row]) -> Vec<Vec<usize>> {
    let mut by_tid: HashMap<u32, Vec<usize>> = HashMap::new();
    for (i, r) in rows.iter().enumerate().filter(|(_, r)| r.cmd_id.is_some()) {
        by_tid.entry(r.tid).or_default().push(i);
    }
    let mut out: Vec<Vec<usize>> = by_tid.into_values().collect();
    for t in &mut out {
        t.sort_by_key(|&i| (rows[i].call_index, rows[i].cmd_id));
    }
    out.sort_by_key(|t| t.iter().map(|&i| rows[i].cmd_id).min());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counters::row::HsaDispatch;

    fn nd(kernel: &str, tid: u32, cmd: u64, value: u64) -> Row {
        let mut r = Row {
            kernel: kernel.into(),
            device: "gfx906".into(),
            tid,
            cmd_id: Some(cmd),
            call_index: Some(cmd * 3),
            global: [64, 1, 1],
            local: Some([64, 1, 1]),
            ..Row::default()
        };
        r.events.insert(1, value);
        r
    }

    fn disp(kernel: &str, seq: u64, g: u64, value: u64) -> Row {
        let mut r = Row {
            kernel: kernel.into(),
            device: "gfx906".into(),
            global: [g, 1, 1],
            local: Some([64, 1, 1]),
            hsa: Some(HsaDispatch { seq, ..Default::default() }),
            ..Row::default()
        };
        r.events.insert(1, value);
        r
    }

    fn pass(n: u32, rows: Vec<Row>) -> Pass {
        Pass { pass: n, passes: 2, rows, ..Pass::default() }
    }

    fn second(mut rows: Vec<Row>) -> Vec<Row> {
        for r in &mut rows {
            r.events = [(2u64, r.events[&1] * 10)].into();
        }
        rows
    }

    #[test]
    fn dispatches_join_by_launch_and_a_missing_one_is_refused() {
        let joined = passes(vec![
            pass(1, second(vec![disp("k", 1, 64, 5), disp("j", 2, 64, 6), disp("k", 3, 64, 7)])),
            pass(0, vec![disp("k", 9, 64, 5), disp("k", 10, 64, 7), disp("j", 11, 64, 6)]),
        ])
        .unwrap();
        assert_eq!(joined.pass, 0);
        let got: Vec<(u64, u64)> = joined.rows.iter().map(|r| (r.events[&1], r.events[&2])).collect();
        assert_eq!(got, [(5, 50), (7, 70), (6, 60)], "the n-th k with the n-th k, j with j");
        let e = passes(vec![pass(0, vec![disp("k", 1, 64, 1)]), pass(1, vec![disp("j", 1, 64, 1)])]).unwrap_err();
        assert!(matches!(e, JoinError::Launch { pass: 1, index: 0, .. }), "{e}");
        assert!(e.to_string().contains("cannot be joined"));
        let e = passes(vec![pass(0, vec![disp("k", 1, 64, 1)]), pass(1, vec![])]).unwrap_err();
        assert_eq!(e, JoinError::Count { pass: 1, got: 0, want: 1 });
    }

    #[test]
    fn ndranges_join_by_thread_whatever_the_interleaving() {
        // Pass 0: thread 10 enqueues a, c; thread 20 enqueues b between them.
        // Pass 1: the second thread ran first, and the tids are others.
        let p0 = vec![nd("a", 10, 1, 1), nd("b", 20, 2, 2), nd("c", 10, 3, 3), disp("blit", 4, 16, 4)];
        let p1 = second(vec![disp("blit", 1, 16, 4), nd("b", 31, 1, 2), nd("a", 30, 2, 1), nd("c", 30, 3, 3)]);
        let joined = passes(vec![pass(0, p0), pass(1, p1)]).unwrap();
        let got: Vec<(&str, u64)> = joined.rows.iter().map(|r| (r.kernel.as_str(), r.events[&2])).collect();
        assert_eq!(got, [("a", 10), ("b", 20), ("c", 30), ("blit", 40)]);
    }

    #[test]
    fn threads_alike_pair_in_the_order_of_their_first_ndrange() {
        let p0 = vec![nd("a", 1, 1, 1), nd("a", 2, 2, 2)];
        let p1 = second(vec![nd("a", 8, 1, 1), nd("a", 9, 2, 2)]);
        let joined = passes(vec![pass(0, p0), pass(1, p1)]).unwrap();
        assert_eq!(joined.rows.iter().map(|r| r.events[&2]).collect::<Vec<_>>(), [10, 20]);
    }

    #[test]
    fn a_thread_launching_in_another_order_is_refused_where_it_parts() {
        let p0 = vec![nd("a", 1, 1, 1), nd("b", 1, 2, 2), nd("z", 2, 3, 3)];
        let p1 = vec![nd("b", 1, 1, 2), nd("a", 1, 2, 1), nd("z", 2, 3, 3)];
        let e = passes(vec![pass(0, p0), pass(1, p1)]).unwrap_err();
        match e {
            JoinError::Launch { pass: 1, index: 0, ref got, ref want } => {
                assert!(got.starts_with("b on gfx906") && want.starts_with("a on gfx906"), "{e}")
            }
            e => panic!("{e}"),
        }
    }
}
