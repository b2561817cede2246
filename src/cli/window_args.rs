//! `cltap run`'s collection window and kernel filter options
//! (docs/collection.md), each the `CLTAP_*` variable it names.

use clap::Args;

#[derive(Args, Debug, Clone, Default)]
pub struct WindowArgs {
    /// Record only inside time windows: DELAY:DURATION[:REPEAT] (units ns, us, ms, s, m; REPEAT
    /// 0 for ever), e.g. 2s:500ms:3. CLTAP_WINDOW.
    #[arg(long, value_name = "DELAY:DURATION[:REPEAT]", short = 'w', help_heading = "Windows and kernel filters")]
    pub window: Option<String>,
    /// Record only the first N calls. CLTAP_WINDOW_CALLS.
    #[arg(long, value_name = "N", help_heading = "Windows and kernel filters")]
    pub window_calls: Option<String>,
    /// Record from the call with command id FIRST to the one with LAST. CLTAP_WINDOW_ENQUEUES.
    #[arg(long, value_name = "FIRST-LAST", help_heading = "Windows and kernel filters")]
    pub window_enqueues: Option<String>,
    /// Record nothing until the application calls cltap_resume(). CLTAP_START_PAUSED.
    #[arg(long, help_heading = "Windows and kernel filters")]
    pub start_paused: bool,
    /// Counters and device times only for kernels whose names match. CLTAP_KERNEL_INCLUDE.
    #[arg(long, value_name = "REGEX", help_heading = "Windows and kernel filters")]
    pub kernel_include: Option<String>,
    /// No counters and device times for kernels whose names match. CLTAP_KERNEL_EXCLUDE.
    #[arg(long, value_name = "REGEX", help_heading = "Windows and kernel filters")]
    pub kernel_exclude: Option<String>,
    /// Counters and device times only for these launches of each kernel (from 1: 1-3,10,20-).
    /// CLTAP_KERNEL_ITERATIONS.
    #[arg(long, value_name = "RANGES", help_heading = "Windows and kernel filters")]
    pub kernel_iterations: Option<String>,
}

impl WindowArgs {
    /// The variables these options set.
    pub fn vars(&self) -> Vec<(&'static str, String)> {
        let mut v = Vec::new();
        let mut add = |k: &'static str, o: &Option<String>| v.extend(o.clone().map(|x| (k, x)));
        add("CLTAP_WINDOW", &self.window);
        add("CLTAP_WINDOW_CALLS", &self.window_calls);
        add("CLTAP_WINDOW_ENQUEUES", &self.window_enqueues);
        add("CLTAP_KERNEL_INCLUDE", &self.kernel_include);
        add("CLTAP_KERNEL_EXCLUDE", &self.kernel_exclude);
        add("CLTAP_KERNEL_ITERATIONS", &self.kernel_iterations);
        if self.start_paused {
            v.push(("CLTAP_START_PAUSED", "1".into()));
        }
        v
    }
}
