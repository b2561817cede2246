//! A semantic diff of two normalized logs: each thread's call sequence is
//! aligned, and the result lists calls removed, inserted and changed, with
//! the arguments that changed.

use crate::normalize::NCall;
use similar::{capture_diff_slices, Algorithm, DiffOp};

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

fn threads(calls: &[NCall]) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for c in calls {
        if !v.contains(&c.thread) {
            v.push(c.thread.clone());
        }
    }
    v
}

fn fields(a: &NCall, b: &NCall) -> Vec<Field> {
    let mut f = Vec::new();
    let names: Vec<&String> = a.args.iter().map(|(n, _)| n).chain(b.args.iter().map(|(n, _)| n)).collect();
    let mut seen = Vec::new();
    for n in names {
        if seen.contains(&n) {
            continue;
        }
        seen.push(n);
        let get = |c: &NCall| c.args.iter().find(|(k, _)| k == n).map_or("(absent)".to_string(), |(_, v)| v.clone());
        let (x, y) = (get(a), get(b));
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
    let mut out = Vec::new();
    let mut ts = threads(a);
    for t in threads(b) {
        if !ts.contains(&t) {
            ts.push(t);
        }
    }
    for t in ts {
        let x: Vec<&NCall> = a.iter().filter(|c| c.thread == t).collect();
        let y: Vec<&NCall> = b.iter().filter(|c| c.thread == t).collect();
        let lx: Vec<String> = x.iter().map(|c| c.line()).collect();
        let ly: Vec<String> = y.iter().map(|c| c.line()).collect();
        for op in capture_diff_slices(Algorithm::Myers, &lx, &ly) {
            match op {
                DiffOp::Equal { .. } => {}
                DiffOp::Delete { old_index, old_len, .. } => {
                    out.extend(x[old_index..old_index + old_len].iter().map(|c| Change::Removed((*c).clone())))
                }
                DiffOp::Insert { new_index, new_len, .. } => {
                    out.extend(y[new_index..new_index + new_len].iter().map(|c| Change::Inserted((*c).clone())))
                }
                DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                    let (olds, news) = (&x[old_index..old_index + old_len], &y[new_index..new_index + new_len]);
                    // Pair calls of the same function in order; the rest are
                    // plain removals and insertions.
                    let mut j = 0;
                    for o in olds {
                        match news[j..].iter().position(|n| n.name == o.name) {
                            Some(k) => {
                                for n in &news[j..j + k] {
                                    out.push(Change::Inserted((*n).clone()));
                                }
                                let n = news[j + k];
                                out.push(Change::Changed { old: (*o).clone(), new: n.clone(), fields: fields(o, n) });
                                j += k + 1;
                            }
                            None => out.push(Change::Removed((*o).clone())),
                        }
                    }
                    for n in &news[j..] {
                        out.push(Change::Inserted((*n).clone()));
                    }
                }
            }
        }
    }
    out
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
