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

/// Reads `opts.data`, splits it by game, records it with `model` at `start` and returns the
/// two sets. `stop` is asked between batches; `progress` (made here with its length once the
/// first pass has counted the positions) advances by one per position recorded.
pub(crate) fn stream(
    opts: &SetupOptions,
    model: &Model,
    start: &[f64],
    stop: &(dyn Fn() -> bool + Sync),
    progress: &dyn Fn(u64) -> Progress,
) -> Result<Streamed, TexelError> {
    let load_opts = data::LoadOptions {
        strict: opts.strict,
        extract: opts.extract.clone(),
        ..data::LoadOptions::default()
    };
    // Pass 1: game ids (as runs of (game, positions)), notes, the sources for pass 2.
    let mut runs: Vec<(u32, u64)> = Vec::new();
    let mut sources = Vec::new();
    let mut notes = Vec::new();
    // Game ids of a file are shifted past the largest id so far (`data::files::append_games`).
    let mut next_game: Option<u32> = None;
    let mut count = |games: &mut dyn Iterator<Item = u32>, next: &mut Option<u32>| {
        for g in games {
            match runs.last_mut() {
                Some((last, n)) if *last == g => *n += 1,
                _ => runs.push((g, 1)),
            }
            let end = g.saturating_add(1);
            *next = Some(next.map_or(end, |m| m.max(end)));
        }
    };
    // With `first`: the positions still to read.
    let mut left = opts.first.unwrap_or(usize::MAX);
    for path in &opts.data {
        if left == 0 {
            break;
        }
        let offset = next_game.unwrap_or(0);
        let (kept, report) = if data::files::detect(path)? == Format::Cache {
            let mut reader = CacheReader::open(path, opts.strict)?;
            let mut kept = 0;
            while let Some(mut batch) = reader.next_batch(BATCH.min(left))? {
                if stop() {
                    return Err(interrupted());
                }
                batch.truncate(left);
                left -= batch.len();
                kept += batch.len();
                let mut games = batch.iter().map(|s| s.game.saturating_add(offset));
                count(&mut games, &mut next_game);
                if left == 0 {
                    break;
                }
            }
            sources.push(Source::Cache(path.clone(), offset, kept));
            (kept, reader.report().clone())
        } else {
            let (mut samples, report) = data::load(path, &load_opts)?;
            samples.truncate(left);
            left -= samples.len();
            for s in &mut samples {
                s.game = s.game.saturating_add(offset);
            }
            count(&mut samples.iter().map(|s| s.game), &mut next_game);
            let kept = samples.len();
            sources.push(Source::Loaded(samples));
            (kept, report)
        };
        notes.push(note(path, kept, &report));
    }
    let total: u64 = runs.iter().map(|r| r.1).sum();
    if total == 0 {
        return Err(TexelError::Config(format!(
            "the data holds no positions: {}",
            notes.join("; ")
        )));
    }
    let valid_games = data::valid_games(
        runs.iter().map(|r| r.0).collect(),
        opts.valid_fraction,
        opts.seed,
    );
    let is_valid = |g: u32| valid_games.binary_search(&g).is_ok();
    let valid_total: u64 = runs.iter().filter(|r| is_valid(r.0)).map(|r| r.1).sum();
    drop(runs);
    let mut quota = [total - valid_total, valid_total];
    if let Some(limit) = opts.limit.map(|l| l as u64) {
        if limit < total {
            let f = limit as f64 / total as f64;
            quota = quota.map(|n| (n as f64 * f).round() as u64);
        }
    }
    // Pass 2: split each batch, record both sides.
    let pb = progress(quota[0] + quota[1]);
    let mut sets = [SetBuilder::new(start.len()), SetBuilder::new(start.len())];
    let mut tallies = [Tally::default(), Tally::default()];
    let mut taken = [0u64; 2];
    let mut side = [Vec::with_capacity(BATCH), Vec::with_capacity(BATCH)];
    let mut record = |batch: &[Sample]| {
        for s in batch {
            let k = usize::from(is_valid(s.game));
            if taken[k] < quota[k] {
                taken[k] += 1;
                side[k].push(*s);
            }
        }
        for k in 0..2 {
            tallies[k].add(&side[k]);
            sets[k].push(record_samples(model, &side[k], start, opts.leaf, Some(&pb)));
            side[k].clear();
        }
    };
    for source in sources {
        match source {
            Source::Cache(path, offset, mut take) => {
                let mut reader = CacheReader::open(&path, opts.strict)?;
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
                    record(&batch);
                }
            }
            Source::Loaded(samples) => {
                for batch in samples.chunks(BATCH) {
                    if stop() {
                        return Err(interrupted());
                    }
                    record(batch);
                }
            }
        }
    }
    pb.end();
    let [train_t, valid_t] = &tallies;
    notes.extend(data::check::tally_warnings(
        train_t,
        valid_t,
        opts.valid_fraction,
    ));
    let [train, valid] = sets;
    Ok(Streamed {
        train: train.finish(),
        valid: valid.finish(),
        notes,
    })
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
