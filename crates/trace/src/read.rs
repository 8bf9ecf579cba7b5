//! How trace files are read ([`ReadOptions`]) and what reading them found ([`ReadReport`]), and
//! writing traces as text. Reading itself is [`TraceStream`](crate::TraceStream)'s.

use std::io::Write;
use std::path::{Path, PathBuf};

use fsutil::compressed::CompressedFile;

use crate::text::to_line;
use crate::{Manifest, Trace, TraceError};

/// Options of [`read_traces`](crate::read_traces).
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

/// Writes traces as text lines (see [`parse_line`](crate::parse_line)), atomically; zstd when
/// the path ends in `.zst`, gzip for `.gz`. The same bytes as a [`TextWriter`] given them one
/// by one.
pub fn write_text(path: &Path, traces: &[Trace], manifest: &Manifest) -> Result<(), TraceError> {
    let mut w = TextWriter::create(path, manifest)?;
    for t in traces {
        w.write(t)?;
    }
    w.commit()
}

/// A text trace file written a trace at a time, atomically (the lines go to a temporary file
/// beside the target as they come, [`fsutil::compressed::CompressedFile`], renamed over it by
/// [`commit`](TextWriter::commit); dropped without a commit, the temporary file is removed):
/// the file [`write_text`] writes, in the memory of one buffer whatever its length.
///
/// ```
/// let m = trace::Manifest::from_json(r#"{"format": "gradtune-manifest", "version": 1,
///     "engine": "e", "score": "white", "phase": {"max": 24},
///     "params": [{"name": "p", "shape": [1], "value": [[1, 2]]}]}"#, "m.json")?;
/// let t = trace::parse_line("4k3/8/8/8/8/8/8/4K3 w - - [0.5]; phase 3; t 0:1:0", &m)?.unwrap();
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("t.txt");
/// let mut w = trace::TextWriter::create(&path, &m)?;
/// w.write(&t)?;
/// assert!(!path.exists());
/// w.commit()?;
/// let (back, _) = trace::read_traces(&[path], &m, &trace::ReadOptions::default())?;
/// assert_eq!(back, [t]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct TextWriter<'m> {
    file: CompressedFile,
    path: PathBuf,
    manifest: &'m Manifest,
}

impl<'m> TextWriter<'m> {
    /// Creates the temporary file of `path` and writes the header line (a comment naming the
    /// engine).
    pub fn create(path: &Path, manifest: &'m Manifest) -> Result<TextWriter<'m>, TraceError> {
        let io = |e| TraceError::io(path, e);
        let mut file = CompressedFile::create(path).map_err(io)?;
        writeln!(
            file,
            "# gradtune traces v1 for engine {:?}",
            manifest.engine()
        )
        .map_err(io)?;
        Ok(TextWriter {
            file,
            path: path.to_path_buf(),
            manifest,
        })
    }

    /// Appends `t`'s line.
    pub fn write(&mut self, t: &Trace) -> Result<(), TraceError> {
        writeln!(self.file, "{}", to_line(t, self.manifest))
            .map_err(|e| TraceError::io(&self.path, e))
    }

    /// The temporary file being written.
    pub fn temp_path(&self) -> &Path {
        self.file.temp_path()
    }

    /// Finishes the file and renames it over the target.
    pub fn commit(self) -> Result<(), TraceError> {
        self.file
            .commit()
            .map_err(|e| TraceError::io(&self.path, e))
    }
}

/// Writes a file atomically through `body`, compressed as the extension says
/// ([`fsutil::compressed`]).
pub(crate) fn write_with(
    path: &Path,
    body: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), TraceError> {
    fsutil::compressed::write(path, body).map_err(|e| TraceError::io(path, e))
}
