//! Shared test helpers: real positions from the repository's `fixtures/`, random weights,
//! colour flips.
#![allow(dead_code)]

use std::fs::File;
use std::io::BufReader;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::OnceLock;

use eval::Model;
use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

/// The repository's `fixtures/` folder (slices of the shared data: the quiet 1k EPD set and the
/// first TCEC standard and Chess960 games; `fixtures/README.md`). Panics, naming the path, when
/// it is incomplete.
pub fn data_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    assert!(
        dir.join("quiet-labeled-1k.epd").is_file(),
        "test fixtures not found in {} (fixtures/ is part of the repository)",
        dir.display()
    );
    dir
}

pub fn parse_fen(fen: &str) -> Chess {
    let f: Fen = fen.parse().unwrap_or_else(|e| panic!("bad FEN {fen}: {e}"));
    f.into_position(CastlingMode::Chess960)
        .unwrap_or_else(|e| panic!("illegal FEN {fen}: {e}"))
}

/// Every position of `quiet-labeled-1k.epd` (1000).
pub fn epd_positions() -> Vec<Chess> {
    let path = data_dir().join("quiet-labeled-1k.epd");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let fen = line
                .split(" c9 ")
                .next()
                .unwrap_or_else(|| panic!("no FEN in line {line}"));
            // EPD has four fields; add the move counters.
            parse_fen(&format!("{fen} 0 1"))
        })
        .collect()
}

/// Collects every `every`-th position of each game's main line (from ply `skip` on).
struct Sampler {
    every: usize,
    skip: usize,
}

impl Visitor for Sampler {
    type Tags = Option<Chess>;
    type Movetext = (Chess, usize, Vec<Chess>);
    type Output = Vec<Chess>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(None)
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        if name == b"FEN" {
            let fen = String::from_utf8_lossy(value.as_bytes()).to_string();
            *tags = Some(parse_fen(&fen));
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        ControlFlow::Continue((tags.unwrap_or_default(), 0, Vec::new()))
    }

    fn san(&mut self, mt: &mut Self::Movetext, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        let (pos, ply, out) = mt;
        match san_plus.san.to_move(pos) {
            Ok(m) => {
                pos.play_unchecked(m);
                *ply += 1;
                if *ply >= self.skip && (*ply - self.skip).is_multiple_of(self.every) {
                    out.push(pos.clone());
                }
                ControlFlow::Continue(())
            }
            Err(e) => panic!("illegal move {san_plus} in test PGN: {e}"),
        }
    }

    fn end_game(&mut self, mt: Self::Movetext) -> Self::Output {
        mt.2
    }
}

/// Up to `max` positions sampled from a zstd PGN file of the fixtures.
pub fn pgn_positions(file: &str, max: usize, every: usize) -> Vec<Chess> {
    let path = data_dir().join(file);
    let f = File::open(&path).unwrap_or_else(|e| panic!("cannot open {}: {e}", path.display()));
    let decoder = zstd::Decoder::new(BufReader::new(f))
        .unwrap_or_else(|e| panic!("cannot decompress {}: {e}", path.display()));
    let mut reader = Reader::new(decoder);
    let mut sampler = Sampler { every, skip: 10 };
    let mut out = Vec::new();
    while out.len() < max {
        match reader.read_game(&mut sampler) {
            Ok(Some(positions)) => out.extend(positions),
            Ok(None) => break,
            Err(e) => panic!("cannot read {}: {e}", path.display()),
        }
    }
    out.truncate(max);
    out
}

/// A fixed mix of real positions: 400 from the quiet EPD set, 300 from standard TCEC games and
/// 100 from Chess960 games (800 in all). Loaded once per test binary.
pub fn positions() -> &'static [Chess] {
    static POSITIONS: OnceLock<Vec<Chess>> = OnceLock::new();
    POSITIONS.get_or_init(|| {
        let mut v: Vec<Chess> = epd_positions().into_iter().take(400).collect();
        v.extend(pgn_positions("tcec-standard-300.pgn.zst", 300, 9));
        v.extend(pgn_positions("tcec-chess960-50.pgn.zst", 100, 11));
        assert_eq!(v.len(), 800, "expected 800 real positions");
        v
    })
}

/// Random weights around the defaults: material and every unbounded parameter `init + U(-60, 60)`,
/// bounded parameters uniform in the middle of their range (away from the bounds, where the
/// phase clamp has kinks).
pub fn random_weights(model: &Model, seed: u64) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    model
        .params()
        .iter()
        .map(|p| match p.bounds {
            Some((lo, hi)) => {
                let span = hi - lo;
                rng.gen_range(lo + 0.1 * span..lo + 0.5 * span)
            }
            None => p.init + rng.gen_range(-60.0..60.0),
        })
        .collect()
}

/// The colour-flipped position: board mirrored vertically, colours, side to move, castling
/// rights and en-passant square swapped.
pub fn flip(pos: &Chess) -> Chess {
    let setup = pos.to_setup(EnPassantMode::Legal).into_mirrored();
    setup
        .position(CastlingMode::Chess960)
        .unwrap_or_else(|e| panic!("flipped position is illegal: {e}"))
}
