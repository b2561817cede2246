//! `cltap run`'s event checks, execution controls and device-time
//! histograms (docs/controls.md). Each maps onto its `CLTAP_*` variable.

use clap::Args;

#[derive(Args, Debug, Clone, Default)]
pub struct ControlArgs {
    /// Check every event wait list before the call is forwarded; findings go to the API log
    /// and the summary. CLTAP_EVENT_CHECKS.
    #[arg(long, help_heading = "Checks and controls")]
    pub event_checks: bool,
    /// clFinish on the queue after every enqueue: a failing command is named with its CMD ID.
    /// CLTAP_FINISH_AFTER_ENQUEUE.
    #[arg(long, help_heading = "Checks and controls")]
    pub finish_after_enqueue: bool,
    /// clFlush on the queue after every enqueue. CLTAP_FLUSH_AFTER_ENQUEUE.
    #[arg(long, help_heading = "Checks and controls")]
    pub flush_after_enqueue: bool,
    /// Do not forward enqueues: each returns CL_SUCCESS and an event already complete.
    /// CLTAP_SKIP_ENQUEUES.
    #[arg(long, help_heading = "Checks and controls")]
    pub skip_enqueues: bool,
    /// Create every queue in order. CLTAP_IN_ORDER_QUEUES.
    #[arg(long, help_heading = "Checks and controls")]
    pub in_order_queues: bool,
    /// A histogram of device times per kernel and sizes in the summary (implies
    /// --device-timing). CLTAP_DEVICE_HISTOGRAM.
    #[arg(long, help_heading = "Checks and controls")]
    pub device_histogram: bool,
}

impl ControlArgs {
    /// The variables these options set.
    pub fn env(&self) -> Vec<(String, String)> {
        [
            (self.event_checks, "CLTAP_EVENT_CHECKS"),
            (self.finish_after_enqueue, "CLTAP_FINISH_AFTER_ENQUEUE"),
            (self.flush_after_enqueue, "CLTAP_FLUSH_AFTER_ENQUEUE"),
            (self.skip_enqueues, "CLTAP_SKIP_ENQUEUES"),
            (self.in_order_queues, "CLTAP_IN_ORDER_QUEUES"),
            (self.device_histogram, "CLTAP_DEVICE_HISTOGRAM"),
        ]
        .into_iter()
        .filter(|(on, _)| *on)
        .map(|(_, k)| (k.to_string(), "1".to_string()))
        .collect()
    }
}
