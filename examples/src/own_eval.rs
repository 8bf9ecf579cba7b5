//! An engine author's own evaluation, tuned through the library (no CLI).
//!
//! The evaluation is written once against [`tape::Scalar`]: material and a mobility bonus
//! per piece type, with a non-linear twist (a bonus for the bishop pair that saturates with a
//! `tanh`). It is then
//!
//! 1. recorded for every labelled position into a [`tapered::CompiledSet`],
//! 2. turned into an [`optim::Objective`] with Texel's `K` fitted by [`optim::fit_k`],
//! 3. minimised by [`optim::run`] with L-BFGS, holding out a validation set.

use std::sync::Arc;

use optim::{
    fit_k, free_indices, run, Budget, Control, Link, LossKind, Method, Objective, ObjectiveConfig,
    ParamSpec, RunConfig, RunOutcome, Sigmoid,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::{Chess, Color, Position, Role};
use tape::Scalar;
use tapered::{CompiledSet, Target};

/// The roles with a material value, in parameter order.
const ROLES: [Role; 5] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
];

/// A tiny evaluation: 5 material values, 4 mobility weights, a bishop-pair bonus and a tempo.
#[derive(Clone, Debug, Default)]
pub struct MyEval;

impl MyEval {
    /// The parameters, with names, groups and starting values.
    pub fn params(&self) -> Vec<ParamSpec> {
        let mut p = Vec::new();
        for (r, v) in ["pawn", "knight", "bishop", "rook", "queen"]
            .iter()
            .zip([100.0, 300.0, 300.0, 500.0, 900.0])
        {
            p.push(ParamSpec::new(format!("material.{r}"), "material", v));
        }
        for r in ["knight", "bishop", "rook", "queen"] {
            p.push(ParamSpec::new(format!("mobility.{r}"), "mobility", 0.0));
        }
        p.push(ParamSpec::new("bishop_pair", "pieces", 0.0));
        p.push(ParamSpec::new("tempo", "tempo", 0.0));
        p
    }

    /// The score in centipawns from White's point of view, for any scalar type.
    pub fn evaluate<S: Scalar>(&self, pos: &Chess, w: &[S]) -> S {
        let board = pos.board();
        let mut features: Vec<(u32, f64)> = Vec::with_capacity(10);
        for (k, &role) in ROLES.iter().enumerate() {
            let white = (board.by_role(role) & board.by_color(Color::White)).count() as f64;
            let black = (board.by_role(role) & board.by_color(Color::Black)).count() as f64;
            if white != black {
                features.push((k as u32, white - black));
            }
        }
        // Mobility: pseudo-legal attacks of each piece, White minus Black.
        let occupied = board.occupied();
        for (k, &role) in ROLES[1..].iter().enumerate() {
            let mut m = 0.0;
            for colour in [Color::White, Color::Black] {
                let sign = if colour == Color::White { 1.0 } else { -1.0 };
                for sq in board.by_role(role) & board.by_color(colour) {
                    let piece = shakmaty::Piece {
                        color: colour,
                        role,
                    };
                    let attacks =
                        shakmaty::attacks::attacks(sq, piece, occupied) & !board.by_color(colour);
                    m += sign * attacks.count() as f64;
                }
            }
            if m != 0.0 {
                features.push((5 + k as u32, m));
            }
        }
        let linear = S::dot(w, &features);
        // The bishop pair: a bonus, saturating (tanh) in the size of the material edge it brings.
        let pair = |c: Color| (board.by_role(Role::Bishop) & board.by_color(c)).count() >= 2;
        let pair = match (pair(Color::White), pair(Color::Black)) {
            (true, false) => 1.0,
            (false, true) => -1.0,
            _ => 0.0,
        };
        let bonus = (w[9] * 0.01).tanh() * (100.0 * pair);
        let tempo = if pos.turn() == Color::White {
            w[10]
        } else {
            -w[10]
        };
        linear + bonus + tempo
    }
}

/// Positions from random playouts (2 to 100 plies), none in check or game over.
pub fn random_positions(n: usize, seed: u64) -> Vec<Chess> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut pos = Chess::default();
        for _ in 0..rng.gen_range(2..100) {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[rng.gen_range(0..moves.len())];
            pos.play_unchecked(m);
        }
        if !pos.is_check() && !pos.is_game_over() {
            out.push(pos);
        }
    }
    out
}

/// The weights used to make the demo's labels.
pub const HIDDEN: [f64; 11] = [
    85.0, 320.0, 340.0, 480.0, 950.0, 4.0, 5.0, 3.0, 2.0, 40.0, 12.0,
];

/// The demo: labels each of `n` random positions with a result drawn from the expected score
/// under [`HIDDEN`] weights (`K = 1.1`), holds out a tenth, fits `K` at the starting weights and
/// tunes every parameter but the tempo with L-BFGS. Returns the outcome and the parameters.
pub fn demo(n: usize, seed: u64) -> Result<(RunOutcome, Vec<ParamSpec>, f64), optim::OptimError> {
    let eval = MyEval;
    let params = eval.params();
    let start: Vec<f64> = params.iter().map(|p| p.init).collect();
    let truth = Link {
        sigmoid: Sigmoid::Logistic,
        k: 1.1,
        loss: LossKind::Mse,
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let labelled: Vec<(Chess, f64)> = random_positions(n, seed)
        .into_iter()
        .map(|pos| {
            let p = truth.expect(eval.evaluate(&pos, &HIDDEN));
            // Win, draw or loss with expected result p: draws with probability min(p, 1 - p).
            let d = p.min(1.0 - p);
            let u: f64 = rng.gen();
            let r = if u < p - d / 2.0 {
                1.0
            } else if u < p + d / 2.0 {
                0.5
            } else {
                0.0
            };
            (pos, r)
        })
        .collect();
    let (train, valid) = labelled.split_at(n - n / 10);

    // 1. Record once; every pass replays the compiled programs.
    let record = |items: &[(Chess, f64)]| {
        CompiledSet::record(
            &start,
            items,
            |_, (_, r)| Target {
                value: *r,
                score: None,
                group: 0,
            },
            |_, (pos, _), w| Some(eval.evaluate(pos, w)),
            None,
        )
    };
    let train = Arc::new(record(train));
    let valid = Arc::new(record(valid));

    // 2. Texel's K at the starting weights, then the objective, with the tempo frozen.
    let (k, _) = fit_k(&train, &start, Link { k: 1.0, ..truth });
    let free = free_indices(&params, &["tempo".to_string()]);
    let cfg = ObjectiveConfig::new(Link { k, ..truth });
    let train = Arc::new(Objective::new(train, cfg, start.clone(), Some(free))?);
    let valid = Arc::new(train.with_set(valid)?);

    // 3. L-BFGS with validation-based selection.
    let cfg = RunConfig {
        method: Method::Lbfgs,
        budget: Budget {
            max_iters: Some(200),
            patience: Some(20),
            ..Budget::default()
        },
        ..RunConfig::default()
    };
    let out = run(train, Some(valid), &start, &cfg, Arc::new(Control::new()))?;
    Ok((out, params, k))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example's own code: the loss falls on both splits, and the material values come out
    /// near the hidden ones (tolerance 40 cp each, for 6,000 positions with drawn results and
    /// K fitted at the start).
    #[test]
    fn demo_tunes_the_authors_evaluation() {
        let (out, params, k) = demo(6000, 3).unwrap();
        assert!(k > 0.0);
        assert!(out.train_loss.1 < out.train_loss.0);
        let (v0, v1) = out.valid_loss.unwrap();
        assert!(v1 < v0);
        for i in 1..5 {
            let err = (out.weights[i] - HIDDEN[i]).abs();
            assert!(err < 40.0, "{} off by {err}", params[i].name);
        }
        assert_eq!(out.weights[10], 0.0); // frozen tempo
    }
}
