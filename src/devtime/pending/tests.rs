use super::super::enqueue::{Launch, Sizes};
use super::*;

fn held(ev: usize) -> Held {
    let l = Launch { kernel: None, global: Sizes::default(), local: None, bytes: Some(4) };
    Held { ev, cmd: Enqueued::new(ev as u64, "clEnqueueReadBuffer", 2, None, l), inherited: false }
}

fn list() -> Arc<QueueList> {
    QueueList::new(QueueDesc::default())
}

#[test]
fn a_list_is_due_at_the_bound_then_when_it_has_doubled() {
    let l = list();
    for i in 1..BOUND {
        assert_eq!(l.push(held(i)), Due::Nothing, "not due at {i}");
    }
    assert_eq!(l.push(held(BOUND)), Due::Mark, "due at the bound");
    // A read found nothing complete: the next is due at twice as many.
    let all = l.take();
    assert!(l.is_empty());
    l.put_back(all);
    assert_eq!(l.len(), BOUND);
    for i in 0..BOUND - 1 {
        assert_eq!(l.push(held(10_000 + i)), Due::Nothing, "not due before doubling");
    }
    assert_eq!(l.push(held(99_999)), Due::Mark);
    // A read that emptied it: due at the bound again.
    drop(l.take());
    l.put_back(Vec::new());
    for i in 1..BOUND {
        assert_eq!(l.push(held(i)), Due::Nothing);
    }
    assert_eq!(l.push(held(BOUND)), Due::Mark);
}

#[test]
fn an_in_order_list_far_behind_is_due_a_fixed_step_later_not_at_double() {
    let l = list();
    l.set_in_order(true);
    let left = 4 * IN_ORDER_AHEAD;
    l.put_back((0..left).map(held).collect());
    for i in 1..IN_ORDER_AHEAD {
        assert_eq!(l.push(held(left + i)), Due::Nothing, "not due at {i} past what was left");
    }
    assert_eq!(l.push(held(left + IN_ORDER_AHEAD)), Due::Mark, "due a fixed step later");
    // Out of order, every held event is asked at each read: due at double.
    let o = list();
    o.put_back((0..left).map(held).collect());
    for i in 1..=IN_ORDER_AHEAD {
        assert_eq!(o.push(held(left + i)), Due::Nothing);
    }
}

#[test]
fn a_list_far_past_its_mark_is_read_by_the_enqueue() {
    let l = list();
    let mut seen = Vec::new();
    for i in 1..=BEHIND * BOUND {
        seen.push(l.push(held(i)));
    }
    assert_eq!(seen.iter().filter(|d| **d == Due::Mark).count(), 1, "the mark is reached once");
    assert_eq!(seen.last(), Some(&Due::ReadNow), "then the enqueue reads, the reader being behind");
    assert_eq!(seen.iter().filter(|d| **d == Due::ReadNow).count(), 1);
}

#[test]
fn what_a_read_leaves_goes_back_ahead_of_what_came_meanwhile() {
    let l = list();
    l.push(held(1));
    l.push(held(2));
    let taken = l.take();
    l.push(held(3));
    l.put_back(taken.into_iter().filter(|h| h.ev == 2).collect());
    let order: Vec<usize> = l.take().iter().map(|h| h.ev).collect();
    assert_eq!(order, vec![2, 3]);
}

#[test]
fn holds_are_counted_per_event_across_lists() {
    let (a, b) = (list(), list());
    a.push(held(0xE1E1_0001));
    a.push(held(0xE1E1_0002));
    b.push(held(0xE1E1_0001));
    assert_eq!(holds(0xE1E1_0001), 2);
    assert_eq!(holds(0xE1E1_0002), 1);
    assert_eq!(holds(0xE1E1_0003), 0);
}

#[test]
fn empty_lists_of_gone_queues_are_dropped() {
    let l = list();
    l.push(held(0xD1D1_0001));
    let weak = Arc::downgrade(&l);
    drop(l);
    assert!(lists().iter().any(|x| Arc::ptr_eq(x, &weak.upgrade().unwrap())), "kept while it holds events");
    drop(weak.upgrade().unwrap().take());
    let _ = lists();
    assert!(weak.upgrade().is_none(), "dropped once empty");
}

#[test]
fn a_command_type_is_asked_once_per_function() {
    let l = list();
    let asked = std::cell::Cell::new(0);
    let ask = |t| {
        asked.set(asked.get() + 1);
        Some(t)
    };
    assert_eq!(l.cmd_type("clEnqueueNDRangeKernel", || None), None, "nothing kept where the driver did not say");
    assert_eq!(l.cmd_type("clEnqueueNDRangeKernel", || ask(0x11F0)), Some(0x11F0));
    assert_eq!(l.cmd_type("clEnqueueNDRangeKernel", || ask(0)), Some(0x11F0));
    assert_eq!(l.cmd_type("clEnqueueReadBuffer", || ask(0x11F3)), Some(0x11F3));
    assert_eq!(asked.get(), 2);
    assert_eq!(list().cmd_type("clEnqueueNDRangeKernel", || ask(0x11F0)), Some(0x11F0), "per queue");
}

#[test]
fn app_threads_are_those_that_enqueued() {
    std::thread::spawn(|| {
        assert!(!on_app_thread());
        mark_app_thread();
        assert!(on_app_thread());
    })
    .join()
    .unwrap();
}
