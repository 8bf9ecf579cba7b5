//! The labels part of an EPD line (after the FEN): operations split into tokens, and the
//! result, score and game id they give, in every form the [module](super) table lists.

use fsutil::epd::Token;

/// Whose point of view a score label is given from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Pov {
    White,
    SideToMove,
}

/// Splits the labels part into `;`-separated operations, each into tokens; quoted strings
/// stay one token with their quotes ([`fsutil::epd::tokens`]).
fn operations(rest: &str) -> Vec<Vec<String>> {
    let mut ops = Vec::new();
    let mut tokens = Vec::new();
    for t in fsutil::epd::tokens(rest) {
        match t {
            Token::Word(w) => tokens.push(w.to_string()),
            Token::End => ops.push(std::mem::take(&mut tokens)),
        }
    }
    if !tokens.is_empty() {
        ops.push(tokens);
    }
    // A known opcode starts an operation even without a `;` before it (`[1.0] ce 35`).
    let mut split = Vec::with_capacity(ops.len());
    for op in ops {
        let mut cur: Vec<String> = Vec::new();
        for t in op {
            if !cur.is_empty() && is_known_opcode(&t) {
                split.push(std::mem::take(&mut cur));
            }
            cur.push(t);
        }
        split.push(cur);
    }
    split
}

/// The opcodes whose meaning the reader knows (compared without regard to case).
const KNOWN_OPCODES: [&str; 18] = [
    "c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9", "ce", "score", "eval", "cp",
    "result", "res", "wdl", "game",
];

fn is_known_opcode(t: &str) -> bool {
    // No allocation: this runs for every token of every line.
    let t = t.trim_end_matches([':', '=']);
    KNOWN_OPCODES.iter().any(|k| k.eq_ignore_ascii_case(t))
}

/// A result literal: `1-0`, `0-1`, `1/2-1/2`, `1/2`, or a number in `[0, 1]`, optionally in
/// quotes or brackets. `Ok(None)` if the token is no result at all; `Err` for a number in
/// brackets out of range.
fn parse_result(tok: &str) -> Result<Option<f64>, String> {
    let t = tok.trim_end_matches([',', ':']);
    let (inner, bracketed) = if let Some(x) = t.strip_prefix('[').and_then(|x| x.strip_suffix(']'))
    {
        (x.trim(), true)
    } else if let Some(x) = t.strip_prefix('"').and_then(|x| x.strip_suffix('"')) {
        (x.trim(), true)
    } else {
        (t, false)
    };
    let r = match inner {
        "1-0" => 1.0,
        "0-1" => 0.0,
        "1/2-1/2" | "1/2" | "½-½" | "=" => 0.5,
        _ => match inner.parse::<f64>() {
            Ok(x) if (0.0..=1.0).contains(&x) => x,
            Ok(x)
                if bracketed
                    && inner
                        .chars()
                        .all(|c| c.is_ascii_digit() || c == '.' || c == '-') =>
            {
                return Err(format!("result {x} out of [0, 1]"))
            }
            _ => return Ok(None),
        },
    };
    Ok(Some(r))
}

fn parse_number(tok: &str) -> Option<f32> {
    let t = tok.trim_matches(|c| c == '"' || c == ',' || c == ':');
    let x: f32 = t.parse().ok()?;
    x.is_finite().then_some(x)
}

fn set_result(slot: &mut Option<f64>, r: f64) -> Result<(), String> {
    match *slot {
        Some(old) if old != r => Err(format!("conflicting results {old} and {r}")),
        _ => {
            *slot = Some(r);
            Ok(())
        }
    }
}

/// What the labels part of a line says.
pub(super) struct Labels {
    pub(super) result: Option<f64>,
    pub(super) score: Option<(f32, Pov)>,
    pub(super) game: Option<u32>,
}

pub(super) fn parse_labels(rest: &str) -> Result<Labels, String> {
    let mut result = None;
    let mut score = None;
    let mut game = None;
    for op in operations(rest) {
        let Some(first) = op.first() else { continue };
        let is_opcode = first
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
            && first
                .trim_end_matches([':', '='])
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_');
        if is_opcode {
            let opcode = first.trim_end_matches([':', '=']).to_ascii_lowercase();
            let operands = &op[1..];
            match opcode.as_str() {
                "c0" | "c1" | "c2" | "c3" | "c4" | "c5" | "c6" | "c7" | "c8" | "c9" | "result"
                | "res" | "wdl" => {
                    for t in operands {
                        if let Some(r) = parse_result(t)? {
                            set_result(&mut result, r)?;
                        }
                    }
                }
                "ce" | "score" | "eval" | "cp" => {
                    let pov = if opcode == "ce" {
                        Pov::SideToMove
                    } else {
                        Pov::White
                    };
                    match operands.first().and_then(|t| parse_number(t)) {
                        Some(s) => score = Some((s, pov)),
                        None => return Err(format!("`{opcode}` without a number")),
                    }
                }
                "game" => match operands.first().map(|t| t.trim_matches('"').parse::<u32>()) {
                    Some(Ok(g)) => game = Some(g),
                    _ => return Err("`game` without a whole number (0 to 4294967295)".into()),
                },
                _ => {
                    // Unknown operation: only a quoted result among its operands counts.
                    for t in operands.iter().filter(|t| t.starts_with('"')) {
                        if let Ok(Some(r)) = parse_result(t) {
                            if t.len() > 3 {
                                set_result(&mut result, r)?;
                            }
                        }
                    }
                }
            }
        } else {
            for t in &op {
                match parse_result(t)? {
                    // An explicit result: quoted, bracketed or `1-0`-like.
                    Some(r) if t.starts_with(['"', '[']) || t.contains(['-', '/']) => {
                        set_result(&mut result, r)?
                    }
                    // A bare number in [0, 1]: the result if there is none yet.
                    Some(r) if result.is_none() => result = Some(r),
                    _ => {
                        if let (None, Some(x)) = (score, parse_number(t)) {
                            if !t.starts_with('"') {
                                score = Some((x, Pov::White));
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(Labels {
        result,
        score,
        game,
    })
}
