//! Measures how fast a binary cache of two million positions loads (plain and zstd).
//!
//! `cargo run --release -p data --example cache_speed [N]`
//!
//! Positions come from random playouts (legal, varied); the cache is written to a temporary
//! directory, then loaded three times and the best time printed.

use std::time::Instant;

use data::{load, write_cache, LoadOptions, Sample};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::{Chess, Position};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(2_000_000);
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut samples = Vec::with_capacity(n);
    let mut game = 0u32;
    while samples.len() < n {
        let mut pos = Chess::default();
        for _ in 0..rng.gen_range(20..120) {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[rng.gen_range(0..moves.len())];
            pos.play_unchecked(m);
            if samples.len() < n {
                let score = rng
                    .gen_bool(0.8)
                    .then(|| rng.gen_range(-500.0..500.0f32).round());
                let result = [0.0, 0.5, 1.0][rng.gen_range(0..3)];
                samples.push(Sample::from_position(&pos, result, score, game));
            }
        }
        game += 1;
    }
    let dir = tempfile::tempdir()?;
    for name in ["speed.bin", "speed.bin.zst"] {
        let path = dir.path().join(name);
        let t = Instant::now();
        write_cache(&path, &samples)?;
        let write_s = t.elapsed().as_secs_f64();
        let size = std::fs::metadata(&path)?.len();
        let mut best = f64::INFINITY;
        for _ in 0..3 {
            let t = Instant::now();
            let (back, report) = load(&path, &LoadOptions::default())?;
            best = best.min(t.elapsed().as_secs_f64());
            assert_eq!(back.len(), n, "{report}");
        }
        let t = Instant::now();
        let bytes = data::cache::read_cache_bytes(&path)?;
        let read_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let (back, _) = data::cache::from_bytes(&path, &bytes, false)?;
        let decode_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let ok = back.iter().filter(|s| s.board.check().is_ok()).count();
        let check_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let mut r = data::Report::default();
        for s in &back {
            r.keep(s.result, s.score.is_some());
        }
        let keep_s = t.elapsed().as_secs_f64();
        println!("  check alone {check_s:.3} s ({ok}), counting alone {keep_s:.3} s");
        drop(back);
        println!("  of which: read and decompress {read_s:.3} s, decode and check {decode_s:.3} s");
        println!(
            "{name}: {n} positions, {:.1} MB, written in {write_s:.2} s, loaded in {best:.3} s \
             (best of 3, {:.1} M positions/s)",
            size as f64 / 1e6,
            n as f64 / best / 1e6
        );
    }
    Ok(())
}
