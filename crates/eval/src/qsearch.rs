//! Quiescence search on `f64`: stand pat, captures and promotions ordered MVV-LVA, alpha-beta,
//! every evasion when in check, mate and stalemate detection, bounded depth.
//!
//! RuyTune takes the gradient at the end of the principal variation: [`Quiescence::leaf`] is that
//! position, so the tuner can evaluate it with differentiable weights.

use shakmaty::{attacks, Chess, Color, Move, MoveList, Position, Role, Square};

use crate::model::Model;
use crate::movegen::tactical_moves;

/// Mate scores are `±(MATE - plies to mate)`.
pub const MATE: f64 = 30000.0;

/// The deepest the quiescence search goes (plies); at this depth it returns the static
/// evaluation even in check, so the search always terminates.
pub const MAX_QSEARCH_DEPTH: u32 = 32;

/// The result of a quiescence search.
#[derive(Clone, Debug)]
pub struct Quiescence {
    /// The score in centipawns. From White's point of view for [`quiesce`]; from the side to
    /// move's point of view for [`quiesce_window`] (see there). Mate scores are
    /// `±(MATE - plies)`.
    pub score: f64,
    /// The position at the end of the principal variation (the root itself if standing pat).
    pub leaf: Chess,
    /// The principal variation from the root to `leaf`.
    pub pv: Vec<Move>,
    /// Nodes visited.
    pub nodes: u64,
}

/// A full-window quiescence search from `pos`; the score is from White's point of view.
///
/// ```
/// use eval::{quiesce, Model, ModelKind};
/// use shakmaty::{fen::Fen, CastlingMode, Chess, Position};
///
/// let model = Model::new(ModelKind::Psqt);
/// let w = model.default_weights();
/// // White to move can take a hanging queen on d5.
/// let fen: Fen = "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1".parse().unwrap();
/// let pos: Chess = fen.into_position(CastlingMode::Standard).unwrap();
/// let q = quiesce(&model, &pos, &w);
/// assert!((q.score - 500.0).abs() < 1e-9); // rook against nothing
/// assert_eq!(q.pv.len(), 1);
/// assert_eq!(q.leaf.board().queens().count(), 0);
/// ```
pub fn quiesce(model: &Model, pos: &Chess, w: &[f64]) -> Quiescence {
    let mut q = quiesce_window(model, pos, w, -f64::INFINITY, f64::INFINITY);
    if pos.turn() == Color::Black {
        q.score = -q.score;
    }
    q
}

/// A quiescence search with the window `(alpha, beta)`, for a negamax search: **`alpha`,
/// `beta` and the returned score are from the side to move's point of view** (unlike
/// [`quiesce`], which reports White's view).
///
/// Fail-soft: a score `<= alpha` is an upper bound and a score `>= beta` a lower bound of the
/// true quiescence value; inside the window it is exact.
///
/// ```
/// use eval::{quiesce, quiesce_window, Model, ModelKind};
/// use shakmaty::{fen::Fen, CastlingMode, Chess};
///
/// let model = Model::new(ModelKind::Psqt);
/// let w = model.default_weights();
/// // Black to move takes a hanging white queen with the rook.
/// let fen: Fen = "4k3/3r4/8/8/3Q4/8/8/4K3 b - - 0 1".parse().unwrap();
/// let pos: Chess = fen.into_position(CastlingMode::Standard).unwrap();
/// let stm = quiesce_window(&model, &pos, &w, f64::NEG_INFINITY, f64::INFINITY);
/// assert!((stm.score - 500.0).abs() < 1e-9); // good for Black, the side to move
/// assert!((quiesce(&model, &pos, &w).score + 500.0).abs() < 1e-9); // White's view
/// ```
pub fn quiesce_window(model: &Model, pos: &Chess, w: &[f64], alpha: f64, beta: f64) -> Quiescence {
    let mut search = Search::new(|p: &Chess| model.evaluate(p, w));
    let mut pv = Vec::new();
    let (score, leaf) = search.qsearch::<true>(pos, alpha, beta, 0, &mut pv);
    Quiescence {
        score,
        leaf: leaf.unwrap_or_else(|| pos.clone()),
        pv,
        nodes: search.nodes,
    }
}

/// The score and node count of a quiescence search (see [`quiesce_score`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuiescenceScore {
    /// The score in centipawns from the side to move's point of view, as
    /// [`quiesce_window`]'s.
    pub score: f64,
    /// Nodes visited.
    pub nodes: u64,
}

/// [`quiesce_window`] without its principal variation, scoring positions with `static_eval`
/// (centipawns, **White's** point of view) instead of a model: the search an engine runs at
/// its leaves, where only the score counts.
///
/// The same search: when `static_eval(p)` equals `model.evaluate(p, w)` for every position,
/// it visits the same nodes and returns the same score as `quiesce_window(model, pos, w, alpha,
/// beta)`, bit for bit (tested).
///
/// ```
/// use eval::{quiesce_score, quiesce_window, Model, ModelKind};
/// use shakmaty::{fen::Fen, CastlingMode, Chess};
///
/// let model = Model::new(ModelKind::Psqt);
/// let w = model.default_weights();
/// let fen: Fen = "4k3/3r4/8/8/3Q4/8/8/4K3 b - - 0 1".parse().unwrap();
/// let pos: Chess = fen.into_position(CastlingMode::Standard).unwrap();
/// let q = quiesce_score(&pos, -50.0, 50.0, |p| model.evaluate(p, &w));
/// let full = quiesce_window(&model, &pos, &w, -50.0, 50.0);
/// assert_eq!((q.score, q.nodes), (full.score, full.nodes));
/// ```
pub fn quiesce_score(
    pos: &Chess,
    alpha: f64,
    beta: f64,
    static_eval: impl FnMut(&Chess) -> f64,
) -> QuiescenceScore {
    let mut search = Search::new(static_eval);
    let (score, _) = search.qsearch::<false>(pos, alpha, beta, 0, &mut Vec::new());
    QuiescenceScore {
        score,
        nodes: search.nodes,
    }
}

/// Whether the position is quiet for tuning (the Texel / WukongJS filter): the full-window
/// quiescence score equals the static evaluation (to within 1e-9 centipawns). A position in check
/// is quiet only if its quiescence score happens to equal its static evaluation.
///
/// ```
/// use eval::{is_quiet, Model, ModelKind};
/// use shakmaty::{fen::Fen, CastlingMode, Chess};
///
/// let model = Model::new(ModelKind::Psqt);
/// let w = model.default_weights();
/// assert!(is_quiet(&model, &Chess::default(), &w));
/// let fen: Fen = "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1".parse().unwrap(); // a hanging queen
/// let pos: Chess = fen.into_position(CastlingMode::Standard).unwrap();
/// assert!(!is_quiet(&model, &pos, &w));
/// ```
pub fn is_quiet(model: &Model, pos: &Chess, w: &[f64]) -> bool {
    let mut search = Search::new(|p: &Chess| model.evaluate(p, w));
    let (score, _) = search.qsearch::<true>(pos, -f64::INFINITY, f64::INFINITY, 0, &mut Vec::new());
    let stat = match search.root_static {
        Some(s) => s,
        None => search.static_eval(pos), // in check, mate or stalemate at the root
    };
    (score - stat).abs() <= 1e-9
}

/// A quiescence search over a static evaluation `F` (White's view).
struct Search<F> {
    static_eval: F,
    nodes: u64,
    /// The root's static evaluation (side to move's view), if the search computed it.
    root_static: Option<f64>,
}

/// Values for MVV-LVA ordering (pawn .. king).
fn order_value(role: Role) -> i32 {
    match role {
        Role::Pawn => 1,
        Role::Knight | Role::Bishop => 3,
        Role::Rook => 5,
        Role::Queen => 9,
        Role::King => 20,
    }
}

/// MVV-LVA: most valuable victim first, then least valuable attacker; promotions count the
/// promoted piece as gained.
fn move_key(m: &Move) -> i32 {
    let victim = m.capture().map_or(0, order_value);
    let promo = m.promotion().map_or(0, |r| order_value(r) - 1);
    -(16 * (victim + promo) - order_value(m.role()))
}

impl<F: FnMut(&Chess) -> f64> Search<F> {
    fn new(static_eval: F) -> Self {
        Search {
            static_eval,
            nodes: 0,
            root_static: None,
        }
    }

    fn static_eval(&mut self, pos: &Chess) -> f64 {
        let e = (self.static_eval)(pos);
        match pos.turn() {
            Color::White => e,
            Color::Black => -e,
        }
    }

    /// Negamax quiescence; returns the score (side to move's view) and, when `PV`, the PV's
    /// last position, and writes the PV into `pv` (left alone without `PV`: the score and the
    /// nodes visited do not depend on it).
    ///
    /// One function on purpose: the quiescence search's hot loop (every leaf of a recorded
    /// position passes here).
    fn qsearch<const PV: bool>(
        &mut self,
        pos: &Chess,
        mut alpha: f64,
        beta: f64,
        ply: u32,
        pv: &mut Vec<Move>,
    ) -> (f64, Option<Chess>) {
        self.nodes += 1;
        if PV {
            pv.clear();
        }
        let leaf = |pos: &Chess| PV.then(|| pos.clone());
        let in_check = pos.is_check();
        // Standing pat first: a cutoff then only needs to know that some move is legal (else
        // the position is a stalemate), which is usually much cheaper to prove than generating
        // every legal move. The static evaluation does not depend on the order of the steps.
        let stand = if in_check {
            None
        } else {
            let stand = self.static_eval(pos);
            if stand >= beta || ply >= MAX_QSEARCH_DEPTH {
                if !has_legal_move(pos) {
                    return (0.0, leaf(pos)); // stalemate
                }
                if ply == 0 {
                    self.root_static = Some(stand);
                }
                return (stand, leaf(pos));
            }
            Some(stand)
        };
        // In check every evasion is searched; otherwise only the captures and promotions,
        // generated alone in `legal_moves`' order (`movegen`), and a stalemate is told by
        // `has_legal_move` when there are none.
        let mut moves = MoveList::new();
        let tactical_only = stand.is_some() && tactical_moves(pos, &mut moves);
        if !tactical_only {
            moves = pos.legal_moves();
        }
        let no_move = moves.is_empty() && (in_check || !has_legal_move(pos));
        if no_move {
            let score = if in_check {
                -(MATE - f64::from(ply))
            } else {
                0.0 // stalemate
            };
            return (score, leaf(pos));
        }

        let mut best;
        let mut best_leaf = None;
        match stand {
            None => {
                if ply >= MAX_QSEARCH_DEPTH {
                    return (self.static_eval(pos), leaf(pos));
                }
                best = -f64::INFINITY;
            }
            Some(stand) => {
                if !tactical_only {
                    moves.retain(|m| m.is_capture() || m.is_promotion());
                }
                if ply == 0 {
                    self.root_static = Some(stand);
                }
                if stand > alpha {
                    alpha = stand;
                }
                best = stand;
            }
        }

        moves.sort_by_key(move_key);
        let mut child_pv = Vec::new();
        for &m in moves.iter() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let (s, child_leaf) = self.qsearch::<PV>(&child, -beta, -alpha, ply + 1, &mut child_pv);
            let s = -s;
            if s > best {
                best = s;
                if PV {
                    best_leaf = child_leaf;
                    pv.clear();
                    pv.push(m);
                    pv.extend_from_slice(&child_pv);
                }
                if s > alpha {
                    alpha = s;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        (best, best_leaf.or_else(|| leaf(pos)))
    }
}

/// Whether the side to move, **not in check**, has a legal move: cheap sufficient
/// conditions first (a king step to an unattacked square, an unpinned knight or pawn that can
/// move), legal move generation only when none holds.
///
/// Not in check, a king step is legal exactly when its target is not attacked with the board
/// as it is (no slider can attack through the king, or the king would be in check), and a
/// piece whose removal exposes the king to no slider is not pinned, so any of its moves that
/// is possible on the board is legal.
fn has_legal_move(pos: &Chess) -> bool {
    let board = pos.board();
    let turn = pos.turn();
    let us = board.by_color(turn);
    let them = board.by_color(!turn);
    let occupied = board.occupied();
    let Some(king) = board.king_of(turn) else {
        return !pos.legal_moves().is_empty();
    };
    let free = !occupied;
    if (attacks::king_attacks(king) & !us)
        .into_iter()
        .any(|to| board.attacks_to(to, !turn, occupied).is_empty())
    {
        return true;
    }
    let unpinned = |sq: Square| {
        let without = occupied ^ sq;
        (attacks::bishop_attacks(king, without) & them & board.bishops_and_queens()).is_empty()
            && (attacks::rook_attacks(king, without) & them & board.rooks_and_queens()).is_empty()
    };
    let forward = match turn {
        Color::White => 8,
        Color::Black => -8,
    };
    let knight_moves = (board.knights() & us)
        .into_iter()
        .any(|sq| (attacks::knight_attacks(sq) & !us).any() && unpinned(sq));
    let pawn_pushes = || {
        (board.pawns() & us)
            .into_iter()
            .any(|sq| sq.offset(forward).is_some_and(|to| free.contains(to)) && unpinned(sq))
    };
    knight_moves || pawn_pushes() || !pos.legal_moves().is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_position as pos;
    use shakmaty::fen::Fen;

    fn check(p: &Chess) {
        if !p.is_check() {
            assert_eq!(
                has_legal_move(p),
                !p.legal_moves().is_empty(),
                "{}",
                Fen::from_position(p, shakmaty::EnPassantMode::Legal)
            );
        }
    }

    #[test]
    fn legal_move_proof_agrees_with_generation() {
        // Four stalemates (one with a pinned knight, one with a blocked pawn), and near misses.
        let stalemates = [
            "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
            "k7/8/1Q6/8/8/8/8/7K b - - 0 1",
            "k7/n7/1K6/4B3/8/8/8/R7 b - - 0 1",
            "k7/p7/P7/8/8/8/8/1R5K b - - 0 1",
        ];
        for fen in stalemates {
            assert!(pos(fen).is_stalemate(), "{fen}");
        }
        for fen in stalemates.into_iter().chain([
            "k7/n7/8/8/8/8/8/R1K5 b - - 0 1",
            "k7/p7/8/8/8/8/8/1R5K b - - 0 1",
            "kb6/8/1K6/8/8/8/8/8 b - - 0 1",
            "8/8/8/8/8/5k2/4p3/4K3 w - - 0 1",
        ]) {
            check(&pos(fen));
        }
        // Random games from the start position: every position reached.
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..200 {
            let mut p = Chess::default();
            for _ in 0..200 {
                check(&p);
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                p.play_unchecked(moves[(state >> 33) as usize % moves.len()]);
            }
        }
    }
}
