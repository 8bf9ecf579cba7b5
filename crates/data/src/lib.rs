//! Labelled chess positions for Texel tuning: readers for EPD text in the many forms engine
//! authors use, PGN extraction with the Texel and WukongJS filters, a compact binary cache,
//! and a train/validation split by game.
//!
//! The entry points are [`load`] (any file: binary cache, EPD text or PGN, plain, gzip or zstd,
//! told apart by content; [`SampleReader`]: the same a batch at a time), [`extract_pgn`],
//! [`write_cache`], [`write_epd`] and [`split_by_game`]. Bad records never stop a run unless asked: they are reported with their
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
//! EPD, and `load.rs`' `SampleReader` dispatches, a batch at a time (`load` reads it whole; EPD
//! and caches stream, PGN is extracted whole). `epd.rs` streams lines (`EpdReader`), splitting each into the FEN
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
//!   (fuzzed; `tests/it/fuzz_smoke.rs` on stable).
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
//!    (`crates/data/tests/it/fuzz_smoke.rs`; `crates/trace/tests/it/fuzz_smoke.rs`); see
//!    `docs/fuzzing.md`.
//! 6. *Test* each skip and each error on small inputs (`crates/trace/tests/it/reader.rs`: located,
//!    counted, strict; `crates/data/tests/it/epd.rs` and `cache.rs` for `data`'s formats).
//!
//! The trace reader is this recipe followed: its text and binary forms told apart by `GTTRACE1`,
//! `ReadReport` for the skip contract, the `trace_reader` fuzz target with its smoke test
//! (`cargo test -p trace --test it fuzz_smoke::`), `tune extract --manifest M.json TRACES -o OUT`
//! converting between the forms (`crates/tune/src/traced.rs`).
#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod cache;
pub mod check;
pub mod epd;
mod error;
pub mod files;
pub mod filter;
mod format;
mod load;
mod options;
mod packed;
mod per_game;
pub mod pgn;
pub mod records;
mod report;
mod sample;
mod split;
pub mod stats;

pub use cache::write_cache;
pub use check::{warnings, MIN_POSITIONS};
pub use epd::{read_epd, EpdOptions, EpdReader, EpdRecord};
pub use error::DataError;
pub use files::{write_epd, write_samples, OutputKind};
pub use filter::Filter;
pub use format::Format;
pub use load::{load, SampleReader};
pub use options::LoadOptions;
pub use packed::PackedBoard;
pub use pgn::{extract_pgn, extract_pgn_reader, ExtractOptions};
pub use report::{Report, MAX_MESSAGES};
pub use sample::Sample;
pub use split::{split_by_game, valid_games};
