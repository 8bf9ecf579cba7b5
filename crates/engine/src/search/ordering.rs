//! Move ordering: hash move first, then captures and promotions by MVV-LVA, then killer moves,
//! then quiet moves by history score.

use arrayvec::ArrayVec;
use shakmaty::{Color, Move, MoveList};

use crate::search::evaluator::mvv_lva;

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

    /// Sort `moves` best first (stable: equal keys keep their generation order).
    pub fn sort(&self, turn: Color, moves: &mut MoveList, tt_move: Option<&Move>, ply: usize) {
        moves.sort_by_cached_key(|m| -self.score(turn, m, tt_move, ply));
    }

    /// `moves` best first, picked lazily: the keys are computed once, now, into `keys` (the
    /// caller's, so that nothing the size of a move list is copied), and each step of the
    /// iterator finds the best remaining move, so a node that cuts off after a move or two
    /// never sorts the rest. Yields exactly the order of [`sort`](Ordering::sort).
    pub fn picker<'a>(
        &self,
        turn: Color,
        moves: &'a MoveList,
        tt_move: Option<&Move>,
        ply: usize,
        keys: &'a mut Keys,
    ) -> MovePicker<'a> {
        keys.keys.clear();
        keys.order.clear();
        for m in moves {
            keys.keys.push(self.score(turn, m, tt_move, ply));
        }
        MovePicker {
            moves,
            keys,
            picked: 0,
            sorted: 0,
        }
    }
}

/// Room for every move of a chess position (at most 218 are legal; a [`MoveList`] holds 270).
const MAX_MOVES: usize = 272;

/// A node's move-picking state, owned by the caller so that nothing the size of a move list
/// is copied when the picker moves: the ordering keys of its moves (filled by
/// [`Ordering::picker`]) and, once sorted, the order of the rest.
#[derive(Default)]
pub struct Keys {
    /// `keys[i]`: the key of move `i`, or [`PICKED`] once picked.
    keys: ArrayVec<i32, MAX_MOVES>,
    /// The indices of the moves not picked by scanning, in order (filled by the picker).
    order: ArrayVec<u16, MAX_MOVES>,
}

impl Keys {
    /// Empty.
    pub fn new() -> Keys {
        Keys::default()
    }
}

/// The key of a move already picked: below every real key (history scores are non-negative).
const PICKED: i32 = i32::MIN;

/// Picks by scanning before the rest is sorted once: most nodes cut off after a move or two.
const SCANNED_PICKS: usize = 3;

/// The moves of a node in [`Ordering::sort`]'s order, found one at a time (see
/// [`Ordering::picker`]): the first [`SCANNED_PICKS`] by scanning the keys for the first of the
/// highest, the rest from one sort of the remaining moves by (key descending, index
/// ascending), which is the same order (keys tie only between moves, and then the earlier
/// comes first in both).
pub struct MovePicker<'a> {
    moves: &'a MoveList,
    keys: &'a mut Keys,
    /// Moves picked so far.
    picked: usize,
    /// Moves picked from `keys.order` so far.
    sorted: usize,
}

impl Iterator for MovePicker<'_> {
    type Item = Move;

    fn next(&mut self) -> Option<Move> {
        let keys = &mut self.keys.keys;
        if self.picked >= keys.len() {
            return None;
        }
        self.picked += 1;
        let order = &mut self.keys.order;
        if self.picked > SCANNED_PICKS {
            if self.sorted == 0 {
                order.extend(
                    (0..keys.len())
                        .filter(|&i| keys[i] != PICKED)
                        .filter_map(|i| u16::try_from(i).ok()),
                );
                order.sort_unstable_by_key(|&i| (std::cmp::Reverse(keys[usize::from(i)]), i));
            }
            let i = usize::from(*order.get(self.sorted)?);
            self.sorted += 1;
            return self.moves.get(i).copied();
        }
        // The first of the highest keys, as a stable sort by descending key puts it first.
        let mut best = 0;
        for (i, &key) in keys.iter().enumerate().skip(1) {
            if key > keys[best] {
                best = i;
            }
        }
        keys[best] = PICKED;
        self.moves.get(best).copied()
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

    #[test]
    fn picker_yields_the_stable_sort_order() {
        let pos: Chess = "r3k2r/pp1b1ppp/2n1pn2/q1pp4/1bPP4/2N1PN2/PPQBBPPP/R3K2R w KQkq - 0 9"
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let mut ordering = Ordering::new();
        let legal = pos.legal_moves();
        // Some history and killers, with ties among the quiet moves.
        for (i, m) in legal
            .iter()
            .enumerate()
            .filter(|(_, m)| Ordering::is_quiet(m))
        {
            if i % 3 == 0 {
                ordering.record_cutoff(pos.turn(), m, 2, 1 + (i % 2) as i32);
            }
        }
        for tt in [None, legal.get(5)] {
            let mut sorted = legal.clone();
            ordering.sort(pos.turn(), &mut sorted, tt, 2);
            let mut keys = Keys::new();
            let picked: Vec<Move> = ordering
                .picker(pos.turn(), &legal, tt, 2, &mut keys)
                .collect();
            assert_eq!(picked, sorted.to_vec());
        }
    }
}
