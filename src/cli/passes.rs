//! `cltap run --counters` when the request needs more than one pass: the
//! first run left `<stem>.pass0.json` and said how many passes there are;
//! the application is run again for each further pass
//! (`CLTAP_COUNTER_PASS=N`), and the passes' rows are joined into the
//! first run's `.csv`, `.occupancy` and `.results.csv`, or not at all when
//! the runs launched different kernels.

use cltap::counters::{files, passes};
use std::path::{Path, PathBuf};

/// `(stem, path)` of the pass `pass` kept by the run that started at
/// `since`: the one of process `pid` if it left one, else the one any
/// process of that run left (the application may be a script that starts
/// the GPU program, or start a worker process).
fn pass_file(dir: &Path, pid: u32, pass: u32, since: std::time::SystemTime) -> Option<(String, PathBuf)> {
    let found: Vec<(String, PathBuf, bool)> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter(|e| e.metadata().and_then(|m| m.modified()).is_ok_and(|t| t >= since))
        .filter_map(|e| {
            let p = e.path();
            let n = p.file_name()?.to_str()?.to_string();
            let (stem, k) = n.strip_suffix(".json")?.rsplit_once(".pass")?;
            (k.parse::<u32>().ok()? == pass).then(|| (stem.to_string(), p.clone(), stem.ends_with(&format!(".{pid}"))))
        })
        .collect();
    let pick = found.iter().find(|f| f.2).or_else(|| found.first())?;
    if found.len() > 1 {
        eprintln!("cltap: counters: {} processes kept pass {pass}; joining {}", found.len(), pick.1.display());
    }
    Some((pick.0.clone(), pick.1.clone()))
}

/// Runs the passes after the first and writes the joined files.
pub fn run_remaining(app: &[String], env: &[(String, String)], dir: &Path, first: &super::child::Outcome) {
    let Some((stem, path)) = pass_file(dir, first.pid, 0, first.started) else { return };
    let p0 = match files::load_pass(&path) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("cltap: counters: cannot read {}: {e}", path.display());
            return;
        }
    };
    let _ = std::fs::remove_file(&path);
    let passes = p0.passes;
    eprintln!(
        "cltap: counters: the request needs {passes} passes; running the application {} more time(s)",
        passes - 1
    );
    let mut runs = vec![p0];
    for k in 1..passes {
        let mut e = env.to_vec();
        e.push(("CLTAP_COUNTER_PASS".into(), k.to_string()));
        let o = match super::child::spawn(app, &e) {
            Ok(o) => o,
            Err(e) => {
                eprintln!("cltap: counters: pass {k}: {e}");
                return;
            }
        };
        if o.code != first.code {
            eprintln!(
                "cltap: counters: pass {k} exited with {} where the first run exited with {}",
                o.code, first.code
            );
        }
        match pass_file(dir, o.pid, k, o.started).map(|(_, p)| (files::load_pass(&p), p)) {
            Some((Ok(p), path)) => {
                let _ = std::fs::remove_file(path);
                runs.push(p);
            }
            _ => {
                eprintln!("cltap: counters: pass {k} left no counter rows; the counter files are not written");
                return;
            }
        }
    }
    let joined = match passes::passes(runs) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("cltap: counters: {e}");
            return;
        }
    };
    let process = files::Process {
        application: app[0].clone(),
        args: app[1..].join(" "),
        cwd: std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_default(),
        os: "Linux".into(),
    };
    files::unavailable(&joined);
    match files::write(dir, &stem, &joined, &process) {
        Ok(_) => eprintln!("cltap: counters: {passes} passes joined"),
        Err(e) => eprintln!("cltap: counters: cannot write the counter files: {e}"),
    }
}
