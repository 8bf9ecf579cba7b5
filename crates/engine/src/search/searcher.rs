//! Alpha-beta search: iterative deepening, principal-variation search, a transposition table,
//! null-move pruning, late-move reductions, check extension, draws by repetition and the
//! fifty-move rule, quiescence at the leaves.

use std::time::{Duration, Instant};

use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, EnPassantMode, Move, Position, Role};

use crate::score::{MATE, MATE_BOUND};
use crate::search::evaluator::{relative, Evaluator};
use crate::search::limits::{SearchLimits, MAX_DEPTH};
use crate::search::ordering::{Keys, Ordering, MAX_PLY};
use crate::search::tt::{Bound, TranspositionTable};

/// Zobrist hash of a position as the search keys it (legal en-passant squares only).
pub fn hash(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// The outcome of one search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// Best move, `None` only when the position has no legal move.
    pub best_move: Option<Move>,
    /// Score in centipawns for the side to move; mates are `±(MATE - plies)`.
    pub score: i32,
    /// Deepest completed iteration.
    pub depth: u32,
    /// Nodes searched (including quiescence nodes).
    pub nodes: u64,
    /// Principal variation, starting with `best_move`.
    pub pv: Vec<Move>,
    /// Wall time used.
    pub elapsed: Duration,
}

impl SearchResult {
    /// Moves to mate if the score is a mate score (positive: the side to move mates).
    pub fn mate_in(&self) -> Option<i32> {
        mate_in(self.score)
    }
}

/// Moves (not plies) to mate for a mate score, `None` for ordinary scores.
pub fn mate_in(score: i32) -> Option<i32> {
    if score >= MATE_BOUND {
        Some((MATE - score + 1) / 2)
    } else if score <= -MATE_BOUND {
        Some(-((MATE + score) / 2))
    } else {
        None
    }
}

/// Progress of the search after each completed iteration (for UCI `info` lines).
#[derive(Clone, Debug)]
pub struct Iteration<'a> {
    /// Depth just completed.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Score for the side to move.
    pub score: i32,
    /// Nodes so far.
    pub nodes: u64,
    /// Time so far.
    pub elapsed: Duration,
    /// Principal variation.
    pub pv: &'a [Move],
}

/// A searcher: the evaluation, the transposition table and the ordering tables.
///
/// ```
/// use engine::{MaterialEvaluator, SearchLimits, Searcher};
/// use shakmaty::{Chess, Position};
/// let mut searcher = Searcher::new(MaterialEvaluator, 1);
/// let pos = Chess::default();
/// let result = searcher.search(&pos, &[], &SearchLimits::depth(3));
/// assert!(pos.is_legal(result.best_move.unwrap()));
/// assert_eq!(result.depth, 3);
/// ```
pub struct Searcher<E> {
    eval: E,
    tt: TranspositionTable,
    ordering: Ordering,
    /// Hashes of the game's earlier positions followed by the current search path.
    hashes: Vec<u64>,
    pv: Vec<Vec<Move>>,
    nodes: u64,
    seldepth: usize,
    aborted: bool,
    can_abort: bool,
    start: Instant,
    limits: SearchLimits,
}

const INF: i32 = MATE + 1;

impl<E: Evaluator> Searcher<E> {
    /// A searcher over `eval` with a transposition table of `hash_mb` MiB.
    pub fn new(eval: E, hash_mb: usize) -> Self {
        Self {
            eval,
            tt: TranspositionTable::new(hash_mb),
            ordering: Ordering::new(),
            hashes: Vec::new(),
            pv: vec![Vec::new(); MAX_PLY + 2],
            nodes: 0,
            seldepth: 0,
            aborted: false,
            can_abort: false,
            start: Instant::now(),
            limits: SearchLimits::default(),
        }
    }

    /// The evaluation.
    pub fn evaluator(&self) -> &E {
        &self.eval
    }

    /// Replace the evaluation (and forget what the old one taught the tables).
    pub fn set_evaluator(&mut self, eval: E) {
        self.eval = eval;
        self.clear();
    }

    /// Resize the transposition table (clears it).
    pub fn resize_hash(&mut self, hash_mb: usize) {
        self.tt = TranspositionTable::new(hash_mb);
    }

    /// Forget everything learned (new game).
    pub fn clear(&mut self) {
        self.tt.clear();
        self.ordering.clear();
    }

    /// Search `pos`. `history` holds the hashes (see [`hash`]) of the game's earlier
    /// positions, oldest first, so repetitions are scored as draws.
    pub fn search(&mut self, pos: &Chess, history: &[u64], limits: &SearchLimits) -> SearchResult {
        self.search_with(pos, history, limits, |_| {})
    }

    /// [`Searcher::search`], calling `on_iteration` after each completed iteration.
    pub fn search_with(
        &mut self,
        pos: &Chess,
        history: &[u64],
        limits: &SearchLimits,
        mut on_iteration: impl FnMut(&Iteration<'_>),
    ) -> SearchResult {
        self.start = Instant::now();
        self.limits = limits.resolve(pos.turn());
        self.nodes = 0;
        self.seldepth = 0;
        self.aborted = false;
        self.can_abort = false;
        self.tt.new_search();
        self.ordering.age();
        self.hashes.clear();
        self.hashes.extend_from_slice(history);

        let legal = pos.legal_moves();
        let mut result = SearchResult {
            best_move: legal.first().copied(),
            score: 0,
            depth: 0,
            nodes: 0,
            pv: legal.first().copied().into_iter().collect(),
            elapsed: Duration::ZERO,
        };
        if legal.is_empty() {
            result.score = if pos.is_check() { -MATE } else { 0 };
            return result;
        }

        let max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        for depth in 1..=max_depth {
            let score = self.negamax(pos, hash(pos), depth as i32, -INF, INF, 0);
            if self.aborted {
                // A partial iteration's PV is kept when at least one root move was searched
                // fully: the previous best move is searched first, so anything in the PV
                // is at least as good as it at the new depth.
                if !self.pv[0].is_empty() {
                    result.pv = self.pv[0].clone();
                    result.best_move = result.pv.first().copied();
                }
                break;
            }
            self.can_abort = true;
            result.score = score;
            result.depth = depth;
            if !self.pv[0].is_empty() {
                result.pv = self.pv[0].clone();
                result.best_move = result.pv.first().copied();
            }
            on_iteration(&Iteration {
                depth,
                seldepth: self.seldepth as u32,
                score,
                nodes: self.nodes,
                elapsed: self.start.elapsed(),
                pv: &result.pv,
            });
            if score.abs() >= MATE_BOUND
                && limits.depth.is_none()
                && depth as i32 > MATE - score.abs() + 2
            {
                break; // a forced mate found with room to spare: deeper iterations add nothing
            }
            if self.out_of_soft_time() {
                break;
            }
        }
        result.nodes = self.nodes;
        result.elapsed = self.start.elapsed();
        result
    }

    fn out_of_soft_time(&self) -> bool {
        if self.limits.stopped() {
            return true;
        }
        if let Some(n) = self.limits.nodes {
            if self.nodes >= n {
                return true;
            }
        }
        if let Some(soft) = self.limits.soft_time {
            if self.start.elapsed() >= soft {
                return true;
            }
        }
        // With a plain movetime (no soft limit) the search iterates until the hard limit.
        false
    }

    fn check_abort(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        if !self.can_abort {
            return false;
        }
        if let Some(n) = self.limits.nodes {
            if self.nodes >= n {
                self.aborted = true;
                return true;
            }
        }
        if self.nodes & 1023 == 0 {
            if self.limits.stopped() {
                self.aborted = true;
            } else if let Some(t) = self.limits.movetime {
                if self.start.elapsed() >= t {
                    self.aborted = true;
                }
            }
        }
        self.aborted
    }

    fn is_repetition(&self, key: u64, halfmoves: u32) -> bool {
        let n = self.hashes.len();
        let back = (halfmoves as usize).min(n);
        // hashes[n - 1] is the parent (other side to move); same side: n - 2, n - 4, ...
        let mut i = 2;
        while i <= back {
            if self.hashes[n - i] == key {
                return true;
            }
            i += 2;
        }
        false
    }

    fn static_eval(&self, pos: &Chess) -> i32 {
        relative(self.eval.evaluate(pos), pos.turn()).round() as i32
    }

    fn quiesce(&mut self, pos: &Chess, alpha: i32, beta: i32, ply: usize) -> i32 {
        let q = self.eval.quiesce(pos, f64::from(alpha), f64::from(beta));
        self.nodes += q.nodes;
        let score = q.score.round().clamp(-f64::from(MATE), f64::from(MATE)) as i32;
        // A mate the quiescence search found is counted from its root: move it to ours.
        if score >= MATE_BOUND {
            score - ply as i32
        } else if score <= -MATE_BOUND {
            score + ply as i32
        } else {
            score
        }
    }

    /// The search of `pos`, whose Zobrist hash is `key` (`hash(pos)`).
    ///
    /// One function on purpose: the search's hot loop (every node passes here), its steps
    /// (table probe, pruning, move loop, table store) sharing the node's state.
    fn negamax(
        &mut self,
        pos: &Chess,
        key: u64,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
    ) -> i32 {
        self.pv[ply].clear();
        if self.check_abort() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        let pv_node = beta - alpha > 1;
        if ply > 0 {
            // A draw by rule, unless the move that reached it mated.
            if (pos.halfmoves() >= 100 || pos.is_insufficient_material())
                && !(pos.is_check() && pos.legal_moves().is_empty())
            {
                return 0;
            }
            if self.is_repetition(key, pos.halfmoves()) {
                return 0;
            }
            // Mate-distance pruning.
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        let in_check = pos.is_check();
        let depth = if in_check { depth + 1 } else { depth };
        if depth <= 0 || ply >= MAX_PLY {
            return self.quiesce(pos, alpha, beta, ply);
        }
        self.nodes += 1;

        let entry = self.tt.probe(key, ply);
        let tt_move = entry.and_then(|e| e.best);
        if let Some(e) = entry {
            if !pv_node && ply > 0 && i32::from(e.depth) >= depth {
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => e.score >= beta,
                    Bound::Upper => e.score <= alpha,
                };
                if cut {
                    return e.score;
                }
            }
        }

        // Null-move pruning: give the opponent a free move; if we still beat beta, cut.
        if !pv_node
            && !in_check
            && ply > 0
            && depth >= 3
            && beta.abs() < MATE_BOUND
            && self.has_pieces(pos)
        {
            let stand = self.static_eval(pos);
            if stand >= beta {
                if let Ok(null) = pos.clone().swap_turn() {
                    let r = 2 + depth / 4;
                    self.hashes.push(key);
                    let score =
                        -self.negamax(&null, hash(&null), depth - 1 - r, -beta, -beta + 1, ply + 1);
                    self.hashes.pop();
                    if self.aborted {
                        return 0;
                    }
                    if score >= beta {
                        return if score >= MATE_BOUND { beta } else { score };
                    }
                }
            }
        }

        let moves = pos.legal_moves();
        if moves.is_empty() {
            return if in_check { -MATE + ply as i32 } else { 0 };
        }
        let turn = pos.turn();
        let mut keys = Keys::new();
        let picker = self
            .ordering
            .picker(turn, &moves, tt_move.as_ref(), ply, &mut keys);

        let original_alpha = alpha;
        let mut best = -INF;
        let mut best_move = None;
        self.hashes.push(key);
        for (i, m) in picker.enumerate() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            // Incrementally where shakmaty can (the same value as from scratch).
            let child_key = pos
                .update_zobrist_hash::<Zobrist64>(Zobrist64(key), m, EnPassantMode::Legal)
                .map_or_else(|| hash(&child), |z| z.0);
            debug_assert_eq!(child_key, hash(&child), "{m:?}");
            let quiet = Ordering::is_quiet(&m);
            let score = if i == 0 {
                -self.negamax(&child, child_key, depth - 1, -beta, -alpha, ply + 1)
            } else {
                // Late-move reduction for quiet moves that do not give check.
                let reduce = if depth >= 3 && i >= 3 && quiet && !in_check && !child.is_check() {
                    1 + i32::from(i >= 8 && depth >= 5)
                } else {
                    0
                };
                let mut s = -self.negamax(
                    &child,
                    child_key,
                    depth - 1 - reduce,
                    -alpha - 1,
                    -alpha,
                    ply + 1,
                );
                if s > alpha && reduce > 0 && !self.aborted {
                    s = -self.negamax(&child, child_key, depth - 1, -alpha - 1, -alpha, ply + 1);
                }
                if s > alpha && s < beta && !self.aborted {
                    s = -self.negamax(&child, child_key, depth - 1, -beta, -alpha, ply + 1);
                }
                s
            };
            if self.aborted {
                self.hashes.pop();
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(m);
                if score > alpha {
                    alpha = score;
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    let line = &mut head[ply];
                    line.clear();
                    line.push(m);
                    line.extend_from_slice(&tail[0]);
                    if alpha >= beta {
                        if quiet {
                            self.ordering.record_cutoff(turn, &m, ply, depth);
                        }
                        break;
                    }
                }
            }
        }
        self.hashes.pop();

        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(key, best_move, best, depth, bound, ply);
        best
    }

    fn has_pieces(&self, pos: &Chess) -> bool {
        let board = pos.board();
        let ours = board.by_color(pos.turn());
        let pawns_kings = board.by_role(Role::Pawn) | board.by_role(Role::King);
        (ours & !pawns_kings).any()
    }
}
