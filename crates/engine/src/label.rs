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

use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use data::{LoadOptions, Report, Sample};

use crate::error::EngineError;
use crate::limits::SearchLimits;
use crate::uci_client::{go_command, EngineSpec, UciEngine, UciError};

/// With no position labelled yet, this many failures in a row end the run: the engine is
/// broken, not one position.
pub const MAX_FAILURES_AT_START: usize = 20;

/// First line of a progress file: its format and version.
const PROGRESS_TAG: &str = "gradtune-label 1";

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

/// One input file's share of the positions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// The file.
    pub path: PathBuf,
    /// Index of its first position.
    pub start: usize,
    /// Its number of positions.
    pub len: usize,
}

/// The positions to label, from one or more files, in order.
#[derive(Clone, Debug, Default)]
pub struct LabelInput {
    /// The positions; their results and game ids are kept, their scores replaced.
    pub samples: Vec<Sample>,
    /// Which file each range of positions came from.
    pub sources: Vec<Source>,
}

impl LabelInput {
    /// Reads the files with [`data::load`] (any format), one after the other. Game ids of
    /// later files are moved past those of earlier ones, so the games of different files stay
    /// apart in a split by game. Returns each file's report (skipped records).
    pub fn load(
        paths: &[PathBuf],
        opts: &LoadOptions,
    ) -> Result<(LabelInput, Vec<(PathBuf, Report)>), EngineError> {
        let mut input = LabelInput::default();
        let mut reports = Vec::new();
        for path in paths {
            let (samples, report) = data::load(path, opts)?;
            input.sources.push(Source {
                path: path.clone(),
                start: input.samples.len(),
                len: samples.len(),
            });
            data::files::append_games(&mut input.samples, samples);
            reports.push((path.clone(), report));
        }
        Ok((input, reports))
    }

    /// Where position `index` came from: `FILE: position N` (1-based within the file).
    pub fn location(&self, index: usize) -> String {
        match self
            .sources
            .iter()
            .find(|s| (s.start..s.start + s.len).contains(&index))
        {
            Some(s) => format!("{}: position {}", s.path.display(), index - s.start + 1),
            None => format!("position {}", index + 1),
        }
    }

    /// A 64-bit FNV-1a hash of the positions, results and game ids: a progress file is only
    /// continued for the same input.
    pub fn fingerprint(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |bytes: &[u8]| {
            for &b in bytes {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        };
        for s in &self.samples {
            eat(&s.board.0);
            eat(&s.result.to_le_bytes());
            eat(&s.game.to_le_bytes());
        }
        h
    }
}

/// The progress file of output `out`: `OUT.progress` beside it.
///
/// ```
/// use std::path::Path;
/// assert_eq!(
///     engine::label::progress_path(Path::new("data/labels.epd")),
///     Path::new("data/labels.epd.progress")
/// );
/// ```
pub fn progress_path(out: &Path) -> PathBuf {
    let mut name = out.file_name().unwrap_or_default().to_os_string();
    name.push(".progress");
    out.with_file_name(name)
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

/// The settings a progress file records; a rerun must match them.
fn progress_header(input: &LabelInput, settings: &LabelSettings, go: &str) -> String {
    let mut files = String::new();
    for s in &input.sources {
        let _ = write!(files, " {}", s.path.display());
    }
    format!(
        "{PROGRESS_TAG}\nengine {}\n{go}\nfresh {}\npositions {}\nfingerprint {:016x}\nfiles{files}\n",
        settings.engine.command(),
        settings.fresh,
        input.samples.len(),
        input.fingerprint()
    )
}

/// What a progress file holds.
#[derive(Debug)]
struct Progress {
    /// The labels: index and White's score.
    labels: Vec<(usize, i32)>,
    /// The length of its complete lines (a last line cut by a kill is dropped).
    len: u64,
    /// How its header differs from this run's settings (empty: it can be continued).
    differences: Vec<String>,
}

/// Reads a progress file (see [`Progress`]).
fn read_progress(path: &Path, header: &str, positions: usize) -> Result<Progress, EngineError> {
    let bytes = std::fs::read(path).map_err(|e| EngineError::io("read", path, e))?;
    let text = String::from_utf8_lossy(&bytes);
    let complete = text.rfind('\n').map_or(0, |i| i + 1);
    let text = &text[..complete];
    let bad = |message: String| EngineError::Progress {
        path: path.to_path_buf(),
        message,
    };
    let header_lines = header.lines().count();
    let have: Vec<&str> = text.lines().take(header_lines).collect();
    if have.first() != Some(&PROGRESS_TAG) {
        return Err(bad(format!(
            "not a progress file of `tune label` (it does not start with `{PROGRESS_TAG}`): \
             move it away"
        )));
    }
    let differences = header
        .lines()
        .zip(have.iter().chain(std::iter::repeat(&"")))
        .filter(|(want, got)| want != *got)
        .map(|(want, got)| format!("was `{got}`, now `{want}`"))
        .collect();
    let mut labels = Vec::new();
    for (i, line) in text.lines().enumerate().skip(header_lines) {
        let mut words = line.split_whitespace();
        let parsed = match (words.next(), words.next(), words.next()) {
            (Some(a), Some(b), None) => a.parse::<usize>().ok().zip(b.parse::<i32>().ok()),
            _ => None,
        };
        match parsed {
            Some((index, score)) if index < positions => labels.push((index, score)),
            _ => {
                return Err(bad(format!(
                    "line {}: expected `INDEX SCORE` with INDEX below {positions}, not `{line}`",
                    i + 1
                )))
            }
        }
    }
    Ok(Progress {
        labels,
        len: complete as u64,
        differences,
    })
}

/// Opens the progress file for appending: continuing `resume` (its complete lines kept), or
/// a new one holding `header`.
fn open_progress(
    path: &Path,
    header: &str,
    resume: Option<&Progress>,
) -> Result<File, EngineError> {
    let io = |action, e| EngineError::io(action, path, e);
    match resume {
        Some(p) => {
            let mut f = OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| io("open", e))?;
            // Drop a last line cut by a kill, then append.
            f.set_len(p.len).map_err(|e| io("write", e))?;
            std::io::Seek::seek(&mut f, std::io::SeekFrom::End(0)).map_err(|e| io("write", e))?;
            Ok(f)
        }
        None => {
            let mut f = File::create(path).map_err(|e| io("create", e))?;
            f.write_all(header.as_bytes()).map_err(|e| io("write", e))?;
            Ok(f)
        }
    }
}

/// What a worker sends back.
enum Message {
    Labelled(usize, i32),
    Skipped(usize, UciError),
    /// The engine could not be (re)started: this worker stops.
    Dead(UciError),
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

/// One engine process working through `pending`, taking the next index until none is left
/// or `halt` is set.
fn worker(
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

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> LabelSettings {
        LabelSettings {
            engine: EngineSpec::new("engine --flag"),
            limits: SearchLimits::depth(5),
            timeout: Duration::from_secs(1),
            jobs: 1,
            fresh: true,
        }
    }

    fn input() -> LabelInput {
        let pos = shakmaty::Chess::default();
        LabelInput {
            samples: vec![Sample::from_position(&pos, 0.5, None, 0); 3],
            sources: vec![Source {
                path: "in.epd".into(),
                start: 0,
                len: 3,
            }],
        }
    }

    #[test]
    fn progress_files_are_read_back_dropping_a_cut_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.epd.progress");
        let header = progress_header(&input(), &settings(), "go depth 5");
        std::fs::write(&path, format!("{header}0 5\n2 -3\n1 4")).unwrap();
        let p = read_progress(&path, &header, 3).unwrap();
        assert_eq!(p.labels, [(0, 5), (2, -3)]);
        assert!(p.differences.is_empty());
        assert_eq!(p.len as usize, header.len() + "0 5\n2 -3\n".len());

        // Other settings: the differences are named.
        let other = progress_header(&input(), &settings(), "go depth 6");
        let p = read_progress(&path, &other, 3).unwrap();
        assert_eq!(p.differences, ["was `go depth 5`, now `go depth 6`"]);

        // A corrupt line or an index out of range: an error naming the file and line.
        for bad in ["0 5\nx y\n", "0 5\n3 1\n", "0 5 7\n"] {
            std::fs::write(&path, format!("{header}{bad}")).unwrap();
            let err = read_progress(&path, &header, 3).unwrap_err().to_string();
            assert!(
                err.starts_with(&format!("{}: line ", path.display())),
                "{err}"
            );
        }
        std::fs::write(&path, "something else\n").unwrap();
        let err = read_progress(&path, &header, 3).unwrap_err().to_string();
        assert!(err.contains("not a progress file"), "{err}");
    }

    #[test]
    fn locations_name_the_file_and_position() {
        let mut input = input();
        input.sources.push(Source {
            path: "b.epd".into(),
            start: 3,
            len: 2,
        });
        assert_eq!(input.location(0), "in.epd: position 1");
        assert_eq!(input.location(4), "b.epd: position 2");
        assert_eq!(input.location(9), "position 10");
    }
}
