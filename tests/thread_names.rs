//! Threads carry their OS names on the timeline, in the `.pftrace` and in rocpd's thread table:
//! each thread's name is read once, when it takes its first chunk, and kept in the trace
//! (`KIND_THREAD`), so a rendering of the trace names them the same. A thread renamed after its
//! first call keeps the name it had then (docs/trace-format.md#wide-records).

mod common;
use common::*;
use std::collections::HashMap;

#[test]
fn each_thread_is_named_by_its_os_name_at_its_first_call_in_every_timeline() {
    let exe = special("named.c", "named-threads");
    let d = scratch("thread-names");
    let mut c = cltap_on_pocl(&d);
    c.args(["run", "-q", "--timeline", "--pftrace", "--rocpd", "--no-summary", "--"]).arg(&exe);
    let o = run(c);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let tid = |who: &str| -> u32 {
        let l = o.stdout.lines().find(|l| l.starts_with(who)).unwrap_or_else(|| panic!("{}", o.stdout));
        l.split(' ').nth(1).unwrap().parse().unwrap()
    };
    // The other thread inherits the main thread's name, the program's (15 bytes at most).
    let inherited: String = "named-threads".chars().take(15).collect();
    let want: HashMap<u32, String> = [(tid("a "), "cltap-worker-a".to_string()), (tid("b "), inherited.clone())].into();

    // The timeline's thread_name events.
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(only_file(&d, ".json")).unwrap()).unwrap();
    let named: HashMap<u32, String> = json["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        // The host's threads: the first event names the host's process.
        .filter(|e| e["name"] == "thread_name" && e["pid"] == json["traceEvents"][0]["pid"])
        .map(|e| (e["tid"].as_u64().unwrap() as u32, e["args"]["name"].as_str().unwrap().to_string()))
        .collect();
    for (t, n) in &want {
        assert_eq!(named.get(t), Some(n), "thread {t}: {named:?}");
    }
    assert!(!named.values().any(|n| n == "renamed-late"), "{named:?}");

    // The .pftrace's thread descriptors.
    let packets = cltap_formats::pftrace::read(&std::fs::read(only_file(&d, ".pftrace")).unwrap()).unwrap();
    let threads: HashMap<u32, String> = packets
        .iter()
        .filter_map(|p| p.track_descriptor.as_ref()?.thread.as_ref())
        .map(|t| (t.tid.unwrap() as u32, t.thread_name.clone().unwrap_or_default()))
        .collect();
    for (t, n) in &want {
        assert_eq!(threads.get(t), Some(n), "thread {t}: {threads:?}");
    }

    // rocpd's thread table.
    let db = only_file(&d, ".db");
    let q = std::process::Command::new("python3")
        .args(["-c", "import sqlite3,sys\nfor t,n in sqlite3.connect(sys.argv[1]).execute('SELECT tid, name FROM rocpd_info_thread'): print(t, n)"])
        .arg(&db)
        .output()
        .unwrap();
    let rows: HashMap<u32, String> = String::from_utf8_lossy(&q.stdout)
        .lines()
        .map(|l| {
            let (t, n) = l.split_once(' ').unwrap();
            (t.parse().unwrap(), n.to_string())
        })
        .collect();
    for (t, n) in &want {
        assert_eq!(rows.get(t), Some(n), "thread {t}: {rows:?}");
    }

    // The API log shows no such record; its calls are as without names.
    let log = std::fs::read_to_string(only_file(&d, ".apilog")).unwrap();
    assert_eq!(log.lines().filter(|l| l.starts_with("TID")).count(), 1 + 3 + 2, "{log}");
    assert!(!log.contains("cltap-worker-a"), "{log}");
}
