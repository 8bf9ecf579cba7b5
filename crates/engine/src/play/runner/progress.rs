//! The progress file beside the output (`OUT.progress`): its header of settings, the answers
//! appended line by line (`INDEX ANSWER`), reading it back a line at a time to continue a
//! run, and the answers' texts read back by their offsets as the output is written.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};

use super::PositionInput;
use crate::error::EngineError;

/// The progress file of output `out`: `OUT.progress` beside it.
///
/// ```
/// use std::path::Path;
/// assert_eq!(
///     engine::play::runner::progress_path(Path::new("data/labels.epd")),
///     Path::new("data/labels.epd.progress")
/// );
/// ```
pub fn progress_path(out: &Path) -> PathBuf {
    let mut name = out.file_name().unwrap_or_default().to_os_string();
    name.push(".progress");
    out.with_file_name(name)
}

/// The header's last line, the input files: recorded, not compared (see [`progress_header`]).
const FILES: &str = "files";

/// The first line of the progress files of `tune NAME`: their format and version.
pub(super) fn progress_tag(name: &str) -> String {
    format!("gradtune-{name} 1")
}

/// The settings a progress file records: the tag, the job's own lines (`settings`, each
/// ending in a newline), the number of positions, their fingerprint and, last, the input
/// files. A rerun must match all but the files: the fingerprint already says the positions
/// are the same, so the same input named by another path (a relative path from another
/// folder, a copy) continues the run; the paths are kept to tell a reader what was labelled.
pub(super) fn progress_header(name: &str, settings: &str, input: &PositionInput) -> String {
    let mut files = String::new();
    for s in &input.sources {
        let _ = write!(files, " {}", s.path.display());
    }
    format!(
        "{}\n{settings}positions {}\nfingerprint {:016x}\n{FILES}{files}\n",
        progress_tag(name),
        input.len(),
        input.fingerprint()
    )
}

/// What a progress file holds (its answers are handed to [`read_progress`]'s `keep`).
#[derive(Debug)]
pub(super) struct Progress {
    /// The answers read.
    pub(super) answers: usize,
    /// The length of its complete lines (a last line cut by a kill is dropped).
    pub(super) len: u64,
    /// How its header differs from this run's settings (empty: it can be continued).
    pub(super) differences: Vec<String>,
}

/// Reads a progress file of `tune NAME` (see [`Progress`]) a line at a time, each answer read
/// back by `decode` and handed to `keep` with its index and the byte offset of its text (the
/// text after `INDEX `) in the file. When the header differs from `header` the answers are
/// counted, not decoded (they may be another manifest's).
pub(super) fn read_progress<A>(
    path: &Path,
    name: &str,
    header: &str,
    positions: usize,
    decode: impl Fn(&str) -> Result<A, String>,
    mut keep: impl FnMut(usize, u64, A),
) -> Result<Progress, EngineError> {
    let mut lines = ProgressLines::open(path)?;
    let bad = |message: String| EngineError::Progress {
        path: path.to_path_buf(),
        message,
    };
    let tag = progress_tag(name);
    let header_lines = header.lines().count();
    let mut have = Vec::new();
    while have.len() < header_lines {
        if lines.next_line()?.is_none() {
            break;
        }
        have.push(lines.text().into_owned());
    }
    if have.first() != Some(&tag) {
        return Err(bad(format!(
            "not a progress file of `tune {name}` (it does not start with `{tag}`): move it away"
        )));
    }
    let differences = header_differences(header, &have);
    let mut answers = 0;
    while let Some(start) = lines.next_line()? {
        answers += 1;
        if !differences.is_empty() {
            continue;
        }
        let line = lines.text();
        match parse_answer(&line, start, positions, &decode) {
            Ok((index, offset, a)) => keep(index, offset, a),
            Err(e) => {
                return Err(bad(format!(
                    "line {}: expected `INDEX ANSWER` with INDEX below {positions}, not \
                     `{line}` ({e})",
                    lines.line_no
                )))
            }
        }
    }
    Ok(Progress {
        answers,
        len: lines.len,
        differences,
    })
}

/// A progress file read a complete line at a time.
struct ProgressLines<'a> {
    path: &'a Path,
    reader: BufReader<File>,
    /// The line read last, without its `\n`.
    buf: Vec<u8>,
    /// The length of the lines read.
    len: u64,
    /// The number of the line read last (from 1).
    line_no: usize,
}

impl<'a> ProgressLines<'a> {
    fn open(path: &'a Path) -> Result<ProgressLines<'a>, EngineError> {
        let file = File::open(path).map_err(|e| EngineError::io("read", path, e))?;
        Ok(ProgressLines {
            path,
            reader: BufReader::new(file),
            buf: Vec::new(),
            len: 0,
            line_no: 0,
        })
    }

    /// Reads the next complete line (its text: [`text`](Self::text)) and returns the offset of
    /// its start; `None` at the end or at a last line cut by a kill.
    fn next_line(&mut self) -> Result<Option<u64>, EngineError> {
        self.buf.clear();
        let n = (self.reader.read_until(b'\n', &mut self.buf))
            .map_err(|e| EngineError::io("read", self.path, e))?;
        if n == 0 || self.buf.last() != Some(&b'\n') {
            return Ok(None);
        }
        self.buf.pop();
        let start = self.len;
        self.len += n as u64;
        self.line_no += 1;
        Ok(Some(start))
    }

    /// The text of the line read last.
    fn text(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.buf)
    }
}

/// How the header lines a progress file has (`have`) differ from `header`'s (the input files
/// aside), as `was `GOT`, now `WANT``; empty when they are the same.
fn header_differences(header: &str, have: &[String]) -> Vec<String> {
    header
        .lines()
        .zip(have.iter().map(String::as_str).chain(std::iter::repeat("")))
        .filter(|(want, _)| !want.starts_with(FILES))
        .filter(|(want, got)| want != got)
        .map(|(want, got)| format!("was `{got}`, now `{want}`"))
        .collect()
}

/// One answer line of a progress file, `INDEX ANSWER`, starting at offset `start`: its index
/// (below `positions`), the offset of its answer's text and the answer read by `decode`.
fn parse_answer<A>(
    line: &str,
    start: u64,
    positions: usize,
    decode: impl Fn(&str) -> Result<A, String>,
) -> Result<(usize, u64, A), String> {
    match line.split_once(' ') {
        Some((index, answer)) => match index.parse::<usize>() {
            Ok(index) if index < positions => {
                decode(answer).map(|a| (index, start + index_width(line), a))
            }
            _ => Err(format!("no index below {positions}")),
        },
        None => Err("no answer".to_string()),
    }
}

/// The bytes of a progress line before its answer: the index and one space.
fn index_width(line: &str) -> u64 {
    line.find(' ').map_or(0, |i| i as u64 + 1)
}

/// Reads answers' texts back from a progress file by their offsets (as [`read_progress`]
/// gives them), nearly in the file's order: a buffered reader that seeks only past the
/// buffer.
pub(super) struct AnswerTexts {
    path: PathBuf,
    reader: BufReader<File>,
    /// The reader's position in the file.
    at: u64,
    buf: Vec<u8>,
}

impl AnswerTexts {
    pub(super) fn open(path: &Path) -> Result<AnswerTexts, EngineError> {
        let file = File::open(path).map_err(|e| EngineError::io("read", path, e))?;
        Ok(AnswerTexts {
            path: path.to_path_buf(),
            reader: BufReader::with_capacity(1 << 16, file),
            at: 0,
            buf: Vec::new(),
        })
    }

    /// The text from `offset` to the end of its line.
    pub(super) fn text_at(&mut self, offset: u64) -> Result<String, EngineError> {
        let io = |e| EngineError::io("read", &self.path, e);
        if offset != self.at {
            let delta = i64::try_from(offset).unwrap_or(i64::MAX)
                - i64::try_from(self.at).unwrap_or(i64::MAX);
            self.reader.seek_relative(delta).map_err(io)?;
        }
        self.buf.clear();
        let n = self.reader.read_until(b'\n', &mut self.buf).map_err(io)?;
        self.at = offset + n as u64;
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
        }
        Ok(String::from_utf8_lossy(&self.buf).into_owned())
    }
}

/// Opens the progress file for appending: continuing a file whose complete lines are `len`
/// bytes long (a last line cut by a kill dropped), or a new one holding `header`.
pub(super) fn open_progress(
    path: &Path,
    header: &str,
    resume_len: Option<u64>,
) -> Result<File, EngineError> {
    let io = |action, e| EngineError::io(action, path, e);
    match resume_len {
        Some(len) => {
            let mut f = OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| io("open", e))?;
            f.set_len(len).map_err(|e| io("write", e))?;
            std::io::Seek::seek(&mut f, std::io::SeekFrom::End(0)).map_err(|e| io("write", e))?;
            Ok(f)
        }
        None => {
            let mut f = File::create(path).map_err(|e| io("create", e))?;
            f.write_all(header.as_bytes()).map_err(|e| io("write", e))?;
            Ok(f)
        }
    }
}
