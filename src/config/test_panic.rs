//! `CLTAP_TEST_PANIC`: a test's way to make a wrapper's own code panic, to
//! show what cltap does then (docs/architecture.md#panics). Read once; a
//! wrapper pays nothing for it, as the layer arms it through the collection
//! window's state, which every whole wrapper already reads.

use super::{Config, ConfigError};

pub(crate) const VARS: &[(&str, &str)] = &[(
    "CLTAP_TEST_PANIC",
    "<function> or <function>:after (for tests): that OpenCL or HSA function's wrapper panics before the call is forwarded, or after it returned",
)];

/// Which wrapper panics, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestPanic {
    /// An OpenCL or HSA function's name.
    pub function: String,
    /// After the driver's answer (else before the call is forwarded).
    pub after: bool,
}

const ACCEPTED: &str = "an OpenCL or HSA function's name, optionally followed by :after";

pub(crate) fn parse(name: &str, value: &str, cfg: &mut Config) -> Option<Result<(), ConfigError>> {
    if name != "CLTAP_TEST_PANIC" {
        return None;
    }
    let (function, after) = match value.split_once(':') {
        Some((f, "after")) => (f, true),
        Some(_) => ("", false),
        None => (value, false),
    };
    let known = crate::meta::by_name(function).is_some() || crate::meta::hsa_by_name(function).is_some();
    if !known {
        return Some(Err(ConfigError::Invalid {
            var: "CLTAP_TEST_PANIC",
            value: value.to_string(),
            accepted: ACCEPTED,
        }));
    }
    cfg.test_panic = Some(TestPanic { function: function.to_string(), after });
    Some(Ok(()))
}
