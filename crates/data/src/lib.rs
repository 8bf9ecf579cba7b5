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
#![warn(missing_docs)]

pub mod cache;
pub mod epd;
mod error;
pub mod filter;
mod packed;
pub mod pgn;
mod report;
mod sample;
pub mod source;
mod split;

use std::fs::File;
use std::io::{BufRead, BufWriter, Write};
use std::path::Path;

pub use cache::write_cache;
pub use epd::{read_epd, EpdOptions, EpdReader, EpdRecord};
pub use error::DataError;
pub use filter::Filter;
pub use packed::PackedBoard;
pub use pgn::{extract_pgn, extract_pgn_reader, ExtractOptions};
pub use report::{Report, MAX_MESSAGES};
pub use sample::Sample;
pub use source::Compression;
pub use split::split_by_game;

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
pub fn load(path: &Path, opts: &LoadOptions) -> Result<(Vec<Sample>, Report), DataError> {
    let (mut reader, _) = source::open(path)?;
    let head = reader.fill_buf().map_err(|e| DataError::io(path, e))?;
    match Format::detect(head) {
        Format::Cache => {
            drop(reader);
            let bytes = cache::read_cache_bytes(path)?;
            cache::from_bytes(path, &bytes, opts.strict)
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
/// `.zst`, gzip when it ends in `.gz`.
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
    let io = |e| DataError::io(path, e);
    let file = BufWriter::new(File::create(path).map_err(io)?);
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    // Each encoder is finished explicitly: finishing on drop would swallow a write error.
    let file = match ext.as_str() {
        "zst" => {
            let mut w = zstd::stream::write::Encoder::new(file, 9).map_err(io)?;
            write_epd_lines(&mut w, samples).map_err(io)?;
            w.finish().map_err(io)?
        }
        "gz" => {
            let mut w = flate2::write::GzEncoder::new(file, flate2::Compression::default());
            write_epd_lines(&mut w, samples).map_err(io)?;
            w.finish().map_err(io)?
        }
        _ => {
            let mut w = file;
            write_epd_lines(&mut w, samples).map_err(io)?;
            w
        }
    };
    // Flushes the buffer, reporting a failure.
    file.into_inner().map_err(|e| io(e.into_error()))?;
    Ok(())
}

fn write_epd_lines(w: &mut impl Write, samples: &[Sample]) -> std::io::Result<()> {
    for s in samples {
        let line = s.to_epd();
        let sep = if line.ends_with(';') { "" } else { ";" };
        writeln!(w, "{line}{sep} game {};", s.game)?;
    }
    w.flush()
}
