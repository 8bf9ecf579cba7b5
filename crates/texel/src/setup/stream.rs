//! From data files to the recorded training and validation sets, streamed: the positions go
//! from the file to the compact stores a batch at a time, so that the peak memory is the final
//! stores plus a constant (see `docs/data.md`, "Memory").
//!
//! Two passes. The first reads every file for its game ids (run-length counted: a few bytes a
//! game), which is what the split by game needs ([`data::valid_games`], the same games as
//! [`data::split_by_game`]); the second reads again, splits each batch, records its two sides
//! and appends them to the two sets ([`SetBuilder`]). Binary caches are read twice, a batch at a
//! time ([`CacheReader`]); EPD and PGN files are parsed once, in the first pass, and their
//! samples (48 bytes each) kept until the second pass has recorded them: extract large PGN or
//! EPD sets to a cache first (`tune extract`).

use std::path::{Path, PathBuf};

use data::cache::CacheReader;
use data::check::Tally;
use data::{Format, Sample};
use eval::Model;
use tapered::Progress;
use tapered::{CompiledSet, SetBuilder};

use super::SetupOptions;
use crate::chess::record_samples;
use crate::TexelError;

/// Samples read and recorded at a time.
pub const BATCH: usize = 1 << 16;

/// Where a file's samples come from in the second pass.
enum Source {
    /// A cache, read again; its game ids shifted by the offset; the samples to take.
    Cache(PathBuf, u32, usize),
    /// Samples parsed in the first pass (game ids shifted already).
    Loaded(Vec<Sample>),
}

/// The recorded sets and what the reading found.
pub(crate) struct Streamed {
    pub train: CompiledSet,
    pub valid: CompiledSet,
    /// One note per file (positions kept, errors, skipped records), then the data warnings.
    pub notes: Vec<String>,
}

/// The error of a load stopped by Ctrl-C.
fn interrupted() -> TexelError {
    TexelError::Interrupted
}

/// Reads `opts.source.data`, splits it by game, records it with `model` at `start` and returns the
/// two sets. `stop` is asked between batches; `progress` (made here with its length once the
/// first pass has counted the positions) advances by one per position recorded.
pub(crate) fn stream(
    opts: &SetupOptions,
    model: &Model,
    start: &[f64],
    stop: &(dyn Fn() -> bool + Sync),
    progress: &dyn Fn(u64) -> Progress,
) -> Result<Streamed, TexelError> {
    let (runs, sources, mut notes) = first_pass(opts, stop)?;
    let total = runs.total();
    if total == 0 {
        return Err(TexelError::Config(format!(
            "the data holds no positions: {}",
            notes.join("; ")
        )));
    }
    let valid_games = data::valid_games(
        runs.runs.iter().map(|r| r.0).collect(),
        opts.split.valid_fraction,
        opts.split.seed,
    );
    let is_valid = |g: u32| valid_games.binary_search(&g).is_ok();
    let valid_total: u64 = runs
        .runs
        .iter()
        .filter(|r| is_valid(r.0))
        .map(|r| r.1)
        .sum();
    drop(runs);
    let quota = opts.split.quotas([total - valid_total, valid_total]);
    // Pass 2: split each batch, record both sides.
    let pb = progress(quota[0] + quota[1]);
    let mut rec = Recorder {
        model,
        start,
        opts,
        progress: &pb,
        is_valid: &is_valid,
        quota,
        taken: [0; 2],
        sets: [SetBuilder::new(start.len()), SetBuilder::new(start.len())],
        tallies: [Tally::default(), Tally::default()],
        side: [Vec::with_capacity(BATCH), Vec::with_capacity(BATCH)],
    };
    for source in sources {
        rec.source(source, stop)?;
    }
    pb.end();
    let [train_t, valid_t] = &rec.tallies;
    notes.extend(data::check::tally_warnings(
        train_t,
        valid_t,
        opts.split.valid_fraction,
    ));
    let [train, valid] = rec.sets;
    Ok(Streamed {
        train: train.finish(),
        valid: valid.finish(),
        notes,
    })
}

/// The first pass's game ids: runs of (game, positions) in file order, and the next free id.
#[derive(Default)]
struct GameRuns {
    runs: Vec<(u32, u64)>,
    /// One past the largest game id so far.
    next: Option<u32>,
}

impl GameRuns {
    /// Counts the game ids of a file's positions, in order.
    fn count(&mut self, games: impl Iterator<Item = u32>) {
        for g in games {
            match self.runs.last_mut() {
                Some((last, n)) if *last == g => *n += 1,
                _ => self.runs.push((g, 1)),
            }
            let end = g.saturating_add(1);
            self.next = Some(self.next.map_or(end, |m| m.max(end)));
        }
    }

    /// The shift of the next file's game ids: past the largest id so far
    /// (`data::files::append_games`).
    fn offset(&self) -> u32 {
        self.next.unwrap_or(0)
    }

    /// The positions counted.
    fn total(&self) -> u64 {
        self.runs.iter().map(|r| r.1).sum()
    }
}

/// Pass 1: every file read for its game ids (up to `opts.split.first` positions in all); the sources
/// for pass 2 and one note per file.
fn first_pass(
    opts: &SetupOptions,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<(GameRuns, Vec<Source>, Vec<String>), TexelError> {
    let load_opts = data::LoadOptions {
        strict: opts.split.strict,
        extract: opts.source.extract.clone(),
        ..data::LoadOptions::default()
    };
    let mut runs = GameRuns::default();
    let mut sources = Vec::new();
    let mut notes = Vec::new();
    // With `first`: the positions still to read.
    let mut left = opts.split.first.unwrap_or(usize::MAX);
    for path in &opts.source.data {
        if left == 0 {
            break;
        }
        let offset = runs.offset();
        let (kept, report) = if data::files::detect(path)? == Format::Cache {
            let (kept, report) =
                count_cache(path, opts.split.strict, offset, &mut left, &mut runs, stop)?;
            sources.push(Source::Cache(path.clone(), offset, kept));
            (kept, report)
        } else {
            let (mut samples, report) = data::load(path, &load_opts)?;
            samples.truncate(left);
            left -= samples.len();
            for s in &mut samples {
                s.game = s.game.saturating_add(offset);
            }
            runs.count(samples.iter().map(|s| s.game));
            let kept = samples.len();
            sources.push(Source::Loaded(samples));
            (kept, report)
        };
        notes.push(note(path, kept, &report));
    }
    Ok((runs, sources, notes))
}

/// Pass 1 over a cache: its game ids (shifted by `offset`) counted, a batch at a time, up to
/// `left` positions; the positions kept and the reader's report.
fn count_cache(
    path: &Path,
    strict: bool,
    offset: u32,
    left: &mut usize,
    runs: &mut GameRuns,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<(usize, data::Report), TexelError> {
    let mut reader = CacheReader::open(path, strict)?;
    let mut kept = 0;
    while let Some(mut batch) = reader.next_batch(BATCH.min(*left))? {
        if stop() {
            return Err(interrupted());
        }
        batch.truncate(*left);
        *left -= batch.len();
        kept += batch.len();
        runs.count(batch.iter().map(|s| s.game.saturating_add(offset)));
        if *left == 0 {
            break;
        }
    }
    Ok((kept, reader.report().clone()))
}

/// Pass 2: each batch split by game into the training and validation sides (up to their
/// quotas), recorded and appended to their sets.
struct Recorder<'a> {
    model: &'a Model,
    start: &'a [f64],
    opts: &'a SetupOptions,
    progress: &'a Progress,
    is_valid: &'a dyn Fn(u32) -> bool,
    /// Positions to take, training then validation.
    quota: [u64; 2],
    taken: [u64; 2],
    sets: [SetBuilder; 2],
    tallies: [Tally; 2],
    /// A batch's samples of each side, reused.
    side: [Vec<Sample>; 2],
}

impl Recorder<'_> {
    /// Records every sample of a source, a batch at a time; `stop` is asked between batches.
    fn source(
        &mut self,
        source: Source,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<(), TexelError> {
        match source {
            Source::Cache(path, offset, mut take) => {
                let mut reader = CacheReader::open(&path, self.opts.split.strict)?;
                while take > 0 {
                    let Some(mut batch) = reader.next_batch(BATCH.min(take))? else {
                        break;
                    };
                    if stop() {
                        return Err(interrupted());
                    }
                    batch.truncate(take);
                    take -= batch.len();
                    for s in &mut batch {
                        s.game = s.game.saturating_add(offset);
                    }
                    self.record(&batch);
                }
            }
            Source::Loaded(samples) => {
                for batch in samples.chunks(BATCH) {
                    if stop() {
                        return Err(interrupted());
                    }
                    self.record(batch);
                }
            }
        }
        Ok(())
    }

    /// Splits a batch, records both sides and appends them to their sets.
    fn record(&mut self, batch: &[Sample]) {
        for s in batch {
            let k = usize::from((self.is_valid)(s.game));
            if self.taken[k] < self.quota[k] {
                self.taken[k] += 1;
                self.side[k].push(*s);
            }
        }
        for k in 0..2 {
            self.tallies[k].add(&self.side[k]);
            let recorded = record_samples(
                self.model,
                &self.side[k],
                self.start,
                self.opts.source.leaf,
                Some(self.progress),
            );
            self.sets[k].push(recorded);
            self.side[k].clear();
        }
    }
}

/// A file's note: positions kept, errors, skipped records by reason.
pub fn note(path: &Path, kept: usize, report: &data::Report) -> String {
    let skipped: Vec<String> = report
        .skipped
        .iter()
        .map(|(why, n)| format!(", {n} skipped: {why}"))
        .collect();
    format!(
        "{}: {} positions kept ({} errors{})",
        path.display(),
        kept,
        report.errors,
        skipped.concat()
    )
}
