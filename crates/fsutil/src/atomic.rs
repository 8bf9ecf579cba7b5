//! Atomic file output: every file gradtune writes goes to a temporary file in the same
//! directory, is flushed and synced, and is then renamed over the target, so a reader, a
//! crash, `kill -9` or a full disk leaves either the old file or the new one, never half of
//! one.
//!
//! This is the workspace's one helper for it; [`crate::compressed`] adds compression.
//!
//! ```
//! use std::io::Write;
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("out.txt");
//! fsutil::atomic::write(&path, "old\n")?;
//! // Streaming: nothing appears at `path` until `commit`.
//! let mut f = fsutil::atomic::AtomicFile::create(&path)?;
//! writeln!(f, "new")?;
//! assert_eq!(std::fs::read_to_string(&path)?, "old\n");
//! f.commit()?;
//! assert_eq!(std::fs::read_to_string(&path)?, "new\n");
//! // Dropped without `commit`: the temporary file goes, the target stays as it was.
//! let mut f = fsutil::atomic::AtomicFile::create(&path)?;
//! writeln!(f, "abandoned")?;
//! drop(f);
//! assert_eq!(std::fs::read_to_string(&path)?, "new\n");
//! assert_eq!(std::fs::read_dir(dir.path())?.count(), 1);
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `bytes` to `path` atomically (see the [module](self) documentation).
pub fn write(path: &Path, bytes: impl AsRef<[u8]>) -> io::Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes.as_ref())?;
    f.commit()
}

/// A file being written: a buffered temporary file beside the target, named
/// `.<name>.tmp-<pid>-<n>`, renamed over the target by [`commit`](AtomicFile::commit). Dropped
/// without a commit (an error, a panic), it removes the temporary file and leaves the target
/// untouched. A killed process leaves only the temporary file behind.
#[derive(Debug)]
pub struct AtomicFile {
    target: PathBuf,
    tmp: PathBuf,
    file: Option<BufWriter<File>>,
}

/// Tells apart temporary files of one process writing the same target twice at once.
static COUNTER: AtomicU64 = AtomicU64::new(0);

impl AtomicFile {
    /// Creates the temporary file for `path` in `path`'s directory (which must exist).
    pub fn create(path: &Path) -> io::Result<AtomicFile> {
        let name = path
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path names no file"))?;
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = path.with_file_name(format!(
            ".{}.tmp-{}-{n}",
            name.to_string_lossy(),
            std::process::id()
        ));
        let file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        Ok(AtomicFile {
            target: path.to_path_buf(),
            tmp,
            file: Some(BufWriter::with_capacity(1 << 16, file)),
        })
    }

    /// The file this will become.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// The temporary file being written.
    pub fn temp_path(&self) -> &Path {
        &self.tmp
    }

    /// Flushes, syncs the data to disk and renames the temporary file over the target. On an
    /// error the temporary file is removed and the target is left as it was.
    pub fn commit(mut self) -> io::Result<()> {
        let Some(w) = self.file.take() else {
            return Err(io::Error::other("already committed"));
        };
        let result = (|| {
            let file = w.into_inner().map_err(|e| e.into_error())?;
            file.sync_all()?;
            drop(file);
            std::fs::rename(&self.tmp, &self.target)
        })();
        match result {
            Ok(()) => {
                sync_dir(&self.target);
                Ok(())
            }
            Err(e) => {
                let _ = std::fs::remove_file(&self.tmp);
                Err(e)
            }
        }
    }

    fn writer(&mut self) -> io::Result<&mut BufWriter<File>> {
        self.file
            .as_mut()
            .ok_or_else(|| io::Error::other("already committed"))
    }
}

/// Syncs the directory holding `path`, so the rename itself survives a crash (best effort:
/// not every platform can open a directory).
fn sync_dir(path: &Path) {
    #[cfg(unix)]
    if let Some(dir) = path.parent() {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer()?.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer()?.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer()?.flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let Some(w) = self.file.take() {
            // Not committed: discard. The buffer is dropped unflushed on purpose.
            let (file, _) = w.into_parts();
            drop(file);
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_and_cleans_up() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.json");
        write(&p, b"1").unwrap();
        write(&p, b"22").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"22");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("a.json")]);
    }

    #[test]
    fn missing_directory_is_an_error_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("no/such/dir/a.json");
        assert!(write(&p, b"1").is_err());
        assert!(AtomicFile::create(Path::new("/")).is_err());
    }

    #[test]
    fn two_writers_of_one_target_do_not_collide() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t");
        let mut a = AtomicFile::create(&p).unwrap();
        let mut b = AtomicFile::create(&p).unwrap();
        assert_ne!(a.temp_path(), b.temp_path());
        a.write_all(b"a").unwrap();
        b.write_all(b"b").unwrap();
        a.commit().unwrap();
        b.commit().unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"b");
    }
}
