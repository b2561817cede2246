//! Event checks, execution controls and device-time histograms, as
//! CLIntercept's `EventChecking`, `FinishAfterEnqueue`, `FlushAfterEnqueue`,
//! `NullEnqueue`, `InOrderQueue` and `DevicePerformanceTimingHistogram`:
//! `CLTAP_EVENT_CHECKS`, `CLTAP_FINISH_AFTER_ENQUEUE`,
//! `CLTAP_FLUSH_AFTER_ENQUEUE`, `CLTAP_SKIP_ENQUEUES`, `CLTAP_IN_ORDER_QUEUES`,
//! `CLTAP_DEVICE_HISTOGRAM` (docs/controls.md).

use super::{flag, Config, ConfigError};

pub(crate) const VARS: &[(&str, &str)] = &[
    (
        "CLTAP_EVENT_CHECKS",
        "0 or 1: check every event wait list before the call is forwarded; the API log and the summary name each invalid event, event of another context, event in an error state, and user event not set at a wait",
    ),
    (
        "CLTAP_FINISH_AFTER_ENQUEUE",
        "0 or 1: clFinish on the queue after every enqueue; a command that failed is named, with its CMD ID, in the API log and on stderr",
    ),
    ("CLTAP_FLUSH_AFTER_ENQUEUE", "0 or 1: clFlush on the queue after every enqueue"),
    (
        "CLTAP_SKIP_ENQUEUES",
        "0 or 1: enqueues are not forwarded; each returns CL_SUCCESS and, where asked for, an event that is already complete",
    ),
    (
        "CLTAP_IN_ORDER_QUEUES",
        "0 or 1: queues are created without CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE",
    ),
    (
        "CLTAP_DEVICE_HISTOGRAM",
        "0 or 1: a histogram of device times per kernel, global and local size in the summary (implies CLTAP_DEVICE_TIMING=1)",
    ),
];

/// What the controls ask for; every one is off by default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Controls {
    pub event_checks: bool,
    pub finish: bool,
    pub flush: bool,
    pub skip: bool,
    pub in_order: bool,
    pub histogram: bool,
}

impl Controls {
    /// Whether any control changes or watches calls in the layer (the
    /// histogram is made from the trace alone).
    pub fn any(&self) -> bool {
        self.event_checks || self.finish || self.flush || self.skip || self.in_order
    }

    /// The controls that are on, as the API log's header names them;
    /// empty when none is.
    pub fn names(&self) -> Vec<&'static str> {
        [
            (self.event_checks, "event checks"),
            (self.finish, "finish after each enqueue"),
            // clFinish implies clFlush: the flush is not made then.
            (self.flush && !self.finish, "flush after each enqueue"),
            (self.skip, "enqueues skipped"),
            (self.in_order, "in-order queues"),
            (self.histogram, "device-time histograms"),
        ]
        .into_iter()
        .filter_map(|(on, n)| on.then_some(n))
        .collect()
    }
}

pub(crate) fn parse(name: &str, value: &str, cfg: &mut Config) -> Option<Result<(), ConfigError>> {
    let c = &mut cfg.controls;
    let (var, slot): (&'static str, &mut bool) = match name {
        "CLTAP_EVENT_CHECKS" => ("CLTAP_EVENT_CHECKS", &mut c.event_checks),
        "CLTAP_FINISH_AFTER_ENQUEUE" => ("CLTAP_FINISH_AFTER_ENQUEUE", &mut c.finish),
        "CLTAP_FLUSH_AFTER_ENQUEUE" => ("CLTAP_FLUSH_AFTER_ENQUEUE", &mut c.flush),
        "CLTAP_SKIP_ENQUEUES" => ("CLTAP_SKIP_ENQUEUES", &mut c.skip),
        "CLTAP_IN_ORDER_QUEUES" => ("CLTAP_IN_ORDER_QUEUES", &mut c.in_order),
        "CLTAP_DEVICE_HISTOGRAM" => ("CLTAP_DEVICE_HISTOGRAM", &mut c.histogram),
        _ => return None,
    };
    Some(flag(var, value).map(|b| *slot = b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_control_is_read_and_a_bad_value_names_its_variable() {
        let (c, e) = Config::from_vars([
            ("CLTAP_FINISH_AFTER_ENQUEUE".to_string(), "1".to_string()),
            ("CLTAP_FLUSH_AFTER_ENQUEUE".to_string(), "yes".to_string()),
            ("CLTAP_DEVICE_HISTOGRAM".to_string(), "on".to_string()),
        ]);
        assert!(e.is_empty(), "{e:?}");
        assert!(c.controls.finish && c.controls.flush && c.controls.histogram && !c.controls.skip);
        assert!(c.times_devices(), "the histogram needs device times");
        assert_eq!(c.controls.names(), ["finish after each enqueue", "device-time histograms"]);
        let (c, e) = Config::from_vars([("CLTAP_SKIP_ENQUEUES".to_string(), "sometimes".to_string())]);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].var(), "CLTAP_SKIP_ENQUEUES");
        assert!(e[0].to_string().contains("\"sometimes\""));
        assert!(!c.controls.skip && c.controls.names().is_empty());
    }
}
