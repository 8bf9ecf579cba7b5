//! Extracting labelled positions from PGN games, with pgn-reader.
//!
//! Each position *before* a move of the main line becomes a candidate, labelled with the game
//! result (from the `Result` tag, else the movetext's termination) and, when the move's comment
//! carries one, the engine score (`{+0.35/12 ...}` cutechess style, mover's view in pawns, or
//! `[%eval 0.35]` White's view), turned into centipawns from White's view. Mate scores, and
//! scores at or beyond ±30000 cp (engines print such garbage now and then), are not kept. `[FEN]`, `[SetUp]` and `[Variant]` are honoured; Chess960 castling
//! works with both X-FEN (`KQkq`) and Shredder-FEN (`HAha`) rights.

use std::collections::HashSet;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use pgn_reader::{KnownOutcome, Outcome, RawComment, RawTag, Reader, SanPlus, Visitor};
use rand::seq::index::sample as sample_indices;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use shakmaty::{
    fen::Fen, zobrist::Zobrist64, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Position,
    Setup,
};

use eval::ModelKind;

use crate::filter::{Filter, Filtered, Filterer};
use crate::{source, DataError, Report, Sample};

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
    /// The extraction that won on the TCEC games (`docs/results.md`, the grid of issue 11):
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

/// A position before a move, with what the move's comment said.
struct Candidate {
    pos: Chess,
    ply: u32,
    score: Option<f32>,
    book: bool,
}

#[derive(Default)]
struct Tags {
    fen: Option<Vec<u8>>,
    setup: Option<Vec<u8>>,
    variant: Option<String>,
    result: Option<f64>,
}

struct Movetext {
    pos: Chess,
    ply: u32,
    cands: Vec<Candidate>,
    /// The last token was a move, so a comment now belongs to it.
    after_move: bool,
    outcome: Option<f64>,
    tag_result: Option<f64>,
}

/// A game as read, before filtering.
struct Game {
    cands: Vec<Candidate>,
    result: Option<f64>,
    mated: bool,
}

enum GameOut {
    Game(Game),
    Skipped(&'static str),
    Error(String),
}

struct GameVisitor;

/// Comment scores at or beyond this many centipawns (eval's mate score) are not kept.
const MAX_SCORE: f32 = eval::MATE as f32;

fn parse_result(v: &[u8]) -> Option<f64> {
    match v {
        b"1-0" => Some(1.0),
        b"0-1" => Some(0.0),
        b"1/2-1/2" => Some(0.5),
        _ => None,
    }
}

/// Castling mode of a `[Variant]` tag; `Err` for variants gradtune does not read.
fn variant_mode(v: &str) -> Result<Option<CastlingMode>, ()> {
    let v = v.trim().to_ascii_lowercase();
    match v.as_str() {
        "" | "standard" | "chess" | "normal" | "from position" | "fromposition" => Ok(None),
        "chess960"
        | "chess 960"
        | "960"
        | "fischerandom"
        | "fischer random"
        | "fischerrandom"
        | "frc"
        | "dfrc"
        | "double fischer random"
        | "doublefischerrandom"
        | "freestyle"
        | "chess960 (dfrc)" => Ok(Some(CastlingMode::Chess960)),
        _ => Err(()),
    }
}

/// A score in a move comment, in centipawns from the mover's (`Some(true)`) or White's
/// (`Some(false)`) view, and whether the comment marks a book move.
fn parse_comment(c: &[u8]) -> (Option<(f32, bool)>, bool) {
    let text = String::from_utf8_lossy(c);
    let text = text.trim();
    let book = text
        .split(|ch: char| !ch.is_ascii_alphabetic())
        .any(|w| w.eq_ignore_ascii_case("book"));
    if let Some(i) = text.find("[%eval ") {
        let v = text[i + 7..].split([']', ',', ' ']).next().unwrap_or("");
        if let Ok(x) = v.parse::<f32>() {
            if x.is_finite() {
                return (Some(((x * 100.0).round(), false)), book);
            }
        }
        return (None, book);
    }
    let first = text.split_whitespace().next().unwrap_or("");
    if let Some((s, depth)) = first.split_once('/') {
        if !depth.is_empty() && depth.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(x) = s.parse::<f32>() {
                if x.is_finite() {
                    return (Some(((x * 100.0).round(), true)), book);
                }
            }
        }
    }
    (None, book)
}

fn start_position(tags: &Tags) -> Result<Chess, GameOut> {
    let fail = |m: String| Err(GameOut::Error(m));
    let mode = match tags.variant.as_deref().map(variant_mode) {
        None => None,
        Some(Ok(m)) => m,
        Some(Err(())) => return Err(GameOut::Skipped("unsupported variant")),
    };
    let setup_flag = tags.setup.as_deref().map(|s| s.trim_ascii());
    match (&tags.fen, setup_flag) {
        (None, Some(b"1")) => fail("[SetUp \"1\"] without a [FEN] tag".into()),
        (Some(fen), flag) if flag != Some(b"0") => {
            let fen = match Fen::from_ascii(fen.trim_ascii()) {
                Ok(f) => f,
                Err(e) => {
                    return fail(format!(
                        "bad FEN tag {:?}: {e}",
                        String::from_utf8_lossy(fen)
                    ))
                }
            };
            let setup: Setup = fen.into_setup();
            let mode = mode.unwrap_or_else(|| CastlingMode::detect(&setup));
            Chess::from_setup(setup, mode)
                .or_else(shakmaty::PositionError::ignore_invalid_ep_square)
                .map_err(|e| GameOut::Error(format!("FEN tag: {e}")))
        }
        _ => {
            let pos = Chess::default();
            if mode == Some(CastlingMode::Chess960) {
                // The standard start position, read with Chess960 castling.
                let setup = pos.to_setup(EnPassantMode::Legal);
                Chess::from_setup(setup, CastlingMode::Chess960)
                    .map_err(|e| GameOut::Error(e.to_string()))
            } else {
                Ok(pos)
            }
        }
    }
}

impl Visitor for GameVisitor {
    type Tags = Tags;
    type Movetext = Movetext;
    type Output = GameOut;

    fn begin_tags(&mut self) -> ControlFlow<GameOut, Tags> {
        ControlFlow::Continue(Tags::default())
    }

    fn tag(&mut self, tags: &mut Tags, name: &[u8], value: RawTag<'_>) -> ControlFlow<GameOut> {
        match name {
            b"FEN" => tags.fen = Some(value.decode().into_owned()),
            b"SetUp" => tags.setup = Some(value.decode().into_owned()),
            b"Variant" => tags.variant = Some(value.decode_utf8_lossy().into_owned()),
            b"Result" => tags.result = parse_result(value.decode().trim_ascii()),
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Tags) -> ControlFlow<GameOut, Movetext> {
        match start_position(&tags) {
            Ok(pos) => ControlFlow::Continue(Movetext {
                pos,
                ply: 0,
                cands: Vec::with_capacity(160),
                after_move: false,
                outcome: None,
                tag_result: tags.result,
            }),
            Err(out) => ControlFlow::Break(out),
        }
    }

    fn san(&mut self, m: &mut Movetext, san_plus: SanPlus) -> ControlFlow<GameOut> {
        match san_plus.san.to_move(&m.pos) {
            Ok(mv) => {
                m.cands.push(Candidate {
                    pos: m.pos.clone(),
                    ply: m.ply,
                    score: None,
                    book: false,
                });
                m.pos.play_unchecked(mv);
                m.ply += 1;
                m.after_move = true;
                ControlFlow::Continue(())
            }
            Err(e) => ControlFlow::Break(GameOut::Error(format!(
                "illegal move {} at ply {} ({e}) in {}",
                san_plus,
                m.ply + 1,
                Fen::from_position(&m.pos, EnPassantMode::Legal)
            ))),
        }
    }

    fn comment(&mut self, m: &mut Movetext, comment: RawComment<'_>) -> ControlFlow<GameOut> {
        if m.after_move {
            if let Some(c) = m.cands.last_mut() {
                let (score, book) = parse_comment(comment.as_bytes());
                c.book |= book;
                if c.score.is_none() {
                    // Engines print garbage beyond mate range now and then: no label then.
                    let score = score.filter(|(s, _)| s.abs() < MAX_SCORE);
                    c.score = score.map(|(s, mover)| {
                        if mover && c.pos.turn() == Color::Black {
                            -s
                        } else {
                            s
                        }
                    });
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, m: &mut Movetext, outcome: Outcome) -> ControlFlow<GameOut> {
        m.outcome = match outcome {
            Outcome::Known(KnownOutcome::Decisive {
                winner: Color::White,
            }) => Some(1.0),
            Outcome::Known(KnownOutcome::Decisive {
                winner: Color::Black,
            }) => Some(0.0),
            Outcome::Known(KnownOutcome::Draw) => Some(0.5),
            Outcome::Unknown => None,
        };
        m.after_move = false;
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, m: Movetext) -> GameOut {
        GameOut::Game(Game {
            mated: m.pos.is_checkmate(),
            result: m.tag_result.or(m.outcome),
            cands: m.cands,
        })
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
            let seed = opts.seed ^ u64::from(id).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut chosen = sample_indices(&mut rng, kept.len(), max).into_vec();
            chosen.sort_unstable();
            for _ in 0..kept.len() - max {
                skip("over the per-game limit");
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
        let (reader, _) = source::open_counting(path, bytes.clone())?;
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
