//! One worker thread: an engine process answering the positions the run hands out until none
//! is left, restarted after each failure; and [`Queue`], how positions are handed out.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Condvar, Mutex};
use std::time::Duration;

use data::Sample;

use super::job::Job;
use crate::play::uci_client::{UciEngine, UciError};

/// What a worker sends back.
pub(super) enum Message<A> {
    /// The index, the answer and its progress line (encoded here, in parallel).
    Answered(usize, A, String),
    Skipped(usize, UciError),
    /// The engine could not be (re)started: this worker stops.
    Dead(UciError),
}

/// The positions handed out and not taken yet (the run hands out no more than its window
/// holds), and whether more will come.
#[derive(Default)]
pub(super) struct Queue {
    state: Mutex<(VecDeque<(usize, Sample)>, bool)>,
    more: Condvar,
}

impl Queue {
    /// Hands out position `index`.
    pub(super) fn push(&self, index: usize, sample: Sample) {
        if let Ok(mut s) = self.state.lock() {
            s.0.push_back((index, sample));
        }
        self.more.notify_one();
    }

    /// No more positions will come: the workers stop once the queue is empty.
    pub(super) fn close(&self) {
        if let Ok(mut s) = self.state.lock() {
            s.1 = true;
        }
        self.more.notify_all();
    }

    /// The next position, waiting for one; `None` once the queue is closed and empty, or
    /// `halt` is set.
    fn pop(&self, halt: &AtomicBool) -> Option<(usize, Sample)> {
        let mut s = self.state.lock().ok()?;
        loop {
            if halt.load(Ordering::Relaxed) {
                return None;
            }
            if let Some(job) = s.0.pop_front() {
                return Some(job);
            }
            if s.1 {
                return None;
            }
            // Woken by a push or a close; the time-out notices `halt`.
            s = self
                .more
                .wait_timeout(s, Duration::from_millis(100))
                .ok()?
                .0;
        }
    }
}

/// What one worker shares with the others.
pub(super) struct Shared<'a, J> {
    pub(super) job: &'a J,
    /// The positions to ask about.
    pub(super) queue: &'a Queue,
    /// Set: every worker stops after its current position (abandoning it).
    pub(super) halt: &'a AtomicBool,
    /// A failure ends the run: the worker stops at its first (the run halts on it).
    pub(super) strict: bool,
}

/// One engine process (`engine`, or a new one) answering the positions of the queue until it
/// is closed and empty, or `halt` is set.
pub(super) fn worker<J: Job>(
    shared: &Shared<'_, J>,
    engine: Option<UciEngine>,
    tx: mpsc::Sender<Message<J::Answer>>,
) {
    let spec = shared.job.engine();
    let mut engine = match engine.map_or_else(|| spec.start(), Ok) {
        Ok(e) => e,
        Err(e) => {
            let _ = tx.send(Message::Dead(e));
            return;
        }
    };
    while let Some((index, sample)) = shared.queue.pop(shared.halt) {
        match shared.job.ask(&mut engine, &sample, shared.halt) {
            Ok(answer) => {
                let line = format!("{index} {}\n", shared.job.encode(&answer));
                let _ = tx.send(Message::Answered(index, answer, line));
            }
            Err(e) if e.is_interrupted() => return,
            Err(e) => {
                let _ = tx.send(Message::Skipped(index, e));
                if shared.strict {
                    // The run ends on it: no engine is restarted to answer more (which would
                    // race the halt into the progress file).
                    return;
                }
                // The old process is killed before the new one starts.
                drop(engine);
                engine = match spec.start() {
                    Ok(e) => e,
                    Err(e) => {
                        let _ = tx.send(Message::Dead(e));
                        return;
                    }
                };
            }
        }
    }
}
