//! The trace fuzz targets' bodies (`fuzz/trace_checks.rs`, run by cargo-fuzz as
//! `trace_reader` and `expr_parser`) on a few thousand random and mutated inputs: errors are
//! fine, panics are not. Runs on stable.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::checks;

const LINES: &[&str] = &[
    "4k3/8/8/8/8/8/3P4/4K3 w - - c9 \"1-0\"; phase 17; scale 100; const -3; eval 42; t 0:1:0 7:0:1 14:2:1 28:1:0; f king_attackers:2:1 pawns:1:0\n",
    "r3k3/8/8/8/8/8/8/4K2R b Kq - 3 20 [0.5] ce 15; game 9; phase 3; eval -7.5; t 3:1:1 3:0:1 5:1:1\n",
    "# comment\n\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1 [0.25]; phase 24; t 23:0.5:-1e3; f pawns:8:8\n",
    "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0.5; phase 0; t 16:3:0 17:0:2 26:1:1; f king_attackers:7:0\n",
];

const EXPRS: &[&str] = &[
    "-max(s, 0) ^ 2 / 720 * ks_weight[king_attackers]",
    "sign(eg) * max(s - 30, -abs(eg))",
    "(mg * phase + eg * (phase_max - phase) * scale / scale_max) / phase_max",
    "clamp(s, -100, 1.5e2) + sigmoid(pawns / 4) * exp(-s / 50) - pst[1][pawns].eg",
    "tempo.mg * 2 - material[5].eg + ks_weight[king_attackers + 1 - pawns]",
];

use crate::mutator;

/// The format's own characters, for the mutator's replacements.
const ALPHABET: &[u8] = b" /\"-[];:()0123456789.e+*^,_KQkqwbtfsmgx#\n";

fn mutate(rng: &mut ChaCha8Rng, seed: &[u8]) -> Vec<u8> {
    mutator::mutate(rng, seed, ALPHABET)
}

#[test]
fn trace_reader_never_panics() {
    let mut rng = ChaCha8Rng::seed_from_u64(33);
    for i in 0..4000 {
        let bytes = if i % 5 == 0 {
            (0..rng.gen_range(0..200)).map(|_| rng.gen()).collect()
        } else {
            mutate(&mut rng, LINES[i % LINES.len()].as_bytes())
        };
        checks::trace_reader(&bytes);
    }
    // The seeds themselves are read (the check is not vacuous).
    for l in LINES {
        assert!(
            trace::parse_line(l.lines().last().unwrap(), checks::manifest())
                .unwrap()
                .is_some(),
            "{l}"
        );
    }
}

#[test]
fn expr_parser_never_panics() {
    let mut rng = ChaCha8Rng::seed_from_u64(34);
    for i in 0..4000 {
        let bytes = if i % 5 == 0 {
            (0..rng.gen_range(0..80)).map(|_| rng.gen()).collect()
        } else {
            mutate(&mut rng, EXPRS[i % EXPRS.len()].as_bytes())
        };
        checks::expr_parser(&bytes);
    }
    // Long chains and deep nesting are refused or evaluated, not a stack overflow.
    checks::expr_parser(("1+".repeat(999) + "1").as_bytes());
    checks::expr_parser(("(".repeat(500) + "1" + &")".repeat(500)).as_bytes());
    checks::expr_parser("-".repeat(1000).as_bytes());
}
