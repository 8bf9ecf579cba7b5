//! [`CacheReader`]: a cache read a batch of records at a time, never whole.

use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::layout::{decode, parse_header, BATCH, HEADER, RECORD};
use crate::{DataError, Report, Sample};

/// Reads a binary cache (plain, gzip or zstd, streamed) a batch of records at a time: memory
/// is one batch, whatever the file's size. Records whose board fails the cheap structural
/// check are skipped and counted in the [`report`](Self::report) (in strict mode, the first is
/// the error); a file whose length disagrees with its header's count is an error once the
/// reading reaches the disagreement.
///
/// ```
/// use data::cache::CacheReader;
/// use data::{write_cache, Sample};
/// use shakmaty::Chess;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("set.gtc.zst");
/// let samples: Vec<Sample> =
///     (0..5).map(|g| Sample::from_position(&Chess::default(), 0.5, None, g)).collect();
/// write_cache(&path, &samples)?;
/// let mut reader = CacheReader::open(&path, false)?;
/// assert_eq!(reader.count(), 5);
/// let mut back = Vec::new();
/// while let Some(batch) = reader.next_batch(2)? {
///     assert!(batch.len() <= 2);
///     back.extend(batch);
/// }
/// assert_eq!(back, samples);
/// assert_eq!(reader.report().kept, 5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct CacheReader {
    path: PathBuf,
    reader: Box<dyn BufRead + Send>,
    strict: bool,
    /// Records the header announces, and records read so far.
    count: u64,
    done: u64,
    report: Report,
    buf: Vec<u8>,
}

impl CacheReader {
    /// Opens a cache and checks its header. `strict`: a malformed record is an error.
    pub fn open(path: &Path, strict: bool) -> Result<CacheReader, DataError> {
        let (mut reader, _) = fsutil::source::open(path).map_err(|e| DataError::io(path, e))?;
        let mut head = [0u8; HEADER];
        let got = read_full(&mut reader, &mut head).map_err(|e| DataError::io(path, e))?;
        let count = parse_header(path, &head[..got])?;
        let report = Report {
            read: count,
            ..Report::default()
        };
        Ok(CacheReader {
            path: path.to_path_buf(),
            reader,
            strict,
            count,
            done: 0,
            report,
            buf: Vec::new(),
        })
    }

    /// The number of records the header announces.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// What was read so far: records kept, results, malformed records.
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// The next at most `max` (at least 1) records' samples, the malformed ones left out (and
    /// counted); `None` once every record is read (and the file is checked to end there).
    pub fn next_batch(&mut self, max: usize) -> Result<Option<Vec<Sample>>, DataError> {
        let n = (self.count - self.done).min(max.max(1) as u64) as usize;
        let path = self.path.clone();
        let io = |e| DataError::io(&path, e);
        if n == 0 {
            // Nothing may follow the last record.
            let mut one = [0u8; 1];
            if read_full(&mut self.reader, &mut one).map_err(io)? > 0 {
                let rest = std::io::copy(&mut self.reader, &mut std::io::sink()).map_err(io)?;
                return Err(self.length_error(self.count * RECORD as u64 + 1 + rest));
            }
            return Ok(None);
        }
        self.buf.resize(n * RECORD, 0);
        let got = read_full(&mut self.reader, &mut self.buf).map_err(io)?;
        if got < self.buf.len() {
            return Err(self.length_error(self.done * RECORD as u64 + got as u64));
        }
        let first = self.done;
        self.done += n as u64;
        let decoded: Vec<Sample> = self.buf.par_chunks_exact(RECORD).map(decode).collect();
        // The cheap structural check, in parallel; usually nothing fails.
        let bad: Vec<(usize, String)> = decoded
            .par_iter()
            .enumerate()
            .filter_map(|(i, s)| s.board.check().err().map(|e| (i, e.to_string())))
            .collect();
        for (i, e) in &bad {
            let location = format!("{}: record {}", path.display(), first + *i as u64 + 1);
            if self.strict {
                return Err(DataError::Input {
                    location,
                    message: e.clone(),
                });
            }
            self.report.error(location, e);
        }
        let mut skip = bad.iter().map(|(i, _)| *i).peekable();
        let mut samples = Vec::with_capacity(decoded.len() - bad.len());
        for (i, s) in decoded.into_iter().enumerate() {
            if skip.peek() == Some(&i) {
                skip.next();
                continue;
            }
            self.report.keep(s.result, s.score.is_some());
            samples.push(s);
        }
        Ok(Some(samples))
    }

    /// Reads every remaining record: the samples and the report.
    pub fn read_all(mut self) -> Result<(Vec<Sample>, Report), DataError> {
        let mut samples = Vec::new();
        while let Some(batch) = self.next_batch(BATCH)? {
            if samples.is_empty() {
                // The whole file's samples, allocated once (bounded by what was read, so a
                // corrupt count cannot ask for a huge allocation).
                samples.reserve_exact(self.count.min(self.done * 1024) as usize);
            }
            samples.extend(batch);
        }
        Ok((samples, self.report))
    }

    fn length_error(&self, body: u64) -> DataError {
        DataError::Cache {
            path: self.path.clone(),
            message: format!(
                "header says {} records, the file holds {body} bytes of records",
                self.count
            ),
        }
    }
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}
