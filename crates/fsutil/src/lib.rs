//! Small utilities the gradtune crates share, each of them about files or the text in them:
//!
//! - [`atomic`]: every file gradtune writes goes through it (a temporary file renamed over
//!   the target), so a crash or `kill -9` leaves the old file or the new one, never half.
//! - [`compressed`]: an atomic file compressed as its extension says (`.zst`, `.gz`).
//! - [`source`]: opening a file for reading, plain, gzip or zstd as its first bytes say.
//! - [`epd`]: the operations after an EPD line's position, split into tokens (quotes kept
//!   whole) and ended at each `;`.
//! - [`glob`]: `*`/`?` patterns over names (`--freeze 'pst.*'`, `tune spsa --only`).
//!
//! This crate knows no chess, no numbers and no other crate of the workspace; it returns
//! `std::io::Error`s, to which each caller adds its file in its own error type.
#![warn(missing_docs)]

pub mod atomic;
pub mod compressed;
pub mod epd;
pub mod glob;
pub mod source;

pub use glob::glob_match;
pub use source::Compression;
