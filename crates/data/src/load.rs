//! [`load`]: labelled positions from a file in any format and compression gradtune reads,
//! told from its content.

use std::io::BufRead;
use std::path::Path;

use fsutil::Compression;

use crate::{cache, pgn, read_epd, DataError, ExtractOptions, Format, LoadOptions, Report, Sample};

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
    let (samples, report) = load_as(format, reader, path, opts)?;
    if format != Format::Cache && samples.is_empty() && report.skipped.is_empty() {
        return Err(DataError::Unrecognised {
            path: path.to_path_buf(),
            message: describe_unrecognised(path, compression, &head, format, &report),
        });
    }
    Ok((samples, report))
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

fn load_as(
    format: Format,
    reader: Box<dyn BufRead + Send>,
    path: &Path,
    opts: &LoadOptions,
) -> Result<(Vec<Sample>, Report), DataError> {
    match format {
        Format::Cache => {
            drop(reader);
            cache::CacheReader::open(path, opts.strict)?.read_all()
        }
        Format::Pgn => {
            let extract = ExtractOptions {
                strict: opts.strict,
                ..opts.extract.clone()
            };
            pgn::extract_pgn_reader(reader, path, &extract)
        }
        Format::Epd => read_epd(reader, path, opts),
    }
}
