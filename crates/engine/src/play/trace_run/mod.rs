//! Tracing positions with an external engine's own evaluation (`tune trace`): each position
//! is sent as `position fen FEN` then `trace`, and the engine's one-line answer
//! (`trace phase 17; eval 42; t 0:1:0 ...`, the trace protocol of `docs/trace-format.md`) is
//! checked against the manifest ([`trace::parse_engine_answer`]) and joined with the
//! position's labels into a trace line.
//!
//! The machinery is [`crate::play::runner`]'s, as for `tune label`: `jobs` engine processes in
//! parallel, a crash, a hang (no answer within the time-out) or a malformed answer restarts
//! the engine and skips the position (or, `strict`, ends the run naming the engine and the
//! position), every answer appended to `OUT.progress` at once so that a rerun continues, and
//! the output written as the run goes, in the input's order, into a temporary file renamed
//! into place when every position has been asked about (memory bounded whatever the number
//! of positions). The engine is spawned without the UCI handshake: an engine need only answer
//! `trace` (and `manifest`).

mod manifest;
mod settings;
#[cfg(test)]
mod tests;

use std::path::Path;
use std::sync::atomic::AtomicBool;

use data::Sample;
use shakmaty::fen::Fen;
use shakmaty::EnPassantMode;
use trace::{Manifest, TextWriter, Trace};

use crate::error::EngineError;
use crate::play::runner::{run, Job, Output, PositionInput, RunEvent, RunOutcome, RunSettings};
use crate::play::uci_client::{EngineSpec, UciEngine, UciError};

pub use manifest::{ask_manifest, load_manifest, write_manifest, EngineManifest};
pub use settings::TraceSettings;

/// Tracing as a [`Job`] of the runner.
struct TraceJob<'a> {
    settings: &'a TraceSettings,
    manifest: &'a Manifest,
}

impl Job for TraceJob<'_> {
    type Answer = Trace;

    fn engine(&self) -> &EngineSpec {
        &self.settings.engine
    }

    fn ask(
        &self,
        engine: &mut UciEngine,
        sample: &Sample,
        halt: &AtomicBool,
    ) -> Result<Trace, UciError> {
        trace_one(engine, self.settings, self.manifest, sample, halt)
    }

    fn encode(&self, answer: &Trace) -> String {
        trace::to_line(answer, self.manifest)
    }

    fn decode(&self, text: &str) -> Result<Trace, String> {
        trace::parse_line(text, self.manifest)?.ok_or_else(|| "no trace".to_string())
    }
}

/// The settings a progress file of `tune trace` records beside the input's: the engine and
/// a fingerprint of the manifest the answers were checked against.
fn header_lines(settings: &TraceSettings, manifest_json: &str) -> String {
    format!(
        "engine {}\nrequest trace\nmanifest {:016x}\n",
        settings.engine.command(),
        fnv1a(manifest_json.as_bytes())
    )
}

/// A 64-bit FNV-1a hash.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// A sample's position as an EPD (its four fields) and its labels as EPD operations
/// (`[1.0] ce 32; game 4`), as `data` writes them.
fn epd_and_labels(sample: &Sample) -> (String, String) {
    let epd = sample.to_epd();
    let mut fields = epd.splitn(5, ' ');
    let board: Vec<&str> = fields.by_ref().take(4).collect();
    let labels = fields.next().unwrap_or("").trim().trim_end_matches(';');
    (board.join(" "), format!("{labels}; game {}", sample.game))
}

/// Asks the engine for the trace of `sample`'s position and checks it.
fn trace_one(
    engine: &mut UciEngine,
    settings: &TraceSettings,
    manifest: &Manifest,
    sample: &Sample,
    halt: &AtomicBool,
) -> Result<Trace, UciError> {
    let malformed = |line: &str, message: String| UciError::Malformed {
        command: settings.engine.command().to_string(),
        line: line.chars().take(200).collect(),
        message,
    };
    // A sample that does not unpack cannot come out of `data::load`; refuse it as the engine
    // would.
    let pos = sample
        .position()
        .map_err(|e| malformed("", format!("the position does not unpack: {e}")))?;
    let fen = Fen::from_position(&pos, EnPassantMode::Legal);
    let (epd, labels) = epd_and_labels(sample);
    let position = format!("position fen {fen}");
    let line = engine.ask(
        &[&position, "trace"],
        "trace",
        settings.timeout,
        Some(halt),
        |line| {
            // Other lines (`info string ...`) before the answer are ignored.
            if line.split_whitespace().next() != Some("trace") {
                return Ok(None);
            }
            trace::parse_engine_answer(line, &epd, &labels, manifest).map(Some)
        },
    )?;
    trace::parse_line(&line, manifest)
        .map_err(|e| malformed(&line, e))?
        .ok_or_else(|| malformed(&line, "no trace".to_string()))
}

/// Traces every position of `input` with the engine and writes the trace lines to `out`
/// (text; zstd for `.zst`, gzip for `.gz`) as they come, in the input's order, into a
/// temporary file renamed over `out` once every position was asked about, checking each
/// answer against `manifest` (whose JSON text `manifest_json` the progress file records),
/// continuing from the progress file when there is one (see the [module](self)
/// documentation). `on_event` hears of every position; setting `stop` (Ctrl-C) ends the run
/// promptly, keeping the finished traces in the progress file and writing nothing to `out`.
/// Memory is bounded whatever the number of positions ([`crate::play::runner::window`]).
///
/// Errors: the engine cannot be started (or fails on each of the first
/// [`MAX_FAILURES_AT_START`](crate::play::runner::MAX_FAILURES_AT_START) positions), a failure
/// with `strict`, the progress file is corrupt or was made with other settings, a file
/// cannot be read or written.
pub fn trace_positions(
    input: &PositionInput,
    manifest: &Manifest,
    manifest_json: &str,
    settings: &TraceSettings,
    out: &Path,
    on_event: &mut dyn FnMut(RunEvent<'_>),
    stop: &AtomicBool,
) -> Result<RunOutcome, EngineError> {
    let run_settings = RunSettings {
        name: "trace",
        header: header_lines(settings, manifest_json),
        jobs: settings.jobs,
        strict: settings.strict,
    };
    let mut output = TraceOutput {
        path: out,
        manifest,
        file: None,
    };
    let job = TraceJob { settings, manifest };
    run(&job, input, &run_settings, out, &mut output, on_event, stop)
}

/// The trace file, written as the answers come in order (opened at the first).
struct TraceOutput<'a> {
    path: &'a Path,
    manifest: &'a Manifest,
    file: Option<TextWriter<'a>>,
}

impl<'a> TraceOutput<'a> {
    fn file(&mut self) -> Result<&mut TextWriter<'a>, EngineError> {
        if self.file.is_none() {
            self.file = Some(TextWriter::create(self.path, self.manifest)?);
        }
        self.file
            .as_mut()
            .ok_or_else(|| EngineError::Options("the trace file is not open".to_string()))
    }
}

impl Output<Trace> for TraceOutput<'_> {
    fn write(&mut self, _: usize, _: &Sample, answer: Option<&Trace>) -> Result<(), EngineError> {
        let file = self.file()?;
        if let Some(t) = answer {
            file.write(t)?;
        }
        Ok(())
    }

    fn commit(&mut self) -> Result<(), EngineError> {
        self.file()?;
        match self.file.take() {
            Some(f) => Ok(f.commit()?),
            None => Ok(()),
        }
    }
}
