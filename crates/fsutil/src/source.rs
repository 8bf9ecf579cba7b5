//! Opening files for reading: plain, gzip or zstd, told apart by their first bytes, never by
//! their names. Errors are `std::io::Error`s; the caller names the file.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The compression of a file, from its magic bytes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Compression {
    /// No known compression magic.
    Plain,
    /// `1f 8b`.
    Gzip,
    /// `28 b5 2f fd`.
    Zstd,
}

impl Compression {
    /// `none (plain)`, `gzip` or `zstd`.
    pub fn name(self) -> &'static str {
        match self {
            Compression::Plain => "none (plain)",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
        }
    }

    /// Detects the compression from the first bytes of a file.
    ///
    /// ```
    /// use fsutil::Compression;
    /// assert_eq!(Compression::detect(&[0x28, 0xb5, 0x2f, 0xfd, 0]), Compression::Zstd);
    /// assert_eq!(Compression::detect(&[0x1f, 0x8b, 8]), Compression::Gzip);
    /// assert_eq!(Compression::detect(b"rnbqkbnr/"), Compression::Plain);
    /// ```
    pub fn detect(head: &[u8]) -> Compression {
        if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else {
            Compression::Plain
        }
    }
}

/// Counts the bytes read through it into a shared counter (for progress bars).
struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Says which decompression failed: a truncated or corrupt gzip or zstd file reads as
/// "gzip data truncated or corrupt: ..." rather than a bare decoder message.
struct Annotated<R> {
    inner: R,
    what: &'static str,
}

impl<R: Read> Read for Annotated<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("{} data truncated or corrupt: {e}", self.what),
            )
        })
    }
}

/// Opens a file for streaming, decompressing gzip or zstd as its first bytes say.
/// Returns the reader and its compression.
pub fn open(path: &Path) -> io::Result<(Box<dyn BufRead + Send>, Compression)> {
    open_counting(path, Arc::new(AtomicU64::new(0)))
}

/// As [`open`], adding the number of (compressed) bytes read from the file to `count`.
pub fn open_counting(
    path: &Path,
    count: Arc<AtomicU64>,
) -> io::Result<(Box<dyn BufRead + Send>, Compression)> {
    let file = File::open(path)?;
    let mut raw = BufReader::with_capacity(1 << 16, Counting { inner: file, count });
    let head = raw.fill_buf()?;
    let compression = Compression::detect(head);
    let reader: Box<dyn BufRead + Send> = match compression {
        Compression::Plain => Box::new(raw),
        Compression::Gzip => Box::new(BufReader::with_capacity(
            1 << 16,
            Annotated {
                inner: flate2::bufread::MultiGzDecoder::new(raw),
                what: "gzip",
            },
        )),
        Compression::Zstd => Box::new(BufReader::with_capacity(
            1 << 16,
            Annotated {
                inner: zstd::stream::read::Decoder::with_buffer(raw)?,
                what: "zstd",
            },
        )),
    };
    Ok((reader, compression))
}

/// Reads a whole file, decompressed.
pub fn read_all(path: &Path) -> io::Result<Vec<u8>> {
    let (mut r, _) = open(path)?;
    let mut buf = Vec::new();
    r.read_to_end(&mut buf)?;
    Ok(buf)
}
