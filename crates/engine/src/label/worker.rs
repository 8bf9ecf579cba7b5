//! One worker thread: an engine process searching the next pending position until none is
//! left, restarted after each failure.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use super::{LabelInput, LabelSettings};
use crate::uci_client::{UciEngine, UciError};

/// What a worker sends back.
pub(super) enum Message {
    Labelled(usize, i32),
    Skipped(usize, UciError),
    /// The engine could not be (re)started: this worker stops.
    Dead(UciError),
}

/// One engine process working through `pending`, taking the next index until none is left
/// or `halt` is set.
pub(super) fn worker(
    input: &LabelInput,
    settings: &LabelSettings,
    pending: &[usize],
    next: &AtomicUsize,
    halt: &AtomicBool,
    engine: Option<UciEngine>,
    tx: mpsc::Sender<Message>,
) {
    let mut engine = match engine.map_or_else(|| settings.engine.start(), Ok) {
        Ok(e) => e,
        Err(e) => {
            let _ = tx.send(Message::Dead(e));
            return;
        }
    };
    loop {
        if halt.load(Ordering::Relaxed) {
            return;
        }
        let Some(&index) = pending.get(next.fetch_add(1, Ordering::Relaxed)) else {
            return;
        };
        match search_one(&mut engine, input, settings, index, halt) {
            Ok(score) => {
                let _ = tx.send(Message::Labelled(index, score));
            }
            Err(e) if e.is_interrupted() => return,
            Err(e) => {
                let _ = tx.send(Message::Skipped(index, e));
                // The old process is killed before the new one starts.
                drop(engine);
                engine = match settings.engine.start() {
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

/// The engine's score of position `index`, White's view.
fn search_one(
    engine: &mut UciEngine,
    input: &LabelInput,
    settings: &LabelSettings,
    index: usize,
    halt: &AtomicBool,
) -> Result<i32, UciError> {
    let sample = &input.samples[index];
    // A sample that does not unpack cannot come out of `data::load`; refuse it as the engine
    // would.
    let pos = sample.position().map_err(|e| UciError::Malformed {
        command: engine.command().to_string(),
        line: String::new(),
        message: format!("the position does not unpack: {e}"),
    })?;
    if settings.fresh {
        engine.new_game()?;
    }
    let r = engine.search(&pos, &[], &settings.limits, settings.timeout, Some(halt))?;
    match r.score {
        Some(s) => Ok(s.white(sample.turn())),
        None => Err(UciError::Malformed {
            command: engine.command().to_string(),
            line: "bestmove".to_string(),
            message: "no `info ... score` before `bestmove`".to_string(),
        }),
    }
}
