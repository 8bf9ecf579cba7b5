//! Many input files to one set of samples, and one set of samples to an output file whose
//! format its name gives: what `tune extract` does, without the command line.
//!
//! ```
//! use data::files::{valid_path, OutputKind};
//! use std::path::Path;
//! assert_eq!(OutputKind::of(Path::new("x.epd.zst")).unwrap(), OutputKind::Epd);
//! assert_eq!(OutputKind::of(Path::new("x.gtc")).unwrap(), OutputKind::Cache);
//! assert!(OutputKind::of(Path::new("x.txt")).is_err());
//! assert_eq!(valid_path(Path::new("d/x.bin.zst")), Path::new("d/x.valid.bin.zst"));
//! ```

use std::collections::HashSet;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use shakmaty::{zobrist::Zobrist64, EnPassantMode, Position};

use crate::filter::Filter;
use crate::load::load;
use crate::records::filter_samples;
use crate::{
    extract_pgn, write_cache, DataError, ExtractOptions, Format, LoadOptions, Report, Sample,
};

/// What an output file name asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputKind {
    /// EPD text (`.epd`, optionally `.gz` or `.zst`).
    Epd,
    /// The binary cache (`.bin` or `.gtc`, optionally `.zst`).
    Cache,
}

impl OutputKind {
    /// The kind `path`'s name asks for, or an error naming the file and the names accepted.
    pub fn of(path: &Path) -> Result<OutputKind, DataError> {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        let base = name
            .strip_suffix(".zst")
            .or_else(|| name.strip_suffix(".gz"))
            .unwrap_or(&name);
        if base.ends_with(".epd") {
            Ok(OutputKind::Epd)
        } else if (base.ends_with(".bin") || base.ends_with(".gtc")) && !name.ends_with(".gz") {
            Ok(OutputKind::Cache)
        } else {
            Err(DataError::Invalid(format!(
                "cannot tell the output format from {}: use .epd, .bin or .gtc (optionally \
                 .zst; .epd.gz also works)",
                path.display()
            )))
        }
    }
}

/// Writes `samples` to `path` in the format its name asks for ([`OutputKind::of`]),
/// atomically.
pub fn write_samples(path: &Path, samples: &[Sample]) -> Result<(), DataError> {
    match OutputKind::of(path)? {
        OutputKind::Epd => write_epd(path, samples),
        OutputKind::Cache => write_cache(path, samples),
    }
}

/// The validation file beside `path`: `.valid` inserted before the first dot of its name
/// (`x.bin.zst` -> `x.valid.bin.zst`).
pub fn valid_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let new = match name.find('.') {
        Some(i) => format!("{}.valid{}", &name[..i], &name[i..]),
        None => format!("{name}.valid"),
    };
    path.with_file_name(new)
}

/// The format of `path`, told from its (decompressed) first bytes.
pub fn detect(path: &Path) -> Result<Format, DataError> {
    let (mut r, _) = fsutil::source::open(path).map_err(|e| DataError::io(path, e))?;
    let head = r.fill_buf().map_err(|e| DataError::io(path, e))?;
    Ok(Format::detect(head))
}

/// What [`read_all`] reports as it goes.
pub enum Progress<'a> {
    /// PGN extraction: bytes read of all PGN inputs, their total, games so far.
    Pgn {
        /// Bytes read.
        bytes: u64,
        /// Bytes in all.
        total: u64,
        /// Games read.
        games: u64,
    },
    /// A non-PGN input is being read.
    Reading(&'a Path),
}

/// Reads every file of `paths` (PGN games extracted with `opts.extract`, in parallel across
/// files; EPD text and caches loaded, then put through the position rules of `opts.extract`
/// that need no game moves: its filter, `skip_check`, `max_per_game` and `dedup`, see
/// [`filter_samples`]) into one list of samples and one merged report. Duplicates are
/// dropped across all inputs. Game ids stay distinct across inputs: each non-PGN file's ids
/// are shifted past the largest id so far.
///
/// ```
/// use data::files::read_all;
/// use data::{write_epd, LoadOptions, Sample};
/// use shakmaty::Chess;
///
/// let dir = tempfile::tempdir()?;
/// let (a, b) = (dir.path().join("a.epd"), dir.path().join("b.epd"));
/// write_epd(&a, &[Sample::from_position(&Chess::default(), 1.0, None, 0)])?;
/// write_epd(&b, &[Sample::from_position(&Chess::default(), 0.0, None, 0)])?;
/// let (s, report) = read_all(&[a, b], &LoadOptions::default(), &mut |_| {})?;
/// assert_eq!((s.len(), report.kept), (2, 2));
/// assert_ne!(s[0].game, s[1].game, "the files' games are told apart");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_all(
    paths: &[PathBuf],
    opts: &LoadOptions,
    progress: &mut (dyn FnMut(Progress<'_>) + Send),
) -> Result<(Vec<Sample>, Report), DataError> {
    let mut pgns = Vec::new();
    let mut others = Vec::new();
    for p in paths {
        match detect(p)? {
            Format::Pgn => pgns.push(p.clone()),
            _ => others.push(p.clone()),
        }
    }
    let mut samples = Vec::new();
    let mut report = Report::default();
    if !pgns.is_empty() {
        let extract = ExtractOptions {
            strict: opts.strict,
            ..opts.extract.clone()
        };
        let progress = std::sync::Mutex::new(&mut *progress);
        let on_bytes = |bytes: u64, total: u64, games: u64| {
            if let Ok(mut p) = progress.lock() {
                p(Progress::Pgn {
                    bytes,
                    total,
                    games,
                });
            }
        };
        let (s, r) = extract_pgn(&pgns, &extract, Some(&on_bytes))?;
        samples = s;
        report.merge(&r);
    }
    let rules = &opts.extract;
    let filtering = rules.filter != Filter::None
        || rules.skip_check
        || rules.max_per_game.is_some()
        || rules.dedup;
    let mut seen = HashSet::new();
    if rules.dedup {
        // Positions of the PGN inputs count as seen for the others.
        seen.extend(samples.iter().filter_map(|s| {
            let pos = s.board.to_position().ok()?;
            Some(pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0)
        }));
    }
    let extract = ExtractOptions {
        strict: opts.strict,
        ..rules.clone()
    };
    for p in &others {
        progress(Progress::Reading(p));
        let (s, mut r) = load(p, opts)?;
        let s = if filtering {
            let (kept, f) = filter_samples(s, &extract, p, &mut seen)?;
            // The filter's counts of kept samples replace the load's.
            r.kept = 0;
            r.results = [0; 3];
            r.other_results = 0;
            r.scored = 0;
            r.merge(&f);
            kept
        } else {
            s
        };
        append_games(&mut samples, s);
        report.merge(&r);
    }
    Ok((samples, report))
}

/// Appends `more` (one file's samples) to `samples`, shifting its game ids past the largest
/// id in `samples` so that the files' games stay apart (the split is by game).
///
/// ```
/// use data::{files::append_games, Sample};
/// use shakmaty::Chess;
/// let s = |g| Sample::from_position(&Chess::default(), 0.5, None, g);
/// let mut all = vec![s(0), s(3)];
/// append_games(&mut all, vec![s(0), s(1)]);
/// let games: Vec<u32> = all.iter().map(|x| x.game).collect();
/// assert_eq!(games, [0, 3, 4, 5]);
/// ```
pub fn append_games(samples: &mut Vec<Sample>, mut more: Vec<Sample>) {
    let offset = samples.iter().map(|x| x.game + 1).max().unwrap_or(0);
    for x in &mut more {
        x.game = x.game.saturating_add(offset);
    }
    samples.extend(more);
}

/// Writes samples as EPD text, one [`Sample::to_epd`] line each followed by the sample's game
/// id as a `game` operation (`... [1.0] ce 30; game 12;`), so that [`load`](crate::load) reads the game ids
/// back and [`split_by_game`](crate::split_by_game) keeps splitting by game; zstd-compressed when the path ends in
/// `.zst`, gzip when it ends in `.gz`. The file is replaced atomically
/// ([`fsutil::compressed`]).
///
/// ```
/// use data::{load, write_epd, LoadOptions, Sample};
/// use shakmaty::Chess;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("set.epd.gz");
/// let pos = Chess::default();
/// write_epd(&path, &[Sample::from_position(&pos, 0.5, None, 12)])?;
/// let (samples, _) = load(&path, &LoadOptions::default())?;
/// assert_eq!((samples[0].result, samples[0].game), (0.5, 12));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_epd(path: &Path, samples: &[Sample]) -> Result<(), DataError> {
    fsutil::compressed::write(path, |mut w| write_epd_lines(&mut w, samples))
        .map_err(|e| DataError::io(path, e))
}

fn write_epd_lines(w: &mut impl Write, samples: &[Sample]) -> std::io::Result<()> {
    for s in samples {
        let line = s.to_epd();
        let sep = if line.ends_with(';') { "" } else { ";" };
        writeln!(w, "{line}{sep} game {};", s.game)?;
    }
    w.flush()
}
