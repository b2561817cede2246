//! `CLTAP_*` settings. Every value is checked once at start-up; a bad one
//! yields one message naming the variable, the value and what is accepted, and
//! the layer then records nothing (it still forwards every call).

use std::path::PathBuf;

/// Every variable cltap reads, with what it accepts, for messages and docs.
pub const VARIABLES: &[(&str, &str)] = &[
    ("CLTAP_ICD_FILENAMES", "colon-separated paths of the real OpenCL drivers (ICD mode)"),
    ("CLTAP_SUMMARY", "0 or 1: print the call summary at exit"),
    ("CLTAP_OUTPUT_DIR", "an existing directory for output files"),
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Print the per-API call tally on stderr at exit.
    pub summary: bool,
    /// Real drivers for ICD mode; `None` means: read the loaders' vendor files.
    pub icd_filenames: Option<Vec<PathBuf>>,
    pub output_dir: PathBuf,
}

impl Default for Config {
    fn default() -> Self {
        Self { summary: false, icd_filenames: None, output_dir: PathBuf::from(".") }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("{var}={value:?} is not valid (accepted: {accepted}); cltap continues as a pure pass-through")]
    Invalid { var: &'static str, value: String, accepted: &'static str },
    #[error("{var}={value:?}: {var} is not a cltap variable (known: {known}); cltap continues as a pure pass-through")]
    Unknown { var: String, value: String, known: String },
}

fn flag(var: &'static str, v: &str) -> Result<bool, ConfigError> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" | "" => Ok(false),
        _ => Err(ConfigError::Invalid { var, value: v.to_string(), accepted: "0 or 1 (also true/false, yes/no, on/off)" }),
    }
}

impl Config {
    /// Reads the configuration from `vars` (name, value pairs, as
    /// `std::env::vars()` gives them). Returns the configuration and every
    /// problem found; with any problem the caller must not record.
    pub fn from_vars<I>(vars: I) -> (Config, Vec<ConfigError>)
    where
        I: IntoIterator<Item = (String, String)>,
    {
        let mut cfg = Config::default();
        let mut errors = Vec::new();
        for (k, v) in vars {
            if !k.starts_with("CLTAP_") {
                continue;
            }
            let r = match k.as_str() {
                "CLTAP_SUMMARY" => flag("CLTAP_SUMMARY", &v).map(|b| cfg.summary = b),
                "CLTAP_ICD_FILENAMES" => {
                    let paths: Vec<PathBuf> = v.split(':').filter(|s| !s.is_empty()).map(PathBuf::from).collect();
                    if paths.is_empty() {
                        Err(ConfigError::Invalid {
                            var: "CLTAP_ICD_FILENAMES",
                            value: v.clone(),
                            accepted: "one or more driver library paths separated by ':'",
                        })
                    } else {
                        cfg.icd_filenames = Some(paths);
                        Ok(())
                    }
                }
                "CLTAP_OUTPUT_DIR" => {
                    if std::path::Path::new(&v).is_dir() {
                        cfg.output_dir = PathBuf::from(&v);
                        Ok(())
                    } else {
                        Err(ConfigError::Invalid { var: "CLTAP_OUTPUT_DIR", value: v.clone(), accepted: "an existing directory" })
                    }
                }
                _ => Err(ConfigError::Unknown {
                    var: k.clone(),
                    value: v.clone(),
                    known: VARIABLES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", "),
                }),
            };
            if let Err(e) = r {
                errors.push(e);
            }
        }
        (cfg, errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
    }

    #[test]
    fn defaults_without_variables() {
        let (c, e) = Config::from_vars(vars(&[("PATH", "/bin")]));
        assert!(e.is_empty());
        assert_eq!(c, Config::default());
    }

    #[test]
    fn bad_flag_names_variable_value_and_accepted() {
        let (_, e) = Config::from_vars(vars(&[("CLTAP_SUMMARY", "maybe")]));
        let msg = e[0].to_string();
        assert!(msg.contains("CLTAP_SUMMARY=\"maybe\""), "{msg}");
        assert!(msg.contains("accepted: 0 or 1"), "{msg}");
        assert!(msg.contains("pure pass-through"), "{msg}");
    }

    #[test]
    fn unknown_variable_is_reported() {
        let (_, e) = Config::from_vars(vars(&[("CLTAP_SUMARY", "1")]));
        assert!(matches!(&e[0], ConfigError::Unknown { var, .. } if var == "CLTAP_SUMARY"));
    }

    #[test]
    fn icd_filenames_split_on_colons() {
        let (c, e) = Config::from_vars(vars(&[("CLTAP_ICD_FILENAMES", "/a.so::/b.so")]));
        assert!(e.is_empty());
        assert_eq!(c.icd_filenames.unwrap(), vec![PathBuf::from("/a.so"), PathBuf::from("/b.so")]);
    }

    #[test]
    fn output_dir_must_exist() {
        let (_, e) = Config::from_vars(vars(&[("CLTAP_OUTPUT_DIR", "/definitely/not/here")]));
        assert_eq!(e.len(), 1);
    }
}
