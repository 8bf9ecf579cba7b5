//! [`load`] and [`SampleReader`]: labelled positions from a file in any format and compression
//! gradtune reads, told from its content; whole, or a batch at a time.

use std::io::BufRead;
use std::path::Path;

use fsutil::Compression;

use crate::cache::CacheReader;
use crate::epd::EpdBatches;
use crate::{pgn, DataError, ExtractOptions, Format, LoadOptions, Report, Sample};

/// Loads labelled positions from a binary cache, EPD text or PGN games, plain, gzip or zstd,
/// all detected from the content. EPD text is streamed; each line's sample gets its own game
/// id (its record number), so a split of EPD data is by position. Malformed records are
/// reported, skipped and counted in the [`Report`](crate::Report), or with `strict` returned as the error.
///
/// A file that yields no sample and none skipped on purpose (an empty file, random bytes, a
/// file in another format) is a [`DataError::Unrecognised`] that says what the file looked
/// like: its first bytes, its compression, the formats tried and how many records failed.
/// (An empty binary cache is not an error: [`write_cache`](crate::write_cache) writes one for no samples.)
///
/// ```
/// use data::{load, DataError, LoadOptions};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("x.epd");
/// std::fs::write(&path, b"\x7fELF\x02\x01 not chess\nat all\n")?;
/// let err = load(&path, &LoadOptions::default()).unwrap_err();
/// assert!(matches!(err, DataError::Unrecognised { .. }));
/// let text = err.to_string();
/// assert!(text.contains("7f 45 4c 46"), "{text}");
/// assert!(text.contains("2 lines, none readable"), "{text}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn load(path: &Path, opts: &LoadOptions) -> Result<(Vec<Sample>, Report), DataError> {
    let mut reader = SampleReader::open(path, opts)?;
    if reader.format == Format::Cache {
        // The whole file's samples, allocated once.
        if let Batches::Cache(c) = reader.batches {
            return c.read_all();
        }
    }
    let mut samples = Vec::new();
    while let Some(batch) = reader.next_batch()? {
        if samples.is_empty() {
            samples = batch;
        } else {
            samples.extend(batch);
        }
    }
    Ok((samples, reader.into_report()))
}

/// Labelled positions from one file a batch at a time, as [`load`] reads them (the same
/// samples, game ids, report and errors): EPD text and binary caches are streamed, a batch
/// of at most 16,384 samples alive at a time whatever the file's length; PGN games are
/// extracted whole at the first batch (the extraction's filters see every game) and handed
/// out in batches.
///
/// ```
/// use data::{write_epd, LoadOptions, Sample, SampleReader};
/// use shakmaty::Chess;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("set.epd");
/// let samples: Vec<Sample> =
///     (0..5).map(|g| Sample::from_position(&Chess::default(), 0.5, None, g)).collect();
/// write_epd(&path, &samples)?;
/// let mut reader = SampleReader::open(&path, &LoadOptions::default())?;
/// let mut back = Vec::new();
/// while let Some(batch) = reader.next_batch()? {
///     back.extend(batch);
/// }
/// assert_eq!(back, samples);
/// assert_eq!(reader.report().kept, 5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct SampleReader {
    path: std::path::PathBuf,
    format: Format,
    compression: Compression,
    /// The file's first bytes (decompressed), for the message of an unrecognised file.
    head: Vec<u8>,
    batches: Batches,
    /// Samples handed out so far.
    kept: u64,
    done: bool,
}

/// Where a [`SampleReader`]'s batches come from.
enum Batches {
    Epd(EpdBatches<Box<dyn BufRead + Send>>),
    Cache(CacheReader),
    /// PGN: the reader and the extraction's options until the first batch, then the extracted
    /// samples and the report.
    Pgn(
        Option<(Box<dyn BufRead + Send>, ExtractOptions)>,
        std::vec::IntoIter<Sample>,
        Report,
    ),
}

/// Samples a [`SampleReader`] batch holds at most.
const BATCH: usize = 1 << 14;

impl SampleReader {
    /// Opens `path` (plain, gzip or zstd) and tells its format from its first bytes (see
    /// [`load`]). An empty file is an error here; one that yields no sample, at its end.
    pub fn open(path: &Path, opts: &LoadOptions) -> Result<SampleReader, DataError> {
        let (mut reader, compression) =
            fsutil::source::open(path).map_err(|e| DataError::io(path, e))?;
        let head = reader.fill_buf().map_err(|e| DataError::io(path, e))?;
        let format = Format::detect(head);
        let head = head[..head.len().min(HEAD_SHOWN)].to_vec();
        if head.is_empty() {
            return Err(DataError::Unrecognised {
                path: path.to_path_buf(),
                message: match compression {
                    Compression::Plain => "the file is empty".to_string(),
                    c => format!("the file is empty once decompressed ({})", c.name()),
                },
            });
        }
        let batches = match format {
            Format::Cache => {
                drop(reader);
                Batches::Cache(CacheReader::open(path, opts.strict)?)
            }
            Format::Pgn => {
                let extract = ExtractOptions {
                    strict: opts.strict,
                    ..opts.extract.clone()
                };
                Batches::Pgn(
                    Some((reader, extract)),
                    Vec::new().into_iter(),
                    Report::default(),
                )
            }
            Format::Epd => Batches::Epd(EpdBatches::new(reader, path, opts)),
        };
        Ok(SampleReader {
            path: path.to_path_buf(),
            format,
            compression,
            head,
            batches,
            kept: 0,
            done: false,
        })
    }

    /// The file's format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The next samples (at most 16,384; never an empty batch), or `None` once the file is
    /// read. Malformed records are skipped and counted in the [`report`](Self::report) (with
    /// `strict`, the first is the error); a file that yields no sample and none skipped on
    /// purpose is a [`DataError::Unrecognised`] at its end, as for [`load`]. The options are
    /// those given to [`open`](Self::open); for PGN, the extraction's (`opts.extract`).
    pub fn next_batch(&mut self) -> Result<Option<Vec<Sample>>, DataError> {
        if self.done {
            return Ok(None);
        }
        let batch = match &mut self.batches {
            Batches::Epd(e) => {
                let mut out = Vec::new();
                while out.is_empty() && e.next_batch(&mut out)? {}
                Some(out).filter(|b| !b.is_empty())
            }
            Batches::Cache(c) => loop {
                match c.next_batch(BATCH)? {
                    Some(b) if b.is_empty() => continue,
                    other => break other,
                }
            },
            Batches::Pgn(reader, samples, report) => {
                if let Some((r, extract)) = reader.take() {
                    let (all, r) = pgn::extract_pgn_reader(r, &self.path, &extract)?;
                    *samples = all.into_iter();
                    *report = r;
                }
                let b: Vec<Sample> = samples.by_ref().take(BATCH).collect();
                Some(b).filter(|b| !b.is_empty())
            }
        };
        match batch {
            Some(b) => {
                self.kept += b.len() as u64;
                Ok(Some(b))
            }
            None => {
                self.done = true;
                let report = self.report();
                if self.format != Format::Cache && self.kept == 0 && report.skipped.is_empty() {
                    return Err(DataError::Unrecognised {
                        path: self.path.clone(),
                        message: describe_unrecognised(
                            &self.path,
                            self.compression,
                            &self.head,
                            self.format,
                            report,
                        ),
                    });
                }
                Ok(None)
            }
        }
    }

    /// What was read so far: records read and kept, malformed records.
    pub fn report(&self) -> &Report {
        match &self.batches {
            Batches::Epd(e) => &e.report,
            Batches::Cache(c) => c.report(),
            Batches::Pgn(_, _, r) => r,
        }
    }

    /// The report, once the reader is done with.
    pub fn into_report(self) -> Report {
        match self.batches {
            Batches::Epd(e) => e.report,
            Batches::Cache(c) => c.report().clone(),
            Batches::Pgn(_, _, r) => r,
        }
    }
}

/// How many first bytes an unrecognised file's description shows.
const HEAD_SHOWN: usize = 24;

/// The message of an unrecognised file: what it looked like and what was tried.
fn describe_unrecognised(
    path: &Path,
    compression: Compression,
    head: &[u8],
    format: Format,
    report: &Report,
) -> String {
    let hex: Vec<String> = head.iter().map(|b| format!("{b:02x}")).collect();
    let escaped: String = head
        .iter()
        .flat_map(|&b| std::ascii::escape_default(b))
        .map(char::from)
        .collect();
    let mut s = "no labelled positions found in any format gradtune reads \
                 (tried: gradtune cache, PGN, EPD; plain, gzip, zstd)\n"
        .to_string();
    let raw = if compression == Compression::Plain {
        String::new()
    } else {
        let mut raw = [0u8; 8];
        let n = std::fs::File::open(path)
            .and_then(|mut f| std::io::Read::read(&mut f, &mut raw))
            .unwrap_or(0);
        let hex: Vec<String> = raw[..n].iter().map(|b| format!("{b:02x}")).collect();
        format!(" (decompressed; the file starts {} ...)", hex.join(" "))
    };
    s += &format!(
        "  compression: {}\n  first bytes{raw}: {} \"{escaped}\"\n",
        compression.name(),
        hex.join(" ")
    );
    let tried = match format {
        Format::Cache => "read as a gradtune cache",
        Format::Pgn => "read as PGN (it starts with a tag or a move number)",
        Format::Epd => {
            "read as EPD (no gradtune cache header \"GTCACHE\", no PGN tag or move number at \
             the start)"
        }
    };
    let plural = |n: u64, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let what = match format {
        Format::Pgn => plural(report.games, "game"),
        _ => plural(report.read, "line"),
    };
    s += &format!(
        "  {tried}: {what}, none readable ({})",
        plural(report.errors, "error")
    );
    if let Some(m) = report.messages.first() {
        s += &format!("\n  first error: {m}");
    }
    s
}
