//! The progress file beside the output (`OUT.progress`): its header of settings, the answers
//! appended line by line (`INDEX ANSWER`), reading it back to continue a run.

use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::PositionInput;
use crate::error::EngineError;

/// The progress file of output `out`: `OUT.progress` beside it.
///
/// ```
/// use std::path::Path;
/// assert_eq!(
///     engine::runner::progress_path(Path::new("data/labels.epd")),
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
        input.samples.len(),
        input.fingerprint()
    )
}

/// What a progress file holds.
#[derive(Debug)]
pub(super) struct Progress<A> {
    /// The answers: index and answer.
    pub(super) answers: Vec<(usize, A)>,
    /// The length of its complete lines (a last line cut by a kill is dropped).
    pub(super) len: u64,
    /// How its header differs from this run's settings (empty: it can be continued).
    pub(super) differences: Vec<String>,
}

/// Reads a progress file of `tune NAME` (see [`Progress`]), each answer read back by
/// `decode`.
pub(super) fn read_progress<A>(
    path: &Path,
    name: &str,
    header: &str,
    positions: usize,
    decode: impl Fn(&str) -> Result<A, String>,
) -> Result<Progress<A>, EngineError> {
    let bytes = std::fs::read(path).map_err(|e| EngineError::io("read", path, e))?;
    let text = String::from_utf8_lossy(&bytes);
    let complete = text.rfind('\n').map_or(0, |i| i + 1);
    let text = &text[..complete];
    let bad = |message: String| EngineError::Progress {
        path: path.to_path_buf(),
        message,
    };
    let tag = progress_tag(name);
    let header_lines = header.lines().count();
    let have: Vec<&str> = text.lines().take(header_lines).collect();
    if have.first() != Some(&tag.as_str()) {
        return Err(bad(format!(
            "not a progress file of `tune {name}` (it does not start with `{tag}`): move it away"
        )));
    }
    let differences = header
        .lines()
        .zip(have.iter().chain(std::iter::repeat(&"")))
        .filter(|(want, _)| !want.starts_with(FILES))
        .filter(|(want, got)| want != *got)
        .map(|(want, got)| format!("was `{got}`, now `{want}`"))
        .collect();
    let mut answers = Vec::new();
    for (i, line) in text.lines().enumerate().skip(header_lines) {
        let parsed = match line.split_once(' ') {
            Some((index, answer)) => match index.parse::<usize>() {
                Ok(index) if index < positions => decode(answer).map(|a| (index, a)),
                _ => Err(format!("no index below {positions}")),
            },
            None => Err("no answer".to_string()),
        };
        match parsed {
            Ok(a) => answers.push(a),
            Err(e) => {
                return Err(bad(format!(
                    "line {}: expected `INDEX ANSWER` with INDEX below {positions}, not \
                     `{line}` ({e})",
                    i + 1
                )))
            }
        }
    }
    Ok(Progress {
        answers,
        len: complete as u64,
        differences,
    })
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
