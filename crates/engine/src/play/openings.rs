//! Openings for self-play and matches: random legal moves from the start position (seeded,
//! reproducible), or positions read from an EPD/FEN file.

use std::path::Path;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, FromSetup, Move, Position};

use crate::error::EngineError;
use crate::search::evaluator::Evaluator;
use crate::search::limits::SearchLimits;
use crate::search::searcher::Searcher;

/// A starting point for a game: a root position and moves played from it.
#[derive(Clone, Debug, PartialEq)]
pub struct Opening {
    /// The root position (the standard start, or a position from a file).
    pub root: Chess,
    /// Moves played from `root` before the engines take over.
    pub moves: Vec<Move>,
    /// The position after `moves`.
    pub position: Chess,
}

impl Opening {
    /// An opening with no moves from `root`.
    pub fn from_position(root: Chess) -> Self {
        Self {
            position: root.clone(),
            root,
            moves: Vec::new(),
        }
    }
}

/// How random openings are made.
#[derive(Clone, Debug)]
pub struct RandomOpenings {
    /// Master seed.
    pub seed: u64,
    /// Random plies from the start position.
    pub plies: u32,
    /// Openings whose quiescence score (side to move) exceeds this in absolute value are
    /// rejected and redrawn.
    pub max_eval: f64,
    /// When set, openings where a search to this depth finds a forced mate (for either side)
    /// are rejected and redrawn too: a game from such an opening yields no labelled positions.
    /// `None` (the default) keeps the generator that made `data/default.gtc.zst`, so its
    /// command still reproduces the file; an opening that passes the check is the same
    /// either way.
    pub mate_check_depth: Option<u32>,
}

impl Default for RandomOpenings {
    fn default() -> Self {
        Self {
            seed: 1,
            plies: 8,
            max_eval: 200.0,
            mate_check_depth: None,
        }
    }
}

/// The random generator for item `index` of a run seeded with `seed`: one ChaCha8 stream per
/// index, so results do not depend on the order or the thread that asks.
pub fn rng_for(seed: u64, index: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(index);
    rng
}

impl RandomOpenings {
    /// Opening number `index`: `plies` uniformly random legal moves from the start position,
    /// redrawn (from the same stream) until the position is playable and roughly balanced
    /// (and, with [`mate_check_depth`](Self::mate_check_depth), free of a forced mate). After
    /// 1,000 draws, the first playable one that passed the mate check is used, else the start
    /// position.
    ///
    /// ```
    /// use engine::play::openings::RandomOpenings;
    /// use engine::MaterialEvaluator;
    /// let r = RandomOpenings::default();
    /// let a = r.opening(7, &MaterialEvaluator);
    /// assert_eq!(a, r.opening(7, &MaterialEvaluator));
    /// assert_eq!(a.moves.len(), 8);
    /// ```
    pub fn opening<E: Evaluator + ?Sized>(&self, index: u64, eval: &E) -> Opening {
        let mut rng = rng_for(self.seed, index);
        let root = Chess::default();
        let mut fallback = None;
        for _attempt in 0..1000 {
            let mut pos = root.clone();
            let mut moves = Vec::with_capacity(self.plies as usize);
            let mut ok = true;
            for _ in 0..self.plies {
                let legal = pos.legal_moves();
                match legal.choose(&mut rng) {
                    Some(&m) => {
                        pos.play_unchecked(m);
                        moves.push(m);
                    }
                    None => {
                        ok = false;
                        break;
                    }
                }
            }
            if !ok || pos.is_game_over() {
                continue;
            }
            let opening = Opening {
                root: root.clone(),
                moves,
                position: pos,
            };
            let q = eval.quiesce(&opening.position, -1e9, 1e9);
            if let Some(depth) = self.mate_check_depth {
                // Only when the cheap checks pass would the search change the outcome.
                let balanced = q.score.abs() <= self.max_eval;
                if (balanced || fallback.is_none()) && has_forced_mate(eval, &opening, depth) {
                    continue;
                }
            }
            if q.score.abs() <= self.max_eval {
                return opening;
            }
            fallback.get_or_insert(opening);
        }
        fallback.unwrap_or_else(|| Opening::from_position(root))
    }
}

impl RandomOpenings {
    /// The first `n` openings of this generator ([`RandomOpenings::opening`] `0..n`), their
    /// balance judged by `eval`.
    ///
    /// ```
    /// use engine::play::openings::RandomOpenings;
    /// use engine::MaterialEvaluator;
    /// let r = RandomOpenings::default();
    /// let v = r.openings(3, &MaterialEvaluator);
    /// assert_eq!(v.len(), 3);
    /// assert_eq!(v[2], r.opening(2, &MaterialEvaluator));
    /// ```
    pub fn openings<E: Evaluator + ?Sized>(&self, n: usize, eval: &E) -> Vec<Opening> {
        (0..n as u64).map(|i| self.opening(i, eval)).collect()
    }
}

/// Whether a search to `depth` from the opening's position finds a mate score for either side.
fn has_forced_mate<E: Evaluator + ?Sized>(eval: &E, opening: &Opening, depth: u32) -> bool {
    let mut searcher = Searcher::new(eval, 0); // the smallest table: a shallow search
    let r = searcher.search(&opening.position, &[], &SearchLimits::depth(depth));
    r.mate_in().is_some()
}

/// Read openings from a file with one FEN or EPD per line (blank lines and lines starting
/// with `#` skipped; EPD operations after the fourth field are ignored). Chess960 positions
/// are recognised by their castling rights (X-FEN or Shredder-FEN).
pub fn read_epd(path: &Path) -> Result<Vec<Opening>, EngineError> {
    let text = std::fs::read_to_string(path).map_err(|e| EngineError::io("read", path, e))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |message: String| EngineError::Opening {
            path: path.to_path_buf(),
            line: i + 1,
            message,
        };
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 4 {
            return Err(err("expected at least 4 FEN fields".into()));
        }
        // Keep the clocks when they are numbers (FEN), else default them (EPD).
        let clocks = fields.len() >= 6
            && fields[4].parse::<u32>().is_ok()
            && fields[5].parse::<u32>().is_ok();
        let fen = if clocks {
            fields[..6].join(" ")
        } else {
            format!("{} 0 1", fields[..4].join(" "))
        };
        let fen: Fen = fen.parse().map_err(|e| err(format!("{e}")))?;
        // Chess960 (X-FEN or Shredder-FEN castling rights) is told from the rights.
        let setup = fen.into_setup();
        let mode = CastlingMode::detect(&setup);
        let pos = Chess::from_setup(setup, mode).map_err(|e| err(format!("{e}")))?;
        if pos.is_game_over() {
            return Err(err("the game is already over".into()));
        }
        out.push(Opening::from_position(pos));
    }
    if out.is_empty() {
        return Err(EngineError::Opening {
            path: path.to_path_buf(),
            line: 0,
            message: "no openings in file".into(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::evaluator::MaterialEvaluator;

    #[test]
    fn epd_files_read_with_line_numbers_for_errors() {
        let dir = std::env::temp_dir().join(format!("engine-openings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.epd");
        std::fs::write(
            &good,
            "# a comment\n\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c0 \"e4\";\n\
             4k3/8/8/8/8/8/8/R3K3 w Q - 3 40\n",
        )
        .unwrap();
        let openings = read_epd(&good).unwrap();
        assert_eq!(openings.len(), 2);
        assert_eq!(openings[1].position.halfmoves(), 3);
        let bad = dir.join("bad.epd");
        std::fs::write(&bad, "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1\nnot a fen at all\n").unwrap();
        let err = read_epd(&bad).unwrap_err().to_string();
        assert!(err.contains(":2:"), "{err}");
        assert!(read_epd(&dir.join("missing.epd")).is_err());
        // Chess960 castling rights, Shredder-FEN and X-FEN.
        let c960 = dir.join("c960.epd");
        std::fs::write(
            &c960,
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9
             1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w KQkq -
",
        )
        .unwrap();
        let openings = read_epd(&c960).unwrap();
        for o in &openings {
            assert_eq!(o.position.castles().mode(), CastlingMode::Chess960);
            assert_eq!(o.position.castles().castling_rights().count(), 4);
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn random_openings_differ_by_index_and_are_balanced() {
        let r = RandomOpenings::default();
        let a = r.opening(0, &MaterialEvaluator);
        let b = r.opening(1, &MaterialEvaluator);
        assert_ne!(a.moves, b.moves);
        for o in [a, b] {
            let q = MaterialEvaluator.quiesce(&o.position, -1e9, 1e9);
            assert!(q.score.abs() <= r.max_eval);
        }
    }
}
