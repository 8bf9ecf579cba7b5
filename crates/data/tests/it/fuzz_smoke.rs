//! The fuzz targets' entry points (see `fuzz/` and `docs/fuzzing.md`) on a few thousand
//! random and mutated inputs (the same bodies, from `fuzz/checks.rs`): errors are fine, panics
//! are not. Runs on stable.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::checks;

const EPD_SEEDS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1 c9 \"1-0\"; ce 20;\n",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - [0.5] ; score -35\n",
    "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0.25 140\n",
    "4k3/8/8/8/8/8/8/R3K3 w Q - [1.0] ce 500; game 12;\n",
];

const PGN_SEED: &str = "[Event \"x\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n\
[FEN \"rqbknnrb/pppppppp/8/8/8/8/PPPPPPPP/RQBKNNRB w KQkq - 0 1\"]\n[Result \"1/2-1/2\"]\n\n\
1. d4 { book } 1... d5 { -0.25/24 } 2. c3 { +0.65/33 } 2... Nd6 (2... Nf6 3. g3) 3. g4 $1 \
{ +M3/34 } 3... c6 4. Bf4 a5 5. Qc2 g6 6. Nd3 Ne6 7. Bg3 Bg7 8. h4 O-O 1/2-1/2\n\n\
[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n";

use crate::mutator;

/// The format's own characters, for the mutator's replacements.
const ALPHABET: &[u8] = b" /\"-[];{}()0123456789.KQkqwbO-+#\n";

fn mutate(rng: &mut ChaCha8Rng, seed: &[u8]) -> Vec<u8> {
    mutator::mutate(rng, seed, ALPHABET)
}

#[test]
fn epd_reader_never_panics() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for i in 0..3000 {
        let bytes = if i % 5 == 0 {
            (0..rng.gen_range(0..200)).map(|_| rng.gen()).collect()
        } else {
            let seed = EPD_SEEDS[i % EPD_SEEDS.len()];
            mutate(&mut rng, seed.as_bytes())
        };
        checks::epd_reader(&bytes);
    }
}

#[test]
fn pgn_extractor_never_panics() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for i in 0..1500 {
        let bytes = if i % 5 == 0 {
            (0..rng.gen_range(0..300)).map(|_| rng.gen()).collect()
        } else {
            mutate(&mut rng, PGN_SEED.as_bytes())
        };
        checks::pgn_extractor(&bytes);
    }
}

#[test]
fn packed_boards_from_random_bytes_never_panic() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for _ in 0..20000 {
        let mut b = [0u8; data::PackedBoard::BYTES];
        rng.fill(&mut b[..]);
        // Random occupancy is mostly > 32 pieces; thin it out half the time.
        if rng.gen() {
            let occ: u64 = rng.gen::<u64>() & rng.gen::<u64>() & rng.gen::<u64>();
            b[..8].copy_from_slice(&occ.to_le_bytes());
        }
        let p = data::PackedBoard(b);
        let _ = p.phase();
        let _ = p.turn();
        let _ = p.pieces().count();
        if let Ok(pos) = p.to_position() {
            assert_eq!(
                data::PackedBoard::from_position(&pos)
                    .to_position()
                    .unwrap(),
                pos
            );
        }
    }
}

/// A small cache written by the library: the samples of the EPD seeds.
fn cache_seed() -> Vec<u8> {
    let text = EPD_SEEDS.concat();
    let (samples, _) = data::read_epd(
        text.as_bytes(),
        std::path::Path::new("<seed>"),
        &data::LoadOptions::default(),
    )
    .unwrap();
    assert_eq!(samples.len(), EPD_SEEDS.len());
    data::cache::to_bytes(&samples)
}

#[test]
fn cache_reader_never_panics() {
    let plain = cache_seed();
    let compressed = zstd::bulk::compress(&plain, 3).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    for i in 0..3000 {
        let bytes = match i % 6 {
            0 => (0..rng.gen_range(0..200)).map(|_| rng.gen()).collect(),
            1 => mutate(&mut rng, &compressed),
            _ => mutate(&mut rng, &plain),
        };
        checks::cache_reader(&bytes);
    }
    checks::cache_reader(&plain);
    checks::cache_reader(&compressed);
}

#[test]
fn weights_json_never_panics() {
    let model = eval::Model::new(eval::ModelKind::Psqt);
    let seed = eval::weights_to_json(&model, &model.default_weights());
    // A short file exercises the parser more per mutation than the whole table.
    let short = "{\"model\": \"psqt\", \"params\": {\"material.pawn.mg\": -1.5e2, \"x\": [null]}}";
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for i in 0..600 {
        let bytes = match i % 3 {
            0 => mutate(&mut rng, seed.as_bytes()),
            _ => mutate(&mut rng, short.as_bytes()),
        };
        checks::weights_json(&bytes);
    }
    checks::weights_json(seed.as_bytes());
}
