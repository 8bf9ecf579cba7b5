//! How trace files are read ([`ReadOptions`]) and what reading them found ([`ReadReport`]), and
//! writing traces as text. Reading itself is [`TraceStream`](crate::TraceStream)'s.

use std::io::Write;
use std::path::Path;

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

/// Writes a file atomically through `body`, compressed as the extension says
/// ([`fsutil::compressed`]).
pub(crate) fn write_with(
    path: &Path,
    body: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), TraceError> {
    fsutil::compressed::write(path, body).map_err(|e| TraceError::io(path, e))
}
