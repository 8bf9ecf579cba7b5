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

use std::io::{BufRead, Read};
use std::path::Path;

use data::PackedBoard;

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

/// A record's bytes being decoded; `None` means the file ended inside it.
struct Cursor<'a, R> {
    r: &'a mut R,
}

impl<R: Read> Cursor<'_, R> {
    fn bytes<const N: usize>(&mut self) -> std::io::Result<[u8; N]> {
        let mut b = [0u8; N];
        self.r.read_exact(&mut b)?;
        Ok(b)
    }
    fn u32(&mut self) -> std::io::Result<u32> {
        self.bytes().map(u32::from_le_bytes)
    }
    fn f32(&mut self) -> std::io::Result<f32> {
        self.bytes().map(f32::from_le_bytes)
    }
}

/// Decodes one record (the file's bytes only; [`check`] validates it).
fn decode<R: Read>(c: &mut Cursor<'_, R>) -> std::io::Result<Trace> {
    let board = PackedBoard(c.bytes()?);
    let result = f64::from_le_bytes(c.bytes()?);
    let [flags] = c.bytes()?;
    let game = c.u32()?;
    let phase = c.f32()?;
    let constant = c.f32()?;
    let mut opt = |bit: u8| -> std::io::Result<Option<f32>> {
        if flags & bit != 0 {
            c.f32().map(Some)
        } else {
            Ok(None)
        }
    };
    let (score, scale, eval) = (opt(1)?, opt(2)?, opt(4)?);
    let n = c.u32()? as usize;
    let mut coeffs = Vec::with_capacity(n.min(1 << 12));
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
    let mut features = Vec::with_capacity(nf);
    for _ in 0..nf {
        features.push((u16::from_le_bytes(c.bytes()?), c.f32()?, c.f32()?));
    }
    Ok(Trace {
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
    })
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

/// Reads a binary cache (the reader is at the magic).
pub(crate) fn read(
    mut reader: Box<dyn BufRead + Send>,
    path: &Path,
    m: &Manifest,
    opts: &ReadOptions,
    traces: &mut Vec<Trace>,
    report: &mut ReadReport,
) -> Result<(), TraceError> {
    let mut header = [0u8; 16];
    let loc = |n: u64| format!("{}: record {n}", path.display());
    if let Err(e) = reader.read_exact(&mut header) {
        return report.bad(
            format!("{}: header", path.display()),
            format!("truncated header ({e})"),
            opts.strict,
        );
    }
    let count = u64::from_le_bytes(header[8..].try_into().unwrap_or_default());
    let mut c = Cursor { r: &mut reader };
    for n in 1..=count {
        report.read += 1;
        match decode(&mut c) {
            Ok(t) => match check(&t, m) {
                Ok(()) => traces.push(t),
                Err(msg) => report.bad(loc(n), msg, opts.strict)?,
            },
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                let msg = format!("truncated: the file ends inside record {n} of {count}");
                return report.bad(loc(n), msg, opts.strict);
            }
            Err(e) => return Err(TraceError::io(path, e)),
        }
    }
    let mut extra = [0u8; 1];
    match reader.read(&mut extra) {
        Ok(0) => Ok(()),
        Ok(_) => report.bad(
            format!("{}: after record {count}", path.display()),
            "bytes after the last record (the header's count is wrong or the file is corrupt)"
                .into(),
            opts.strict,
        ),
        Err(e) => Err(TraceError::io(path, e)),
    }
}
