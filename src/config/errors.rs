//! `CLTAP_ERRORS_ONLY`: the API log holds only the calls that failed.

use super::{flag, Config, ConfigError};

pub(crate) const VARS: &[(&str, &str)] = &[(
    "CLTAP_ERRORS_ONLY",
    "0 or 1: record and log only the calls that returned an error (successful calls cost what they cost without cltap)",
)];

pub(crate) fn parse(name: &str, value: &str, cfg: &mut Config) -> Option<Result<(), ConfigError>> {
    match name {
        "CLTAP_ERRORS_ONLY" => Some(flag("CLTAP_ERRORS_ONLY", value).map(|b| cfg.errors_only = b)),
        _ => None,
    }
}
