//! The progress file beside the output (`OUT.progress`): its header of settings, the labels
//! appended line by line, reading it back to continue a run.

use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::{LabelInput, LabelSettings};
use crate::error::EngineError;

/// First line of a progress file: its format and version.
const PROGRESS_TAG: &str = "gradtune-label 1";

/// The progress file of output `out`: `OUT.progress` beside it.
///
/// ```
/// use std::path::Path;
/// assert_eq!(
///     engine::label::progress_path(Path::new("data/labels.epd")),
///     Path::new("data/labels.epd.progress")
/// );
/// ```
pub fn progress_path(out: &Path) -> PathBuf {
    let mut name = out.file_name().unwrap_or_default().to_os_string();
    name.push(".progress");
    out.with_file_name(name)
}

/// The settings a progress file records; a rerun must match them.
pub(super) fn progress_header(input: &LabelInput, settings: &LabelSettings, go: &str) -> String {
    let mut files = String::new();
    for s in &input.sources {
        let _ = write!(files, " {}", s.path.display());
    }
    format!(
        "{PROGRESS_TAG}\nengine {}\n{go}\nfresh {}\npositions {}\nfingerprint {:016x}\nfiles{files}\n",
        settings.engine.command(),
        settings.fresh,
        input.samples.len(),
        input.fingerprint()
    )
}

/// What a progress file holds.
#[derive(Debug)]
pub(super) struct Progress {
    /// The labels: index and White's score.
    pub(super) labels: Vec<(usize, i32)>,
    /// The length of its complete lines (a last line cut by a kill is dropped).
    pub(super) len: u64,
    /// How its header differs from this run's settings (empty: it can be continued).
    pub(super) differences: Vec<String>,
}

/// Reads a progress file (see [`Progress`]).
pub(super) fn read_progress(
    path: &Path,
    header: &str,
    positions: usize,
) -> Result<Progress, EngineError> {
    let bytes = std::fs::read(path).map_err(|e| EngineError::io("read", path, e))?;
    let text = String::from_utf8_lossy(&bytes);
    let complete = text.rfind('\n').map_or(0, |i| i + 1);
    let text = &text[..complete];
    let bad = |message: String| EngineError::Progress {
        path: path.to_path_buf(),
        message,
    };
    let header_lines = header.lines().count();
    let have: Vec<&str> = text.lines().take(header_lines).collect();
    if have.first() != Some(&PROGRESS_TAG) {
        return Err(bad(format!(
            "not a progress file of `tune label` (it does not start with `{PROGRESS_TAG}`): \
             move it away"
        )));
    }
    let differences = header
        .lines()
        .zip(have.iter().chain(std::iter::repeat(&"")))
        .filter(|(want, got)| want != *got)
        .map(|(want, got)| format!("was `{got}`, now `{want}`"))
        .collect();
    let mut labels = Vec::new();
    for (i, line) in text.lines().enumerate().skip(header_lines) {
        let mut words = line.split_whitespace();
        let parsed = match (words.next(), words.next(), words.next()) {
            (Some(a), Some(b), None) => a.parse::<usize>().ok().zip(b.parse::<i32>().ok()),
            _ => None,
        };
        match parsed {
            Some((index, score)) if index < positions => labels.push((index, score)),
            _ => {
                return Err(bad(format!(
                    "line {}: expected `INDEX SCORE` with INDEX below {positions}, not `{line}`",
                    i + 1
                )))
            }
        }
    }
    Ok(Progress {
        labels,
        len: complete as u64,
        differences,
    })
}

/// Opens the progress file for appending: continuing `resume` (its complete lines kept), or
/// a new one holding `header`.
pub(super) fn open_progress(
    path: &Path,
    header: &str,
    resume: Option<&Progress>,
) -> Result<File, EngineError> {
    let io = |action, e| EngineError::io(action, path, e);
    match resume {
        Some(p) => {
            let mut f = OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| io("open", e))?;
            // Drop a last line cut by a kill, then append.
            f.set_len(p.len).map_err(|e| io("write", e))?;
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
