//! Program dumps and the build-options override: `CLTAP_DUMP_PROGRAMS`,
//! `CLTAP_DUMP_BINARIES`, `CLTAP_BUILD_OPTIONS`, `CLTAP_BUILD_OPTIONS_APPEND`.

use super::{flag, Config, ConfigError};

pub(crate) const VARS: &[(&str, &str)] = &[
    ("CLTAP_DUMP_PROGRAMS", "0 or 1: write each program's sources, build options and build logs to <output>/programs/"),
    (
        "CLTAP_DUMP_BINARIES",
        "0 or 1: with the dumps, each program's binaries per device too (implies CLTAP_DUMP_PROGRAMS)",
    ),
    (
        "CLTAP_BUILD_OPTIONS",
        "text: the options every clBuildProgram and clCompileProgram passes to the driver instead of the application's",
    ),
    ("CLTAP_BUILD_OPTIONS_APPEND", "text: appended (after a space) to the build options the driver sees"),
];

/// What the program controls ask for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Programs {
    /// Sources, options and build logs into `<output>/programs/`.
    pub dump: bool,
    /// The binaries too.
    pub binaries: bool,
    /// Options that replace the application's.
    pub replace: Option<String>,
    /// Options appended to the application's (or to `replace`).
    pub append: Option<String>,
}

impl Programs {
    /// Whether any build call needs cltap's attention.
    pub fn any(&self) -> bool {
        self.dump || self.binaries || self.overrides()
    }

    /// Whether the driver sees other options than the application passed.
    pub fn overrides(&self) -> bool {
        self.replace.is_some() || self.append.is_some()
    }

    /// The options the driver sees for the application's `app` (`None`: it passed NULL).
    pub fn options_for(&self, app: Option<&str>) -> Option<String> {
        if !self.overrides() {
            return app.map(str::to_string);
        }
        let base = self.replace.as_deref().or(app).unwrap_or("");
        Some(match &self.append {
            Some(a) if base.is_empty() => a.clone(),
            Some(a) => format!("{base} {a}"),
            None => base.to_string(),
        })
    }
}

pub(crate) fn parse(name: &str, value: &str, cfg: &mut Config) -> Option<Result<(), ConfigError>> {
    let p = &mut cfg.programs;
    Some(match name {
        "CLTAP_DUMP_PROGRAMS" => flag("CLTAP_DUMP_PROGRAMS", value).map(|b| p.dump |= b),
        "CLTAP_DUMP_BINARIES" => flag("CLTAP_DUMP_BINARIES", value).map(|b| {
            p.binaries = b;
            p.dump |= b;
        }),
        "CLTAP_BUILD_OPTIONS" => text("CLTAP_BUILD_OPTIONS", value).map(|v| p.replace = Some(v)),
        "CLTAP_BUILD_OPTIONS_APPEND" => text("CLTAP_BUILD_OPTIONS_APPEND", value).map(|v| p.append = Some(v)),
        _ => return None,
    })
}

/// Options go to the driver as a C string: no NUL inside.
fn text(var: &'static str, v: &str) -> Result<String, ConfigError> {
    if v.contains('\0') {
        return Err(ConfigError::Invalid { var, value: v.to_string(), accepted: "text without NUL characters" });
    }
    Ok(v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replace_and_append() {
        let p = Programs { replace: Some("-DVALUE=7".into()), ..Default::default() };
        assert_eq!(p.options_for(Some("-cl-fast-relaxed-math")).as_deref(), Some("-DVALUE=7"));
        let p = Programs { append: Some("-DX=1".into()), ..Default::default() };
        assert_eq!(p.options_for(Some("-DY=2")).as_deref(), Some("-DY=2 -DX=1"));
        assert_eq!(p.options_for(None).as_deref(), Some("-DX=1"));
        let p = Programs::default();
        assert_eq!(p.options_for(None), None);
        assert!(!p.any());
    }

    #[test]
    fn binaries_imply_dumps() {
        let (c, e) = Config::from_vars([("CLTAP_DUMP_BINARIES".to_string(), "1".to_string())]);
        assert!(e.is_empty() && c.programs.dump && c.programs.binaries);
        let (c, e) = Config::from_vars([("CLTAP_DUMP_PROGRAMS".to_string(), "maybe".to_string())]);
        assert_eq!(e.len(), 1);
        assert!(!c.programs.dump);
    }
}
