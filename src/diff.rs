//! A semantic diff of two normalized logs: each thread's call sequence is
//! aligned, and the result lists calls removed, inserted and changed, with
//! the arguments that changed.

use crate::normalize::NCall;
use similar::{capture_diff_slices, Algorithm, DiffOp};
use std::collections::{HashMap, HashSet};

// A diff holds few changes and each is printed once: boxing the changed
// pair would only add indirection.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Removed(NCall),
    Inserted(NCall),
    /// Same function at the same place, something about it differs.
    Changed {
        old: NCall,
        new: NCall,
        fields: Vec<Field>,
    },
}

/// One differing part of a changed call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub what: String,
    pub old: String,
    pub new: String,
}

/// Past this many calls, between the common start and end of one thread's
/// two sequences, the calls are not aligned one by one (Myers' alignment
/// costs about the product of the region's length and its differences):
/// the region is reported as removed and inserted, and a note says so.
pub const MAX_ALIGNED: usize = 10_000;

/// What [`diff_with_notes`] found, and what it did not align.
#[derive(Debug, Default)]
pub struct Diff {
    pub changes: Vec<Change>,
    /// One line per thread whose differing region was past [`MAX_ALIGNED`].
    pub notes: Vec<String>,
}

/// Each thread's calls, threads in the order they first appear in `a` then `b`.
fn by_thread<'a>(a: &'a [NCall], b: &'a [NCall]) -> Vec<(Vec<&'a NCall>, Vec<&'a NCall>)> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut out: Vec<(Vec<&NCall>, Vec<&NCall>)> = Vec::new();
    for (side, calls) in [a, b].into_iter().enumerate() {
        for c in calls {
            let i = *index.entry(&c.thread).or_insert_with(|| {
                out.push((Vec::new(), Vec::new()));
                out.len() - 1
            });
            if side == 0 { &mut out[i].0 } else { &mut out[i].1 }.push(c);
        }
    }
    out
}

fn fields(a: &NCall, b: &NCall) -> Vec<Field> {
    let mut f = Vec::new();
    let in_a: HashMap<&str, &str> = a.args.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let in_b: HashMap<&str, &str> = b.args.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let mut seen = HashSet::new();
    for (n, _) in a.args.iter().chain(&b.args) {
        if !seen.insert(n.as_str()) {
            continue;
        }
        let get = |m: &HashMap<&str, &str>| m.get(n.as_str()).map_or("(absent)".to_string(), |v| v.to_string());
        let (x, y) = (get(&in_a), get(&in_b));
        if x != y {
            f.push(Field { what: n.clone(), old: x, new: y });
        }
    }
    let opt = |o: &Option<String>| o.clone().unwrap_or_else(|| "(none)".into());
    if a.result != b.result {
        f.push(Field { what: "result".into(), old: opt(&a.result), new: opt(&b.result) });
    }
    let outs = |c: &NCall| c.outs.iter().map(|(n, v)| format!("*{n} = {v}")).collect::<Vec<_>>().join(", ");
    if a.outs != b.outs {
        f.push(Field { what: "outputs".into(), old: outs(a), new: outs(b) });
    }
    let rest = |c: &NCall| format!("{:?} {:?} {:?} {}", c.cmd, c.duration, c.local_size, c.repeated);
    if rest(a) != rest(b) {
        f.push(Field { what: "command".into(), old: rest(a), new: rest(b) });
    }
    f
}

/// The differences between two normalized logs, per thread in order.
pub fn diff(a: &[NCall], b: &[NCall]) -> Vec<Change> {
    diff_with_notes(a, b).changes
}

/// [`diff`], with a note for each region too long to align.
pub fn diff_with_notes(a: &[NCall], b: &[NCall]) -> Diff {
    let mut d = Diff::default();
    for (x, y) in by_thread(a, b) {
        let lx: Vec<String> = x.iter().map(|c| c.line()).collect();
        let ly: Vec<String> = y.iter().map(|c| c.line()).collect();
        let head = lx.iter().zip(&ly).take_while(|(p, q)| p == q).count();
        let tail = lx[head..].iter().rev().zip(ly[head..].iter().rev()).take_while(|(p, q)| p == q).count();
        let (xs, ys) = (&x[head..x.len() - tail], &y[head..y.len() - tail]);
        if xs.len() + ys.len() > MAX_ALIGNED {
            let thread = xs.first().or(ys.first()).map_or("", |c| c.thread.as_str());
            d.notes.push(format!(
                "thread {thread}: {} and {} calls differ between the common start and end, more than the {MAX_ALIGNED} \
                 aligned call by call: they are listed as removed and inserted",
                xs.len(),
                ys.len()
            ));
            d.changes.extend(xs.iter().map(|c| Change::Removed((*c).clone())));
            d.changes.extend(ys.iter().map(|c| Change::Inserted((*c).clone())));
            continue;
        }
        let (lx, ly) = (&lx[head..lx.len() - tail], &ly[head..ly.len() - tail]);
        for op in capture_diff_slices(Algorithm::Myers, lx, ly) {
            match op {
                DiffOp::Equal { .. } => {}
                DiffOp::Delete { old_index, old_len, .. } => {
                    d.changes.extend(xs[old_index..old_index + old_len].iter().map(|c| Change::Removed((*c).clone())))
                }
                DiffOp::Insert { new_index, new_len, .. } => {
                    d.changes.extend(ys[new_index..new_index + new_len].iter().map(|c| Change::Inserted((*c).clone())))
                }
                DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                    pair(&xs[old_index..old_index + old_len], &ys[new_index..new_index + new_len], &mut d.changes)
                }
            }
        }
    }
    d
}

/// Pairs the calls of a replaced block by function, in order: each old call
/// with the next new call of its function; the rest are plain removals and
/// insertions. Each function's new calls are listed once, so the pairing is
/// linear in the block.
fn pair(olds: &[&NCall], news: &[&NCall], out: &mut Vec<Change>) {
    let mut at: HashMap<&str, std::collections::VecDeque<usize>> = HashMap::new();
    for (i, n) in news.iter().enumerate() {
        at.entry(n.name.as_str()).or_default().push_back(i);
    }
    let mut j = 0;
    for o in olds {
        let next = at.get_mut(o.name.as_str()).and_then(|q| {
            while q.front().is_some_and(|&i| i < j) {
                q.pop_front();
            }
            q.pop_front()
        });
        match next {
            Some(k) => {
                out.extend(news[j..k].iter().map(|n| Change::Inserted((*n).clone())));
                out.push(Change::Changed { old: (*o).clone(), new: news[k].clone(), fields: fields(o, news[k]) });
                j = k + 1;
            }
            None => out.push(Change::Removed((*o).clone())),
        }
    }
    out.extend(news[j..].iter().map(|n| Change::Inserted((*n).clone())));
}

/// A readable account of the changes.
pub fn render_text(changes: &[Change]) -> String {
    let mut s = String::new();
    for c in changes {
        match c {
            Change::Removed(x) => s += &format!("- {}\n", x.line()),
            Change::Inserted(x) => s += &format!("+ {}\n", x.line()),
            Change::Changed { old, new, fields } => {
                s += &format!(
                    "~ {} {}{}\n",
                    old.thread,
                    old.name,
                    old.cmd.map_or(String::new(), |c| format!(" [cmd#{c}]"))
                );
                for f in fields {
                    s += &format!("    {}: {} -> {}\n", f.what, f.old, f.new);
                }
                let _ = new;
            }
        }
    }
    s
}

pub fn render_json(changes: &[Change]) -> String {
    use serde_json::json;
    let call = |c: &NCall| json!({"thread": c.thread, "name": c.name, "line": c.line()});
    let v: Vec<serde_json::Value> = changes
        .iter()
        .map(|c| match c {
            Change::Removed(x) => json!({"kind": "removed", "call": call(x)}),
            Change::Inserted(x) => json!({"kind": "inserted", "call": call(x)}),
            Change::Changed { old, new, fields } => json!({
                "kind": "changed", "old": call(old), "new": call(new),
                "fields": fields.iter().map(|f| json!({"what": f.what, "old": f.old, "new": f.new})).collect::<Vec<_>>()
            }),
        })
        .collect();
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(t: &str, name: &str, args: &[(&str, &str)]) -> NCall {
        NCall {
            thread: t.into(),
            name: name.into(),
            cmd: None,
            args: args.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect(),
            result: Some("CL_SUCCESS".into()),
            outs: vec![],
            duration: None,
            local_size: None,
            repeated: false,
        }
    }

    #[test]
    fn finds_changed_inserted_and_removed_calls() {
        let a = vec![c("T1", "clA", &[]), c("T1", "clB", &[("size", "64")]), c("T1", "clC", &[]), c("T2", "clD", &[])];
        let b = vec![c("T1", "clA", &[]), c("T1", "clB", &[("size", "128")]), c("T1", "clX", &[]), c("T2", "clD", &[])];
        let d = diff(&a, &b);
        assert_eq!(d.len(), 3, "{d:#?}");
        match &d[0] {
            Change::Changed { fields, .. } => {
                assert_eq!(fields, &[Field { what: "size".into(), old: "64".into(), new: "128".into() }])
            }
            other => panic!("{other:?}"),
        }
        assert!(
            matches!(&d[1], Change::Removed(x) if x.name == "clC")
                || matches!(&d[2], Change::Removed(x) if x.name == "clC")
        );
        assert!(d.iter().any(|x| matches!(x, Change::Inserted(y) if y.name == "clX")));
        let text = render_text(&d);
        assert!(text.contains("    size: 64 -> 128"), "{text}");
        assert!(render_json(&d).contains("\"kind\": \"changed\""));
    }

    #[test]
    fn equal_logs_have_no_changes() {
        let a = vec![c("T1", "clA", &[("x", "1")])];
        assert!(diff(&a, &a.clone()).is_empty());
    }
}
