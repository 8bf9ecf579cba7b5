//! Writing a file atomically ([`fsutil::atomic`]), compressed as its extension says: zstd
//! (level 9) for `.zst`, gzip for `.gz` (either case), plain otherwise.
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
//! # Ok::<(), std::io::Error>(())
//! ```

use std::io::{self, Write};
use std::path::Path;

use crate::atomic::AtomicFile;

/// Writes `path` atomically through `body`, compressed as the extension says (see the
/// [module](self) documentation). An error from `body` or the encoder leaves the target as
/// it was.
pub fn write(path: &Path, body: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    let file = AtomicFile::create(path)?;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    // Each encoder is finished explicitly: finishing on drop would swallow a write error.
    let file = match ext.as_str() {
        "zst" => {
            let mut w = zstd::stream::write::Encoder::new(file, 9)?;
            body(&mut w)?;
            w.finish()?
        }
        "gz" => {
            let mut w = flate2::write::GzEncoder::new(file, flate2::Compression::default());
            body(&mut w)?;
            w.finish()?
        }
        _ => {
            let mut w = file;
            body(&mut w)?;
            w
        }
    };
    // Flushes, syncs and renames into place, reporting a failure.
    file.commit()
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
}
