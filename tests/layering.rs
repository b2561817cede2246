//! No import cycle between the modules of a crate. Each source file is a
//! module; it depends on another when it names it (`crate::a::b`,
//! `super::x`, `use crate::a::{b, c}`), except between a module and its own
//! ancestors (a parent declares its children; a child may use what its
//! parent holds). Test modules are left out. A cycle found is printed with
//! its edges; none is allowed anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn module_of(root: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(root).unwrap().with_extension("");
    let mut m: Module = rel.iter().map(|c| c.to_string_lossy().into_owned()).collect();
    if matches!(m.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        m.pop();
    }
    m
}

/// The source without comments and without its `#[cfg(test)] mod tests { … }`
/// (which, by convention here, closes the file).
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every path (`crate::a::b`, `super::c`) named in `code`, resolved from
/// `m`, with `{…}` groups expanded one level.
fn paths(m: &Module, code: &str) -> Vec<Module> {
    let mut out = Vec::new();
    let b = code.as_bytes();
    let mut i = 0;
    while i < code.len() {
        let rest = &code[i..];
        let start = ["crate::", "super::", "self::"].iter().find(|p| rest.starts_with(**p));
        let boundary = i == 0 || !is_ident(b[i - 1] as char);
        let Some(_) = start.filter(|_| boundary) else {
            i += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let end = rest.find(|c: char| !(is_ident(c) || c == ':')).unwrap_or(rest.len());
        let mut parts: Vec<&str> = rest[..end].split("::").filter(|s| !s.is_empty()).collect();
        let mut base: Module = if parts[0] == "crate" { Vec::new() } else { m.clone() };
        if parts[0] == "crate" {
            parts.remove(0);
        }
        while let Some(&p) = parts.first() {
            match p {
                "super" => {
                    base.pop();
                }
                "self" => {}
                _ => break,
            }
            parts.remove(0);
        }
        let mut prefix = base.clone();
        prefix.extend(parts.iter().map(|s| s.to_string()));
        if rest[end..].starts_with('{') {
            let close = rest[end..].find('}').map_or(rest.len(), |c| end + c);
            for item in rest[end + 1..close].split(',') {
                let name: String = item.trim().chars().take_while(|&c| is_ident(c)).collect();
                if !name.is_empty() && name != "self" {
                    let mut p = prefix.clone();
                    p.push(name);
                    out.push(p);
                }
            }
        }
        out.push(prefix);
        i += end.max(1);
    }
    out
}

fn is_ancestor(a: &Module, b: &Module) -> bool {
    a.len() < b.len() && b[..a.len()] == a[..]
}

/// The strongly connected components of more than one module (Tarjan).
fn cycles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct S<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'a Module, usize>,
        low: BTreeMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        on: BTreeSet<&'a Module>,
        out: Vec<Vec<Module>>,
    }
    fn visit<'a>(s: &mut S<'a>, v: &'a Module) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        for w in &s.edges[v] {
            if !s.index.contains_key(w) {
                visit(s, w);
                let l = s.low[w].min(s.low[v]);
                s.low.insert(v, l);
            } else if s.on.contains(w) {
                let l = s.index[w].min(s.low[v]);
                s.low.insert(v, l);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                comp.push(w.clone());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = S {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

fn graph(root: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let mut list = Vec::new();
    files(root, &mut list);
    let mods: BTreeMap<Module, PathBuf> = list.iter().map(|f| (module_of(root, f), f.clone())).collect();
    let mut edges = BTreeMap::new();
    for (m, f) in &mods {
        let mut deps = BTreeSet::new();
        for p in paths(m, &code(&std::fs::read_to_string(f).unwrap())) {
            // The longest prefix that is a module of this crate.
            let target = (0..=p.len()).rev().map(|k| p[..k].to_vec()).find(|t| mods.contains_key(t));
            if let Some(t) = target.filter(|t| t != m && !is_ancestor(t, m) && !is_ancestor(m, t)) {
                deps.insert(t);
            }
        }
        edges.insert(m.clone(), deps);
    }
    edges
}

#[test]
fn no_module_cycle_in_any_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for krate in ["src", "icd-layer/src", "formats/src", "apidesc/src", "gpu-emu/src"] {
        let dir = root.join(krate);
        if !dir.is_dir() {
            continue;
        }
        let edges = graph(&dir);
        for comp in cycles(&edges) {
            let names: Vec<String> = comp.iter().map(|m| m.join("::")).collect();
            let mut text = format!("{krate}: {}\n", names.join(", "));
            for a in &comp {
                for b in edges[a].iter().filter(|b| comp.contains(b)) {
                    text += &format!("    {} -> {}\n", a.join("::"), b.join("::"));
                }
            }
            found.push(text);
        }
    }
    assert!(found.is_empty(), "module cycles:\n{}", found.concat());
}

#[test]
fn the_cycle_finder_sees_a_cycle_and_ignores_parents() {
    let m = |s: &str| -> Module { s.split("::").map(String::from).collect() };
    let mut edges = BTreeMap::new();
    edges.insert(m("a"), BTreeSet::from([m("b")]));
    edges.insert(m("b"), BTreeSet::from([m("a")]));
    edges.insert(m("c"), BTreeSet::from([m("a")]));
    assert_eq!(cycles(&edges), vec![vec![m("a"), m("b")]]);
    let found = paths(&m("x::y"), "use super::{z, w::v};\nlet _ = crate::q::r::S; self::k::f();");
    assert!(found.contains(&m("x::z")) && found.contains(&m("x::w")), "{found:?}");
    assert!(found.contains(&m("q::r::S")) && found.contains(&m("x::y::k::f")), "{found:?}");
    assert!(is_ancestor(&m("x"), &m("x::y")) && !is_ancestor(&m("x::y"), &m("x::y")));
}
