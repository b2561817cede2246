//! The event checks' findings: what the layer learnt of each event in a
//! wait list (from the driver, through the event's own dispatch table),
//! judged and said in one line each. Handles are shown as the application
//! passed them; contexts are compared, never shown (in ICD mode the driver's
//! differ from the application's).

use crate::trace::names::status_text;

/// `CL_SUBMITTED`: a user event's status until the application sets it.
const CL_COMPLETE: i32 = 0;

/// One entry of a wait list, as the driver described it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A NULL entry.
    Null,
    /// The driver would not describe it: its answer to `clGetEventInfo`.
    Invalid(i32),
    /// An event: its context (the driver's handle), its execution status,
    /// and whether it is a user event.
    Known { context: u64, status: i32, user: bool },
}

/// A wait list as the application passed it, and where it is waited on.
pub struct List<'a> {
    /// The function called.
    pub call: &'a str,
    /// The list's parameter name.
    pub name: &'a str,
    /// Its length as passed, and whether the pointer was NULL.
    pub count: u32,
    pub null: bool,
    /// The queue's context (an enqueue), or `None` (`clWaitForEvents`: the
    /// first event's context is the one every other must share).
    pub context: Option<u64>,
    /// The call blocks until every event completes.
    pub blocking: bool,
}

/// What is wrong with a wait list: one line per finding; none for a good
/// one. `events`: the application's handle and the driver's description of
/// each entry, in order.
pub fn findings(l: &List<'_>, events: &[(u64, Event)]) -> Vec<String> {
    let mut out = Vec::new();
    if l.count > 0 && l.null {
        out.push(format!("{}: {} is NULL with {} event(s) said to be in it", l.call, l.name, l.count));
        return out;
    }
    if l.count == 0 && !l.null {
        out.push(format!("{}: {} is not NULL but its length is 0", l.call, l.name));
    }
    let mut context = l.context;
    for (i, (handle, e)) in events.iter().enumerate() {
        let at = format!("{}: {}[{i}]", l.call, l.name);
        match *e {
            Event::Null => out.push(format!("{at} is NULL")),
            Event::Invalid(code) => {
                out.push(format!("{at} = {handle:#x} is not a valid event (clGetEventInfo: {})", status_text(code)))
            }
            Event::Known { context: c, status, user } => {
                match context {
                    Some(want) if want != c => out.push(format!(
                        "{at} = {handle:#x} belongs to another context than {}",
                        if l.context.is_some() { "the queue's" } else { "the list's first event" }
                    )),
                    None => context = Some(c),
                    _ => {}
                }
                if status < 0 {
                    out.push(format!("{at} = {handle:#x} is in an error state (status {status})"));
                } else if l.blocking && user && status > CL_COMPLETE {
                    out.push(format!(
                        "{at} = {handle:#x} is a user event not set yet: the wait ends only if another thread sets it"
                    ));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(context: Option<u64>, blocking: bool, count: u32) -> List<'static> {
        List { call: "clEnqueueReadBuffer", name: "event_wait_list", count, null: false, context, blocking }
    }

    #[test]
    fn each_kind_of_bad_entry_is_named_once() {
        let ok = Event::Known { context: 7, status: 0, user: false };
        let events = [
            (0x10, ok),
            (0, Event::Null),
            (0x30, Event::Invalid(-58)),
            (0x40, Event::Known { context: 8, status: 0, user: false }),
            (0x50, Event::Known { context: 7, status: -5, user: false }),
            (0x60, Event::Known { context: 7, status: 2, user: true }),
        ];
        let f = findings(&list(Some(7), true, 6), &events);
        assert_eq!(
            f,
            [
                "clEnqueueReadBuffer: event_wait_list[1] is NULL",
                "clEnqueueReadBuffer: event_wait_list[2] = 0x30 is not a valid event (clGetEventInfo: CL_INVALID_EVENT)",
                "clEnqueueReadBuffer: event_wait_list[3] = 0x40 belongs to another context than the queue's",
                "clEnqueueReadBuffer: event_wait_list[4] = 0x50 is in an error state (status -5)",
                "clEnqueueReadBuffer: event_wait_list[5] = 0x60 is a user event not set yet: the wait ends only if another thread sets it",
            ]
        );
        // Not blocking: an unset user event is what user events are for.
        assert_eq!(findings(&list(Some(7), false, 6), &events).len(), 4);
        assert!(findings(&list(Some(7), true, 1), &[(0x10, ok)]).is_empty());
    }

    #[test]
    fn without_a_queue_the_first_event_sets_the_context() {
        let l =
            List { call: "clWaitForEvents", name: "event_list", count: 2, null: false, context: None, blocking: true };
        let e = [
            (1, Event::Known { context: 3, status: 0, user: false }),
            (2, Event::Known { context: 4, status: 0, user: false }),
        ];
        assert_eq!(
            findings(&l, &e),
            ["clWaitForEvents: event_list[1] = 0x2 belongs to another context than the list's first event"]
        );
    }

    #[test]
    fn a_list_whose_length_and_pointer_disagree_is_named() {
        let mut l = list(Some(1), false, 3);
        l.null = true;
        assert_eq!(
            findings(&l, &[]),
            ["clEnqueueReadBuffer: event_wait_list is NULL with 3 event(s) said to be in it"]
        );
        let l = list(Some(1), false, 0);
        assert_eq!(findings(&l, &[]), ["clEnqueueReadBuffer: event_wait_list is not NULL but its length is 0"]);
    }
}
