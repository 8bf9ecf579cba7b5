//! Small utilities the gradtune crates share, each of them about files or the text in them:
//!
//! - [`atomic`]: every file gradtune writes goes through it (a temporary file renamed over
//!   the target), so a crash or `kill -9` leaves the old file or the new one, never half.
//! - [`compressed`]: an atomic file compressed as its extension says (`.zst`, `.gz`), whole or
//!   streamed ([`compressed::CompressedFile`]).
//! - [`source`]: opening a file for reading, plain, gzip or zstd as its first bytes say.
//! - [`epd`]: the operations after an EPD line's position, split into tokens (quotes kept
//!   whole) and ended at each `;`.
//! - [`glob`]: `*`/`?` patterns over names (`--freeze 'pst.*'`, `tune spsa --only`).
//!
//! This crate knows no chess, no numbers and no other crate of the workspace; it returns
//! `std::io::Error`s, to which each caller adds its file in its own error type.
//!
//! # Files written: atomically, through one helper
//!
//! Every file gradtune writes goes through `fsutil::atomic`: `atomic::write(path, bytes)` for a
//! whole buffer, `AtomicFile::create(path)` for streaming (`Write`, then `commit()`), and
//! `fsutil::compressed::write(path, body)` for a file compressed as its extension says (`.zst`,
//! `.gz`: EPD, traces), `compressed::CompressedFile::create(path)` for the same streamed. The bytes go to `.<name>.tmp-<pid>-<n>` in the target's directory (same
//! file system, so the rename is atomic), which is flushed, `fsync`ed and renamed over the target,
//! and the directory is synced; dropped without `commit` (an error, a panic) the temporary file is
//! removed and the target is untouched. A reader, a crash, `kill -9` or a full disk thus sees the
//! old file or the new one, never half of one; a killed process leaves at most a hidden temporary
//! file. Users: weights (`save_weights`), caches and EPD (`write_cache`, streaming zstd into the
//! temporary file; `write_epd`), a run's `weights*.json`, `tables.txt`, `weights.rs` and
//! `summary.json` (`texel::output`, including `add_to_summary`), `tune emit`'s source, `tune
//! label`'s output (`data::write_samples`), `tune trace`'s (`trace::TextWriter`, streamed as the
//! run goes: a killed or interrupted run leaves no output, its temporary file removed), `tune compare`'s markdown, JSON and SVG plots, `tune
//! discover`'s `discover.json` and `discover.svg`, the bootstrap's and `tune loop`'s `state.json` and ladder, `tune selfplay`'s EPD, and `tune match
//! --pgn`. The exceptions are a run's `log.jsonl`, appended line by line as the run goes (a log; a
//! resumed run appends to it), and `tune label`'s and `tune trace`'s `OUT.progress` (the finished
//! answers, appended one by one so that a rerun continues; removed once OUT is written). New code that writes a file uses
//! `atomic`, not `std::fs::write` or `File::create`. Tested by killing `tune extract` with SIGKILL
//! while it writes a cache over an old one (`crates/tune/tests/it/interrupts.rs`).
#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod atomic;
pub mod compressed;
pub mod epd;
pub mod glob;
pub mod source;

pub use glob::glob_match;
pub use source::Compression;
