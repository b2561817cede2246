//! `cltap run`'s options for debugging an application's calls and
//! programs: errors-only logging, program dumps, the build-options
//! override, argument dumps, injection and capture. Each maps onto its
//! `CLTAP_*` variable.

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
    /// Write the selected kernel enqueues' argument contents (buffers, images, scalars) before
    /// the enqueue, after it, or both, to <output>/<name>.dumps/. CLTAP_DUMP_ARGS.
    #[arg(long, value_name = "WHEN", value_parser = ["before", "after", "both"], help_heading = "Dumps and replay")]
    pub dump_args: Option<String>,
    /// Dump, inject and capture only enqueues of kernels whose names match. CLTAP_DUMP_KERNELS.
    #[arg(long, value_name = "REGEX", help_heading = "Dumps and replay")]
    pub dump_kernels: Option<String>,
    /// Dump, inject and capture only these kernel enqueues, from 1 (1-3,10,20-). CLTAP_DUMP_ENQUEUES.
    #[arg(long, value_name = "RANGES", help_heading = "Dumps and replay")]
    pub dump_enqueues: Option<String>,
    /// The largest argument written (default 256M). CLTAP_DUMP_MAX.
    #[arg(long, value_name = "BYTES", help_heading = "Dumps and replay")]
    pub dump_max: Option<String>,
    /// All dumps and captures of the run together at most (default 4G). CLTAP_DUMP_TOTAL.
    #[arg(long, value_name = "BYTES", help_heading = "Dumps and replay")]
    pub dump_total: Option<String>,
    /// Before a selected enqueue N, each file e<N>[-<kernel>].a<I>[...] of DIR replaces argument
    /// I's contents. CLTAP_INJECT.
    #[arg(long, value_name = "DIR", help_heading = "Dumps and replay")]
    pub inject: Option<String>,
    /// Write each selected enqueue as a folder that `cltap replay` runs without the application.
    /// CLTAP_CAPTURE.
    #[arg(long, help_heading = "Dumps and replay")]
    pub capture: bool,
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
        flag(self.capture, "CLTAP_CAPTURE");
        for (k, o) in [
            ("CLTAP_BUILD_OPTIONS", &self.build_options),
            ("CLTAP_BUILD_OPTIONS_APPEND", &self.build_options_append),
            ("CLTAP_DUMP_ARGS", &self.dump_args),
            ("CLTAP_DUMP_KERNELS", &self.dump_kernels),
            ("CLTAP_DUMP_ENQUEUES", &self.dump_enqueues),
            ("CLTAP_DUMP_MAX", &self.dump_max),
            ("CLTAP_DUMP_TOTAL", &self.dump_total),
            ("CLTAP_INJECT", &self.inject),
        ] {
            if let Some(o) = o {
                v.push((k.to_string(), o.clone()));
            }
        }
        v
    }
}
