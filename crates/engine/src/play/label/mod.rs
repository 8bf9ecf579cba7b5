//! Labelling positions with an external UCI engine's search scores (`tune label`): each
//! position's score, White's view, becomes its score label (`Sample::score`, what
//! `--lambda` blends with the result).
//!
//! [`label`] runs `jobs` engine processes in parallel ([`crate::play::runner`]), each position
//! searched with the same limit. A time-out, a crash or a malformed answer restarts that
//! engine and skips the position, with a message naming the file and the position. Every
//! finished label is appended at once to a progress file beside the output
//! ([`progress_path`]): a rerun of the same command continues where the last one stopped, and
//! retries the positions it skipped. The input is read a batch at a time; the labelled
//! positions are collected in order and the output written once, atomically, when
//! every position has been searched; the progress file is then removed (kept while some
//! positions were skipped, so that a rerun retries only those).

#[cfg(test)]
mod tests;

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use data::Sample;

use crate::error::EngineError;
use crate::play::runner::{run, Job, Output, RunSettings};
use crate::play::uci_client::{go_command, EngineSpec, UciEngine, UciError};
use crate::search::limits::SearchLimits;

pub use crate::play::runner::{
    progress_path, PositionInput as LabelInput, RunEvent as LabelEvent, RunOutcome as LabelOutcome,
    Source, MAX_FAILURES_AT_START,
};

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

/// Labelling as a [`Job`] of the runner: a search per position, answered by its score.
struct LabelJob<'a> {
    settings: &'a LabelSettings,
}

impl Job for LabelJob<'_> {
    type Answer = i32;

    fn engine(&self) -> &EngineSpec {
        &self.settings.engine
    }

    fn ask(
        &self,
        engine: &mut UciEngine,
        sample: &Sample,
        halt: &AtomicBool,
    ) -> Result<i32, UciError> {
        search_one(engine, self.settings, sample, halt)
    }

    fn encode(&self, score: &i32) -> String {
        score.to_string()
    }

    fn decode(&self, text: &str) -> Result<i32, String> {
        text.parse::<i32>().map_err(|e| format!("`{text}`: {e}"))
    }
}

/// The settings a progress file of `tune label` records beside the input's (the lines of
/// its header after the tag).
pub(crate) fn header_lines(settings: &LabelSettings, go: &str) -> String {
    format!(
        "engine {}\n{go}\nfresh {}\n",
        settings.engine.command(),
        settings.fresh
    )
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
    data::OutputKind::of(out)?;
    let go = go_command(&settings.limits).ok_or_else(|| {
        EngineError::Options("a search needs a depth, node or time limit".to_string())
    })?;
    let run_settings = RunSettings {
        name: "label",
        header: header_lines(settings, &go),
        jobs: settings.jobs,
        strict: false,
    };
    let mut output = LabelOutput {
        path: out,
        samples: Vec::new(),
    };
    let job = LabelJob { settings };
    run(&job, input, &run_settings, out, &mut output, on_event, stop)
}

/// The labelled positions, collected in order and written whole at the end
/// ([`data::write_samples`]: EPD or a cache, as the name says).
struct LabelOutput<'a> {
    path: &'a Path,
    samples: Vec<Sample>,
}

impl Output<i32> for LabelOutput<'_> {
    fn write(&mut self, _: usize, s: &Sample, score: Option<&i32>) -> Result<(), EngineError> {
        if let Some(&score) = score {
            self.samples.push(Sample {
                score: Some(score as f32),
                ..*s
            });
        }
        Ok(())
    }

    fn commit(&mut self) -> Result<(), EngineError> {
        data::write_samples(self.path, &self.samples).map_err(EngineError::from)
    }
}

/// The engine's score of `sample`'s position, White's view.
fn search_one(
    engine: &mut UciEngine,
    settings: &LabelSettings,
    sample: &Sample,
    halt: &AtomicBool,
) -> Result<i32, UciError> {
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
