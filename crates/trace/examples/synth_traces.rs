//! Synthetic traces of a 4ku-like evaluation, for measuring how fast traces load
//! (`scripts/trace-load-bench.sh`).
//!
//! ```text
//! cargo run --release -p trace --example synth_traces -- N DIR [--const] [--scale]
//! ```
//!
//! Writes `DIR/manifest.json` (150 tapered elements: material, rank and file tables per piece,
//! mobility per piece and count, passed pawns by rank, a few others; phase 0..=24 as 4ku
//! counts it, clamped) and `DIR/traces.txt`: `N` positions from random games (a game id per
//! game, ~30 nonzero coefficients a position), each with the engine's `eval` rebuilt from the
//! manifest so that verification passes. `--const` adds a small per-position constant,
//! `--scale` an endgame scale (0..=128), as 4ku's traces carry.

use std::io::Write;
use std::path::PathBuf;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::{Chess, Color, Position};
use trace::{Manifest, Trace};

/// Element offsets of the manifest's parameters.
const MATERIAL: u32 = 0;
const RANK: u32 = 6;
const FILE: u32 = 54;
const MOBILITY: u32 = 102;
const PASSED: u32 = 134;
const MISC: u32 = 142;

fn manifest_json(rng: &mut ChaCha8Rng, scale: bool) -> String {
    let mut pairs = |n: usize, base: i32, spread: i32| -> String {
        let v: Vec<String> = (0..n)
            .map(|_| {
                let a = base + rng.gen_range(-spread..=spread);
                let b = base + rng.gen_range(-spread..=spread);
                format!("[{a}, {b}]")
            })
            .collect();
        v.join(", ")
    };
    let material = "[100, 120], [320, 300], [330, 310], [500, 520], [950, 980], [0, 0]";
    let rank = pairs(48, 0, 20);
    let file = pairs(48, 0, 15);
    let mobility = pairs(32, 2, 6);
    let passed = pairs(8, 10, 30);
    let misc = pairs(8, 0, 25);
    let scale = if scale {
        r#", "scale": {"max": 128}"#
    } else {
        ""
    };
    format!(
        r#"{{"format": "gradtune-manifest", "version": 1, "engine": "synthetic-4ku-like",
  "score": "white", "phase": {{"max": 24}}{scale},
  "params": [
    {{"name": "material", "shape": [6], "value": [{material}]}},
    {{"name": "rank", "shape": [48], "value": [{rank}]}},
    {{"name": "file", "shape": [48], "value": [{file}]}},
    {{"name": "mobility", "shape": [32], "value": [{mobility}]}},
    {{"name": "passed", "shape": [8], "value": [{passed}]}},
    {{"name": "misc", "shape": [8], "value": [{misc}]}}
  ]}}
"#
    )
}

/// The coefficients of a position: (element, white count, black count), unsorted.
fn coefficients(pos: &Chess, rng: &mut ChaCha8Rng, out: &mut Vec<(u32, f32, f32)>) {
    out.clear();
    let mut add = |i: u32, white: bool| match out.iter_mut().find(|c| c.0 == i) {
        Some(c) if white => c.1 += 1.0,
        Some(c) => c.2 += 1.0,
        None => out.push((i, f32::from(u8::from(white)), f32::from(u8::from(!white)))),
    };
    for (sq, piece) in pos.board().clone() {
        let r = piece.role as u32 - 1;
        let white = piece.color == Color::White;
        let rank = if white {
            sq.rank() as u32
        } else {
            7 - sq.rank() as u32
        };
        add(MATERIAL + r, white);
        add(RANK + r * 8 + rank, white);
        add(FILE + r * 8 + sq.file() as u32, white);
        if (1..=4).contains(&r) {
            add(MOBILITY + (r - 1) * 8 + rng.gen_range(0..8), white);
        }
        if r == 0 && rng.gen_bool(0.15) {
            add(PASSED + rank, white);
        }
    }
    for _ in 0..2 {
        add(MISC + rng.gen_range(0..8), rng.gen_bool(0.5));
    }
    out.retain(|c| c.0 >= RANK + 5 * 8 || c.0 < RANK); // no material of the kings
    out.retain(|c| c.0 != MATERIAL + 5);
}

/// 4ku's phase: knights and bishops 1, rooks 2, queens 4 (clamped to 24).
fn phase(pos: &Chess) -> f32 {
    let b = pos.board();
    let n = b.knights().count() + b.bishops().count() + 2 * b.rooks().count();
    (n + 4 * b.queens().count()).min(24) as f32
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(n), Some(dir)) = (args.first(), args.get(1)) else {
        return Err("usage: synth_traces N DIR [--const] [--scale]".into());
    };
    let n: usize = n.parse()?;
    let dir = PathBuf::from(dir);
    let (with_const, with_scale) = (
        args.iter().any(|a| a == "--const"),
        args.iter().any(|a| a == "--scale"),
    );
    std::fs::create_dir_all(&dir)?;
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let json = manifest_json(&mut rng, with_scale);
    std::fs::write(dir.join("manifest.json"), &json)?;
    let m = Manifest::from_json(&json, "manifest.json")?;
    let w = m.initial_weights();
    let mut out = std::io::BufWriter::new(std::fs::File::create(dir.join("traces.txt"))?);
    writeln!(
        out,
        "# gradtune traces v1 for engine \"synthetic-4ku-like\""
    )?;
    let (mut written, mut game) = (0usize, 0u32);
    let mut coeffs = Vec::new();
    while written < n {
        let result = f64::from(rng.gen_range(0..3u8)) / 2.0;
        let mut pos = Chess::default();
        for ply in 0..rng.gen_range(20..160) {
            let moves = pos.legal_moves();
            if moves.is_empty() || written == n {
                break;
            }
            let mv = moves[rng.gen_range(0..moves.len())];
            pos.play_unchecked(mv);
            if ply < 8 {
                continue;
            }
            coefficients(&pos, &mut rng, &mut coeffs);
            coeffs.sort_unstable_by_key(|c| c.0);
            let mut t = Trace {
                board: data::PackedBoard::from_position(&pos),
                result,
                score: None,
                game,
                white_to_move: pos.turn() == Color::White,
                phase: phase(&pos),
                scale: with_scale.then(|| {
                    if rng.gen_bool(0.8) {
                        128.0
                    } else {
                        f32::from(rng.gen_range(0..128u8))
                    }
                }),
                constant: if with_const {
                    f32::from(rng.gen_range(-20i8..=20))
                } else {
                    0.0
                },
                eval: None,
                coeffs: coeffs.clone(),
                features: Vec::new(),
            };
            t.eval = Some(m.evaluate::<f64>(&t, &w)?.round() as f32);
            writeln!(out, "{}", trace::to_line(&t, &m))?;
            written += 1;
        }
        game += 1;
    }
    out.flush()?;
    eprintln!("{written} traces of {game} games in {}", dir.display());
    Ok(())
}
