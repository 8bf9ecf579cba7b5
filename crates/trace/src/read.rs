//! Reading trace files (text or the binary cache; plain, gzip or zstd) and writing text.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::text::{parse_line_game, to_line};
use crate::{binary, Manifest, Trace, TraceError};

/// Options of [`read_traces`].
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadOptions {
    /// Stop at the first malformed record instead of skipping and counting it.
    pub strict: bool,
}

/// How many error messages a [`ReadReport`] keeps (all are counted).
pub const MAX_MESSAGES: usize = 20;

/// What a read found: records read (traces and malformed ones; not blank or comment lines),
/// records skipped as malformed, and the first [`MAX_MESSAGES`] messages, each
/// `file:line: what` (`file: record N: what` for the binary cache).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReadReport {
    /// Records read.
    pub read: usize,
    /// Malformed records skipped.
    pub skipped: usize,
    /// The first messages.
    pub messages: Vec<String>,
}

impl ReadReport {
    /// Counts a malformed record (or returns it as the error when strict).
    pub(crate) fn bad(
        &mut self,
        location: String,
        message: String,
        strict: bool,
    ) -> Result<(), TraceError> {
        if strict {
            return Err(TraceError::Input { location, message });
        }
        self.skipped += 1;
        if self.messages.len() < MAX_MESSAGES {
            self.messages.push(format!("{location}: {message}"));
        }
        Ok(())
    }
}

impl std::fmt::Display for ReadReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} records read, {} skipped as malformed",
            self.read, self.skipped
        )?;
        for m in &self.messages {
            write!(f, "\n  {m}")?;
        }
        if self.skipped > self.messages.len() {
            write!(f, "\n  ... and {} more", self.skipped - self.messages.len())?;
        }
        Ok(())
    }
}

/// Lines parsed per parallel batch.
const BATCH_LINES: usize = 1 << 14;

/// Reads traces from text or binary-cache files (told apart by the `GTTRACE1` magic), plain,
/// gzip or zstd (told apart by their first bytes), against `manifest`. Malformed records are
/// skipped and counted, each message naming `file:line`; with `strict` the first is the error.
/// A text line without a `game` operation is a game of its own, numbered one past the largest
/// id so far (over all files).
pub fn read_traces(
    paths: &[PathBuf],
    manifest: &Manifest,
    opts: &ReadOptions,
) -> Result<(Vec<Trace>, ReadReport), TraceError> {
    let mut traces = Vec::new();
    let mut report = ReadReport::default();
    let mut next_game = 0u32;
    for path in paths {
        let (mut reader, _) = data::source::open(path)?;
        let head = reader.fill_buf().map_err(|e| TraceError::io(path, e))?;
        if head.starts_with(binary::MAGIC) {
            binary::read(reader, path, manifest, opts, &mut traces, &mut report)?;
            if let Some(g) = traces.iter().map(|t| t.game).max() {
                next_game = next_game.max(g.saturating_add(1));
            }
        } else {
            read_text(
                reader,
                path,
                manifest,
                opts,
                &mut traces,
                &mut report,
                &mut next_game,
            )?;
        }
    }
    Ok((traces, report))
}

type Parsed = Result<Option<(Trace, Option<u32>)>, String>;

fn read_text(
    mut reader: Box<dyn BufRead + Send>,
    path: &Path,
    m: &Manifest,
    opts: &ReadOptions,
    traces: &mut Vec<Trace>,
    report: &mut ReadReport,
    next_game: &mut u32,
) -> Result<(), TraceError> {
    let mut text: Vec<u8> = Vec::new();
    let mut lines: Vec<(usize, usize, usize)> = Vec::new();
    let mut line_no = 0usize;
    loop {
        let start = text.len();
        let n = reader
            .read_until(b'\n', &mut text)
            .map_err(|e| TraceError::io(path, e))?;
        if n > 0 {
            line_no += 1;
            lines.push((line_no, start, text.len()));
        }
        if n == 0 || lines.len() >= BATCH_LINES {
            let parsed: Vec<(usize, Parsed)> = lines
                .par_iter()
                .map(|&(ln, a, b)| {
                    let p = match std::str::from_utf8(&text[a..b]) {
                        Ok(line) => parse_line_game(line, m),
                        Err(_) => Err("not valid UTF-8".to_string()),
                    };
                    (ln, p)
                })
                .collect();
            for (ln, p) in parsed {
                match p {
                    Ok(None) => {}
                    Ok(Some((mut t, game))) => {
                        report.read += 1;
                        t.game = game.unwrap_or(*next_game);
                        *next_game = (*next_game).max(t.game.saturating_add(1));
                        traces.push(t);
                    }
                    Err(message) => {
                        report.read += 1;
                        report.bad(format!("{}:{ln}", path.display()), message, opts.strict)?;
                    }
                }
            }
            text.clear();
            lines.clear();
        }
        if n == 0 {
            return Ok(());
        }
    }
}

/// Writes traces as text lines (see [`parse_line`](crate::parse_line)), atomically; zstd when
/// the path ends in `.zst`, gzip for `.gz`.
pub fn write_text(path: &Path, traces: &[Trace], manifest: &Manifest) -> Result<(), TraceError> {
    write_with(path, |w| {
        writeln!(w, "# gradtune traces v1 for engine {:?}", manifest.engine())?;
        for t in traces {
            writeln!(w, "{}", to_line(t, manifest))?;
        }
        Ok(())
    })
}

/// Writes a file atomically through `body`, compressed as the extension says.
pub(crate) fn write_with(
    path: &Path,
    body: impl Fn(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), TraceError> {
    let io = |e| TraceError::io(path, e);
    let file = eval::atomic::AtomicFile::create(path).map_err(io)?;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let file = match ext.as_str() {
        "zst" => {
            let mut w = zstd::stream::write::Encoder::new(file, 9).map_err(io)?;
            body(&mut w).map_err(io)?;
            w.finish().map_err(io)?
        }
        "gz" => {
            let mut w = flate2::write::GzEncoder::new(file, flate2::Compression::default());
            body(&mut w).map_err(io)?;
            w.finish().map_err(io)?
        }
        _ => {
            let mut w = file;
            body(&mut w).map_err(io)?;
            w
        }
    };
    file.commit().map_err(io)
}
