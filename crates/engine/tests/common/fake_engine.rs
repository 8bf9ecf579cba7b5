//! A tiny misbehaving UCI engine for the failure paths: a shell script, written by the test
//! into a directory, that answers like an engine (score `cp` = the length of the FEN it was
//! given, best move `g1f3` with White to move, `g8f6` with Black), except for positions whose
//! FEN contains a marker given on its command line as `MODE:TEXT`:
//!
//! * `hang:TEXT`: stops answering (`exec sleep 60`);
//! * `crash:TEXT`: prints `fake engine: crashed` on standard error and exits with code 3;
//! * `garbage:TEXT`: reports `score cp banana`;
//! * `badmove:TEXT`: answers `bestmove e2e5`;
//! * `nouciok:x`: never finishes the handshake (prints junk instead of `uciok`).
//!
//! Shared by the engine's and the `tune` binary's tests (`#[path]`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

const SCRIPT: &str = r#"#!/bin/sh
# A fake UCI engine for gradtune's tests (see crates/engine/tests/common/fake_engine.rs).
fen=""
while IFS= read -r line; do
  case "$line" in
    uci)
      for rule in "$@"; do
        case "$rule" in nouciok:*) echo "this is not uciok"; exec sleep 60;; esac
      done
      echo "id name fake engine"
      echo "uciok";;
    isready) echo "readyok";;
    "position fen "*)
      fen="${line#position fen }"
      fen="${fen% moves *}";;
    go*)
      for rule in "$@"; do
        mode="${rule%%:*}"
        text="${rule#*:}"
        case "$fen" in
          *"$text"*)
            case "$mode" in
              hang) exec sleep 60;;
              crash) echo "fake engine: crashed" >&2; exit 3;;
              garbage) echo "info depth 1 score cp banana"; echo "bestmove 0000"; continue 2;;
              badmove) echo "info depth 1 score cp 5"; echo "bestmove e2e5"; continue 2;;
            esac;;
        esac
      done
      case "$fen" in
        *" w "*) move=g1f3;;
        *) move=g8f6;;
      esac
      echo "info depth 1 score cp ${#fen} nodes 1"
      echo "bestmove $move";;
    quit) exit 0;;
  esac
done
"#;

/// Writes the fake engine into `dir` and returns the command line that runs it with `rules`
/// (e.g. `["hang:4P3"]`).
pub fn fake_engine(dir: &Path, rules: &[&str]) -> String {
    let path: PathBuf = dir.join("fake-engine.sh");
    std::fs::write(&path, SCRIPT).expect("write the fake engine");
    let mut cmd = format!("sh '{}'", path.display());
    for r in rules {
        cmd += &format!(" '{r}'");
    }
    cmd
}

/// The score the fake engine reports for a FEN (side to move's view): its length.
pub fn fake_score(fen: &str) -> i32 {
    fen.len() as i32
}
