//! The models' layouts and extraction, pinned: checksums of every parameter (index, name, group,
//! default, bounds, integer flag, twin), of every position's linear sums (`Model::sums`, term by
//! term in order, and `Model::linear_terms`) and of both evaluations' bits on positions reached
//! by seeded random play, recorded with the implementation before the evaluation's terms became
//! one module each (commit `45d9c0f`). A refactoring of how terms are declared and extracted
//! must leave all of them as they were.
//!
//! Parameters of the groups added to `full` after that recording (`LATER_GROUPS` past its first
//! three, `threats`, `push_threats` and `outposts`) are left out: at 0, as here, they leave the
//! sums and the evaluations unchanged, which is what the checksums then show.

use eval::{Model, ModelKind, LATER_GROUPS};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shakmaty::{Chess, Position};

/// FNV-1a, 64 bits.
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn f64(&mut self, x: f64) {
        self.bytes(&x.to_bits().to_le_bytes());
    }

    fn u64(&mut self, x: u64) {
        self.bytes(&x.to_le_bytes());
    }
}

/// Whether parameter `i` of `model` belongs to a group added after the recording.
fn is_newer(model: &Model, i: usize) -> bool {
    LATER_GROUPS[3..].contains(&model.params()[i].group.as_str())
}

/// Positions of seeded random games from the start (every position of each game, up to 80
/// plies), so that every kind of term occurs: captures, promotions, open kings, endgames.
fn positions() -> Vec<Chess> {
    let mut rng = ChaCha8Rng::seed_from_u64(34);
    let mut out = Vec::new();
    for _ in 0..40 {
        let mut pos = Chess::default();
        for _ in 0..80 {
            out.push(pos.clone());
            let moves = pos.legal_moves();
            let Some(m) = moves.choose(&mut rng) else {
                break;
            };
            pos.play_unchecked(*m);
        }
    }
    out
}

fn params_checksum(model: &Model) -> (usize, u64) {
    let mut h = Fnv::new();
    let mut n = 0;
    for (i, p) in model.params().iter().enumerate() {
        if is_newer(model, i) {
            continue;
        }
        n += 1;
        h.u64(i as u64);
        h.bytes(p.name.as_bytes());
        h.bytes(b"/");
        h.bytes(p.group.as_bytes());
        h.f64(p.init);
        match p.bounds {
            Some((lo, hi)) => {
                h.bytes(b"b");
                h.f64(lo);
                h.f64(hi);
            }
            None => h.bytes(b"-"),
        }
        h.bytes(&[u8::from(p.integer)]);
        h.u64(p.twin.map_or(u64::MAX, |t| t as u64));
    }
    (n, h.0)
}

/// Weights with every parameter non-zero and irregular, but those added after the recording at
/// their defaults (0).
fn weights(model: &Model) -> Vec<f64> {
    model
        .params()
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if is_newer(model, i) {
                p.init
            } else if let Some((lo, hi)) = p.bounds {
                lo + (hi - lo) * (0.2 + 0.3 * ((i as f64) * 0.37).sin().abs())
            } else {
                p.init + 100.0 * ((i as f64) * 0.7 + 0.3).sin()
            }
        })
        .collect()
}

fn extraction_checksum(model: &Model, positions: &[Chess]) -> u64 {
    let w = weights(model);
    let mut h = Fnv::new();
    let mut sums = Vec::new();
    let mut linear = Vec::new();
    for pos in positions {
        let slow: f64 = model.evaluate(pos, &w);
        let fast = model.evaluate_f64(pos, &w);
        assert_eq!(slow.to_bits(), fast.to_bits());
        h.f64(slow);
        if model.sums(pos, &mut sums) {
            for sum in &sums {
                let kept = sum.iter().filter(|&&(i, _)| !is_newer(model, i as usize));
                for &(i, c) in kept {
                    h.u64(u64::from(i));
                    h.f64(c);
                }
                h.bytes(b";");
            }
        }
        if model.linear_terms(pos, &mut linear) {
            for &(i, c) in &linear {
                h.u64(u64::from(i));
                h.f64(c);
            }
        }
        h.bytes(b"|");
    }
    h.0
}

#[test]
fn parameters_are_as_recorded() {
    let psqt = params_checksum(&Model::new(ModelKind::Psqt));
    let full = params_checksum(&Model::new(ModelKind::Full));
    eprintln!("psqt {psqt:?}, full {full:?}");
    assert_eq!(psqt, (778, 11150579377346916627));
    assert_eq!(full, (1024, 8802684871068326214));
}

#[test]
fn extraction_and_evaluation_are_as_recorded() {
    let positions = positions();
    let psqt = extraction_checksum(&Model::new(ModelKind::Psqt), &positions);
    let full = extraction_checksum(&Model::new(ModelKind::Full), &positions);
    eprintln!("{} positions: psqt {psqt}, full {full}", positions.len());
    assert_eq!(
        (positions.len(), psqt, full),
        (3164, 7334288857018541551, 7134243034767759833)
    );
}
