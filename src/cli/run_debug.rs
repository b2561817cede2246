//! `cltap run`'s options for debugging an application's calls and
//! programs: errors-only logging, program dumps, the build-options
//! override. Each maps onto its `CLTAP_*` variable.

use clap::Args;

#[derive(Args, Debug, Clone, Default)]
pub struct DebugArgs {
    /// Record and log only the calls that returned an error; successful calls cost what they
    /// cost without cltap. CLTAP_ERRORS_ONLY.
    #[arg(long, short = 'e', help_heading = "Programs and errors")]
    pub errors_only: bool,
    /// Write each program's sources, build options and build logs to <output>/programs/.
    /// CLTAP_DUMP_PROGRAMS.
    #[arg(long, help_heading = "Programs and errors")]
    pub dump_programs: bool,
    /// With --dump-programs, each program's binaries per device too. CLTAP_DUMP_BINARIES.
    #[arg(long, help_heading = "Programs and errors")]
    pub dump_binaries: bool,
    /// Build every program with these options instead of the application's. CLTAP_BUILD_OPTIONS.
    #[arg(long, value_name = "OPTIONS", allow_hyphen_values = true, help_heading = "Programs and errors")]
    pub build_options: Option<String>,
    /// Append these options to every program's build options. CLTAP_BUILD_OPTIONS_APPEND.
    #[arg(long, value_name = "OPTIONS", allow_hyphen_values = true, help_heading = "Programs and errors")]
    pub build_options_append: Option<String>,
}

impl DebugArgs {
    /// The variables these options set.
    pub fn env(&self) -> Vec<(String, String)> {
        let mut v = Vec::new();
        let mut flag = |on: bool, k: &str| {
            if on {
                v.push((k.to_string(), "1".to_string()));
            }
        };
        flag(self.errors_only, "CLTAP_ERRORS_ONLY");
        flag(self.dump_programs, "CLTAP_DUMP_PROGRAMS");
        flag(self.dump_binaries, "CLTAP_DUMP_BINARIES");
        for (k, o) in
            [("CLTAP_BUILD_OPTIONS", &self.build_options), ("CLTAP_BUILD_OPTIONS_APPEND", &self.build_options_append)]
        {
            if let Some(o) = o {
                v.push((k.to_string(), o.clone()));
            }
        }
        v
    }
}
