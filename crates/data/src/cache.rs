//! The compact binary cache: a 24-byte header, then one 36-byte record per sample.
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | magic `GTCACHE\0` |
//! | 8..12 | version, u32 LE (1) |
//! | 12..16 | record size, u32 LE (36) |
//! | 16..24 | record count, u64 LE |
//!
//! Each record: the [`PackedBoard`] (24 bytes), the result (f32 LE), the score (f32 LE, NaN
//! when unknown), the game id (u32 LE). The whole file may be zstd-compressed (written so when
//! the path ends in `.zst`); [`load`](crate::load) detects that by its first bytes.

use std::io::Write;
use std::path::Path;

use rayon::prelude::*;

use crate::{DataError, Report, Sample};

mod layout;
mod reader;

use layout::{decode, encode, header, parse_header};
pub use layout::{is_cache, BATCH, HEADER, MAGIC, RECORD, VERSION};
pub use reader::CacheReader;

/// Encodes samples as cache bytes (header and records).
pub fn to_bytes(samples: &[Sample]) -> Vec<u8> {
    let mut buf = header(samples.len() as u64).to_vec();
    buf.resize(HEADER + RECORD * samples.len(), 0);
    buf[HEADER..]
        .par_chunks_exact_mut(RECORD)
        .zip(samples.par_iter())
        .for_each(|(out, s)| encode(s, out));
    buf
}

/// Writes a binary cache; zstd-compressed (level 9, one frame with its content size) when the
/// path ends in `.zst`. The records are encoded and written a batch at a time ([`BATCH`]), so
/// writing holds no copy of the file in memory. The file is replaced atomically
/// ([`fsutil::atomic`]): an interrupted write leaves the old file as it was.
///
/// ```
/// use data::{load, write_cache, LoadOptions, Sample};
/// use shakmaty::Chess;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("set.gtc.zst");
/// let samples = vec![Sample::from_position(&Chess::default(), 1.0, None, 0)];
/// write_cache(&path, &samples)?;
/// let (back, report) = load(&path, &LoadOptions::default())?;
/// assert_eq!(back, samples);
/// assert_eq!(report.kept, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_cache(path: &Path, samples: &[Sample]) -> Result<(), DataError> {
    // The temporary file first: an unwritable place fails before the work.
    let w = fsutil::atomic::AtomicFile::create(path).map_err(|e| DataError::io(path, e))?;
    let compressed = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("zst"));
    let io = |e| DataError::io(path, e);
    let size = (HEADER + RECORD * samples.len()) as u64;
    let w = if compressed {
        // One frame that states its content size, streamed into the file.
        let mut z = zstd::stream::write::Encoder::new(w, ZSTD_LEVEL).map_err(io)?;
        z.set_pledged_src_size(Some(size)).map_err(io)?;
        z.include_contentsize(true).map_err(io)?;
        write_records(&mut z, samples).map_err(io)?;
        z.finish().map_err(io)?
    } else {
        let mut w = std::io::BufWriter::new(w);
        write_records(&mut w, samples).map_err(io)?;
        w.into_inner().map_err(|e| io(e.into_error()))?
    };
    w.commit().map_err(io)
}

/// The header and the records, encoded a batch at a time.
fn write_records(w: &mut impl Write, samples: &[Sample]) -> std::io::Result<()> {
    w.write_all(&header(samples.len() as u64))?;
    let mut buf = vec![0u8; RECORD * BATCH.min(samples.len())];
    for batch in samples.chunks(BATCH) {
        let out = &mut buf[..RECORD * batch.len()];
        out.par_chunks_exact_mut(RECORD)
            .zip(batch.par_iter())
            .for_each(|(out, s)| encode(s, out));
        w.write_all(out)?;
    }
    w.flush()
}

/// The zstd level of compressed caches.
pub const ZSTD_LEVEL: i32 = 9;

/// Reads a cache file whole and decompresses it (plain, gzip or zstd). [`load`](crate::load)
/// does not: it reads caches a batch at a time ([`CacheReader`]).
pub fn read_cache_bytes(path: &Path) -> Result<Vec<u8>, DataError> {
    fsutil::source::read_all(path).map_err(|e| DataError::io(path, e))
}

/// Decodes cache bytes (decompressed) in parallel. Records whose board fails the cheap
/// structural check are skipped and counted (an error in strict mode).
pub fn from_bytes(
    path: &Path,
    bytes: &[u8],
    strict: bool,
) -> Result<(Vec<Sample>, Report), DataError> {
    let bad = |message: String| DataError::Cache {
        path: path.to_path_buf(),
        message,
    };
    let count = parse_header(path, bytes)?;
    let body = &bytes[HEADER..];
    if body.len() as u64 != count.saturating_mul(RECORD as u64) {
        return Err(bad(format!(
            "header says {count} records, the file holds {} bytes of records",
            body.len()
        )));
    }
    let decoded: Vec<Sample> = body.par_chunks_exact(RECORD).map(decode).collect();
    // The cheap structural check and the counts, in parallel; usually nothing fails.
    let (bad, mut report) = decoded
        .par_iter()
        .enumerate()
        .fold(
            || (Vec::new(), Report::default()),
            |(mut bad, mut report), (i, s)| {
                match s.board.check() {
                    Ok(()) => report.keep(s.result, s.score.is_some()),
                    Err(e) => bad.push((i, e.to_string())),
                }
                (bad, report)
            },
        )
        .reduce(
            || (Vec::new(), Report::default()),
            |(mut bad, mut a), (more, b)| {
                bad.extend(more);
                a.merge(&b);
                (bad, a)
            },
        );
    report.read = count;
    let mut bad = bad;
    bad.sort_unstable_by_key(|(i, _)| *i);
    for (i, e) in &bad {
        let location = format!("{}: record {}", path.display(), i + 1);
        if strict {
            return Err(DataError::Input {
                location,
                message: e.clone(),
            });
        }
        report.error(location, e);
    }
    let samples: Vec<Sample> = if bad.is_empty() {
        decoded
    } else {
        let mut skip = bad.iter().map(|(i, _)| *i).peekable();
        decoded
            .into_iter()
            .enumerate()
            .filter(|(i, _)| {
                if skip.peek() == Some(i) {
                    skip.next();
                    false
                } else {
                    true
                }
            })
            .map(|(_, s)| s)
            .collect()
    };
    Ok((samples, report))
}
