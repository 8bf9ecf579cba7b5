//! The static evaluation the search calls, and the quiescence search at its leaves.
//!
//! The search is written against the [`Evaluator`] trait so that it can run over the gradtune
//! evaluation with `f64` weights ([`ModelEvaluator`]) or over a plain material count
//! ([`MaterialEvaluator`], used by the tests and as a reference).

use shakmaty::{Chess, Color, Move, Position, Role};

/// The result of a quiescence search, from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quiet {
    /// Score in centipawns for the side to move.
    pub score: f64,
    /// Positions visited.
    pub nodes: u64,
}

/// A static evaluation and a quiescence search over it.
///
/// Implementors give the evaluation from **White's** point of view; the search converts.
///
/// ```
/// use engine::{Evaluator, SearchLimits, Searcher};
/// use shakmaty::{Chess, Position};
///
/// /// Mobility only: White's legal moves minus Black's (for the side to move's count).
/// struct Mobility;
/// impl Evaluator for Mobility {
///     fn evaluate(&self, pos: &Chess) -> f64 {
///         let n = pos.legal_moves().len() as f64;
///         if pos.turn().is_white() { n } else { -n }
///     }
/// }
/// let r = Searcher::new(Mobility, 1).search(&Chess::default(), &[], &SearchLimits::depth(2));
/// assert!(r.best_move.is_some());
/// ```
pub trait Evaluator: Send + Sync {
    /// Static evaluation of `pos` in centipawns, from White's point of view.
    fn evaluate(&self, pos: &Chess) -> f64;

    /// Quiescence search of `pos` within the window `(alpha, beta)`, scores relative to the
    /// side to move. The default is [`quiesce`], the engine's own capture search.
    fn quiesce(&self, pos: &Chess, alpha: f64, beta: f64) -> Quiet {
        quiesce(self, pos, alpha, beta)
    }
}

impl<E: Evaluator + ?Sized> Evaluator for &E {
    fn evaluate(&self, pos: &Chess) -> f64 {
        (**self).evaluate(pos)
    }
    fn quiesce(&self, pos: &Chess, alpha: f64, beta: f64) -> Quiet {
        (**self).quiesce(pos, alpha, beta)
    }
}

impl<E: Evaluator + ?Sized> Evaluator for std::sync::Arc<E> {
    fn evaluate(&self, pos: &Chess) -> f64 {
        (**self).evaluate(pos)
    }
    fn quiesce(&self, pos: &Chess, alpha: f64, beta: f64) -> Quiet {
        (**self).quiesce(pos, alpha, beta)
    }
}

/// `score` (White's view) seen from the side to move of a position with `turn` to move.
pub fn relative(score: f64, turn: Color) -> f64 {
    match turn {
        Color::White => score,
        Color::Black => -score,
    }
}

/// Conventional piece values in centipawns (king 0).
pub fn piece_value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 300,
        Role::Bishop => 300,
        Role::Rook => 500,
        Role::Queen => 900,
        Role::King => 0,
    }
}

/// Material only: 100/300/300/500/900, from White's point of view.
///
/// ```
/// use engine::{Evaluator, MaterialEvaluator};
/// let pos = shakmaty::Chess::default();
/// assert_eq!(MaterialEvaluator.evaluate(&pos), 0.0);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct MaterialEvaluator;

impl Evaluator for MaterialEvaluator {
    fn evaluate(&self, pos: &Chess) -> f64 {
        let board = pos.board();
        let mut total = 0;
        for role in Role::ALL {
            let white = (board.by_role(role) & board.by_color(Color::White)).count() as i32;
            let black = (board.by_role(role) & board.by_color(Color::Black)).count() as i32;
            total += piece_value(role) * (white - black);
        }
        f64::from(total)
    }
}

/// Most-valuable-victim, least-valuable-attacker key of a capture or promotion (higher first).
pub fn mvv_lva(m: &Move) -> i32 {
    let victim = m.capture().map_or(0, piece_value);
    let promo = m.promotion().map_or(0, piece_value);
    10 * (victim + promo) - piece_value(m.role()) / 10
}

/// The engine's own quiescence search: stand pat, then captures and promotions in MVV-LVA
/// order, fail-hard within `(alpha, beta)`, relative to the side to move.
pub fn quiesce<E: Evaluator + ?Sized>(eval: &E, pos: &Chess, alpha: f64, beta: f64) -> Quiet {
    let mut nodes = 0;
    let score = qs(eval, pos, alpha, beta, 0, &mut nodes);
    Quiet { score, nodes }
}

const MAX_QS_DEPTH: u32 = 32;

fn qs<E: Evaluator + ?Sized>(
    eval: &E,
    pos: &Chess,
    mut alpha: f64,
    beta: f64,
    depth: u32,
    nodes: &mut u64,
) -> f64 {
    *nodes += 1;
    let stand = relative(eval.evaluate(pos), pos.turn());
    if stand >= beta {
        return beta;
    }
    if depth >= MAX_QS_DEPTH {
        return stand.max(alpha);
    }
    if stand > alpha {
        alpha = stand;
    }
    let mut moves = pos.capture_moves();
    moves.extend(
        pos.promotion_moves()
            .into_iter()
            .filter(|m| !m.is_capture() && m.promotion() == Some(Role::Queen)),
    );
    moves.retain(|m| m.promotion().is_none_or(|r| r == Role::Queen));
    moves.sort_unstable_by_key(|m| -mvv_lva(m));
    for m in moves {
        let mut child = pos.clone();
        child.play_unchecked(m);
        let score = -qs(eval, &child, -beta, -alpha, depth + 1, nodes);
        if score >= beta {
            return beta;
        }
        if score > alpha {
            alpha = score;
        }
    }
    alpha
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{fen::Fen, CastlingMode};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn material_counts_pieces() {
        let p = pos("4k3/8/8/8/8/8/8/RN2K3 w - - 0 1");
        assert_eq!(MaterialEvaluator.evaluate(&p), 800.0);
        let p = pos("4k3/8/8/8/8/8/8/RN2K3 b - - 0 1");
        assert_eq!(relative(MaterialEvaluator.evaluate(&p), p.turn()), -800.0);
    }

    #[test]
    fn quiescence_sees_hanging_queen() {
        // White to move can take the undefended queen on d5 with the knight.
        let p = pos("4k3/8/8/3q4/8/4N3/8/4K3 w - - 0 1");
        let q = MaterialEvaluator.quiesce(&p, -10_000.0, 10_000.0);
        assert_eq!(q.score, 300.0);
        assert!(q.nodes >= 2);
    }
}

/// The gradtune evaluation ([`eval::Model`]) with fixed `f64` weights: static evaluation by
/// [`eval::Model::evaluate_f64`] (bit for bit `Model::evaluate`), quiescence by
/// [`eval::quiesce_score`] over it (the search of [`eval::quiesce_window`], without its
/// principal variation).
///
/// ```
/// use engine::{Evaluator, ModelEvaluator};
/// let e = ModelEvaluator::default_material();
/// assert_eq!(e.evaluate(&shakmaty::Chess::default()), 0.0);
/// ```
#[derive(Clone, Debug)]
pub struct ModelEvaluator {
    model: eval::Model,
    weights: Vec<f64>,
}

impl ModelEvaluator {
    /// `model` with `weights` (one per parameter, finite).
    pub fn new(model: eval::Model, weights: Vec<f64>) -> Result<Self, crate::error::EngineError> {
        if weights.len() != model.len() {
            return Err(eval::ParamError::Length {
                model: model.kind().name().to_string(),
                expected: model.len(),
                got: weights.len(),
            }
            .into());
        }
        if let Some(i) = weights.iter().position(|w| !w.is_finite()) {
            return Err(crate::error::EngineError::Options(format!(
                "weight `{}` is not finite",
                model.params()[i].name
            )));
        }
        Ok(Self { model, weights })
    }

    /// The default weights of the `psqt` model: material only (100/300/300/500/900).
    pub fn default_material() -> Self {
        let model = eval::Model::new(eval::ModelKind::Psqt);
        let weights = model.default_weights();
        Self { model, weights }
    }

    /// Load a weights file written by `tune` ([`eval::load_weights`]).
    pub fn load(path: &std::path::Path) -> Result<Self, crate::error::EngineError> {
        let (model, weights) = eval::load_weights(path)?;
        Self::new(model, weights)
    }

    /// The model.
    pub fn model(&self) -> &eval::Model {
        &self.model
    }

    /// The weights.
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// A copy that values the pieces differently: every parameter of the `material` group
    /// times its own factor drawn uniformly from `[1 - amount, 1 + amount]` (`amount` in
    /// `[0, 1)`, clamped there), every other weight unchanged. Self-play between such copies
    /// trades pieces the unperturbed weights would never give up, so the games show what those
    /// trades are worth (`play::datagen`'s jittered self-play).
    ///
    /// ```
    /// use engine::ModelEvaluator;
    /// use rand::SeedableRng;
    /// let e = ModelEvaluator::default_material();
    /// let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    /// let j = e.jittered(0.2, &mut rng);
    /// let rook = e.model().index_of("material.rook.mg").unwrap();
    /// assert!((400.0..=600.0).contains(&j.weights()[rook]));
    /// assert_ne!(j.weights()[rook], 500.0);
    /// let table = e.model().index_of("pst.rook.mg.e4").unwrap();
    /// assert_eq!(j.weights()[table], e.weights()[table]);
    /// ```
    pub fn jittered<R: rand::Rng + ?Sized>(&self, amount: f64, rng: &mut R) -> ModelEvaluator {
        let amount = if amount.is_finite() {
            amount.clamp(0.0, 0.99)
        } else {
            0.0
        };
        let mut weights = self.weights.clone();
        if amount > 0.0 {
            for (w, p) in weights.iter_mut().zip(self.model.params()) {
                if p.group == "material" {
                    *w *= 1.0 + rng.gen_range(-amount..=amount);
                }
            }
        }
        ModelEvaluator {
            model: self.model.clone(),
            weights,
        }
    }
}

impl Evaluator for ModelEvaluator {
    fn evaluate(&self, pos: &Chess) -> f64 {
        self.model.evaluate_f64(pos, &self.weights)
    }

    fn quiesce(&self, pos: &Chess, alpha: f64, beta: f64) -> Quiet {
        // `quiesce_score` takes and returns side-to-move scores, like this trait.
        let q = eval::quiesce_score(pos, alpha, beta, |p| self.evaluate(p));
        Quiet {
            score: q.score,
            nodes: q.nodes,
        }
    }
}
