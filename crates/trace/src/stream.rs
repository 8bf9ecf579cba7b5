//! [`TraceStream`]: trace files read a batch at a time, so that a caller keeps only a batch of
//! parsed traces alive; text is parsed in parallel chunks, the binary cache decoded from
//! large buffers (`binary::BinarySource`); [`read_traces`] reads them all at once.

use std::collections::VecDeque;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::binary::{BinarySource, MAGIC};
use crate::read::{ReadOptions, ReadReport};
use crate::text::parse_line_game;
use crate::{Manifest, Trace, TraceError};

/// Reads traces from text or binary-cache files (told apart by the `GTTRACE1` magic), plain,
/// gzip or zstd (told apart by their first bytes), against `manifest`. Malformed records are
/// skipped and counted, each message naming `file:line`; with `strict` the first is the error.
/// A text line without a `game` operation is a game of its own, numbered one past the largest
/// id so far (over all files). Every trace at once: [`TraceStream`] reads them a batch at a
/// time.
pub fn read_traces(
    paths: &[PathBuf],
    manifest: &Manifest,
    opts: &ReadOptions,
) -> Result<(Vec<Trace>, ReadReport), TraceError> {
    let mut stream = TraceStream::open(paths, manifest, *opts);
    let mut traces = Vec::new();
    let mut batch = Vec::new();
    while stream.next_batch(1 << 16, &mut batch)? > 0 {
        traces.append(&mut batch);
    }
    Ok((traces, stream.into_report()))
}

/// Bytes of text read and parsed (in parallel) at a time: whole lines, at least this many
/// bytes unless the file ends first. The buffer and the chunk's parsed traces are alive
/// beside the set being recorded: at 4 MB they were about 16 MB of a 200,000-position
/// Ethereal fit's 92 MB peak; 1 MB is still about 1,500 of its lines to parse in parallel.
const TEXT_CHUNK: usize = 1 << 20;

/// Reads trace files (text or binary cache, plain, gzip or zstd; see
/// [`read_traces`](crate::read_traces)) a batch at a time, in file order, with the same
/// game numbering, error messages and skip-and-count report as reading them whole.
///
/// ```no_run
/// let m = trace::Manifest::load(std::path::Path::new("manifest.json"))?;
/// let files = vec![std::path::PathBuf::from("traces.txt")];
/// let mut stream = trace::TraceStream::open(&files, &m, trace::ReadOptions::default());
/// let mut batch = Vec::new();
/// while stream.next_batch(65_536, &mut batch)? > 0 {
///     // use `batch`, then the next one replaces it
/// }
/// println!("{}", stream.report());
/// # Ok::<(), trace::TraceError>(())
/// ```
pub struct TraceStream<'m> {
    files: Vec<PathBuf>,
    next_file: usize,
    manifest: &'m Manifest,
    opts: ReadOptions,
    report: ReadReport,
    /// The game of the next text line without a `game` operation: one past the largest so far.
    next_game: u32,
    source: Option<Source>,
    /// Traces read and not yet handed out.
    pending: VecDeque<Trace>,
}

/// The file being read.
enum Source {
    Text(TextSource),
    Binary(BinarySource),
}

impl<'m> TraceStream<'m> {
    /// A stream over `files` (nothing is opened yet).
    pub fn open(files: &[PathBuf], manifest: &'m Manifest, opts: ReadOptions) -> Self {
        TraceStream {
            files: files.to_vec(),
            next_file: 0,
            manifest,
            opts,
            report: ReadReport::default(),
            next_game: 0,
            source: None,
            pending: VecDeque::new(),
        }
    }

    /// Replaces `out` with the next at most `max` traces (`max` 0 counts as 1) and returns how
    /// many: 0 once every file is read. Malformed records are counted in the report, or the
    /// first is the error with `strict`; an I/O error or a file that cannot be opened is an
    /// error.
    pub fn next_batch(&mut self, max: usize, out: &mut Vec<Trace>) -> Result<usize, TraceError> {
        out.clear();
        let max = max.max(1);
        while out.len() < max {
            if self.pending.is_empty() && !self.fill()? {
                break;
            }
            let k = (max - out.len()).min(self.pending.len());
            out.extend(self.pending.drain(..k));
        }
        Ok(out.len())
    }

    /// What the reading found so far.
    pub fn report(&self) -> &ReadReport {
        &self.report
    }

    /// The report, once the stream is done with.
    pub fn into_report(self) -> ReadReport {
        self.report
    }

    /// Reads more traces into `pending`; `false` once every file is read.
    fn fill(&mut self) -> Result<bool, TraceError> {
        loop {
            let Some(source) = &mut self.source else {
                let Some(path) = self.files.get(self.next_file) else {
                    return Ok(false);
                };
                self.next_file += 1;
                self.source = Some(open(path)?);
                continue;
            };
            let (m, opts, report) = (self.manifest, &self.opts, &mut self.report);
            let before = self.pending.len();
            let more = match source {
                Source::Text(s) => {
                    s.fill(m, opts, report, &mut self.next_game, &mut self.pending)?
                }
                Source::Binary(s) => s.fill(m, opts, report, &mut self.pending)?,
            };
            if let Source::Binary(_) = source {
                for t in self.pending.range(before..) {
                    self.next_game = self.next_game.max(t.game.saturating_add(1));
                }
            }
            if !more {
                self.source = None;
            }
            if self.pending.len() > before {
                return Ok(true);
            }
        }
    }
}

/// Opens `path` as text or binary cache (told apart by the magic). A file that cannot be opened
/// or decompressed is an I/O error naming the file once.
fn open(path: &Path) -> Result<Source, TraceError> {
    let (mut reader, _) = fsutil::source::open(path).map_err(|e| TraceError::io(path, e))?;
    let head = reader.fill_buf().map_err(|e| TraceError::io(path, e))?;
    Ok(if head.starts_with(MAGIC) {
        Source::Binary(BinarySource::new(reader, path))
    } else {
        Source::Text(TextSource {
            reader,
            path: path.to_path_buf(),
            line_no: 0,
            buf: Vec::new(),
            lines: Vec::new(),
            eof: false,
        })
    })
}

/// A text trace file being read.
struct TextSource {
    reader: Box<dyn BufRead + Send>,
    path: PathBuf,
    /// Lines read so far.
    line_no: usize,
    /// Bytes read and not yet parsed (the start of a line).
    buf: Vec<u8>,
    /// The lines of the chunk being parsed: number, byte range in `buf`.
    lines: Vec<(usize, usize, usize)>,
    eof: bool,
}

type Parsed = Result<Option<(Trace, Option<u32>)>, String>;

impl TextSource {
    /// Reads and parses the next chunk of whole lines; `false` once the file is done.
    fn fill(
        &mut self,
        m: &Manifest,
        opts: &ReadOptions,
        report: &mut ReadReport,
        next_game: &mut u32,
        out: &mut VecDeque<Trace>,
    ) -> Result<bool, TraceError> {
        let cut = self.read_chunk()?;
        self.split_lines(cut);
        let buf = &self.buf;
        let parsed: Vec<Parsed> = self
            .lines
            .par_iter()
            .with_min_len(256)
            .map(|&(_, a, b)| match std::str::from_utf8(&buf[a..b]) {
                Ok(line) => parse_line_game(line, m),
                Err(_) => Err("not valid UTF-8".to_string()),
            })
            .collect();
        for (&(ln, _, _), p) in self.lines.iter().zip(parsed) {
            match p {
                Ok(None) => {}
                Ok(Some((mut t, game))) => {
                    report.read += 1;
                    t.game = game.unwrap_or(*next_game);
                    *next_game = (*next_game).max(t.game.saturating_add(1));
                    out.push_back(t);
                }
                Err(message) => {
                    report.read += 1;
                    let location = format!("{}:{ln}", self.path.display());
                    report.bad(location, message, opts.strict)?;
                }
            }
        }
        self.buf.drain(..cut);
        Ok(!(self.eof && self.buf.is_empty()))
    }

    /// Reads until `buf` holds at least [`TEXT_CHUNK`] bytes and a line end, or the file
    /// ends; the byte end of the whole lines to parse now.
    fn read_chunk(&mut self) -> Result<usize, TraceError> {
        let io = |e| TraceError::io(&self.path, e);
        let mut searched = 0;
        loop {
            if self.buf.len() >= TEXT_CHUNK {
                if let Some(p) = self.buf[searched..].iter().rposition(|&c| c == b'\n') {
                    return Ok(searched + p + 1);
                }
                searched = self.buf.len();
            }
            if self.eof {
                return Ok(self.buf.len());
            }
            let avail = self.reader.fill_buf().map_err(io)?;
            if avail.is_empty() {
                self.eof = true;
                continue;
            }
            let n = avail.len();
            self.buf.extend_from_slice(avail);
            self.reader.consume(n);
        }
    }

    /// Numbers the lines of `buf[..cut]` into `lines` (without their `\n`).
    fn split_lines(&mut self, cut: usize) {
        self.lines.clear();
        let mut a = 0;
        for (p, &c) in self.buf[..cut].iter().enumerate() {
            if c == b'\n' {
                self.line_no += 1;
                self.lines.push((self.line_no, a, p));
                a = p + 1;
            }
        }
        if a < cut {
            self.line_no += 1;
            self.lines.push((self.line_no, a, cut));
        }
    }
}
