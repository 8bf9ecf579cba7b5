//! Asking external engines one question per position, in parallel, resumably: the machinery
//! of `tune label` (search scores) and `tune trace` (evaluation traces).
//!
//! A [`Job`] says how to start the engine, what to ask it about one position and how to
//! read its answer; [`run`] keeps `jobs` engine processes busy ([`crate::play::uci_client`]), each
//! worker thread owning one process and taking the next position handed out. A time-out, a
//! crash or a malformed answer restarts that engine and skips the position, with a message
//! naming the file and the position (or, `strict`, ends the run with that error). Every answer
//! is appended at once to a progress file beside the output ([`progress_path`]): a rerun of the
//! same command continues where the last one stopped, and retries the positions it skipped.
//!
//! The run streams: the input is read a batch at a time ([`PositionInput::reader`]), and each
//! answer goes to the [`Output`] in the input's order as soon as every position before it is
//! answered (the output file is written as the run goes, into a temporary file renamed into
//! place when every position has been asked about). Between the position written last and
//! the one read last there are at most [`window`] positions (the [`Window`](window::Window)):
//! the engines run that far ahead of a slow position and no further, so a run's memory is
//! bounded whatever the number of positions. The progress file is then removed (kept while
//! some positions were skipped, so that a rerun retries only those); a run continued from it
//! keeps the offset of each earlier answer (8 bytes a position) and reads its text back as the
//! output reaches it.

mod input;
mod job;
mod progress;
#[cfg(test)]
mod tests;
mod window;
mod worker;

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

use crate::error::EngineError;
use crate::play::uci_client::{UciEngine, UciError};

pub use input::{InputReader, PositionInput, Source};
pub use job::{Job, Output};
pub use progress::progress_path;

use progress::{open_progress, progress_header, read_progress, AnswerTexts};
use window::{Slot, Window};
use worker::{worker, Message, Queue, Shared};

/// With no position answered yet, this many failures in a row end the run: the engine is
/// broken, not one position.
pub const MAX_FAILURES_AT_START: usize = 20;

/// Positions between the one written last and the one read last, at least: answers waiting
/// for an earlier position, and positions handed to the engines (about 1 KB a position for a
/// large trace: 16 MB). One position slower than the others (a hang until the time-out) lets
/// the others run this far ahead before they wait for it.
pub const WINDOW: usize = 1 << 14;

/// The window of a run with `jobs` engine processes: [`WINDOW`], or 64 positions a process
/// for more than 256 processes.
pub fn window(jobs: usize) -> usize {
    WINDOW.max(64 * jobs)
}

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
/// progress file when there is one (see the [module](self) documentation), and hands every
/// position's answer (`None`: skipped) to `output` in the input's order as the run goes, then
/// commits it. `on_event` hears of every position; setting `stop` (Ctrl-C) ends the run
/// promptly: the questions under way are abandoned, the finished answers stay in the progress
/// file, and `output` is not committed (the caller drops it, removing what it wrote).
///
/// Errors: the engine cannot be started (or fails on each of the first
/// [`MAX_FAILURES_AT_START`] positions), a failure with `strict`, the progress file is
/// corrupt or was made with other settings, a file cannot be read or written (the output
/// included), an input file changed since it was counted.
pub fn run<J: Job>(
    job: &J,
    input: &PositionInput,
    settings: &RunSettings,
    out: &Path,
    output: &mut dyn Output<J::Answer>,
    on_event: &mut dyn FnMut(RunEvent<'_>),
    stop: &AtomicBool,
) -> Result<RunOutcome, EngineError> {
    let start = Instant::now();
    let n = input.len();
    let header = progress_header(settings.name, &settings.header, input);
    let progress = progress_path(out);
    let resumed = resume(job, &progress, settings.name, &header, n)?;
    let pending = n - resumed.count;
    let mut outcome = RunOutcome {
        positions: n,
        resumed: resumed.count,
        ..RunOutcome::default()
    };

    let (first, mut journal) = start_run(job, &progress, &header, &resumed, pending, on_event)?;
    let texts = match resumed.count {
        0 => None,
        _ => Some(AnswerTexts::open(&progress)?),
    };
    let mut ctx = Collect {
        job,
        input,
        settings,
        progress: &progress,
        journal: journal.as_mut(),
        resumed: resumed.offsets,
        texts,
        output,
        outcome: &mut outcome,
        on_event,
        failures_at_start: 0,
        fatal: None,
        halting: false,
        window: Window::new(window(settings.jobs)),
        read_all: false,
    };
    let jobs = settings.jobs.clamp(1, pending.max(1)) * usize::from(pending > 0);
    let fatal = ctx.run_workers(jobs, first, stop);
    // A Ctrl-C after the last answer interrupts nothing: the output is written.
    let unfinished = !ctx.finished();
    drop(ctx);
    outcome.interrupted = unfinished && stop.load(Ordering::Relaxed);
    if let Some(e) = fatal {
        // Unless the others finished the work without the dead worker.
        if (unfinished && !outcome.interrupted) || settings.strict {
            if let Some(file) = &journal {
                let _ = file.sync_all();
            }
            return Err(e);
        }
    }
    // Every worker gone with work left and no error: count it as an interruption.
    outcome.interrupted |= unfinished;
    conclude(journal, progress, output, &mut outcome)?;
    outcome.elapsed = start.elapsed();
    Ok(outcome)
}

/// Starts a run with `pending` positions to ask about (none: nothing to start): the first
/// engine, then the progress file opened for appending to `resumed`'s answers; tells
/// `on_event`. Returns the engine and the progress file.
fn start_run<J: Job>(
    job: &J,
    progress: &Path,
    header: &str,
    resumed: &Resumed,
    pending: usize,
    on_event: &mut dyn FnMut(RunEvent<'_>),
) -> Result<(Option<UciEngine>, Option<File>), EngineError> {
    if pending == 0 {
        return Ok((None, None));
    }
    // Start one engine first: a command that cannot start is one clear error, and leaves no
    // progress file behind.
    let first = job.engine().start()?;
    let journal = open_progress(progress, header, resumed.len)?;
    on_event(RunEvent::Started {
        remaining: pending,
        done: resumed.count,
    });
    Ok((Some(first), Some(journal)))
}

/// Ends a run that no error ended: syncs the progress file (`journal`); unless the run was
/// interrupted, commits `output` and removes the progress file (kept while positions were
/// skipped). Records in `outcome` whether the output was written and the progress file kept.
fn conclude<A>(
    journal: Option<File>,
    progress: PathBuf,
    output: &mut dyn Output<A>,
    outcome: &mut RunOutcome,
) -> Result<(), EngineError> {
    if let Some(journal) = journal {
        journal
            .sync_all()
            .map_err(|e| EngineError::io("write", &progress, e))?;
    }
    if !outcome.interrupted {
        output.commit()?;
        outcome.written = true;
        if outcome.skipped.is_empty() && progress.exists() {
            std::fs::remove_file(&progress).map_err(|e| EngineError::io("remove", &progress, e))?;
        }
    }
    if progress.exists() {
        outcome.progress = Some(progress);
    }
    Ok(())
}

/// The answers of an earlier run, in its progress file.
struct Resumed {
    /// The offset of each position's answer text in the progress file (`u64::MAX`: none);
    /// empty when there is none.
    offsets: Vec<u64>,
    /// Positions answered.
    count: usize,
    /// The length of the file's complete lines, to append to it (`None`: a new file).
    len: Option<u64>,
}

/// The answers of the progress file at `progress` (none without a file) and its length, to
/// append to it; a file written with other settings or inputs is an error (one with no answer
/// yet is simply replaced).
fn resume<J: Job>(
    job: &J,
    progress: &Path,
    name: &str,
    header: &str,
    n: usize,
) -> Result<Resumed, EngineError> {
    let mut resumed = Resumed {
        offsets: Vec::new(),
        count: 0,
        len: None,
    };
    if !progress.exists() {
        return Ok(resumed);
    }
    let offsets = &mut resumed.offsets;
    let keep = |index: usize, offset: u64, _answer| {
        if offsets.is_empty() {
            *offsets = vec![u64::MAX; n];
        }
        offsets[index] = offset;
    };
    let p = read_progress(progress, name, header, n, |t| job.decode(t), keep)?;
    if !p.differences.is_empty() && p.answers > 0 {
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
        resumed.len = Some(p.len);
        resumed.count = resumed.offsets.iter().filter(|&&o| o != u64::MAX).count();
    }
    Ok(resumed)
}

/// The calling thread's side of a run: it reads the input into the window, hands the
/// positions to the workers, collects their messages, and writes the answers in order.
struct Collect<'a, J: Job> {
    job: &'a J,
    input: &'a PositionInput,
    settings: &'a RunSettings,
    progress: &'a Path,
    journal: Option<&'a mut File>,
    /// The offsets of an earlier run's answers (see [`Resumed`]), and their texts.
    resumed: Vec<u64>,
    texts: Option<AnswerTexts>,
    output: &'a mut dyn Output<J::Answer>,
    outcome: &'a mut RunOutcome,
    on_event: &'a mut dyn for<'e> FnMut(RunEvent<'e>),
    failures_at_start: usize,
    fatal: Option<EngineError>,
    /// Set: the run ends (a write failed, a failure with `strict`, a broken engine).
    halting: bool,
    window: Window<J::Answer>,
    /// Whether the input is read to its end.
    read_all: bool,
}

impl<J: Job> Collect<'_, J> {
    /// Runs `jobs` workers (the first owning `first`; none when every position was answered
    /// before) until every position is written, or the run is halted or the workers are gone;
    /// returns the error that ended the run, if one did.
    fn run_workers(
        &mut self,
        jobs: usize,
        first: Option<UciEngine>,
        stop: &AtomicBool,
    ) -> Option<EngineError> {
        let queue = Queue::default();
        let halt = AtomicBool::new(stop.load(Ordering::Relaxed));
        let (tx, rx) = mpsc::channel::<Message<J::Answer>>();
        let shared = Shared {
            job: self.job,
            queue: &queue,
            halt: &halt,
            strict: self.settings.strict,
        };
        let mut reader = self.input.reader();
        std::thread::scope(|scope| {
            let mut first = first;
            for _ in 0..jobs {
                let tx = tx.clone();
                let engine = first.take();
                let shared = &shared;
                scope.spawn(move || worker(shared, engine, tx));
            }
            drop(tx);
            // Set once the run stops (Ctrl-C or an error): from then on the loop only waits
            // for the workers to leave, however little of the window is asked.
            let mut stopping = false;
            loop {
                if stop.load(Ordering::Relaxed) || self.halting {
                    stopping = true;
                    halt.store(true, Ordering::Relaxed);
                    queue.close();
                    // A Ctrl-C after the last answer still writes the answers read.
                    if !self.halting {
                        self.write_or_halt();
                    }
                } else {
                    self.advance(&mut reader, &queue);
                }
                // Wait for an answer only when the output waits for one, or the run stops.
                // (A stopped run whose window's first position is written or resumed would
                // otherwise poll the channel forever once the workers are gone.)
                let waits = stopping || self.window.waits() || self.finished();
                let message = if waits {
                    rx.recv_timeout(Duration::from_millis(100))
                } else {
                    rx.try_recv().map_err(|e| match e {
                        TryRecvError::Empty => RecvTimeoutError::Timeout,
                        TryRecvError::Disconnected => RecvTimeoutError::Disconnected,
                    })
                };
                match message {
                    Ok(m) => self.receive(m),
                    Err(RecvTimeoutError::Timeout) => continue,
                    // No worker left: done, unless positions answered before remain to write.
                    Err(RecvTimeoutError::Disconnected) if waits => break,
                    Err(RecvTimeoutError::Disconnected) => continue,
                }
            }
            queue.close();
        });
        self.fatal.take()
    }

    /// Whether every position was written.
    fn finished(&self) -> bool {
        self.read_all && self.window.is_empty()
    }

    /// Writes the positions ready at the front of the window, then reads positions into it
    /// while it has room (handing those not answered before to the workers); closes the
    /// queue once the input is read. An error halts the run.
    fn advance(&mut self, reader: &mut InputReader<'_>, queue: &Queue) {
        self.write_or_halt();
        if let Err(e) = self.read_more(reader, queue) {
            self.halting = true;
            self.fatal.get_or_insert(e);
            return;
        }
        self.write_or_halt();
        if self.read_all {
            queue.close();
        }
    }

    /// [`write_ready`](Self::write_ready); an error halts the run.
    fn write_or_halt(&mut self) {
        if self.halting {
            return;
        }
        if let Err(e) = self.write_ready() {
            self.halting = true;
            self.fatal.get_or_insert(e);
        }
    }

    /// Reads positions into the window while it has room.
    fn read_more(
        &mut self,
        reader: &mut InputReader<'_>,
        queue: &Queue,
    ) -> Result<(), EngineError> {
        while !self.read_all && self.window.has_room() {
            let Some(sample) = reader.next_sample()? else {
                self.read_all = true;
                break;
            };
            let i = self.window.next_index();
            if self.resumed.get(i).is_some_and(|&o| o != u64::MAX) {
                self.window.push(Slot::Resumed(sample));
            } else {
                queue.push(i, sample);
                self.window.push(Slot::Asked(sample));
            }
        }
        Ok(())
    }

    /// Writes the positions at the front of the window that are answered.
    fn write_ready(&mut self) -> Result<(), EngineError> {
        while let Some((i, slot)) = self.window.pop_ready() {
            match slot {
                Slot::Answered(sample, answer) => self.output.write(i, &sample, answer.as_ref())?,
                Slot::Resumed(sample) => {
                    let answer = self.resumed_answer(i)?;
                    self.output.write(i, &sample, Some(&answer))?;
                }
                Slot::Asked(_) => {}
            }
        }
        Ok(())
    }

    /// Position `i`'s answer from the progress file.
    fn resumed_answer(&mut self, i: usize) -> Result<J::Answer, EngineError> {
        let offset = self.resumed.get(i).copied().unwrap_or(u64::MAX);
        let text = match &mut self.texts {
            Some(texts) if offset != u64::MAX => texts.text_at(offset)?,
            _ => String::new(),
        };
        self.job.decode(&text).map_err(|e| EngineError::Progress {
            path: self.progress.to_path_buf(),
            message: format!("the answer to position {i} changed since it was read: {e}"),
        })
    }

    /// Takes one worker's message.
    fn receive(&mut self, message: Message<J::Answer>) {
        match message {
            Message::Answered(i, answer, line) => {
                // One write a line: a kill cuts at most the last one.
                if let Some(journal) = &mut self.journal {
                    if let Err(e) = journal.write_all(line.as_bytes()) {
                        self.halting = true;
                        self.fatal
                            .get_or_insert(EngineError::io("write", self.progress, e));
                    }
                }
                self.window.answer(i, Some(answer));
                self.outcome.answered += 1;
                (self.on_event)(RunEvent::Answered { index: i });
            }
            Message::Skipped(i, error) => {
                self.window.answer(i, None);
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
