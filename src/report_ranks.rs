//! `cltap report` over a job's files, grouped by rank: each file's rank is
//! the `rank:` line of its API log's header (written when a launcher gave
//! the process one, whatever `--name` called the file), else a `.r<N>.`
//! part of its name (the default name under a launcher). Files with no
//! rank are grouped apart; without any rank the report is as before.

use crate::report::{host_tally, render};
use cltap_formats::apilog::Entry;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

/// The rank a file's name gives: its `.r<N>` part (`app.4242.r3.apilog`).
pub fn rank_in_name(path: &Path) -> Option<u32> {
    let name = path.file_name()?.to_str()?;
    name.split('.').skip(1).find_map(|part| part.strip_prefix('r').filter(|d| !d.is_empty())?.parse().ok())
}

/// The rank an API log's header gives (`# rank: N`).
pub fn rank_in_log(entries: &[Entry]) -> Option<u32> {
    entries.iter().take_while(|e| matches!(e, Entry::Comment(_))).find_map(|e| match e {
        Entry::Comment(c) => c.strip_prefix("rank: ")?.trim().parse().ok(),
        _ => None,
    })
}

/// The rank of an API log: its header's, else its name's.
pub fn rank_of_log(path: &Path, entries: &[Entry]) -> Option<u32> {
    rank_in_log(entries).or_else(|| rank_in_name(path))
}

/// One section's title: `rank N` or `no rank`, with its files.
pub fn title(rank: Option<u32>, files: &[String]) -> String {
    let who = rank.map_or("no rank".to_string(), |r| format!("rank {r}"));
    format!("{who} ({} file{}: {})\n", files.len(), if files.len() == 1 { "" } else { "s" }, files.join(", "))
}

/// One rank's files and their calls; keyed by (no rank, rank) so that
/// ranks come in order and files without one last.
type Groups<'a> = BTreeMap<(bool, u32), (Vec<String>, Vec<&'a Entry>)>;

/// API logs `(path, rank, entries)`: a table per rank (ranks in order, the
/// files with none last), then one over all of them.
pub fn render_logs(logs: &[(String, Option<u32>, Vec<Entry>)]) -> String {
    let mut groups = Groups::new();
    for (path, rank, entries) in logs {
        let g = groups.entry((rank.is_none(), rank.unwrap_or(0))).or_default();
        g.0.push(path.clone());
        g.1.extend(entries.iter());
    }
    let mut out = String::new();
    for ((none, rank), (files, entries)) in &groups {
        let owned: Vec<Entry> = entries.iter().map(|e| (*e).clone()).collect();
        out += &title((!none).then_some(*rank), files);
        out += &render(&host_tally(&owned));
        out.push('\n');
    }
    let all: Vec<Entry> = logs.iter().flat_map(|(_, _, e)| e.iter().cloned()).collect();
    let _ = writeln!(out, "all ranks ({} files)", logs.len());
    out += &render(&host_tally(&all));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cltap_formats::apilog;

    #[test]
    fn ranks_from_names_and_headers() {
        assert_eq!(rank_in_name(Path::new("/x/app.4242.r3.apilog")), Some(3));
        assert_eq!(rank_in_name(Path::new("app.4242.r12.db")), Some(12));
        assert_eq!(rank_in_name(Path::new("app.4242.apilog")), None);
        assert_eq!(rank_in_name(Path::new("run.apilog")), None);
        let log = apilog::read("# cltap 0.1.0 API log\n# pid: 7\n# rank: 5\n").unwrap();
        assert_eq!(rank_of_log(Path::new("custom.apilog"), &log), Some(5));
    }

    #[test]
    fn one_table_per_rank_then_all() {
        let call = |d: u32| {
            format!("TID         1    START TIME 0x0000000000000001    DURATION 0x{d:016x}                         clFinish(cl_command_queue q = 0000000000000001) = CL_SUCCESS\n")
        };
        let a = apilog::read(&call(1)).unwrap();
        let b = apilog::read(&(call(2) + &call(3))).unwrap();
        let t = render_logs(&[("b".into(), Some(1), b), ("a".into(), Some(0), a.clone()), ("n".into(), None, a)]);
        let titles: Vec<&str> =
            t.lines().filter(|l| l.starts_with("rank") || l.starts_with("no rank") || l.starts_with("all")).collect();
        assert_eq!(titles, ["rank 0 (1 file: a)", "rank 1 (1 file: b)", "no rank (1 file: n)", "all ranks (3 files)"]);
        let finish: Vec<&str> = t.lines().filter(|l| l.starts_with("clFinish")).collect();
        let calls: Vec<&str> = finish.iter().map(|l| l.split_whitespace().nth(1).unwrap()).collect();
        assert_eq!(calls, ["1", "2", "1", "4"]);
    }
}
