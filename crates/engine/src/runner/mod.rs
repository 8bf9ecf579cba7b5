//! Asking external engines one question per position, in parallel, resumably: the machinery
//! of `tune label` (search scores) and `tune trace` (evaluation traces).
//!
//! A [`Job`] says how to start the engine, what to ask it about one position and how to
//! read its answer; [`run`] keeps `jobs` engine processes busy ([`crate::uci_client`]), each
//! worker thread owning one process and taking the next pending position. A time-out, a crash
//! or a malformed answer restarts that engine and skips the position, with a message naming
//! the file and the position (or, `strict`, ends the run with that error). Every answer is
//! appended at once to a progress file beside the output ([`progress_path`]): a rerun of the
//! same command continues where the last one stopped, and retries the positions it skipped.
//! The output itself is written once (by the caller's `write`, atomically) when every
//! position has been asked about; the progress file is then removed (kept while some
//! positions were skipped, so that a rerun retries only those).

mod input;
mod job;
mod progress;
#[cfg(test)]
mod tests;
mod worker;

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::error::EngineError;
use crate::uci_client::{UciEngine, UciError};

pub use input::{PositionInput, Source};
pub use job::Job;
pub use progress::progress_path;

use progress::{open_progress, progress_header, read_progress};
use worker::{worker, Message, Shared};

/// With no position answered yet, this many failures in a row end the run: the engine is
/// broken, not one position.
pub const MAX_FAILURES_AT_START: usize = 20;

/// Writes the output from every position's answer (`None`: skipped), as [`run`] calls it.
pub type WriteAnswers<'a, A> = dyn FnMut(&[Option<A>]) -> Result<(), EngineError> + 'a;

/// How to run a [`Job`].
#[derive(Clone, Debug)]
pub struct RunSettings {
    /// The subcommand (`label`, `trace`): it names the progress file's format (`gradtune-NAME
    /// 1`) and its messages.
    pub name: &'static str,
    /// The job's settings as lines (each ending in a newline) of the progress file's header:
    /// a rerun continues only a file made with the same ones.
    pub header: String,
    /// Engine processes run in parallel (at least 1).
    pub jobs: usize,
    /// Stop at the first failure (an [`EngineError::Position`] naming the engine and the
    /// position) instead of skipping the position.
    pub strict: bool,
}

/// What [`run`] tells its caller as it goes (from the calling thread).
#[derive(Debug)]
pub enum RunEvent<'a> {
    /// The engines are started and this many positions remain (`done` were answered by an
    /// earlier run).
    Started {
        /// Positions still to ask about.
        remaining: usize,
        /// Positions answered by an earlier run (read from the progress file).
        done: usize,
    },
    /// A position was answered.
    Answered {
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

/// How a run ended.
#[derive(Clone, Debug, Default)]
pub struct RunOutcome {
    /// Positions in the input.
    pub positions: usize,
    /// Answered by an earlier run (continued from the progress file).
    pub resumed: usize,
    /// Answered by this run.
    pub answered: usize,
    /// Skipped by this run, as `FILE: position N: error` (all of them).
    pub skipped: Vec<String>,
    /// Whether `stop` ended the run before every position was asked about.
    pub interrupted: bool,
    /// Whether the output was written (every position asked about).
    pub written: bool,
    /// The progress file, if it is kept (interrupted, or positions skipped).
    pub progress: Option<PathBuf>,
    /// Wall time of this run.
    pub elapsed: Duration,
}

impl RunOutcome {
    /// Positions answered per second by this run.
    pub fn rate(&self) -> f64 {
        self.answered as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Asks the engine of `job` about every position of `input`, continuing from `out`'s
/// progress file when there is one (see the [module](self) documentation), then hands every
/// answer (`None`: skipped) to `write`, which writes `out`. `on_event` hears of every
/// position; setting `stop` (Ctrl-C) ends the run promptly: the questions under way are
/// abandoned, the finished answers stay in the progress file, and `write` is not called.
///
/// Errors: the engine cannot be started (or fails on each of the first
/// [`MAX_FAILURES_AT_START`] positions), a failure with `strict`, the progress file is
/// corrupt or was made with other settings, a file cannot be read or written, `write` fails.
pub fn run<J: Job>(
    job: &J,
    input: &PositionInput,
    settings: &RunSettings,
    out: &Path,
    write: &mut WriteAnswers<'_, J::Answer>,
    on_event: &mut dyn FnMut(RunEvent<'_>),
    stop: &AtomicBool,
) -> Result<RunOutcome, EngineError> {
    let start = Instant::now();
    let n = input.samples.len();
    let header = progress_header(settings.name, &settings.header, input);
    let progress = progress_path(out);
    let (mut answers, resume_len) = resume(job, &progress, settings.name, &header, n)?;
    let resumed = answers.iter().filter(|a| a.is_some()).count();
    let pending: Vec<usize> = (0..n).filter(|&i| answers[i].is_none()).collect();
    let mut outcome = RunOutcome {
        positions: n,
        resumed,
        ..RunOutcome::default()
    };

    let mut journal = None;
    if !pending.is_empty() {
        // Start one engine first: a command that cannot start is one clear error, and leaves
        // no progress file behind.
        let first = job.engine().start()?;
        let file = journal.insert(open_progress(&progress, &header, resume_len)?);
        on_event(RunEvent::Started {
            remaining: pending.len(),
            done: resumed,
        });
        let mut ctx = Collect {
            job,
            input,
            settings,
            progress: &progress,
            journal: file,
            answers: &mut answers,
            outcome: &mut outcome,
            on_event,
            failures_at_start: 0,
            fatal: None,
            halting: false,
        };
        let fatal = ctx.run_workers(&pending, first, stop);
        // A Ctrl-C after the last answer interrupts nothing: the output is written.
        let unfinished = outcome.answered + outcome.skipped.len() < pending.len();
        outcome.interrupted = unfinished && stop.load(Ordering::Relaxed);
        if let Some(e) = fatal {
            // Unless the others finished the work without the dead worker.
            if (unfinished && !outcome.interrupted) || settings.strict {
                let _ = file.sync_all();
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
        write(&answers)?;
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

/// The answers of the progress file at `progress` (`None` for each position not answered
/// yet, all `None` without a file) and its length, to append to it; a file written with
/// other settings or inputs is an error (one with no answer yet is simply replaced).
#[allow(clippy::type_complexity)]
fn resume<J: Job>(
    job: &J,
    progress: &Path,
    name: &str,
    header: &str,
    n: usize,
) -> Result<(Vec<Option<J::Answer>>, Option<u64>), EngineError> {
    let mut answers: Vec<Option<J::Answer>> = (0..n).map(|_| None).collect();
    let mut resume_len = None;
    if progress.exists() {
        let p = read_progress(progress, name, header, n, |t| job.decode(t))?;
        if !p.differences.is_empty() && !p.answers.is_empty() {
            return Err(EngineError::Progress {
                path: progress.to_path_buf(),
                message: format!(
                    "written by a run with other settings or inputs ({}): delete it to start \
                     afresh, or rerun with the settings it was made with",
                    p.differences.join("; ")
                ),
            });
        }
        // A file with no answer yet (a run whose engine did not start) is simply replaced.
        if p.differences.is_empty() {
            resume_len = Some(p.len);
            for (i, a) in p.answers {
                answers[i] = Some(a);
            }
        }
    }
    Ok((answers, resume_len))
}

/// The calling thread's side of a run: it collects the workers' messages.
struct Collect<'a, J: Job> {
    job: &'a J,
    input: &'a PositionInput,
    settings: &'a RunSettings,
    progress: &'a Path,
    journal: &'a mut File,
    answers: &'a mut [Option<J::Answer>],
    outcome: &'a mut RunOutcome,
    on_event: &'a mut dyn for<'e> FnMut(RunEvent<'e>),
    failures_at_start: usize,
    fatal: Option<EngineError>,
    /// Set: the run ends (a write failed, a failure with `strict`, a broken engine).
    halting: bool,
}

impl<J: Job> Collect<'_, J> {
    /// Runs the workers (the first owning `first`) over `pending` until they are done or
    /// halted; returns the error that ended the run, if one did.
    fn run_workers(
        &mut self,
        pending: &[usize],
        first: UciEngine,
        stop: &AtomicBool,
    ) -> Option<EngineError> {
        let jobs = self.settings.jobs.clamp(1, pending.len());
        let next = AtomicUsize::new(0);
        let halt = AtomicBool::new(stop.load(Ordering::Relaxed));
        let (tx, rx) = mpsc::channel::<Message<J::Answer>>();
        let shared = Shared {
            job: self.job,
            input: self.input,
            pending,
            next: &next,
            halt: &halt,
        };
        std::thread::scope(|scope| {
            let mut first = Some(first);
            for _ in 0..jobs {
                let tx = tx.clone();
                let engine = first.take();
                let shared = &shared;
                scope.spawn(move || worker(shared, engine, tx));
            }
            drop(tx);
            loop {
                if stop.load(Ordering::Relaxed) || self.halting {
                    halt.store(true, Ordering::Relaxed);
                }
                match rx.recv_timeout(Duration::from_millis(100)) {
                    Ok(m) => self.receive(m),
                    Err(RecvTimeoutError::Timeout) => continue,
                    Err(RecvTimeoutError::Disconnected) => break,
                }
            }
        });
        self.fatal.take()
    }

    /// Takes one worker's message.
    fn receive(&mut self, message: Message<J::Answer>) {
        match message {
            Message::Answered(i, answer, line) => {
                // One write a line: a kill cuts at most the last one.
                if let Err(e) = self.journal.write_all(line.as_bytes()) {
                    self.halting = true;
                    self.fatal
                        .get_or_insert(EngineError::io("write", self.progress, e));
                }
                self.answers[i] = Some(answer);
                self.outcome.answered += 1;
                (self.on_event)(RunEvent::Answered { index: i });
            }
            Message::Skipped(i, error) => {
                let location = self.input.location(i);
                if self.settings.strict {
                    self.halting = true;
                    self.fatal.get_or_insert(EngineError::Position {
                        location: location.clone(),
                        error: Box::new(error),
                    });
                    return;
                }
                (self.on_event)(RunEvent::Skipped {
                    location: location.clone(),
                    error: &error,
                });
                self.outcome.skipped.push(format!("{location}: {error}"));
                if self.outcome.answered + self.outcome.resumed == 0 {
                    self.failures_at_start += 1;
                    if self.failures_at_start >= MAX_FAILURES_AT_START {
                        self.halting = true;
                        self.fatal.get_or_insert(EngineError::Options(format!(
                            "the engine failed on each of the first {MAX_FAILURES_AT_START} \
                             positions (the last: {location}: {error})"
                        )));
                    }
                }
            }
            Message::Dead(error) => {
                self.fatal.get_or_insert(error.into());
            }
        }
    }
}
