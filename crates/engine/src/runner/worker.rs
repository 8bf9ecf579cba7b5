//! One worker thread: an engine process answering the next pending position until none is
//! left, restarted after each failure.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use super::input::PositionInput;
use super::job::Job;
use crate::uci_client::{UciEngine, UciError};

/// What a worker sends back.
pub(super) enum Message<A> {
    /// The index, the answer and its progress line (encoded here, in parallel).
    Answered(usize, A, String),
    Skipped(usize, UciError),
    /// The engine could not be (re)started: this worker stops.
    Dead(UciError),
}

/// What one worker shares with the others.
pub(super) struct Shared<'a, J> {
    pub(super) job: &'a J,
    pub(super) input: &'a PositionInput,
    /// The indices still to ask about.
    pub(super) pending: &'a [usize],
    /// The next entry of `pending` to take.
    pub(super) next: &'a AtomicUsize,
    /// Set: every worker stops after its current position (abandoning it).
    pub(super) halt: &'a AtomicBool,
}

/// One engine process (`engine`, or a new one) working through `pending`, taking the next
/// index until none is left or `halt` is set.
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
    loop {
        if shared.halt.load(Ordering::Relaxed) {
            return;
        }
        let Some(&index) = shared
            .pending
            .get(shared.next.fetch_add(1, Ordering::Relaxed))
        else {
            return;
        };
        let sample = &shared.input.samples[index];
        match shared.job.ask(&mut engine, sample, shared.halt) {
            Ok(answer) => {
                let line = format!("{index} {}\n", shared.job.encode(&answer));
                let _ = tx.send(Message::Answered(index, answer, line));
            }
            Err(e) if e.is_interrupted() => return,
            Err(e) => {
                let _ = tx.send(Message::Skipped(index, e));
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
