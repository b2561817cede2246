//! The configuration, as the environment gives it.

use cltap::config::Config;

/// Reads the environment. A bad setting is reported here, once; the second
/// value says whether recording may start (no setting was bad).
pub fn read() -> (Config, bool) {
    let (cfg, errors) = Config::from_vars_os(std::env::vars_os());
    for e in &errors {
        cltap::warn!("{e}");
    }
    (cfg, errors.is_empty())
}
