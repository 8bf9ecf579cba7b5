//! `tune explain` on constructed data: a deliberately wrong parameter is named among the
//! outliers, a parameter's positions are exactly those that touch it ordered by their pull, a
//! planted residual property tops the residual report, and the coefficients are the tape's.

use crate::common;

use std::sync::OnceLock;

use data::Sample;
use eval::{Model, ModelKind};
use optim::Link;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, Position};
use texel::explain::{explain, Coefficients, ExplainOptions};

const K: f64 = 1.0;

fn link() -> Link {
    Link::texel(K)
}

/// The wrong parameter, and by how much.
const WRONG: (&str, f64) = ("pst.knight.mg.e4", 250.0);

struct Case {
    model: Model,
    truth: Vec<f64>,
    positions: Vec<Chess>,
}

/// Smooth true weights: material, and knights and bishops liking the centre.
fn case() -> &'static Case {
    static CASE: OnceLock<Case> = OnceLock::new();
    CASE.get_or_init(|| {
        let model = Model::new(ModelKind::Psqt);
        let mut truth = model.default_weights();
        for (i, p) in model.params().iter().enumerate() {
            let parts: Vec<&str> = p.name.split('.').collect();
            if parts[0] == "pst" && (parts[1] == "knight" || parts[1] == "bishop") {
                let sq: shakmaty::Square = parts[3].parse().unwrap();
                let (f, r) = (sq.file() as i32 as f64, sq.rank() as i32 as f64);
                truth[i] = 30.0 - 6.0 * ((f - 3.5).abs() + (r - 3.5).abs());
            }
        }
        Case {
            positions: common::random_positions(8000, 21),
            model,
            truth,
        }
    })
}

/// Results drawn with probability `sigma(q(truth) + bias(position))`.
fn drawn(bias: impl Fn(&Chess) -> f64, seed: u64) -> Vec<Sample> {
    let c = case();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    c.positions
        .iter()
        .enumerate()
        .map(|(g, p)| {
            let q: f64 = c.model.evaluate(p, &c.truth);
            let result = if rng.gen::<f64>() < link().expect(q + bias(p)) {
                1.0
            } else {
                0.0
            };
            Sample::from_position(p, result, None, g as u32)
        })
        .collect()
}

fn wrong_weights() -> Vec<f64> {
    let c = case();
    let mut w = c.truth.clone();
    w[c.model.index_of(WRONG.0).unwrap()] += WRONG.1;
    w
}

fn given_k() -> ExplainOptions {
    ExplainOptions {
        k: Some(K),
        ..ExplainOptions::default()
    }
}

#[test]
fn a_wrong_parameter_is_among_the_top_outliers() {
    let c = case();
    let s = drawn(|_| 0.0, 1);
    let e = explain(
        &c.model,
        &wrong_weights(),
        &s,
        &ExplainOptions {
            top: 5,
            ..ExplainOptions::default()
        },
    )
    .unwrap();
    assert_eq!(e.params.len(), 5);
    let names: Vec<&str> = e.params.iter().map(|p| p.name.as_str()).collect();
    let p = e
        .params
        .iter()
        .find(|p| p.name == WRONG.0)
        .unwrap_or_else(|| panic!("{} not among {names:?}", WRONG.0));
    let odd = p.odd.as_ref().expect("why it is odd");
    assert_eq!(odd.against, "neighbours");
    assert!(odd.z > 3.0, "{odd:?}");
    // The data wants it back down, and its listed positions touch it.
    assert_eq!(p.pulled, "lower", "{p:?}");
    assert!(p.gradient > 0.0);
    assert_eq!(p.positions.len(), 3);
    assert!(p.positions.iter().all(|x| x.coefficient != 0.0));
    // Ranked by |z|.
    for pair in e.params.windows(2) {
        let z = |p: &texel::explain::ParamReport| p.odd.as_ref().unwrap().z.abs();
        assert!(z(&pair[0]) >= z(&pair[1]));
    }
    // With the true weights, the parameter is not odd.
    let e = explain(&c.model, &c.truth, &s, &ExplainOptions::default()).unwrap();
    assert!(e.params.iter().all(|p| p.name != WRONG.0));
}

#[test]
fn a_parameters_positions_are_those_that_touch_it_by_pull() {
    let c = case();
    let s = drawn(|_| 0.0, 2);
    let w = wrong_weights();
    let top = 25;
    let e = explain(
        &c.model,
        &w,
        &s,
        &ExplainOptions {
            param: Some(WRONG.0.to_string()),
            top,
            ..given_k()
        },
    )
    .unwrap();
    assert_eq!(e.params.len(), 1);
    assert!(e.residuals.is_empty());
    let p = &e.params[0];
    // Brute force: every position's coefficient and contribution.
    let j = c.model.index_of(WRONG.0).unwrap() as u32;
    let mut terms = Vec::new();
    let mut pulls: Vec<f64> = Vec::new();
    for x in &s {
        let pos = x.position().unwrap();
        assert!(c.model.linear_terms(&pos, &mut terms));
        if let Some(&(_, a)) = terms.iter().find(|t| t.0 == j) {
            let q: f64 = c.model.evaluate(&pos, &w);
            pulls.push(link().loss(q, x.result).1 * a);
        }
    }
    assert!(
        pulls.len() > top,
        "{} positions touch {}",
        pulls.len(),
        WRONG.0
    );
    assert_eq!(p.touched, pulls.len());
    let mean = pulls.iter().sum::<f64>() / s.len() as f64;
    assert!((p.gradient - mean).abs() < 1e-9 * (1.0 + mean.abs()));
    pulls.sort_by(|a, b| b.abs().total_cmp(&a.abs()));
    assert_eq!(p.positions.len(), top);
    for (x, want) in p.positions.iter().zip(&pulls) {
        assert!(
            (x.contribution.abs() - want.abs()).abs() < 1e-9,
            "{x:?} {want}"
        );
        let fen: Fen = x.fen.parse().unwrap();
        let pos: Chess = fen.into_position(CastlingMode::Standard).unwrap();
        assert!(c.model.linear_terms(&pos, &mut terms));
        let a = terms.iter().find(|t| t.0 == j).map(|t| t.1);
        assert_eq!(a, Some(x.coefficient), "{}", x.fen);
    }
    // An unknown name is an error naming it.
    let err = explain(
        &c.model,
        &w,
        &s,
        &ExplainOptions {
            param: Some("pst.knight.mg.e9".to_string()),
            ..given_k()
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("pst.knight.mg.e9"), "{err}");
}

#[test]
fn a_planted_side_to_move_bias_tops_the_residual_report() {
    let c = case();
    // White to move does 60 cp better than the evaluation says, Black to move 60 cp worse.
    let s = drawn(
        |p| {
            if p.turn() == Color::White {
                60.0
            } else {
                -60.0
            }
        },
        3,
    );
    let e = explain(&c.model, &c.truth, &s, &given_k()).unwrap();
    assert_eq!(e.residuals.len(), 15);
    let top = &e.residuals[0];
    assert!(
        top.property.starts_with("side to move"),
        "{:?}",
        e.residuals
    );
    assert!(top.correlation > 0.0);
    for pair in e.residuals.windows(2) {
        assert!(pair[0].correlation.abs() >= pair[1].correlation.abs());
    }
    // Its buckets: Black to move below, White to move above, every position once.
    assert_eq!(top.buckets.len(), 2);
    assert!(top.buckets[0].residual < 0.0 && top.buckets[1].residual > 0.0);
    assert_eq!(
        top.buckets.iter().map(|b| b.positions).sum::<usize>(),
        e.positions
    );
    // Without the bias, side to move is not special.
    let e = explain(&c.model, &c.truth, &drawn(|_| 0.0, 3), &given_k()).unwrap();
    let stm = e
        .residuals
        .iter()
        .find(|r| r.property.starts_with("side to move"))
        .unwrap();
    assert!(stm.correlation.abs() < top.correlation.abs() / 3.0);
}

/// The coefficients without a tape are the tape's gradient, for both models.
#[test]
fn coefficients_are_the_tapes_gradient() {
    for kind in ModelKind::ALL {
        let model = Model::new(kind);
        let w: Vec<f64> = model
            .params()
            .iter()
            .enumerate()
            .map(|(i, p)| match p.bounds {
                Some(_) => p.init,
                None => p.init + ((i * 29) % 17) as f64 - 8.0,
            })
            .collect();
        let mut coef = Coefficients::new(&model);
        let mut row = Vec::new();
        for pos in common::random_positions(200, 5) {
            let q = coef.of(&pos, &w, &mut row);
            let (q0, g) = common::fresh(&model, &pos, &w);
            assert!((q - q0).abs() < 1e-9 * (1.0 + q0.abs()), "{kind}");
            let mut dense = vec![0.0; model.len()];
            for pair in row.windows(2) {
                assert!(pair[0].0 < pair[1].0, "sorted, each once");
            }
            for &(i, a) in &row {
                assert!(a != 0.0);
                dense[i as usize] = a;
            }
            for (a, b) in dense.iter().zip(&g) {
                assert!((a - b).abs() < 1e-9 * (1.0 + b.abs()), "{kind}: {a} {b}");
            }
        }
    }
}
