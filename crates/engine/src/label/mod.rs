//! Labelling positions with an external UCI engine's search scores (`tune label`): each
//! position's score, White's view, becomes its score label (`Sample::score`, what
//! `--lambda` blends with the result).
//!
//! [`label`] runs `jobs` engine processes in parallel ([`crate::uci_client`]), each position
//! searched with the same limit. A time-out, a crash or a malformed answer restarts that
//! engine and skips the position, with a message naming the file and the position. Every
//! finished label is appended at once to a progress file beside the output
//! ([`progress_path`]): a rerun of the same command continues where the last one stopped, and
//! retries the positions it skipped. The output itself is written once, atomically, when
//! every position has been searched; the progress file is then removed (kept while some
//! positions were skipped, so that a rerun retries only those).

mod input;
mod progress;
#[cfg(test)]
mod tests;
mod worker;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use data::Sample;

use crate::error::EngineError;
use crate::limits::SearchLimits;
use crate::uci_client::{go_command, EngineSpec, UciError};

pub use input::{LabelInput, Source};
pub use progress::progress_path;

use progress::{open_progress, progress_header, read_progress};
use worker::{worker, Message};

/// With no position labelled yet, this many failures in a row end the run: the engine is
/// broken, not one position.
pub const MAX_FAILURES_AT_START: usize = 20;

/// How to label.
#[derive(Clone, Debug)]
pub struct LabelSettings {
    /// The engine and its options.
    pub engine: EngineSpec,
    /// The search of every position: a depth, a node count and/or a move time.
    pub limits: SearchLimits,
    /// How long one search may take before the engine counts as hung.
    pub timeout: Duration,
    /// Engine processes run in parallel (at least 1).
    pub jobs: usize,
    /// Send `ucinewgame` before each position, so that each label depends only on the
    /// position (not on the order or the number of jobs). Off: faster, the engine keeps its
    /// hash table between positions.
    pub fresh: bool,
}

/// What [`label`] tells its caller as it goes (from the calling thread).
#[derive(Debug)]
pub enum LabelEvent<'a> {
    /// The engines are started and this many positions remain (`done` were labelled by an
    /// earlier run).
    Started {
        /// Positions still to search.
        remaining: usize,
        /// Positions labelled by an earlier run (read from the progress file).
        done: usize,
    },
    /// A position was labelled.
    Labelled {
        /// Its index.
        index: usize,
    },
    /// A position was skipped after an engine failure; the engine was restarted.
    Skipped {
        /// `FILE: position N`.
        location: String,
        /// What happened.
        error: &'a UciError,
    },
}

/// How a labelling run ended.
#[derive(Clone, Debug, Default)]
pub struct LabelOutcome {
    /// Positions in the input.
    pub positions: usize,
    /// Labelled by an earlier run (continued from the progress file).
    pub resumed: usize,
    /// Labelled by this run.
    pub labelled: usize,
    /// Skipped by this run, as `FILE: position N: error` (all of them).
    pub skipped: Vec<String>,
    /// Whether `stop` ended the run before every position was searched.
    pub interrupted: bool,
    /// Whether the output was written (every position searched).
    pub written: bool,
    /// The progress file, if it is kept (interrupted, or positions skipped).
    pub progress: Option<PathBuf>,
    /// Wall time of this run.
    pub elapsed: Duration,
}

impl LabelOutcome {
    /// Positions labelled per second by this run.
    pub fn rate(&self) -> f64 {
        self.labelled as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Labels every position of `input` with the engine's score (White's view) and writes them to
/// `out` (EPD or a cache, as its name says: [`data::write_samples`]), continuing from the
/// progress file when there is one (see the [module](self) documentation). `on_event` hears
/// of every position; setting `stop` (Ctrl-C) ends the run promptly: the searches under way
/// are abandoned, the finished labels stay in the progress file, and nothing is written to
/// `out`.
///
/// Errors: the engine cannot be started (or fails on each of the first
/// [`MAX_FAILURES_AT_START`] positions), the progress file is corrupt or was made with other
/// settings, a file cannot be read or written.
pub fn label(
    input: &LabelInput,
    settings: &LabelSettings,
    out: &Path,
    on_event: &mut dyn FnMut(LabelEvent<'_>),
    stop: &AtomicBool,
) -> Result<LabelOutcome, EngineError> {
    let start = Instant::now();
    data::OutputKind::of(out)?;
    let go = go_command(&settings.limits).ok_or_else(|| {
        EngineError::Options("a search needs a depth, node or time limit".to_string())
    })?;
    let n = input.samples.len();
    let header = progress_header(input, settings, &go);
    let progress = progress_path(out);
    let mut scores: Vec<Option<i32>> = vec![None; n];
    let mut resume = None;
    if progress.exists() {
        let p = read_progress(&progress, &header, n)?;
        if !p.differences.is_empty() && !p.labels.is_empty() {
            return Err(EngineError::Progress {
                path: progress,
                message: format!(
                    "written by a run with other settings or inputs ({}): delete it to start \
                     afresh, or rerun with the settings it was made with",
                    p.differences.join("; ")
                ),
            });
        }
        // A file with no label yet (a run whose engine did not start) is simply replaced.
        if p.differences.is_empty() {
            for &(i, s) in &p.labels {
                scores[i] = Some(s);
            }
            resume = Some(p);
        }
    }
    let resumed = scores.iter().filter(|s| s.is_some()).count();
    let pending: Vec<usize> = (0..n).filter(|&i| scores[i].is_none()).collect();
    let mut outcome = LabelOutcome {
        positions: n,
        resumed,
        ..LabelOutcome::default()
    };

    let mut journal = None;
    if !pending.is_empty() {
        // Start one engine first: a command that cannot start is one clear error, and leaves
        // no progress file behind.
        let first = settings.engine.start()?;
        let journal = journal.insert(open_progress(&progress, &header, resume.as_ref())?);
        on_event(LabelEvent::Started {
            remaining: pending.len(),
            done: resumed,
        });
        let jobs = settings.jobs.clamp(1, pending.len());
        let next = AtomicUsize::new(0);
        let halt = AtomicBool::new(stop.load(Ordering::Relaxed));
        let (tx, rx) = mpsc::channel::<Message>();
        let mut fatal: Option<EngineError> = None;
        std::thread::scope(|scope| {
            let mut first = Some(first);
            for _ in 0..jobs {
                let tx = tx.clone();
                let engine = first.take();
                let (next, halt, pending) = (&next, &halt, &pending);
                scope.spawn(move || worker(input, settings, pending, next, halt, engine, tx));
            }
            drop(tx);
            let mut failures_at_start = 0;
            loop {
                if stop.load(Ordering::Relaxed) {
                    halt.store(true, Ordering::Relaxed);
                }
                let message = match rx.recv_timeout(Duration::from_millis(100)) {
                    Ok(m) => m,
                    Err(RecvTimeoutError::Timeout) => continue,
                    Err(RecvTimeoutError::Disconnected) => break,
                };
                match message {
                    Message::Labelled(i, score) => {
                        scores[i] = Some(score);
                        outcome.labelled += 1;
                        // One write a line: a kill cuts at most the last one.
                        if let Err(e) = journal.write_all(format!("{i} {score}\n").as_bytes()) {
                            halt.store(true, Ordering::Relaxed);
                            fatal.get_or_insert(EngineError::io("write", &progress, e));
                        }
                        on_event(LabelEvent::Labelled { index: i });
                    }
                    Message::Skipped(i, error) => {
                        let location = input.location(i);
                        on_event(LabelEvent::Skipped {
                            location: location.clone(),
                            error: &error,
                        });
                        outcome.skipped.push(format!("{location}: {error}"));
                        if outcome.labelled + resumed == 0 {
                            failures_at_start += 1;
                            if failures_at_start >= MAX_FAILURES_AT_START {
                                halt.store(true, Ordering::Relaxed);
                                fatal.get_or_insert(EngineError::Options(format!(
                                    "the engine failed on each of the first \
                                     {MAX_FAILURES_AT_START} positions (the last: \
                                     {location}: {error})"
                                )));
                            }
                        }
                    }
                    Message::Dead(error) => {
                        fatal.get_or_insert(error.into());
                    }
                }
            }
        });
        // A Ctrl-C after the last search interrupts nothing: the output is written.
        let unfinished = outcome.labelled + outcome.skipped.len() < pending.len();
        outcome.interrupted = unfinished && stop.load(Ordering::Relaxed);
        if let Some(e) = fatal {
            // Unless the others finished the work without the dead worker.
            if unfinished && !outcome.interrupted {
                let _ = journal.sync_all();
                return Err(e);
            }
        }
        // Every worker gone with work left and no error: count it as an interruption.
        outcome.interrupted |= unfinished;
    }
    if let Some(journal) = journal {
        journal
            .sync_all()
            .map_err(|e| EngineError::io("write", &progress, e))?;
    }
    if !outcome.interrupted {
        let samples: Vec<Sample> = input
            .samples
            .iter()
            .zip(&scores)
            .filter_map(|(s, score)| {
                score.map(|score| Sample {
                    score: Some(score as f32),
                    ..*s
                })
            })
            .collect();
        data::write_samples(out, &samples)?;
        outcome.written = true;
        if outcome.skipped.is_empty() {
            std::fs::remove_file(&progress).map_err(|e| EngineError::io("remove", &progress, e))?;
        }
    }
    if progress.exists() {
        outcome.progress = Some(progress);
    }
    outcome.elapsed = start.elapsed();
    Ok(outcome)
}
