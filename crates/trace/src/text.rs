//! The trace text line: an EPD line with the trace operations `phase`, `scale`, `const`,
//! `eval`, `t` and `f` (see `docs/trace-format.md`), parsed and written.

use std::fmt::Write as _;

use data::epd::EpdOptions;
use data::PackedBoard;
use shakmaty::{Color, Position};

use crate::{Manifest, ScoreConvention, Trace};

/// The operations a trace line adds to EPD.
const TRACE_OPS: [&str; 6] = ["phase", "scale", "const", "eval", "t", "f"];

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

/// [`parse_line`], also saying whether the line had a `game` operation.
pub(crate) fn parse_line_game(
    line: &str,
    m: &Manifest,
) -> Result<Option<(Trace, Option<u32>)>, String> {
    let line = line.trim_start_matches('\u{feff}').trim();
    if line.is_empty() || line.starts_with('#') || line.starts_with("//") {
        return Ok(None);
    }
    let fen_end = fen_end(line);
    let (fen, rest) = line.split_at(fen_end);
    let mut labels = String::new();
    let mut ops = Ops::default();
    for op in operations(rest) {
        match op.first().map(String::as_str) {
            Some(code) if TRACE_OPS.contains(&code) => ops.take(code, &op[1..], m)?,
            Some(_) => {
                labels += &op.join(" ");
                labels += "; ";
            }
            None => {}
        }
    }
    let rec = data::epd::parse_line(&format!("{fen} {labels}"), &EpdOptions::default())?
        .ok_or("no position")?;
    let black = rec.position.turn() == Color::Black;
    let flip = |x: f32| {
        if black && m.score == ScoreConvention::SideToMove {
            -x
        } else {
            x
        }
    };
    let board = PackedBoard::from_position(&rec.position);
    let phase = match ops.phase {
        Some(p) => p,
        None => match m.phase_pieces {
            Some(weights) => board_phase(&board, &weights, m.phase_max),
            None => {
                return Err("missing `phase` (required: the manifest gives no phase.pieces)".into())
            }
        },
    };
    ops.coeffs.sort_unstable_by_key(|c| c.0);
    ops.features.sort_unstable_by_key(|c| c.0);
    let (coeffs, features) = (merge(ops.coeffs), merge(ops.features));
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
        scale: ops.scale,
        constant: flip(ops.constant.unwrap_or(0.0)),
        eval: ops.eval.map(flip),
        coeffs,
        features,
    };
    Ok(Some((trace, rec.game)))
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

/// Adds up entries of equal index (sorted input) and drops entries that are zero for both.
fn merge<I: Copy + PartialEq>(v: Vec<(I, f32, f32)>) -> Vec<(I, f32, f32)> {
    let mut out: Vec<(I, f32, f32)> = Vec::with_capacity(v.len());
    for (i, w, b) in v {
        match out.last_mut() {
            Some(last) if last.0 == i => {
                last.1 += w;
                last.2 += b;
            }
            _ => out.push((i, w, b)),
        }
    }
    out.retain(|x| x.1 != 0.0 || x.2 != 0.0);
    out.shrink_to_fit();
    out
}

/// The trace operations of one line.
#[derive(Default)]
struct Ops {
    phase: Option<f32>,
    scale: Option<f32>,
    constant: Option<f32>,
    eval: Option<f32>,
    coeffs: Vec<(u32, f32, f32)>,
    features: Vec<(u16, f32, f32)>,
}

impl Ops {
    fn take(&mut self, code: &str, args: &[String], m: &Manifest) -> Result<(), String> {
        let one = |slot: &Option<f32>| -> Result<f32, String> {
            if slot.is_some() {
                return Err(format!("`{code}` given twice"));
            }
            match args {
                [x] => number(x).ok_or_else(|| format!("`{code}`: {x:?} is not a number")),
                [] => Err(format!("`{code}` without a value")),
                _ => Err(format!("`{code}` takes one value, found {}", args.len())),
            }
        };
        match code {
            "phase" => {
                let p = one(&self.phase)?;
                if !m.phase_ok(p) {
                    return Err(format!("`phase` {p} out of range ({})", m.phase_range()));
                }
                self.phase = Some(p);
            }
            "scale" => {
                let s = one(&self.scale)?;
                let Some(max) = m.scale_max else {
                    return Err("`scale` given, but the manifest declares no `scale`".into());
                };
                if !(0.0..=max as f32).contains(&s) {
                    return Err(format!("`scale` {s} out of range 0..={max}"));
                }
                self.scale = Some(s);
            }
            "const" => self.constant = Some(one(&self.constant)?),
            "eval" => self.eval = Some(one(&self.eval)?),
            "t" => {
                for a in args {
                    let (i, w, b) = triple(a, "t")?;
                    let i: u32 = i
                        .parse()
                        .map_err(|_| format!("`t` {a:?}: index {i:?} is not a whole number"))?;
                    if i as usize >= m.element_count() {
                        return Err(format!(
                            "`t` {a:?}: index {i} beyond the manifest ({} elements, 0..={})",
                            m.element_count(),
                            m.element_count().saturating_sub(1)
                        ));
                    }
                    self.coeffs.push((i, w, b));
                }
            }
            _ => {
                for a in args {
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
                }
            }
        }
        Ok(())
    }
}

/// `key:white:black` with finite numbers.
fn triple<'a>(a: &'a str, code: &str) -> Result<(&'a str, f32, f32), String> {
    let mut parts = a.split(':');
    let (Some(key), Some(w), Some(b), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(format!(
            "`{code}` {a:?}: expected {}:white:black",
            if code == "t" { "index" } else { "name" }
        ));
    };
    let w = number(w).ok_or_else(|| format!("`{code}` {a:?}: white {w:?} is not a number"))?;
    let b = number(b).ok_or_else(|| format!("`{code}` {a:?}: black {b:?} is not a number"))?;
    Ok((key, w, b))
}

fn number(s: &str) -> Option<f32> {
    s.parse::<f32>().ok().filter(|x| x.is_finite())
}

/// Byte end of the FEN: its four EPD fields, then the move counters if the next two tokens
/// are both whole numbers.
fn fen_end(line: &str) -> usize {
    let mut toks = Vec::with_capacity(6);
    let mut pos = 0;
    while toks.len() < 6 {
        let rest = &line[pos..];
        let start = pos + (rest.len() - rest.trim_start().len());
        if start >= line.len() {
            break;
        }
        let len = line[start..]
            .find(char::is_whitespace)
            .unwrap_or(line.len() - start);
        pos = start + len;
        toks.push((start, pos));
    }
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

/// The operations after the FEN: split at `;` (outside quotes) and before a trace opcode;
/// each a list of tokens (quoted strings kept whole, with their quotes).
fn operations(rest: &str) -> Vec<Vec<String>> {
    let mut ops: Vec<Vec<String>> = Vec::new();
    let mut tokens: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut in_quote = false;
    let end_token = |cur: &mut String, tokens: &mut Vec<String>, ops: &mut Vec<Vec<String>>| {
        if cur.is_empty() {
            return;
        }
        if TRACE_OPS.contains(&cur.as_str()) && !tokens.is_empty() {
            ops.push(std::mem::take(tokens));
        }
        tokens.push(std::mem::take(cur));
    };
    for c in rest.chars() {
        match c {
            '"' => {
                cur.push(c);
                in_quote = !in_quote;
            }
            ';' if !in_quote => {
                end_token(&mut cur, &mut tokens, &mut ops);
                ops.push(std::mem::take(&mut tokens));
            }
            c if c.is_whitespace() && !in_quote => end_token(&mut cur, &mut tokens, &mut ops),
            c => cur.push(c),
        }
    }
    end_token(&mut cur, &mut tokens, &mut ops);
    ops.push(tokens);
    ops
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
