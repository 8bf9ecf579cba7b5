//! Extracting labelled positions from PGN games, with pgn-reader.
//!
//! Each position *before* a move of the main line becomes a candidate, labelled with the game
//! result (from the `Result` tag, else the movetext's termination) and, when the move's comment
//! carries one, the engine score (`{+0.35/12 ...}` cutechess style, mover's view in pawns, or
//! `[%eval 0.35]` White's view), turned into centipawns from White's view. Mate scores, and
//! scores at or beyond ±30000 cp (engines print such garbage now and then), are not kept. `[FEN]`, `[SetUp]` and `[Variant]` are honoured; Chess960 castling
//! works with both X-FEN (`KQkq`) and Shredder-FEN (`HAha`) rights.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use pgn_reader::Reader;
use rayon::prelude::*;
use shakmaty::{zobrist::Zobrist64, Chess, EnPassantMode, Position};

use eval::ModelKind;

use crate::filter::{Filter, Filtered, Filterer};
use crate::per_game::{per_game_choice, OVER_LIMIT};
use crate::{DataError, Report, Sample};

mod visitor;
use visitor::{Game, GameOut, GameVisitor};

/// Options of [`extract_pgn`].
///
/// ```
/// use data::{extract_pgn_reader, ExtractOptions};
///
/// let pgn = "[Result \"1-0\"]\n\n1. e4 { book } e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n";
/// // Book moves are skipped by default; skip two more plies and the positions in check.
/// let opts = ExtractOptions { skip_plies: 3, skip_check: true, ..ExtractOptions::default() };
/// let (samples, report) = extract_pgn_reader(pgn.as_bytes(), "<pgn>".as_ref(), &opts)?;
/// assert_eq!(samples.len(), 4); // the positions before 2... Nc6 up to 4. Qxf7#
/// assert!(samples.iter().all(|s| s.result == 1.0));
/// assert_eq!(report.kept, 4);
/// # Ok::<(), data::DataError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ExtractOptions {
    /// Skip positions whose move is marked `{book}` (default true).
    pub skip_book: bool,
    /// Skip the first N plies of each game, counted from its start position (default 0).
    pub skip_plies: u32,
    /// Skip positions with the side to move in check (default false).
    pub skip_check: bool,
    /// Skip every position of games that ended in checkmate on the board (default false).
    pub skip_mated_games: bool,
    /// Keep at most this many positions per game, sampled at random (default: all).
    pub max_per_game: Option<usize>,
    /// Drop positions already seen, by Zobrist hash, across all files (default false).
    pub dedup: bool,
    /// The Texel / WukongJS filter (default none).
    pub filter: Filter,
    /// The evaluation the filter searches with (default `psqt`).
    pub model: ModelKind,
    /// Its weights (default: the model's default weights).
    pub weights: Option<Vec<f64>>,
    /// Stop at the first malformed game (default false: report, skip and count).
    pub strict: bool,
    /// Seed of the per-game sampling.
    pub seed: u64,
}

impl ExtractOptions {
    /// The extraction that won on the TCEC games (`experiments/defaults-grid.md`, the grid of issue 11):
    /// Texel's quiet filter (static evaluation equals the quiescence score) and the first 8
    /// plies skipped, everything else as [`Default`]. What `tune extract` and the tuning
    /// commands use for PGN unless told otherwise.
    pub fn recommended() -> Self {
        ExtractOptions {
            skip_plies: 8,
            filter: Filter::Quiet,
            ..ExtractOptions::default()
        }
    }
}

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions {
            skip_book: true,
            skip_plies: 0,
            skip_check: false,
            skip_mated_games: false,
            max_per_game: None,
            dedup: false,
            filter: Filter::None,
            model: ModelKind::Psqt,
            weights: None,
            strict: false,
            seed: 0,
        }
    }
}

/// The samples one game yields, with its skip counts; computed in parallel.
struct Processed {
    samples: Vec<(Sample, u64)>,
    skips: Vec<(&'static str, u64)>,
    result: Option<f64>,
}

fn process_game(game: Game, id: u32, opts: &ExtractOptions, filterer: &Filterer) -> Processed {
    let mut skips: Vec<(&'static str, u64)> = Vec::new();
    let mut skip = |reason: &'static str| match skips.iter_mut().find(|(r, _)| *r == reason) {
        Some((_, n)) => *n += 1,
        None => skips.push((reason, 1)),
    };
    let Some(result) = game.result else {
        return Processed {
            samples: Vec::new(),
            skips: vec![("games with no result", 1)],
            result: None,
        };
    };
    if opts.skip_mated_games && game.mated {
        return Processed {
            samples: Vec::new(),
            skips: vec![
                ("games ended by mate", 1),
                ("positions of games ended by mate", game.cands.len() as u64),
            ],
            result: Some(result),
        };
    }
    let mut kept: Vec<(Chess, Option<f32>)> = Vec::with_capacity(game.cands.len());
    for c in game.cands {
        if opts.skip_book && c.book {
            skip("book positions");
        } else if c.ply < opts.skip_plies {
            skip("opening plies");
        } else if opts.skip_check && c.pos.is_check() {
            skip("positions in check");
        } else {
            match filterer.apply(c.pos) {
                Filtered::Keep(pos) => kept.push((pos, c.score)),
                Filtered::Drop(reason) => skip(reason),
            }
        }
    }
    if let Some(max) = opts.max_per_game {
        if kept.len() > max {
            let chosen = per_game_choice(kept.len(), max, opts.seed, id);
            for _ in 0..kept.len() - max {
                skip(OVER_LIMIT);
            }
            let mut all: Vec<Option<(Chess, Option<f32>)>> = kept.into_iter().map(Some).collect();
            kept = chosen.into_iter().filter_map(|i| all[i].take()).collect();
        }
    }
    let samples = kept
        .into_iter()
        .map(|(pos, score)| {
            let hash = if opts.dedup {
                pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
            } else {
                0
            };
            (Sample::from_position(&pos, result, score, id), hash)
        })
        .collect();
    Processed {
        samples,
        skips,
        result: Some(result),
    }
}

/// Games are parsed in one thread and processed (filters, sampling) in batches in parallel.
const BATCH: usize = 256;

/// Extracts labelled positions from PGN files (plain, gzip or zstd), in order; game ids are
/// numbered from 0 across the files. `progress`, if given, is called after every batch of games
/// with (bytes read, total bytes, games read).
///
/// ```no_run
/// use data::{extract_pgn, ExtractOptions};
/// let (samples, report) = extract_pgn(
///     &["games.pgn.zst".into()],
///     &ExtractOptions { skip_plies: 8, dedup: true, ..ExtractOptions::default() },
///     None,
/// )?;
/// println!("{} positions\n{report}", samples.len());
/// # Ok::<(), data::DataError>(())
/// ```
pub fn extract_pgn(
    paths: &[PathBuf],
    opts: &ExtractOptions,
    progress: Option<&(dyn Fn(u64, u64, u64) + Sync)>,
) -> Result<(Vec<Sample>, Report), DataError> {
    let total: u64 = paths
        .iter()
        .map(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0))
        .sum();
    let bytes = Arc::new(AtomicU64::new(0));
    let mut state = State::new(opts)?;
    for path in paths {
        let (reader, _) = fsutil::source::open_counting(path, bytes.clone())
            .map_err(|e| DataError::io(path, e))?;
        extract_one(path, reader, &mut state, &|games| {
            if let Some(p) = progress {
                p(bytes.load(Ordering::Relaxed), total, games)
            }
        })?;
    }
    Ok((state.samples, state.report))
}

struct State<'a> {
    opts: &'a ExtractOptions,
    filterer: Filterer,
    samples: Vec<Sample>,
    report: Report,
    seen: HashSet<u64>,
    next_id: u32,
}

impl State<'_> {
    fn new(opts: &ExtractOptions) -> Result<State<'_>, DataError> {
        Ok(State {
            opts,
            filterer: Filterer::new(opts.filter, opts.model, opts.weights.as_deref())?,
            samples: Vec::new(),
            report: Report::default(),
            seen: HashSet::new(),
            next_id: 0,
        })
    }

    fn flush(&mut self, batch: &mut Vec<(u32, Game)>) {
        let opts = self.opts;
        let processed: Vec<Processed> = std::mem::take(batch)
            .into_par_iter()
            .map(|(id, g)| process_game(g, id, opts, &self.filterer))
            .collect();
        for p in processed {
            if let Some(r) = p.result {
                self.report.count_game(r);
            }
            for (reason, n) in p.skips {
                self.report.skip_n(reason, n);
            }
            for (s, hash) in p.samples {
                if opts.dedup && !self.seen.insert(hash) {
                    self.report.skip("duplicates");
                    continue;
                }
                self.report.keep(s.result, s.score.is_some());
                self.samples.push(s);
            }
        }
    }
}

/// Reads one PGN stream into `state`. Used by [`extract_pgn`] and by [`load`](crate::load).
fn extract_one(
    path: &Path,
    reader: impl std::io::Read,
    state: &mut State<'_>,
    progress: &dyn Fn(u64),
) -> Result<(), DataError> {
    let mut pgn = Reader::new(reader);
    let mut visitor = GameVisitor;
    let mut batch: Vec<(u32, Game)> = Vec::with_capacity(BATCH);
    let mut game_no: u64 = 0;
    loop {
        let out = match pgn.read_game(&mut visitor) {
            Ok(Some(out)) => out,
            Ok(None) => break,
            Err(e) => {
                // pgn-reader cannot resynchronise after an I/O or decompression error.
                let location = format!("{}: game {}", path.display(), game_no + 1);
                let message = format!("cannot read further: {e}");
                if state.opts.strict {
                    return Err(DataError::Input { location, message });
                }
                state.report.error(location, message);
                break;
            }
        };
        game_no += 1;
        state.report.read += 1;
        state.report.games += 1;
        let id = state.next_id;
        state.next_id = state.next_id.wrapping_add(1);
        match out {
            GameOut::Game(g) => {
                batch.push((id, g));
                if batch.len() >= BATCH {
                    state.flush(&mut batch);
                    progress(state.report.games);
                }
            }
            GameOut::Skipped(reason) => state.report.skip(reason),
            GameOut::Error(message) => {
                let location = format!("{}: game {game_no}", path.display());
                if state.opts.strict {
                    return Err(DataError::Input { location, message });
                }
                state.report.error(location, message);
            }
        }
    }
    state.flush(&mut batch);
    progress(state.report.games);
    Ok(())
}

/// Extracts from one already opened PGN stream (decompressed); `name` is used in error
/// locations. Game ids are numbered from 0.
///
/// ```
/// use data::{pgn::extract_pgn_reader, ExtractOptions};
///
/// let pgn = "[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n";
/// let (samples, report) =
///     extract_pgn_reader(pgn.as_bytes(), "<text>".as_ref(), &ExtractOptions::default())?;
/// assert_eq!(samples.len(), 4);
/// assert_eq!(report.results, [0, 0, 4]);
/// # Ok::<(), data::DataError>(())
/// ```
pub fn extract_pgn_reader(
    reader: impl std::io::Read,
    name: &Path,
    opts: &ExtractOptions,
) -> Result<(Vec<Sample>, Report), DataError> {
    let path = name;
    let mut state = State::new(opts)?;
    extract_one(path, reader, &mut state, &|_| {})?;
    Ok((state.samples, state.report))
}
