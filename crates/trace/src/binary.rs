//! The binary trace cache (`GTTRACE1`): compact, quick to read, written atomically.
//!
//! Little endian throughout. The header is the magic `GTTRACE1` and the record count (u64).
//! Each record:
//!
//! | bytes | field |
//! |---|---|
//! | 24 | packed board ([`data::PackedBoard`]) |
//! | 8 | result, f64 |
//! | 1 | flags: 1 score, 2 scale, 4 eval, 8 White to move |
//! | 4 + 4 + 4 | game u32, phase f32, const f32 |
//! | 4 each | score, scale, eval (f32), those the flags announce, in that order |
//! | 4 | coefficient count u32 |
//! | 6 or 12 each | index u32 with bit 31 set, then white and black as i8 (whole counts in -128..=127); or index u32, white f32, black f32 |
//! | 2 | feature count u16 |
//! | 10 each | feature index u16, white f32, black f32 |

use std::collections::VecDeque;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use data::PackedBoard;
use rayon::prelude::*;

use crate::read::{write_with, ReadOptions, ReadReport};
use crate::{Manifest, Trace, TraceError};

/// The magic at the start of a binary trace cache.
pub const MAGIC: &[u8; 8] = b"GTTRACE1";

const SMALL: u32 = 1 << 31;

/// Writes traces as a binary cache, atomically (zstd for `.zst`, gzip for `.gz`).
pub fn write_binary(path: &Path, traces: &[Trace]) -> Result<(), TraceError> {
    write_with(path, |w| {
        w.write_all(MAGIC)?;
        w.write_all(&(traces.len() as u64).to_le_bytes())?;
        let mut buf = Vec::with_capacity(256);
        for t in traces {
            buf.clear();
            encode(t, &mut buf);
            w.write_all(&buf)?;
        }
        w.flush()
    })
}

fn whole_i8(x: f32) -> bool {
    x.fract() == 0.0 && (-128.0..=127.0).contains(&x) && !(x == 0.0 && x.is_sign_negative())
}

fn encode(t: &Trace, b: &mut Vec<u8>) {
    b.extend_from_slice(&t.board.0);
    b.extend_from_slice(&t.result.to_le_bytes());
    let flags = u8::from(t.score.is_some())
        | u8::from(t.scale.is_some()) << 1
        | u8::from(t.eval.is_some()) << 2
        | u8::from(t.white_to_move) << 3;
    b.push(flags);
    b.extend_from_slice(&t.game.to_le_bytes());
    b.extend_from_slice(&t.phase.to_le_bytes());
    b.extend_from_slice(&t.constant.to_le_bytes());
    for x in [t.score, t.scale, t.eval].into_iter().flatten() {
        b.extend_from_slice(&x.to_le_bytes());
    }
    b.extend_from_slice(&(t.coeffs.len() as u32).to_le_bytes());
    for &(i, w, k) in &t.coeffs {
        if whole_i8(w) && whole_i8(k) && i < SMALL {
            b.extend_from_slice(&(i | SMALL).to_le_bytes());
            b.push(w as i8 as u8);
            b.push(k as i8 as u8);
        } else {
            b.extend_from_slice(&i.to_le_bytes());
            b.extend_from_slice(&w.to_le_bytes());
            b.extend_from_slice(&k.to_le_bytes());
        }
    }
    let nf = t.features.len().min(u16::MAX as usize);
    b.extend_from_slice(&(nf as u16).to_le_bytes());
    for &(k, w, x) in &t.features[..nf] {
        b.extend_from_slice(&k.to_le_bytes());
        b.extend_from_slice(&w.to_le_bytes());
        b.extend_from_slice(&x.to_le_bytes());
    }
}

/// A record's bytes being decoded from a buffer; `None` means the buffer ends inside it.
struct Cursor<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    #[inline]
    fn bytes<const N: usize>(&mut self) -> Option<[u8; N]> {
        let b = self.b.get(self.pos..self.pos + N)?;
        self.pos += N;
        b.try_into().ok()
    }
    #[inline]
    fn u32(&mut self) -> Option<u32> {
        self.bytes().map(u32::from_le_bytes)
    }
    #[inline]
    fn f32(&mut self) -> Option<f32> {
        self.bytes().map(f32::from_le_bytes)
    }
    /// Whether `n` more bytes are there.
    fn has(&self, n: usize) -> bool {
        self.b.len() - self.pos >= n
    }
}

/// Decodes one record at the start of `b` (the file's bytes only; [`check`] validates it):
/// the trace and its length in bytes, or `None` if `b` ends inside the record.
fn decode(b: &[u8]) -> Option<(Trace, usize)> {
    let mut c = Cursor { b, pos: 0 };
    let board = PackedBoard(c.bytes()?);
    let result = f64::from_le_bytes(c.bytes()?);
    let [flags] = c.bytes()?;
    let game = c.u32()?;
    let phase = c.f32()?;
    let constant = c.f32()?;
    let mut opt = |bit: u8| -> Option<Option<f32>> {
        if flags & bit != 0 {
            c.f32().map(Some)
        } else {
            Some(None)
        }
    };
    let (score, scale, eval) = (opt(1)?, opt(2)?, opt(4)?);
    let n = c.u32()? as usize;
    // Each coefficient takes 6 bytes at least: a count the buffer cannot hold allocates nothing.
    if !c.has(n.saturating_mul(6)) {
        return None;
    }
    let mut coeffs = Vec::with_capacity(n);
    for _ in 0..n {
        let i = c.u32()?;
        if i & SMALL != 0 {
            let [w, b] = c.bytes()?;
            coeffs.push((i & !SMALL, f32::from(w as i8), f32::from(b as i8)));
        } else {
            coeffs.push((i, c.f32()?, c.f32()?));
        }
    }
    let nf = u16::from_le_bytes(c.bytes()?) as usize;
    if !c.has(nf * 10) {
        return None;
    }
    let mut features = Vec::with_capacity(nf);
    for _ in 0..nf {
        features.push((u16::from_le_bytes(c.bytes()?), c.f32()?, c.f32()?));
    }
    let t = Trace {
        board,
        result,
        score,
        game,
        white_to_move: flags & 8 != 0,
        phase,
        scale,
        constant,
        eval,
        coeffs,
        features,
    };
    Some((t, c.pos))
}

/// What is wrong with a decoded record against the manifest, if anything.
fn check(t: &Trace, m: &Manifest) -> Result<(), String> {
    t.board.check().map_err(|e| format!("bad board: {e}"))?;
    if t.board.turn().is_white() != t.white_to_move {
        return Err("the side to move disagrees with the board".into());
    }
    if !(0.0..=1.0).contains(&t.result) {
        return Err(format!("result {} out of [0, 1]", t.result));
    }
    if !m.phase_ok(t.phase) {
        return Err(format!(
            "phase {} out of range ({})",
            t.phase,
            m.phase_range()
        ));
    }
    match (t.scale, m.scale_max) {
        (Some(_), None) => return Err("a scale, but the manifest declares no `scale`".into()),
        (Some(s), Some(max)) if !(0.0..=max as f32).contains(&s) => {
            return Err(format!("scale {s} out of range 0..={max}"))
        }
        _ => {}
    }
    let finite = [Some(t.constant), t.eval, t.score]
        .into_iter()
        .flatten()
        .all(f32::is_finite)
        && t.coeffs.iter().all(|c| c.1.is_finite() && c.2.is_finite())
        && t.features
            .iter()
            .all(|c| c.1.is_finite() && c.2.is_finite());
    if !finite {
        return Err("a value is not a finite number".into());
    }
    if let Some(c) = t.coeffs.iter().find(|c| c.0 as usize >= m.element_count()) {
        return Err(format!(
            "coefficient index {} beyond the manifest ({} elements)",
            c.0,
            m.element_count()
        ));
    }
    if t.coeffs.windows(2).any(|w| w[0].0 >= w[1].0) {
        return Err("coefficient indices not in increasing order".into());
    }
    if let Some(f) = t
        .features
        .iter()
        .find(|f| usize::from(f.0) >= m.features.len())
    {
        return Err(format!(
            "feature index {} beyond the manifest ({} features)",
            f.0,
            m.features.len()
        ));
    }
    if t.features.windows(2).any(|w| w[0].0 >= w[1].0) {
        return Err("feature indices not in increasing order".into());
    }
    Ok(())
}

/// Records decoded (then checked in parallel) at a time.
const BINARY_BATCH: usize = 1 << 13;

/// Bytes read from the file at a time (at least).
const READ_BYTES: usize = 1 << 20;

/// A binary cache being read (the reader at the magic).
pub(crate) struct BinarySource {
    reader: Box<dyn BufRead + Send>,
    path: PathBuf,
    /// Bytes read and not yet decoded, from `pos`.
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
    /// The header's record count, once read.
    count: Option<u64>,
    /// Records decoded so far.
    done: u64,
}

impl BinarySource {
    pub(crate) fn new(reader: Box<dyn BufRead + Send>, path: &Path) -> Self {
        BinarySource {
            reader,
            path: path.to_path_buf(),
            buf: Vec::new(),
            pos: 0,
            eof: false,
            count: None,
            done: 0,
        }
    }

    /// Reads at least [`READ_BYTES`] (or as many as `buf` holds) more bytes, dropping the
    /// decoded ones; `false` at the end of the file.
    fn more(&mut self) -> Result<bool, TraceError> {
        self.buf.drain(..self.pos);
        self.pos = 0;
        let want = self.buf.len() + READ_BYTES.max(self.buf.len());
        while self.buf.len() < want {
            let avail = self
                .reader
                .fill_buf()
                .map_err(|e| TraceError::io(&self.path, e))?;
            if avail.is_empty() {
                self.eof = true;
                return Ok(false);
            }
            let n = avail.len();
            self.buf.extend_from_slice(avail);
            self.reader.consume(n);
        }
        Ok(true)
    }

    /// The next up to [`BINARY_BATCH`] records, checked, into `out` (malformed ones counted in
    /// `report`, or the error with `strict`); `false` once the file is done.
    pub(crate) fn fill(
        &mut self,
        m: &Manifest,
        opts: &ReadOptions,
        report: &mut ReadReport,
        out: &mut VecDeque<Trace>,
    ) -> Result<bool, TraceError> {
        let name = self.path.display().to_string();
        let count = match self.count {
            Some(c) => c,
            None => {
                while self.buf.len() < 16 && self.more()? {}
                if self.buf.len() < 16 {
                    // The words of `read_exact`'s error, which this message has always quoted.
                    let msg = "truncated header (failed to fill whole buffer)".to_string();
                    report.bad(format!("{name}: header"), msg, opts.strict)?;
                    return Ok(false);
                }
                let c = u64::from_le_bytes(self.buf[8..16].try_into().unwrap_or_default());
                self.pos = 16;
                self.count = Some(c);
                c
            }
        };
        let mut batch = Vec::with_capacity(BINARY_BATCH);
        let mut truncated = false;
        while batch.len() < BINARY_BATCH && self.done < count {
            match decode(&self.buf[self.pos..]) {
                Some((t, len)) => {
                    self.pos += len;
                    self.done += 1;
                    batch.push((self.done, t));
                }
                None if self.eof => {
                    truncated = true;
                    break;
                }
                None => {
                    self.more()?;
                }
            }
        }
        let verdicts: Vec<Result<(), String>> =
            batch.par_iter().map(|(_, t)| check(t, m)).collect();
        for ((n, t), verdict) in batch.into_iter().zip(verdicts) {
            report.read += 1;
            match verdict {
                Ok(()) => out.push_back(t),
                Err(msg) => report.bad(format!("{name}: record {n}"), msg, opts.strict)?,
            }
        }
        if truncated {
            let n = self.done + 1;
            report.read += 1;
            let msg = format!("truncated: the file ends inside record {n} of {count}");
            report.bad(format!("{name}: record {n}"), msg, opts.strict)?;
            return Ok(false);
        }
        if self.done < count {
            return Ok(true);
        }
        if self.pos == self.buf.len() && !self.eof {
            self.more()?;
        }
        if self.pos < self.buf.len() {
            report.bad(
                format!("{name}: after record {count}"),
                "bytes after the last record (the header's count is wrong or the file is corrupt)"
                    .into(),
                opts.strict,
            )?;
        }
        Ok(false)
    }
}
