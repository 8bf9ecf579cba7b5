//! The trace text line: an EPD line with the trace operations `phase`, `scale`, `const`,
//! `eval`, `t` and `f` (see `docs/trace-format.md`), parsed and written.

use std::fmt::Write as _;

use data::epd::EpdOptions;
use data::PackedBoard;
use fsutil::epd::Token;
use shakmaty::{Color, Position};

use crate::{Manifest, ScoreConvention, Trace};

/// Parses one trace line against a manifest. `Ok(None)` for a blank line or a comment (`#`,
/// `//`); `Err` says which field is wrong (the caller adds `file:line`).
///
/// ```
/// # let m = trace::Manifest::from_json(r#"{"format": "gradtune-manifest", "version": 1,
/// #   "engine": "x", "score": "side_to_move", "phase": {"max": 24},
/// #   "params": [{"name": "material", "shape": [6], "value": [[82, 94], [337, 281],
/// #   [365, 297], [477, 512], [1025, 936], [0, 0]]}]}"#, "m.json")?;
/// let t = trace::parse_line(
///     "4k3/8/8/8/8/8/3P4/4K3 b - - c9 \"1-0\"; phase 0; eval -94; t 0:1:0",
///     &m,
/// )?.expect("a trace");
/// assert_eq!((t.result, t.phase, t.eval), (1.0, 0.0, Some(94.0))); // eval now White's view
/// assert_eq!(t.coeffs, vec![(0, 1.0, 0.0)]);
/// assert_eq!(m.evaluate(&t, &m.initial_weights()).unwrap(), 94.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn parse_line(line: &str, manifest: &Manifest) -> Result<Option<Trace>, String> {
    parse_line_game(line, manifest).map(|t| {
        t.map(|(t, g)| Trace {
            game: g.unwrap_or(0),
            ..t
        })
    })
}

/// [`parse_line`], also saying whether the line had a `game` operation. Allocates nothing
/// but the trace's own vectors: the operations are read from the line in place
/// ([`LineOps`]) into this thread's reused buffers.
pub(crate) fn parse_line_game(
    line: &str,
    m: &Manifest,
) -> Result<Option<(Trace, Option<u32>)>, String> {
    let line = line.trim_start_matches('\u{feff}').trim();
    if line.is_empty() || line.starts_with('#') || line.starts_with("//") {
        return Ok(None);
    }
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        parse_trace(line, m, &mut s).map(Some)
    })
}

/// Buffers reused from line to line (one set per thread).
#[derive(Default)]
struct Scratch {
    /// The FEN and the label operations, for the EPD reader.
    epd: String,
    coeffs: Vec<(u32, f32, f32)>,
    features: Vec<(u16, f32, f32)>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

/// A trace line that is not blank nor a comment, parsed with the buffers of `s`.
fn parse_trace(line: &str, m: &Manifest, s: &mut Scratch) -> Result<(Trace, Option<u32>), String> {
    let (fen, rest) = line.split_at(fen_end(line));
    s.epd.clear();
    s.epd.push_str(fen);
    s.epd.push(' ');
    s.coeffs.clear();
    s.features.clear();
    let mut ops = LineOps::new(m, &mut s.epd, &mut s.coeffs, &mut s.features);
    ops.read(rest)?;
    let LineOps { values, .. } = ops;
    let rec = data::epd::parse_line(&s.epd, &EpdOptions::default())?.ok_or("no position")?;
    let black = rec.position.turn() == Color::Black;
    let flip = |x: f32| {
        if black && m.score == ScoreConvention::SideToMove {
            -x
        } else {
            x
        }
    };
    let board = PackedBoard::from_position(&rec.position);
    let phase = match values.phase {
        Some(p) => p,
        None => match m.phase_pieces {
            Some(weights) => board_phase(&board, &weights, m.phase_max),
            None => {
                return Err("missing `phase` (required: the manifest gives no phase.pieces)".into())
            }
        },
    };
    let (coeffs, features) = (merge(&mut s.coeffs), merge(&mut s.features));
    let finite = coeffs.iter().all(|c| c.1.is_finite() && c.2.is_finite())
        && features.iter().all(|c| c.1.is_finite() && c.2.is_finite());
    if !finite {
        return Err("a repeated `t` index or `f` feature adds up to more than f32 holds".into());
    }
    let trace = Trace {
        board,
        result: rec.result,
        score: rec.score,
        game: 0,
        white_to_move: !black,
        phase,
        scale: values.scale,
        constant: flip(values.constant.unwrap_or(0.0)),
        eval: values.eval.map(flip),
        coeffs,
        features,
    };
    Ok((trace, rec.game))
}

/// The phase from the board: `min(max, sum of piece weights)`.
fn board_phase(board: &PackedBoard, weights: &[u32; 5], max: u32) -> f32 {
    let sum: u64 = board
        .pieces()
        .map(|(_, p)| match p.role as usize {
            r @ 1..=5 => u64::from(weights[r - 1]),
            _ => 0,
        })
        .sum();
    sum.min(u64::from(max)) as f32
}

/// Sorts `v` by index, adds up entries of equal index and drops entries that are zero for
/// both, in place; the result as a vector of exactly its length.
fn merge<I: Copy + Ord>(v: &mut Vec<(I, f32, f32)>) -> Vec<(I, f32, f32)> {
    v.sort_unstable_by_key(|c| c.0);
    let mut n = 0;
    for k in 0..v.len() {
        let (i, w, b) = v[k];
        if n > 0 && v[n - 1].0 == i {
            v[n - 1].1 += w;
            v[n - 1].2 += b;
        } else {
            v[n] = (i, w, b);
            n += 1;
        }
    }
    v.truncate(n);
    v.retain(|x| x.1 != 0.0 || x.2 != 0.0);
    v.as_slice().to_vec()
}

/// The trace values of one line (`phase`, `scale`, `const`, `eval`).
#[derive(Default)]
struct Values {
    phase: Option<f32>,
    scale: Option<f32>,
    constant: Option<f32>,
    eval: Option<f32>,
}

/// The operations after a line's FEN, read in place: split at `;` (outside quotes) and
/// before a trace opcode, each a list of tokens (quoted strings kept whole, with their
/// quotes). Trace operations fill `values`, `coeffs` and `features`; the others are appended
/// to `labels` (tokens joined by a space, each operation ended by `; `) for the EPD reader.
struct LineOps<'s, 'm, 'l> {
    m: &'m Manifest,
    labels: &'s mut String,
    coeffs: &'s mut Vec<(u32, f32, f32)>,
    features: &'s mut Vec<(u16, f32, f32)>,
    values: Values,
    /// The operation being read: its trace opcode (`None`: a label operation), its first
    /// operand and how many tokens it has.
    code: Option<&'static str>,
    first: Option<&'l str>,
    tokens: usize,
}

impl<'s, 'm, 'l> LineOps<'s, 'm, 'l> {
    fn new(
        m: &'m Manifest,
        labels: &'s mut String,
        coeffs: &'s mut Vec<(u32, f32, f32)>,
        features: &'s mut Vec<(u16, f32, f32)>,
    ) -> Self {
        LineOps {
            m,
            labels,
            coeffs,
            features,
            values: Values::default(),
            code: None,
            first: None,
            tokens: 0,
        }
    }

    /// Reads the operations of `rest` (the line after its FEN).
    fn read(&mut self, rest: &'l str) -> Result<(), String> {
        for t in fsutil::epd::tokens(rest) {
            match t {
                Token::Word(w) => self.token(w)?,
                Token::End => self.end_op()?,
            }
        }
        self.end_op()
    }

    fn token(&mut self, tok: &'l str) -> Result<(), String> {
        let opcode = trace_op(tok);
        if opcode.is_some() && self.tokens > 0 {
            self.end_op()?;
        }
        if self.tokens == 0 {
            self.code = opcode;
            if self.code.is_none() {
                self.labels.push_str(tok);
            }
        } else {
            match self.code {
                None => {
                    self.labels.push(' ');
                    self.labels.push_str(tok);
                }
                Some("t") => self.coefficient(tok)?,
                Some("f") => self.feature(tok)?,
                Some(_) => {
                    self.first.get_or_insert(tok);
                }
            }
        }
        self.tokens += 1;
        Ok(())
    }

    /// Ends the operation being read (nothing if it has no token).
    fn end_op(&mut self) -> Result<(), String> {
        let tokens = std::mem::take(&mut self.tokens);
        let first = self.first.take();
        match self.code.take() {
            _ if tokens == 0 => {}
            None => self.labels.push_str("; "),
            Some("t" | "f") => {}
            Some(code) => self.one_value(code, first, tokens - 1)?,
        }
        Ok(())
    }

    /// `phase`, `scale`, `const` or `eval` with its `args` operands (the first `first`).
    fn one_value(&mut self, code: &str, first: Option<&str>, args: usize) -> Result<(), String> {
        let v = &mut self.values;
        let slot = match code {
            "phase" => &mut v.phase,
            "scale" => &mut v.scale,
            "const" => &mut v.constant,
            _ => &mut v.eval,
        };
        if slot.is_some() {
            return Err(format!("`{code}` given twice"));
        }
        let x = match (first, args) {
            (Some(x), 1) => number(x).ok_or_else(|| format!("`{code}`: {x:?} is not a number"))?,
            (_, 0) => return Err(format!("`{code}` without a value")),
            _ => return Err(format!("`{code}` takes one value, found {args}")),
        };
        *slot = Some(match code {
            "phase" => check_phase(x, self.m)?,
            "scale" => check_scale(x, self.m)?,
            _ => x,
        });
        Ok(())
    }

    /// One operand of `t`: `index:white:black`.
    fn coefficient(&mut self, a: &str) -> Result<(), String> {
        let (i, w, b) = triple(a, "t")?;
        let i: u32 = i
            .parse()
            .map_err(|_| format!("`t` {a:?}: index {i:?} is not a whole number"))?;
        let n = self.m.element_count();
        if i as usize >= n {
            return Err(format!(
                "`t` {a:?}: index {i} beyond the manifest ({n} elements, 0..={})",
                n.saturating_sub(1)
            ));
        }
        self.coeffs.push((i, w, b));
        Ok(())
    }

    /// One operand of `f`: `name:white:black`.
    fn feature(&mut self, a: &str) -> Result<(), String> {
        let m = self.m;
        let (name, w, b) = triple(a, "f")?;
        let Some(k) = m.features.iter().position(|f| f == name) else {
            return Err(format!(
                "`f` {a:?}: unknown feature {name:?} (the manifest declares: {})",
                if m.features.is_empty() {
                    "none".to_string()
                } else {
                    m.features.join(", ")
                }
            ));
        };
        self.features.push((k as u16, w, b));
        Ok(())
    }
}

/// A trace's `phase` checked against the manifest: the one place a parsed phase is validated.
fn check_phase(p: f32, m: &Manifest) -> Result<f32, String> {
    if !m.phase_ok(p) {
        return Err(format!("`phase` {p} out of range ({})", m.phase_range()));
    }
    Ok(p)
}

/// A trace's `scale` checked against the manifest.
fn check_scale(s: f32, m: &Manifest) -> Result<f32, String> {
    let Some(max) = m.scale_max else {
        return Err("`scale` given, but the manifest declares no `scale`".into());
    };
    if !(0.0..=max as f32).contains(&s) {
        return Err(format!("`scale` {s} out of range 0..={max}"));
    }
    Ok(s)
}

/// The trace opcode `tok` is, if it is one (the operations a trace line adds to EPD).
fn trace_op(tok: &str) -> Option<&'static str> {
    Some(match tok {
        "phase" => "phase",
        "scale" => "scale",
        "const" => "const",
        "eval" => "eval",
        "t" => "t",
        "f" => "f",
        _ => return None,
    })
}

/// `key:white:black` with finite numbers.
fn triple<'a>(a: &'a str, code: &str) -> Result<(&'a str, f32, f32), String> {
    let colons = |s: &'a str| s.find(':').map(|k| (&s[..k], &s[k + 1..]));
    let parts = colons(a).and_then(|(key, rest)| {
        let (w, b) = colons(rest)?;
        (!b.contains(':')).then_some((key, w, b))
    });
    let Some((key, w, b)) = parts else {
        return Err(format!(
            "`{code}` {a:?}: expected {}:white:black",
            if code == "t" { "index" } else { "name" }
        ));
    };
    let w = number(w).ok_or_else(|| format!("`{code}` {a:?}: white {w:?} is not a number"))?;
    let b = number(b).ok_or_else(|| format!("`{code}` {a:?}: black {b:?} is not a number"))?;
    Ok((key, w, b))
}

/// A finite number: a whole number of up to 7 digits (an optional `-`) read directly (the
/// common case: exact in `f32`, as `parse` gives it), anything else by `parse`.
fn number(s: &str) -> Option<f32> {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    if (1..=7).contains(&digits.len()) && digits.bytes().all(|c| c.is_ascii_digit()) {
        let n = digits
            .bytes()
            .fold(0u32, |n, c| n * 10 + u32::from(c - b'0'));
        let x = n as f32;
        return Some(if neg { -x } else { x });
    }
    s.parse::<f32>().ok().filter(|x| x.is_finite())
}

/// Byte end of the FEN: its four EPD fields, then the move counters if the next two tokens
/// are both whole numbers.
fn fen_end(line: &str) -> usize {
    let mut toks = [(0usize, 0usize); 6];
    let mut n_toks = 0;
    let mut pos = 0;
    while n_toks < 6 {
        let rest = &line[pos..];
        let start = pos + (rest.len() - rest.trim_start().len());
        if start >= line.len() {
            break;
        }
        let len = line[start..]
            .find(char::is_whitespace)
            .unwrap_or(line.len() - start);
        pos = start + len;
        toks[n_toks] = (start, pos);
        n_toks += 1;
    }
    let toks = &toks[..n_toks];
    let digits = |k: usize| {
        toks.get(k)
            .is_some_and(|&(a, b)| line[a..b].bytes().all(|c| c.is_ascii_digit()))
    };
    let n = if digits(4) && digits(5) {
        6
    } else {
        toks.len().min(4)
    };
    toks.get(n.wrapping_sub(1)).map_or(0, |t| t.1)
}

/// One trace as a text line that [`parse_line`] reads back to an equal trace: the FEN, the
/// labels (`[result]`, `score` White's view, `game`), then the trace operations (`const` and
/// `eval` in the manifest's convention).
pub fn to_line(t: &Trace, m: &Manifest) -> String {
    let flip = |x: f32| {
        if !t.white_to_move && m.score == ScoreConvention::SideToMove {
            -x
        } else {
            x
        }
    };
    let mut s = format!("{} [{}];", t.fen(), t.result);
    if let Some(score) = t.score {
        let _ = write!(s, " score {score};");
    }
    let _ = write!(s, " game {}; phase {};", t.game, t.phase);
    if let Some(x) = t.scale {
        let _ = write!(s, " scale {x};");
    }
    if t.constant != 0.0 {
        let _ = write!(s, " const {};", flip(t.constant));
    }
    if let Some(e) = t.eval {
        let _ = write!(s, " eval {};", flip(e));
    }
    if !t.coeffs.is_empty() {
        s += " t";
        for (i, w, b) in &t.coeffs {
            let _ = write!(s, " {i}:{w}:{b}");
        }
        s += ";";
    }
    if !t.features.is_empty() {
        s += " f";
        for (k, w, b) in &t.features {
            let name = m.features.get(usize::from(*k)).map_or("?", String::as_str);
            let _ = write!(s, " {name}:{w}:{b}");
        }
        s += ";";
    }
    s
}

/// Joins an engine's answer to `trace` (`trace phase 17; eval 42; t 0:1:0 ...`) with the
/// position's FEN and label operations (`c9 "1-0"`, `[0.5]`, ...) into a trace text line,
/// checked by [`parse_line`]; `Err` says what is wrong with the answer.
pub fn parse_engine_answer(
    answer: &str,
    fen: &str,
    label_ops: &str,
    manifest: &Manifest,
) -> Result<String, String> {
    let answer = answer.trim();
    if answer.contains(['\n', '\r']) {
        return Err("the answer spans several lines".into());
    }
    let ops = match answer.strip_prefix("trace") {
        Some(rest) if rest.is_empty() || rest.starts_with(char::is_whitespace) => rest.trim(),
        _ => {
            return Err(format!(
                "the answer does not begin with `trace`: {:?}",
                clip(answer)
            ))
        }
    };
    let fen = fen.trim();
    let labels = label_ops.trim().trim_end_matches(';');
    let line = format!("{fen} {labels}; {ops}");
    match parse_line(&line, manifest)? {
        Some(_) => Ok(line),
        None => Err("no position".into()),
    }
}

fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(80).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}
