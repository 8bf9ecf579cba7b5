//! Reading labelled positions from EPD / FEN text, one position a line, streaming.
//!
//! A line is a FEN (four EPD fields, optionally followed by the halfmove clock and move
//! number) and then labels in any of the forms engine authors use:
//!
//! | form | example | meaning |
//! |---|---|---|
//! | Zurichess `c9` | `... c9 "1-0";` | result |
//! | brackets | `... [1.0]`, `[0.5]`, `[0]` | result as a number |
//! | quoted anywhere | `... id "x"; "1/2-1/2"` | result |
//! | bare | `... 1-0`, `... 0.73` | result or probability |
//! | `ce` | `... ce 35;` | score, centipawns, side to move's view (EPD standard) |
//! | `score`, `eval`, `cp` | `... ; score 35` | score, centipawns, White's view |
//! | `result`, `wdl` | `... result 0.5;` | result |
//! | `game` | `... ; game 12;` | game id, as [`write_epd`](crate::write_epd) writes it |
//!
//! A bare number outside `[0, 1]` is taken as a score (White's view). Results are from
//! White's point of view unless [`EpdOptions::stm_results`] says they are from the side to
//! move's (which then also applies to `score`/`eval`/`cp`/bare scores, not to `ce`).
//! Blank lines and lines starting with `#` or `//` are ignored. Invalid en passant squares
//! and castling rights are dropped rather than rejecting the line.

use std::io::BufRead;
use std::path::Path;

use rayon::prelude::*;

use shakmaty::{fen::Fen, CastlingMode, Chess, Color, FromSetup, Position, PositionError, Setup};

use crate::{DataError, LoadOptions, Report, Sample};

mod labels;
use labels::{parse_labels, Labels, Pov};

/// Options of the EPD reader.
#[derive(Clone, Copy, Debug, Default)]
pub struct EpdOptions {
    /// Results (and `score`-style labels) are given from the side to move's point of view.
    pub stm_results: bool,
}

/// One parsed line.
///
/// ```
/// use data::epd::{parse_line, EpdOptions};
/// let rec = parse_line("8/8/8/8/8/8/8/K6k w - - [0.5] ce 12; game 3;", &EpdOptions::default())?
///     .expect("a record");
/// assert_eq!((rec.result, rec.score, rec.game), (0.5, Some(12.0), Some(3)));
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct EpdRecord {
    /// The position.
    pub position: Chess,
    /// The result, White's view.
    pub result: f64,
    /// The score in centipawns, White's view, if the line has one.
    pub score: Option<f32>,
    /// The game id, if the line has a `game` operation.
    pub game: Option<u32>,
}

/// Parses one line. `Ok(None)` for blank and comment lines; `Err` says what is wrong.
///
/// ```
/// use data::epd::{parse_line, EpdOptions};
///
/// let rec = parse_line(
///     "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c9 \"1/2-1/2\"; ce 20;",
///     &EpdOptions::default(),
/// )?.expect("a record");
/// assert_eq!(rec.result, 0.5);
/// assert_eq!(rec.score, Some(-20.0)); // ce is the side to move's view: Black's here
/// assert!(parse_line("not a fen [1.0]", &EpdOptions::default()).is_err());
/// # Ok::<(), String>(())
/// ```
pub fn parse_line(line: &str, opts: &EpdOptions) -> Result<Option<EpdRecord>, String> {
    let line = line.trim_start_matches('\u{feff}').trim();
    if line.is_empty() || line.starts_with('#') || line.starts_with("//") {
        return Ok(None);
    }
    let (fen_end, nfields) = fen_extent(line);
    if nfields < 2 {
        return Err(format!("not a FEN: {:?}", clip(line)));
    }
    let fen_text = &line[..fen_end];
    let position = parse_position(fen_text)?;
    let rest = &line[fen_end..];
    let Labels {
        result,
        score,
        game,
    } = parse_labels(rest)?;
    let Some(mut result) = result else {
        return Err(match rest.trim() {
            "" => "no result".to_string(),
            r => format!("no result in {:?}", clip(r)),
        });
    };
    let black = position.turn() == Color::Black;
    if opts.stm_results && black {
        result = 1.0 - result;
    }
    let score = score.map(|(s, pov)| {
        let stm = pov == Pov::SideToMove || opts.stm_results;
        if stm && black {
            -s
        } else {
            s
        }
    });
    Ok(Some(EpdRecord {
        position,
        result,
        score,
        game,
    }))
}

/// Parses a FEN or EPD position, detecting Chess960 castling rights; drops an invalid en
/// passant square or invalid castling rights rather than failing.
pub fn parse_position(fen: &str) -> Result<Chess, String> {
    let fen: Fen = Fen::from_ascii(fen.as_bytes()).map_err(|e| format!("bad FEN: {e}"))?;
    let setup: Setup = fen.into_setup();
    let mode = CastlingMode::detect(&setup);
    Chess::from_setup(setup, mode)
        .or_else(PositionError::ignore_invalid_ep_square)
        .or_else(PositionError::ignore_invalid_castling_rights)
        .map_err(|e| e.to_string()) // "illegal position: ..."
}

fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(60).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

/// Byte end of the FEN part of a line, and how many FEN fields it has. After the four EPD
/// fields, the next two tokens are the move counters only if both are integers.
fn fen_extent(line: &str) -> (usize, usize) {
    let toks: Vec<(usize, usize, &str)> = tokens_with_offsets(line).take(6).collect();
    let digits = |i: usize| {
        toks.get(i)
            .is_some_and(|t| !t.2.is_empty() && t.2.bytes().all(|b| b.is_ascii_digit()))
    };
    let mut fields = 0;
    for (i, &(_, _, tok)) in toks.iter().enumerate() {
        let ok = match i {
            0 => tok.contains('/'),
            1 => tok == "w" || tok == "b",
            2 => tok == "-" || tok.chars().all(|c| "KQkqABCDEFGHabcdefgh".contains(c)),
            3 => tok == "-" || is_square(tok),
            4 => digits(4) && digits(5),
            5 => true,
            _ => false,
        };
        if !ok {
            break;
        }
        fields += 1;
    }
    let end = if fields == 0 { 0 } else { toks[fields - 1].1 };
    (end, fields)
}

fn is_square(t: &str) -> bool {
    let b = t.as_bytes();
    b.len() == 2 && (b'a'..=b'h').contains(&b[0]) && (b'1'..=b'8').contains(&b[1])
}

fn tokens_with_offsets(s: &str) -> impl Iterator<Item = (usize, usize, &str)> {
    let mut pos = 0;
    std::iter::from_fn(move || {
        let rest = &s[pos..];
        let start = pos + (rest.len() - rest.trim_start().len());
        if start >= s.len() {
            return None;
        }
        let len = s[start..]
            .find(char::is_whitespace)
            .unwrap_or(s.len() - start);
        pos = start + len;
        Some((start, pos, &s[start..pos]))
    })
}

/// A line as [`read_epd`] parses it: nothing (blank or comment), a sample with the game id
/// the line gives, or what is wrong.
type ParsedLine = Result<Option<(Sample, Option<u32>)>, String>;

/// Lines parsed per parallel batch by [`read_epd`].
const BATCH_LINES: usize = 1 << 14;

/// Reads labelled positions from an EPD text stream (decompressed); `name` is used in error
/// locations (`name:line`). A line with a `game` operation (as [`write_epd`](crate::write_epd)
/// writes) keeps that game id; a line without one is a game of its own, numbered one past the
/// largest id read so far (so a file without `game` labels numbers its records 0, 1, 2, ...).
/// Lines are read in batches of 16,384 and parsed in parallel; the output keeps the file's
/// order.
///
/// ```
/// use data::{read_epd, LoadOptions};
///
/// let text = "8/8/8/8/8/8/8/K6k w - - [1.0]\nno fen here\n8/8/8/8/8/8/8/K6k b - - [0.5]; game 7;\n";
/// let (samples, report) = read_epd(text.as_bytes(), "<text>".as_ref(), &LoadOptions::default())?;
/// assert_eq!(samples.len(), 2);
/// assert_eq!((samples[0].game, samples[1].game), (0, 7));
/// assert_eq!(report.messages, vec!["<text>:2: not a FEN: \"no fen here\"".to_string()]);
/// # Ok::<(), data::DataError>(())
/// ```
pub fn read_epd(
    reader: impl BufRead,
    name: &Path,
    opts: &LoadOptions,
) -> Result<(Vec<Sample>, Report), DataError> {
    let mut batches = EpdBatches::new(reader, name, opts);
    let mut samples = Vec::new();
    while batches.next_batch(&mut samples)? {}
    Ok((samples, batches.report))
}

/// [`read_epd`] a batch of lines at a time: the same samples, game ids and report, the lines
/// of one batch parsed in parallel.
pub(crate) struct EpdBatches<R> {
    reader: R,
    name: std::path::PathBuf,
    opts: EpdOptions,
    strict: bool,
    /// The batch's text, with each line's number and byte range.
    text: Vec<u8>,
    lines: Vec<(u64, usize, usize)>,
    line_no: u64,
    /// The id of the next line without a `game` label: one past the largest id so far.
    next_game: u32,
    /// What was read so far.
    pub(crate) report: Report,
    eof: bool,
}

impl<R: BufRead> EpdBatches<R> {
    pub(crate) fn new(reader: R, name: &Path, opts: &LoadOptions) -> Self {
        EpdBatches {
            reader,
            name: name.to_path_buf(),
            opts: EpdOptions {
                stm_results: opts.stm_results,
            },
            strict: opts.strict,
            text: Vec::with_capacity(BATCH_LINES * 80),
            lines: Vec::with_capacity(BATCH_LINES),
            line_no: 0,
            next_game: 0,
            report: Report::default(),
            eof: false,
        }
    }

    /// Reads and parses the next batch of lines (up to 16,384), appending their samples to
    /// `out`; `false` once the text is done (nothing appended).
    pub(crate) fn next_batch(&mut self, out: &mut Vec<Sample>) -> Result<bool, DataError> {
        if self.eof {
            return Ok(false);
        }
        let name = &self.name;
        while self.lines.len() < BATCH_LINES {
            let start = self.text.len();
            let n = self
                .reader
                .read_until(b'\n', &mut self.text)
                .map_err(|e| DataError::io(name, e))?;
            if n == 0 {
                self.eof = true;
                break;
            }
            self.line_no += 1;
            self.lines.push((self.line_no, start, self.text.len()));
        }
        let (text, epd_opts) = (&self.text, &self.opts);
        let parsed: Vec<(u64, ParsedLine)> = self
            .lines
            .par_iter()
            .map(|&(ln, a, b)| {
                let rec = match std::str::from_utf8(&text[a..b]) {
                    Ok(line) => parse_line(line, epd_opts).map(|r| {
                        r.map(|r| {
                            let s = Sample::from_position(&r.position, r.result, r.score, 0);
                            (s, r.game)
                        })
                    }),
                    Err(_) => Err("not valid UTF-8".to_string()),
                };
                (ln, rec)
            })
            .collect();
        let report = &mut self.report;
        for (ln, rec) in parsed {
            match rec {
                Ok(None) => {}
                Ok(Some((mut s, game))) => {
                    report.read += 1;
                    s.game = game.unwrap_or(self.next_game);
                    self.next_game = self.next_game.max(s.game.saturating_add(1));
                    report.keep(s.result, s.score.is_some());
                    out.push(s);
                }
                Err(message) => {
                    report.read += 1;
                    let location = format!("{}:{ln}", name.display());
                    if self.strict {
                        return Err(DataError::Input { location, message });
                    }
                    report.error(location, message);
                }
            }
        }
        self.text.clear();
        self.lines.clear();
        Ok(true)
    }
}

/// Reads an EPD text stream line by line (a multi-gigabyte file is never held whole).
///
/// ```
/// use data::epd::{EpdOptions, EpdReader};
///
/// let text = "8/8/8/8/8/8/8/K6k w - - [1.0]\nbad line\n8/8/8/8/8/8/8/K6k b - - [0]";
/// let mut reader = EpdReader::new(text.as_bytes(), EpdOptions::default());
/// let mut ok = 0;
/// let mut bad = Vec::new();
/// while let Some((line, rec)) = reader.next_record()? {
///     match rec {
///         Ok(_) => ok += 1,
///         Err(e) => bad.push(line),
///     }
/// }
/// assert_eq!((ok, bad), (2, vec![2]));
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct EpdReader<R> {
    reader: R,
    opts: EpdOptions,
    line: u64,
    buf: Vec<u8>,
}

impl<R: BufRead> EpdReader<R> {
    /// Wraps a buffered reader.
    pub fn new(reader: R, opts: EpdOptions) -> EpdReader<R> {
        EpdReader {
            reader,
            opts,
            line: 0,
            buf: Vec::with_capacity(256),
        }
    }

    /// The next non-blank, non-comment line: its 1-based number and the record or what is
    /// wrong with it. `Ok(None)` at the end; `Err` only for an I/O error.
    pub fn next_record(&mut self) -> std::io::Result<Option<(u64, Result<EpdRecord, String>)>> {
        loop {
            self.buf.clear();
            let n = self.reader.read_until(b'\n', &mut self.buf)?;
            if n == 0 {
                return Ok(None);
            }
            self.line += 1;
            let parsed = match std::str::from_utf8(&self.buf) {
                Ok(text) => parse_line(text, &self.opts),
                Err(_) => Err("not valid UTF-8".to_string()),
            };
            match parsed {
                Ok(None) => continue,
                Ok(Some(rec)) => return Ok(Some((self.line, Ok(rec)))),
                Err(e) => return Ok(Some((self.line, Err(e)))),
            }
        }
    }
}
