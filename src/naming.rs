//! What a process's files are called and whether this process is traced at
//! all: output templates (`CLTAP_OUTPUT_DIR`, `CLTAP_OUTPUT_NAME`) and the
//! rank selection (`CLTAP_RANKS`) of a job started by an MPI or batch
//! launcher. Fields follow rocprofv3's output keys where they overlap, and
//! Nsight Systems' `%q{NAME}`, so that job scripts written for those tools
//! carry over.

use std::sync::OnceLock;

/// The launchers' variables that give a process its rank, in the order they
/// are tried: Open MPI, MPICH/Intel MPI (PMI), PMIx, Slurm, MVAPICH, Cray PALS.
pub const RANK_VARS: &[&str] =
    &["OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", "MV2_COMM_WORLD_RANK", "PALS_RANKID"];

/// The fields a template may name, for messages and docs.
pub const FIELDS: &str =
    "%hostname%, %pid%, %ppid%, %rank%, %app%, %env{NAME}%, %q{NAME}% (NAME must be set) and %% for a '%'";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    #[error("{0} is not a field (fields: {FIELDS})")]
    UnknownField(String),
    #[error("a '%' at byte {0} starts no field (fields: {FIELDS})")]
    Unterminated(usize),
    #[error("%q{{{0}}}% names a variable that is not set")]
    Unset(String),
    #[error("{0:?} is not a plain file name (no '/', not empty, not '.' or '..')")]
    NotPlain(String),
}

/// What a template's fields stand for in one process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Process {
    pub hostname: String,
    pub pid: u32,
    pub ppid: u32,
    /// The rank a launcher gave the process, if any.
    pub rank: Option<u32>,
    /// The executable's file name.
    pub app: String,
}

impl Process {
    /// This process, now (after `fork`, the child's own pid).
    pub fn current() -> Process {
        Process {
            hostname: hostname(),
            pid: std::process::id(),
            // SAFETY: getppid cannot fail.
            ppid: unsafe { libc::getppid() } as u32,
            rank: rank_from(|k| std::env::var(k).ok()),
            app: std::env::current_exe()
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_else(|| "app".into()),
        }
    }
}

fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer's length is passed; the name is NUL-terminated within it or truncated.
    if unsafe { libc::gethostname(buf.as_mut_ptr() as *mut libc::c_char, buf.len() - 1) } != 0 {
        return "localhost".into();
    }
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// The first launcher variable that holds a rank (a number).
pub fn rank_from(get: impl Fn(&str) -> Option<String>) -> Option<u32> {
    RANK_VARS.iter().find_map(|v| get(v).and_then(|s| s.trim().parse().ok()))
}

/// `template` with its fields replaced. `env` looks variables up.
pub fn expand(template: &str, p: &Process, env: &dyn Fn(&str) -> Option<String>) -> Result<String, TemplateError> {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let field = &rest[at + 1..];
        let start = template.len() - field.len() - 1;
        let (value, used) = if field.starts_with('%') {
            ("%".to_string(), 1)
        } else if let Some(name) = braced(field, "env{") {
            (env(name).unwrap_or_default(), name.len() + 6)
        } else if let Some(name) = braced(field, "q{") {
            (env(name).ok_or_else(|| TemplateError::Unset(name.into()))?, name.len() + 4)
        } else {
            let end = field.find('%').ok_or(TemplateError::Unterminated(start))?;
            let value = match &field[..end] {
                "hostname" => p.hostname.clone(),
                "pid" => p.pid.to_string(),
                "ppid" => p.ppid.to_string(),
                // As rocprofv3: 0 for a process no launcher started.
                "rank" => p.rank.unwrap_or(0).to_string(),
                "app" => p.app.clone(),
                other => return Err(TemplateError::UnknownField(format!("%{other}%"))),
            };
            (value, end + 1)
        };
        out.push_str(&value);
        rest = &field[used..];
    }
    out.push_str(rest);
    Ok(out)
}

/// `NAME` of `env{NAME}%…` (for `open` = `env{`), when the field is whole.
fn braced<'a>(field: &'a str, open: &str) -> Option<&'a str> {
    let inner = field.strip_prefix(open)?;
    let end = inner.find("}%")?;
    let name = &inner[..end];
    (!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')).then_some(name)
}

/// The default name of a process's files: `<app>.<pid>`, and `.r<rank>`
/// under a launcher.
pub fn default_stem(p: &Process) -> String {
    match p.rank {
        Some(r) => format!("{}.{}.r{r}", p.app, p.pid),
        None => format!("{}.{}", p.app, p.pid),
    }
}

/// A file-name template, expanded to a plain file name.
pub fn stem_with(
    template: Option<&str>,
    p: &Process,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String, TemplateError> {
    let Some(t) = template else { return Ok(default_stem(p)) };
    let s = expand(t, p, env)?;
    if s.is_empty() || s == "." || s == ".." || s.contains(['/', '\0']) {
        return Err(TemplateError::NotPlain(s));
    }
    Ok(s)
}

static NAME: OnceLock<Option<String>> = OnceLock::new();

/// Sets the process's file-name template (`CLTAP_OUTPUT_NAME`), once, when
/// the configuration is read; it was checked then.
pub fn set_name_template(t: Option<String>) {
    let _ = NAME.set(t);
}

/// The name of every file of this process, before its extension. The
/// template was checked when it was set; should it fail now (a variable
/// `%q{…}%` names was unset since), the default name is used.
pub fn stem() -> String {
    let p = Process::current();
    let t = NAME.get().and_then(|t| t.as_deref());
    stem_with(t, &p, &|k| std::env::var(k).ok()).unwrap_or_else(|_| default_stem(&p))
}

/// `CLTAP_RANKS`: ranks and ranges, `0,3-5`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ranks(Vec<(u32, u32)>);

impl Ranks {
    pub fn parse(v: &str) -> Option<Ranks> {
        let mut out = Vec::new();
        for item in v.split(',').map(str::trim) {
            let (a, b) = match item.split_once('-') {
                Some((a, b)) => (a.trim().parse().ok()?, b.trim().parse().ok()?),
                None => {
                    let r = item.parse().ok()?;
                    (r, r)
                }
            };
            if a > b {
                return None;
            }
            out.push((a, b));
        }
        Some(Ranks(out))
    }

    /// Whether `rank` (a process no launcher started counts as rank 0) is
    /// selected.
    pub fn selects(&self, rank: Option<u32>) -> bool {
        let r = rank.unwrap_or(0);
        self.0.iter().any(|(a, b)| (*a..=*b).contains(&r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proc_() -> Process {
        Process { hostname: "node7".into(), pid: 4242, ppid: 17, rank: Some(3), app: "vecadd".into() }
    }

    fn env(k: &str) -> Option<String> {
        (k == "JOB").then(|| "j55".into())
    }

    #[test]
    fn every_field_expands() {
        let got = expand("%hostname%/%app%.%pid%.%ppid%.r%rank%.%env{JOB}%.%q{JOB}%.%env{NOPE}%.100%%", &proc_(), &env);
        assert_eq!(got.unwrap(), "node7/vecadd.4242.17.r3.j55.j55..100%");
        let no_rank = Process { rank: None, ..proc_() };
        assert_eq!(expand("r%rank%", &no_rank, &env).unwrap(), "r0");
    }

    #[test]
    fn bad_templates_say_why() {
        assert_eq!(expand("a%pidx%", &proc_(), &env), Err(TemplateError::UnknownField("%pidx%".into())));
        assert_eq!(expand("abc%pid", &proc_(), &env), Err(TemplateError::Unterminated(3)));
        assert_eq!(expand("%q{NOPE}%", &proc_(), &env), Err(TemplateError::Unset("NOPE".into())));
        assert_eq!(expand("%env{}%", &proc_(), &env), Err(TemplateError::UnknownField("%env{}%".into())));
        assert_eq!(stem_with(Some("%hostname%/x"), &proc_(), &env), Err(TemplateError::NotPlain("node7/x".into())));
        assert_eq!(stem_with(Some("%env{NOPE}%"), &proc_(), &env), Err(TemplateError::NotPlain(String::new())));
        assert!(TemplateError::UnknownField("%x%".into()).to_string().contains("%hostname%"));
    }

    #[test]
    fn the_default_name_adds_the_rank_only_under_a_launcher() {
        assert_eq!(stem_with(None, &proc_(), &env).unwrap(), "vecadd.4242.r3");
        assert_eq!(stem_with(None, &Process { rank: None, ..proc_() }, &env).unwrap(), "vecadd.4242");
    }

    #[test]
    fn the_rank_comes_from_the_first_launcher_variable_holding_a_number() {
        let vars = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
        };
        assert_eq!(rank_from(vars(&[("SLURM_PROCID", "5"), ("PMI_RANK", "2")])), Some(2));
        assert_eq!(rank_from(vars(&[("OMPI_COMM_WORLD_RANK", "x"), ("SLURM_PROCID", "5")])), Some(5));
        assert_eq!(rank_from(vars(&[])), None);
    }

    #[test]
    fn rank_lists_and_ranges() {
        let r = Ranks::parse("0, 3-5").unwrap();
        let picked: Vec<u32> = (0..8).filter(|i| r.selects(Some(*i))).collect();
        assert_eq!(picked, [0, 3, 4, 5]);
        assert!(r.selects(None), "no launcher: rank 0");
        assert!(!Ranks::parse("1").unwrap().selects(None));
        for bad in ["", "a", "5-3", "1,,2", "-1", "1-"] {
            assert_eq!(Ranks::parse(bad), None, "{bad:?}");
        }
    }
}
