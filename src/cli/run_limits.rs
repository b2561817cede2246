//! `cltap run`'s options that bound what a run leaves on disk
//! (docs/configuration.md#bounded-output). Each maps onto its `CLTAP_*`
//! variable.

use clap::Args;

#[derive(Args, Debug, Clone, Default)]
pub struct LimitArgs {
    /// The largest the binary trace may grow (K, M, G, T; 0: no limit, the default); past it
    /// calls are forwarded, not recorded, and counted as dropped. CLTAP_TRACE_LIMIT.
    #[arg(long, value_name = "BYTES", help_heading = "Outputs")]
    pub trace_limit: Option<String>,
    /// The largest the API log and the timeline (.json) may grow each (K, M, G, T; default
    /// 1G; 0: no limit); they then end cleanly and say what they leave out, which the trace
    /// keeps. CLTAP_OUTPUT_LIMIT.
    #[arg(long, value_name = "BYTES", help_heading = "Outputs")]
    pub output_limit: Option<String>,
    /// Delete the binary trace once the process has rendered it whole. CLTAP_DROP_TRACE.
    #[arg(long, help_heading = "Outputs")]
    pub drop_trace: bool,
}

impl LimitArgs {
    /// The variables these options set.
    pub fn env(&self) -> Vec<(String, String)> {
        let mut v = Vec::new();
        for (k, o) in [("CLTAP_TRACE_LIMIT", &self.trace_limit), ("CLTAP_OUTPUT_LIMIT", &self.output_limit)] {
            if let Some(o) = o {
                v.push((k.to_string(), o.clone()));
            }
        }
        if self.drop_trace {
            v.push(("CLTAP_DROP_TRACE".to_string(), "1".to_string()));
        }
        v
    }
}
