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
pub use load::load;
pub use options::LoadOptions;
pub use packed::PackedBoard;
pub use pgn::{extract_pgn, extract_pgn_reader, ExtractOptions};
pub use report::{Report, MAX_MESSAGES};
pub use sample::Sample;
pub use split::{split_by_game, valid_games};
