//! Move ordering: hash move first, then captures and promotions by MVV-LVA, then killer moves,
//! then quiet moves by history score.

use shakmaty::{Color, Move, MoveList};

use crate::evaluator::mvv_lva;

/// Plies of killer-move storage (deeper plies share the last slot).
pub const MAX_PLY: usize = 128;

/// Killer and history tables, kept across the iterations of one search.
#[derive(Clone, Debug)]
pub struct Ordering {
    killers: Vec<[Option<Move>; 2]>,
    history: Vec<i32>,
}

impl Default for Ordering {
    fn default() -> Self {
        Self::new()
    }
}

const HISTORY_MAX: i32 = 1 << 20;

impl Ordering {
    /// Empty tables.
    pub fn new() -> Self {
        Self {
            killers: vec![[None; 2]; MAX_PLY + 1],
            history: vec![0; 2 * 64 * 64],
        }
    }

    /// Forget everything.
    pub fn clear(&mut self) {
        self.killers.iter_mut().for_each(|k| *k = [None; 2]);
        self.history.iter_mut().for_each(|h| *h = 0);
    }

    /// Age the history between searches (halve it) and drop killers.
    pub fn age(&mut self) {
        self.killers.iter_mut().for_each(|k| *k = [None; 2]);
        self.history.iter_mut().for_each(|h| *h /= 2);
    }

    fn history_index(turn: Color, m: &Move) -> usize {
        let from = m.from().map_or(0, usize::from);
        let to = usize::from(m.to());
        (turn as usize) * 4096 + from * 64 + to
    }

    /// Whether the move is searched as "quiet" (not a capture or promotion).
    pub fn is_quiet(m: &Move) -> bool {
        !m.is_capture() && m.promotion().is_none()
    }

    /// Record a quiet move that caused a beta cutoff at `ply` with `depth` remaining.
    pub fn record_cutoff(&mut self, turn: Color, m: &Move, ply: usize, depth: i32) {
        let k = &mut self.killers[ply.min(MAX_PLY)];
        if k[0].as_ref() != Some(m) {
            k[1] = k[0];
            k[0] = Some(*m);
        }
        let h = &mut self.history[Self::history_index(turn, m)];
        *h += depth * depth;
        if *h > HISTORY_MAX {
            self.history.iter_mut().for_each(|h| *h /= 2);
        }
    }

    /// Ordering key of `m` (higher is searched first).
    pub fn score(&self, turn: Color, m: &Move, tt_move: Option<&Move>, ply: usize) -> i32 {
        if tt_move == Some(m) {
            return 1 << 30;
        }
        if !Self::is_quiet(m) {
            return (1 << 28) + mvv_lva(m);
        }
        let k = &self.killers[ply.min(MAX_PLY)];
        if k[0].as_ref() == Some(m) {
            return (1 << 27) + 1;
        }
        if k[1].as_ref() == Some(m) {
            return 1 << 27;
        }
        self.history[Self::history_index(turn, m)]
    }

    /// Sort `moves` best first.
    pub fn sort(&self, turn: Color, moves: &mut MoveList, tt_move: Option<&Move>, ply: usize) {
        moves.sort_by_cached_key(|m| -self.score(turn, m, tt_move, ply));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{fen::Fen, CastlingMode, Chess, Position};

    #[test]
    fn captures_before_quiets_and_biggest_victim_first() {
        let pos: Chess = "4k3/8/8/3q4/8/4N3/p7/R3K3 w - - 0 1"
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let mut moves = pos.legal_moves();
        Ordering::new().sort(pos.turn(), &mut moves, None, 0);
        assert_eq!(moves[0].capture(), Some(shakmaty::Role::Queen));
        assert_eq!(moves[1].capture(), Some(shakmaty::Role::Pawn));
        assert!(!moves[2].is_capture());
    }
}
