//! Labelled chess positions for Texel tuning: readers for EPD text in the many forms engine
//! authors use, PGN extraction with the Texel and WukongJS filters, a compact binary cache,
//! and a train/validation split by game.
//!
//! The entry points are [`load`] (any file: binary cache, EPD text or PGN, plain, gzip or zstd,
//! told apart by content), [`extract_pgn`], [`write_cache`], [`write_epd`] and
//! [`split_by_game`]. Bad records never stop a run unless asked: they are reported with their
//! file and line (or game number), skipped and counted in a [`Report`].
//!
//! ```
//! use data::{load, write_epd, LoadOptions, Sample};
//! use shakmaty::Chess;
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("set.epd");
//! write_epd(&path, &[Sample::from_position(&Chess::default(), 1.0, Some(30.0), 0)])?;
//! let (samples, report) = load(&path, &LoadOptions::default())?;
//! assert_eq!(samples[0].result, 1.0);
//! assert_eq!(samples[0].score, Some(30.0));
//! assert_eq!(report.kept, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Design
//!
//! **How it works.** `fsutil::source` opens a file and picks the decompressor from its magic bytes;
//! `Format::detect` (in `lib.rs`) looks at the first decompressed bytes to choose cache, PGN or
//! EPD, and `load` dispatches. `epd.rs` streams lines (`EpdReader`), splitting each into the FEN
//! part and `;`-separated operations (`fsutil::epd::tokens`), and reads results and scores from
//! whichever form is there. `pgn.rs` is a pgn-reader `Visitor` that replays the main line with
//! shakmaty, records the position before each move with its comment's score and book mark, and
//! hands each finished game to a batch processed in parallel (skips, `filter.rs`, per-game
//! sampling); de-duplication then runs in input order. `files.rs` reads many inputs into one list
//! (`tune extract`): EPD and cache records go through the same position rules
//! (`records::filter_samples`: filter, checks, per-game limit as `per_game.rs` chooses it for PGN
//! too, duplicates across all inputs); the rules that need a game's moves apply to PGN only.
//! `packed.rs` packs a position into 24 bytes (occupancy + nibbles, with special codes for castling
//! rooks, the en-passant pawn and the side to move); `cache.rs` writes and loads 36-byte records
//! with rayon; `split.rs` shuffles game ids; `report.rs` counts everything and keeps the first
//! messages.
//!
//! **Invariants.**
//! - No input can panic the library: every malformed record becomes a message with its location
//!   (`file:line`, `file: game N`, `file: record N`), a count, and with `strict` an error
//!   (fuzzed; `tests/fuzz_smoke.rs` on stable).
//! - Results and scores in a `Sample` are from White's point of view, whatever the source said.
//! - A `Sample` of a legal position unpacks to the same board, side to move, castling rights
//!   (as rook squares, so Chess960 survives) and legal en-passant square; move counters are lost.
//! - Extraction is deterministic: same inputs, options and seed give the same samples in the same
//!   order (parallel batches are reassembled in input order); so is the split.
//! - Positions of one game share a game id and never straddle a split; `write_epd` keeps the id
//!   as a `game N` operation, so EPD written and read back still splits by game.
//!
//! # How to add an input format
//!
//! The example followed is the trace reader
//! (`crates/trace/src/read.rs`, `text.rs`, `binary.rs`); a new format of labelled positions for
//! `data` goes the same way:
//! 1. *Open* through `fsutil::source::open(path)`, which picks plain, gzip or zstd from the first
//!    bytes (never the name) and returns a buffered reader; a new compression is a
//!    `Compression` variant and its magic in `crates/fsutil/src/source.rs`.
//! 2. *Detect* from the first decompressed bytes, never from the file name: a binary format
//!    starts with an 8-byte magic (`GTCACHE\0`, `data::cache::MAGIC`, tested by `cache::is_cache`;
//!    `GTTRACE1`, `trace::MAGIC`), a text format by its first non-blank character. For `data`
//!    that is a `Format` variant and a branch in `Format::detect` (`lib.rs`, before the `_ =>
//!    Format::Epd` fallback, which would otherwise take the new format silently); `read_traces`
//!    checks `head.starts_with(binary::MAGIC)` and reads text otherwise.
//! 3. *Dispatch*: the `match format` arms in `lib.rs` (`load`'s reader, the "read as ..."
//!    description and the counted unit in the `Unrecognised` message) and, if the format is not
//!    PGN, `files.rs`'s split (`Format::Pgn => ..., _ => others`: a non-PGN format goes through
//!    `records::filter_samples` with EPD and caches; check that `_` is right for it). Each arm
//!    that has a `_ =>` must be read by hand: the compiler will not point at it.
//! 4. *Read* with the skip contract: a malformed record is located (`file:line`, `file: record N`
//!    for binary records, `file: game N`), counted and skipped, or with `strict` is the error; the
//!    report keeps the first messages (`trace::ReadReport::bad(location, message, strict)`,
//!    `MAX_MESSAGES` = 20; `data::Report` for samples). Never panic and never allocate from an
//!    untrusted count (a binary header's record count is a hint, not a `Vec::with_capacity`). A
//!    file that yields nothing is an error saying what it looked like (`DataError::Unrecognised`).
//! 5. *Fuzz*: a target in `fuzz/fuzz_targets/<name>.rs` whose body lives in `fuzz/checks.rs` (or
//!    `fuzz/trace_checks.rs`), a `[[bin]]` in `fuzz/Cargo.toml`, its name in `fuzz/run`'s list,
//!    and a stable smoke test that runs the same body on random and mutated inputs
//!    (`crates/data/tests/fuzz_smoke.rs`; `crates/trace/tests/fuzz_smoke.rs`); see
//!    `docs/fuzzing.md`.
//! 6. *Test* each skip and each error on small inputs (`crates/trace/tests/reader.rs`: located,
//!    counted, strict; `crates/data/tests/epd.rs` and `cache.rs` for `data`'s formats).
//!
//! The trace reader is this recipe followed: its text and binary forms told apart by `GTTRACE1`,
//! `ReadReport` for the skip contract, the `trace_reader` fuzz target with its smoke test
//! (`cargo test -p trace --test fuzz_smoke`), `tune extract --manifest M.json TRACES -o OUT`
//! converting between the forms (`crates/tune/src/traced.rs`).
#![warn(missing_docs)]

pub mod cache;
pub mod check;
pub mod epd;
mod error;
pub mod files;
pub mod filter;
mod packed;
mod per_game;
pub mod pgn;
pub mod records;
mod report;
mod sample;
mod split;
pub mod stats;

use std::io::{BufRead, Write};
use std::path::Path;

use fsutil::Compression;

pub use cache::write_cache;
pub use check::{warnings, MIN_POSITIONS};
pub use epd::{read_epd, EpdOptions, EpdReader, EpdRecord};
pub use error::DataError;
pub use files::{write_samples, OutputKind};
pub use filter::Filter;
pub use packed::PackedBoard;
pub use pgn::{extract_pgn, extract_pgn_reader, ExtractOptions};
pub use report::{Report, MAX_MESSAGES};
pub use sample::Sample;
pub use split::{split_by_game, valid_games};

/// Options of [`load`].
///
/// ```
/// use data::{read_epd, DataError, LoadOptions};
///
/// let text = "8/8/8/8/8/8/8/K6k b - - [1.0]\nnot a position\n";
/// // Results from the side to move's view: Black to move won, so White's result is 0.
/// let opts = LoadOptions { stm_results: true, ..LoadOptions::default() };
/// let (samples, report) = read_epd(text.as_bytes(), "t.epd".as_ref(), &opts)?;
/// assert_eq!((samples[0].result, report.errors), (0.0, 1));
/// // Strict: the bad line is an error naming the file and line.
/// let strict = LoadOptions { strict: true, ..LoadOptions::default() };
/// let err = read_epd(text.as_bytes(), "t.epd".as_ref(), &strict).unwrap_err();
/// assert!(matches!(err, DataError::Input { ref location, .. } if location == "t.epd:2"));
/// # Ok::<(), DataError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Stop at the first malformed record instead of reporting, skipping and counting it.
    pub strict: bool,
    /// EPD results are from the side to move's point of view, not White's.
    pub stm_results: bool,
    /// How to extract positions when the file turns out to be PGN (`strict` above applies).
    pub extract: ExtractOptions,
}

/// What a file holds, judged from its first (decompressed) bytes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Format {
    /// A gradtune binary cache ([`cache`]).
    Cache,
    /// PGN games: the first non-blank character is `[` (a tag) or a move number.
    Pgn,
    /// EPD / FEN text.
    Epd,
}

impl Format {
    /// Detects the format from the start of the decompressed content.
    ///
    /// ```
    /// use data::Format;
    /// assert_eq!(Format::detect(b"[Event \"x\"]"), Format::Pgn);
    /// assert_eq!(Format::detect(b"8/8/8/8/8/8/8/K6k w - - [1.0]"), Format::Epd);
    /// assert_eq!(Format::detect(b"GTCACHE\0..."), Format::Cache);
    /// ```
    pub fn detect(head: &[u8]) -> Format {
        if cache::is_cache(head) {
            return Format::Cache;
        }
        let head = head
            .strip_prefix(b"\xef\xbb\xbf".as_slice())
            .unwrap_or(head);
        let text = head.trim_ascii_start();
        match text.first() {
            Some(b'[') => Format::Pgn,
            Some(c) if c.is_ascii_digit() => {
                // "1. e4" is movetext; "8/8/..." or "rnbqk..." is a board.
                let n = text.iter().take_while(|b| b.is_ascii_digit()).count();
                if text.get(n) == Some(&b'.') {
                    Format::Pgn
                } else {
                    Format::Epd
                }
            }
            _ => Format::Epd,
        }
    }
}

/// Loads labelled positions from a binary cache, EPD text or PGN games, plain, gzip or zstd,
/// all detected from the content. EPD text is streamed; each line's sample gets its own game
/// id (its record number), so a split of EPD data is by position. Malformed records are
/// reported, skipped and counted in the [`Report`], or with `strict` returned as the error.
///
/// A file that yields no sample and none skipped on purpose (an empty file, random bytes, a
/// file in another format) is a [`DataError::Unrecognised`] that says what the file looked
/// like: its first bytes, its compression, the formats tried and how many records failed.
/// (An empty binary cache is not an error: [`write_cache`] writes one for no samples.)
///
/// ```
/// use data::{load, DataError, LoadOptions};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("x.epd");
/// std::fs::write(&path, b"\x7fELF\x02\x01 not chess\nat all\n")?;
/// let err = load(&path, &LoadOptions::default()).unwrap_err();
/// assert!(matches!(err, DataError::Unrecognised { .. }));
/// let text = err.to_string();
/// assert!(text.contains("7f 45 4c 46"), "{text}");
/// assert!(text.contains("2 lines, none readable"), "{text}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn load(path: &Path, opts: &LoadOptions) -> Result<(Vec<Sample>, Report), DataError> {
    let (mut reader, compression) =
        fsutil::source::open(path).map_err(|e| DataError::io(path, e))?;
    let head = reader.fill_buf().map_err(|e| DataError::io(path, e))?;
    let format = Format::detect(head);
    let head = head[..head.len().min(HEAD_SHOWN)].to_vec();
    if head.is_empty() {
        return Err(DataError::Unrecognised {
            path: path.to_path_buf(),
            message: match compression {
                Compression::Plain => "the file is empty".to_string(),
                c => format!("the file is empty once decompressed ({})", c.name()),
            },
        });
    }
    let (samples, report) = load_as(format, reader, path, opts)?;
    if format != Format::Cache && samples.is_empty() && report.skipped.is_empty() {
        return Err(DataError::Unrecognised {
            path: path.to_path_buf(),
            message: describe_unrecognised(path, compression, &head, format, &report),
        });
    }
    Ok((samples, report))
}

/// How many first bytes an unrecognised file's description shows.
const HEAD_SHOWN: usize = 24;

/// The message of an unrecognised file: what it looked like and what was tried.
fn describe_unrecognised(
    path: &Path,
    compression: Compression,
    head: &[u8],
    format: Format,
    report: &Report,
) -> String {
    let hex: Vec<String> = head.iter().map(|b| format!("{b:02x}")).collect();
    let escaped: String = head
        .iter()
        .flat_map(|&b| std::ascii::escape_default(b))
        .map(char::from)
        .collect();
    let mut s = "no labelled positions found in any format gradtune reads \
                 (tried: gradtune cache, PGN, EPD; plain, gzip, zstd)\n"
        .to_string();
    let raw = if compression == Compression::Plain {
        String::new()
    } else {
        let mut raw = [0u8; 8];
        let n = std::fs::File::open(path)
            .and_then(|mut f| std::io::Read::read(&mut f, &mut raw))
            .unwrap_or(0);
        let hex: Vec<String> = raw[..n].iter().map(|b| format!("{b:02x}")).collect();
        format!(" (decompressed; the file starts {} ...)", hex.join(" "))
    };
    s += &format!(
        "  compression: {}\n  first bytes{raw}: {} \"{escaped}\"\n",
        compression.name(),
        hex.join(" ")
    );
    let tried = match format {
        Format::Cache => "read as a gradtune cache",
        Format::Pgn => "read as PGN (it starts with a tag or a move number)",
        Format::Epd => {
            "read as EPD (no gradtune cache header \"GTCACHE\", no PGN tag or move number at \
             the start)"
        }
    };
    let plural = |n: u64, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let what = match format {
        Format::Pgn => plural(report.games, "game"),
        _ => plural(report.read, "line"),
    };
    s += &format!(
        "  {tried}: {what}, none readable ({})",
        plural(report.errors, "error")
    );
    if let Some(m) = report.messages.first() {
        s += &format!("\n  first error: {m}");
    }
    s
}

fn load_as(
    format: Format,
    reader: Box<dyn BufRead + Send>,
    path: &Path,
    opts: &LoadOptions,
) -> Result<(Vec<Sample>, Report), DataError> {
    match format {
        Format::Cache => {
            drop(reader);
            cache::CacheReader::open(path, opts.strict)?.read_all()
        }
        Format::Pgn => {
            let extract = ExtractOptions {
                strict: opts.strict,
                ..opts.extract.clone()
            };
            pgn::extract_pgn_reader(reader, path, &extract)
        }
        Format::Epd => read_epd(reader, path, opts),
    }
}

/// Writes samples as EPD text, one [`Sample::to_epd`] line each followed by the sample's game
/// id as a `game` operation (`... [1.0] ce 30; game 12;`), so that [`load`] reads the game ids
/// back and [`split_by_game`] keeps splitting by game; zstd-compressed when the path ends in
/// `.zst`, gzip when it ends in `.gz`. The file is replaced atomically
/// ([`fsutil::compressed`]).
///
/// ```
/// use data::{load, write_epd, LoadOptions, Sample};
/// use shakmaty::Chess;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("set.epd.gz");
/// let pos = Chess::default();
/// write_epd(&path, &[Sample::from_position(&pos, 0.5, None, 12)])?;
/// let (samples, _) = load(&path, &LoadOptions::default())?;
/// assert_eq!((samples[0].result, samples[0].game), (0.5, 12));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_epd(path: &Path, samples: &[Sample]) -> Result<(), DataError> {
    fsutil::compressed::write(path, |mut w| write_epd_lines(&mut w, samples))
        .map_err(|e| DataError::io(path, e))
}

fn write_epd_lines(w: &mut impl Write, samples: &[Sample]) -> std::io::Result<()> {
    for s in samples {
        let line = s.to_epd();
        let sep = if line.ends_with(';') { "" } else { ";" };
        writeln!(w, "{line}{sep} game {};", s.game)?;
    }
    w.flush()
}
