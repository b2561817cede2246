//! The waves of one work-group, run one after another on one host thread: each runs until it
//! reaches `s_barrier`, ends or faults; once every wave still running waits at the barrier, all
//! go on. A wave that ended counts as arrived (as on the hardware, where a barrier counts the
//! waves still in the group).

use crate::exec::Flow;
use crate::fault::Fault;
use crate::wave::Wave;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Running,
    AtBarrier,
    Ended,
}

/// Runs `waves` to their end; `run` runs one wave until it ends, reaches a barrier or faults.
/// The first fault stops the work-group.
pub fn run_group(waves: &mut [Wave], mut run: impl FnMut(&mut Wave) -> Result<Flow, Fault>) -> Result<(), Fault> {
    let mut state = vec![State::Running; waves.len()];
    loop {
        for (w, s) in waves.iter_mut().zip(state.iter_mut()) {
            while *s == State::Running {
                match run(w)? {
                    Flow::Next => {}
                    Flow::Barrier => *s = State::AtBarrier,
                    Flow::End => *s = State::Ended,
                }
            }
        }
        let mut waiting = false;
        for s in state.iter_mut().filter(|s| **s == State::AtBarrier) {
            *s = State::Running;
            waiting = true;
        }
        if !waiting {
            return Ok(());
        }
    }
}
