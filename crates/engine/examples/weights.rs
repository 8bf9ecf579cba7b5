//! Write a weights file for `tune match` or `gradtune-uci`: the default (material-only)
//! weights of a model, optionally with a few hand-tweaked terms.
//!
//! ```sh
//! cargo run --release -p engine --example weights -- psqt default.json
//! cargo run --release -p engine --example weights -- psqt tweaked.json --tweak
//! ```
//!
//! `--tweak` adds a small centralisation bonus for knights and pawns in the middlegame (by
//! parameter name, so it works for both models).

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(kind), Some(out)) = (args.first(), args.get(1)) else {
        eprintln!("usage: weights <psqt|full> <out.json> [--tweak]");
        return ExitCode::FAILURE;
    };
    let kind = match eval::ModelKind::ALL.iter().find(|k| k.name() == kind) {
        Some(&k) => k,
        None => {
            eprintln!("unknown model `{kind}` (psqt or full)");
            return ExitCode::FAILURE;
        }
    };
    let model = eval::Model::new(kind);
    let mut w = model.default_weights();
    if args.iter().any(|a| a == "--tweak") {
        let centre = ["d4", "e4", "d5", "e5"];
        let ring = [
            "c3", "d3", "e3", "f3", "c6", "d6", "e6", "f6", "c4", "c5", "f4", "f5",
        ];
        for (squares, bonus) in [(&centre[..], 20.0), (&ring[..], 10.0)] {
            for sq in squares {
                for piece in ["knight", "pawn"] {
                    if let Some(i) = model.index_of(&format!("pst.{piece}.mg.{sq}")) {
                        w[i] += bonus;
                    }
                }
            }
        }
    }
    match eval::save_weights(std::path::Path::new(out), &model, &w) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
