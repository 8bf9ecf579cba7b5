//! Writing a file atomically ([`fsutil::atomic`]), compressed as its extension says: zstd
//! (level 9) for `.zst`, gzip for `.gz` (either case), plain otherwise: whole through a body
//! ([`write`]), or streamed ([`CompressedFile`]: `Write` as the lines come, then `commit`).
//!
//! ```
//! use std::io::Write;
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("lines.txt.gz");
//! fsutil::compressed::write(&path, |w| writeln!(w, "one line"))?;
//! let (_, compression) = fsutil::source::open(&path)?;
//! assert_eq!(compression, fsutil::Compression::Gzip);
//! assert_eq!(fsutil::source::read_all(&path)?, b"one line\n");
//!
//! // Streamed: nothing at the target until `commit`.
//! let mut f = fsutil::compressed::CompressedFile::create(&path)?;
//! writeln!(f, "another line")?;
//! assert_eq!(fsutil::source::read_all(&path)?, b"one line\n");
//! f.commit()?;
//! assert_eq!(fsutil::source::read_all(&path)?, b"another line\n");
//! # Ok::<(), std::io::Error>(())
//! ```

use std::io::{self, Write};
use std::path::Path;

use crate::atomic::AtomicFile;

/// Writes `path` atomically through `body`, compressed as the extension says (see the
/// [module](self) documentation). An error from `body` or the encoder leaves the target as
/// it was.
pub fn write(path: &Path, body: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    let mut file = CompressedFile::create(path)?;
    body(&mut file)?;
    file.commit()
}

/// A file being written atomically and compressed as its extension says (see the
/// [module](self) documentation): the bytes written go through the encoder into the
/// [`AtomicFile`]'s temporary file as they come (a memory of one buffer, whatever the
/// file's length), and [`commit`](CompressedFile::commit) finishes the encoder and renames the
/// file over the target. Dropped without a commit (an error, an interruption), the temporary
/// file is removed and the target is untouched.
pub struct CompressedFile {
    encoder: Encoder,
    temp: std::path::PathBuf,
}

/// The encoder in front of the temporary file.
enum Encoder {
    Zstd(zstd::stream::write::Encoder<'static, AtomicFile>),
    Gzip(flate2::write::GzEncoder<AtomicFile>),
    Plain(AtomicFile),
}

impl CompressedFile {
    /// Creates the temporary file for `path` (whose directory must exist) behind the encoder
    /// its extension names.
    pub fn create(path: &Path) -> io::Result<CompressedFile> {
        let file = AtomicFile::create(path)?;
        let temp = file.temp_path().to_path_buf();
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        let encoder = match ext.as_str() {
            "zst" => Encoder::Zstd(zstd::stream::write::Encoder::new(file, 9)?),
            "gz" => Encoder::Gzip(flate2::write::GzEncoder::new(
                file,
                flate2::Compression::default(),
            )),
            _ => Encoder::Plain(file),
        };
        Ok(CompressedFile { encoder, temp })
    }

    /// The temporary file being written (compressed bytes, buffered: a reader sees them as
    /// the buffers fill).
    pub fn temp_path(&self) -> &Path {
        &self.temp
    }

    /// Finishes the encoder, then flushes, syncs and renames the temporary file over the
    /// target; an error leaves the target as it was.
    pub fn commit(self) -> io::Result<()> {
        // Each encoder is finished explicitly: finishing on drop would swallow a write error.
        let file = match self.encoder {
            Encoder::Zstd(w) => w.finish()?,
            Encoder::Gzip(w) => w.finish()?,
            Encoder::Plain(w) => w,
        };
        file.commit()
    }

    fn writer(&mut self) -> &mut dyn Write {
        match &mut self.encoder {
            Encoder::Zstd(w) => w,
            Encoder::Gzip(w) => w,
            Encoder::Plain(w) => w,
        }
    }
}

impl Write for CompressedFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer().write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{open, read_all};
    use crate::Compression;

    #[test]
    fn compresses_as_the_extension_says() {
        let dir = tempfile::tempdir().unwrap();
        for (name, want) in [
            ("a.zst", Compression::Zstd),
            ("a.GZ", Compression::Gzip),
            ("a.txt", Compression::Plain),
        ] {
            let p = dir.path().join(name);
            write(&p, |w| w.write_all(b"abc")).unwrap();
            assert_eq!(open(&p).unwrap().1, want, "{name}");
            assert_eq!(read_all(&p).unwrap(), b"abc", "{name}");
        }
    }

    #[test]
    fn a_failing_body_leaves_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.gz");
        write(&p, |w| w.write_all(b"old")).unwrap();
        let err = write(&p, |w| {
            w.write_all(b"new")?;
            Err(io::Error::other("refused"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "refused");
        assert_eq!(read_all(&p).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_streamed_file_is_in_its_temporary_file_until_the_commit() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["s.txt", "s.txt.zst", "s.txt.gz"] {
            let p = dir.path().join(name);
            let mut f = CompressedFile::create(&p).unwrap();
            let temp = f.temp_path().to_path_buf();
            for i in 0..10_000 {
                writeln!(f, "line {i}").unwrap();
            }
            f.flush().unwrap();
            assert!(!p.exists(), "{name}");
            assert!(std::fs::metadata(&temp).unwrap().len() > 0, "{name}");
            f.commit().unwrap();
            assert!(!temp.exists(), "{name}");
            let text = String::from_utf8(read_all(&p).unwrap()).unwrap();
            assert_eq!(text.lines().count(), 10_000, "{name}");
            assert_eq!(text.lines().last(), Some("line 9999"), "{name}");
        }
        // Dropped without a commit: nothing is left but the earlier files.
        let p = dir.path().join("dropped.txt.zst");
        let mut f = CompressedFile::create(&p).unwrap();
        writeln!(f, "abandoned").unwrap();
        drop(f);
        assert!(!p.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
    }
}
