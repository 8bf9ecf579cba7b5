//! Test data: random positions from random playouts, the real positions of the fixtures, and
//! the shared folder for the tests ignored by default.
#![allow(dead_code)]

// `fixture(file)`: the data crate's helper, one copy for every crate's tests.
#[path = "../../../data/tests/common/mod.rs"]
mod data_common;
pub use data_common::fixture;

use std::path::PathBuf;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::{Chess, Position};
use tapered::Target;

/// `n` distinct-ish positions reached by random legal moves from the start (2 to 120 plies),
/// none in check and none game over.
pub fn random_positions(n: usize, seed: u64) -> Vec<Chess> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let plies = rng.gen_range(2..120);
        let mut pos = Chess::default();
        let mut ok = true;
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                ok = false;
                break;
            }
            let m = moves[rng.gen_range(0..moves.len())];
            pos.play_unchecked(m);
        }
        if ok && !pos.is_check() && !pos.is_game_over() {
            out.push(pos);
        }
    }
    out
}

/// `n` labelled samples: every position of random games (up to `plies` plies each, one game id
/// per game), each game's result at random. Game after game, as real data comes.
pub fn random_games(n: usize, plies: usize, seed: u64) -> Vec<data::Sample> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    let mut game = 0;
    while out.len() < n {
        let result = [0.0, 0.5, 1.0][rng.gen_range(0..3)];
        let mut pos = Chess::default();
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() || out.len() == n {
                break;
            }
            let m = moves[rng.gen_range(0..moves.len())];
            pos.play_unchecked(m);
            out.push(data::Sample::from_position(&pos, result, None, game));
        }
        game += 1;
    }
    out
}

/// A file of the shared folder beside the checkout (`data/FILE` or `reference/FILE`), for the
/// tests ignored by default: under `$GRADTUNE_SHARED_DATA/..` when that is set, else
/// `../shared`. Panics, naming the path, when it is missing.
pub fn shared(file: &str) -> PathBuf {
    let data = std::env::var_os("GRADTUNE_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data"))
        });
    let path = data.join("..").join(file);
    assert!(
        path.is_file(),
        "{} is missing: this test needs the shared folder beside the repository \
         (../shared/data, or GRADTUNE_SHARED_DATA set to it)",
        path.display()
    );
    path
}

/// The first `n` decodable positions of the TCEC fixture's games (the first 300 games of the
/// shared file; from the first `bytes` bytes of the decompressed PGN), as extracted by
/// default; panics, saying so, if short.
pub fn tcec_samples(n: usize, bytes: u64) -> Vec<data::Sample> {
    use std::io::Read;
    let path = fixture("tcec-standard-300.pgn.zst");
    let (reader, _) = fsutil::source::open(&path).expect("the TCEC fixture");
    let (samples, _) =
        data::extract_pgn_reader(reader.take(bytes), &path, &data::ExtractOptions::default())
            .expect("PGN");
    let out: Vec<data::Sample> = samples
        .into_iter()
        .filter(|s| s.position().is_ok())
        .take(n)
        .collect();
    assert_eq!(out.len(), n, "too few TCEC positions");
    out
}

/// The 1000 labelled quiet positions of the fixtures.
pub fn quiet_1k() -> Vec<(Chess, Target)> {
    let path = fixture("quiet-labeled-1k.epd");
    let (samples, _) = data::load(&path, &data::LoadOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    samples
        .iter()
        .map(|s| {
            (
                s.position().expect("valid position"),
                Target {
                    value: s.result,
                    score: s.score,
                    group: s.game,
                },
            )
        })
        .collect()
}

/// Fresh value and gradient of `model.evaluate(pos)` at `w`, by a tape recording.
pub fn fresh(model: &eval::Model, pos: &Chess, w: &[f64]) -> (f64, Vec<f64>) {
    let mut tape = tape::Tape::new();
    tape.record(|rec| {
        let vars = rec.inputs(w);
        let q = model.evaluate(pos, &vars);
        let mut g = vec![0.0; w.len()];
        rec.gradient(q, &mut g);
        (tape::Scalar::value(&q), g)
    })
}

/// `a` and `b` agree to 1e-9 relative to `scale` (at least 1): the replay tolerance.
pub fn close(a: f64, b: f64, scale: f64) -> bool {
    (a - b).abs() <= 1e-9 * scale.max(1.0)
}

/// Every component of `got` is [`close`] to `want`'s, relative to the largest of `want`.
pub fn assert_gradients_close(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: gradient lengths");
    let scale = want.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    for (j, (&a, &b)) in got.iter().zip(want).enumerate() {
        assert!(close(a, b, scale), "{what} d/dw{j}: {a} against {b}");
    }
}
