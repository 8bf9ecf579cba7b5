//! The speed work left the search unchanged: fixed-node self-play games (moves, scores, depths
//! and node counts) hash to the values recorded with the implementation before it (commit
//! `ac15c71`: a full `Model::evaluate` per node, `eval::quiesce_window` at the leaves, moves
//! sorted with `sort_by_cached_key`), for the material evaluator and both models with
//! non-trivial weights; `full`'s groups added since (`eval::LATER_GROUPS`: threats, pawn-push
//! threats, outposts, ...) change nothing while they are 0.

use engine::play::datagen::{play_one, DatagenOptions};
use engine::play::game::GameRecord;
use engine::play::openings::RandomOpenings;
use engine::{Evaluator, MaterialEvaluator, ModelEvaluator};
use eval::{Model, ModelKind, LATER_GROUPS};

/// The model's default weights plus a fixed, irregular perturbation, so that every parameter
/// matters and the sums are not integers. The parameters of the groups in `skip` keep their
/// defaults and are not counted: the perturbation of the others is the one the model had
/// before those groups were added (`full`'s [`LATER_GROUPS`], in the order they were added:
/// `threats`, then `push_threats` and `outposts`, then any added since, each after the
/// fingerprints before it were recorded).
fn perturbed_without(kind: ModelKind, skip: &[&str]) -> ModelEvaluator {
    let model = Model::new(kind);
    let mut i = 0;
    let w = model
        .default_weights()
        .iter()
        .zip(model.params())
        .map(|(&x, p)| {
            if skip.contains(&p.group.as_str()) {
                return x;
            }
            let y = x + ((i * 37) % 23) as f64 * 1.37 - 11.0;
            i += 1;
            y
        })
        .collect();
    ModelEvaluator::new(model, w).unwrap()
}

fn perturbed(kind: ModelKind) -> ModelEvaluator {
    perturbed_without(kind, &[])
}

/// FNV-1a over every game's moves, scores, depths, node counts and result, and the node total.
fn fingerprint<E: Evaluator>(eval: &E, games: u32, nodes: u64) -> (u64, u64) {
    let options = DatagenOptions {
        games,
        play: engine::play::options::PlayOptions::default().nodes(nodes),
        openings: RandomOpenings {
            seed: 7,
            ..RandomOpenings::default()
        },
    };
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |bytes: &[u8]| {
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    let mut total = 0;
    for i in 0..games {
        let g: GameRecord = play_one(eval, &options, i).expect("no stop flag: every game ends");
        for m in &g.moves {
            mix(shakmaty::uci::UciMove::from_standard(m.mv)
                .to_string()
                .as_bytes());
            mix(&m.score.to_le_bytes());
            mix(&m.depth.to_le_bytes());
            mix(&m.nodes.to_le_bytes());
            total += m.nodes;
        }
        mix(&g.white_score().to_le_bytes());
    }
    (h, total)
}

#[test]
fn material_games_unchanged() {
    assert_eq!(
        fingerprint(&MaterialEvaluator, 4, 2000),
        (7910227638686781636, 512199)
    );
}

#[test]
fn default_model_games_unchanged() {
    assert_eq!(
        fingerprint(&ModelEvaluator::default_material(), 4, 2000),
        (16353610175445260074, 458546)
    );
}

#[test]
fn psqt_games_unchanged() {
    assert_eq!(
        fingerprint(&perturbed(ModelKind::Psqt), 4, 2000),
        (3569387120311519767, 1101492)
    );
}

/// `full` with every group added later at 0 (its threat terms and all after them) plays the
/// games it played before they existed: the fingerprint recorded before them, with the same
/// perturbation of every other parameter.
#[test]
fn full_games_unchanged() {
    assert_eq!(
        fingerprint(&perturbed_without(ModelKind::Full, &LATER_GROUPS), 4, 2000),
        (10093598971817903515, 1008913)
    );
}

/// `full` with every parameter perturbed, the threats too (recorded when they were added), the
/// groups added after them (pawn-push threats, outposts, ...) at 0.
#[test]
fn full_games_with_threats_unchanged() {
    assert_eq!(
        fingerprint(
            &perturbed_without(ModelKind::Full, &LATER_GROUPS[1..]),
            4,
            2000
        ),
        (15838288251439591863, 982778)
    );
}

/// `full` with every parameter perturbed, the pawn-push threats and outposts too (recorded when
/// they were added), the groups added after them at 0.
#[test]
fn full_games_with_every_group_unchanged() {
    assert_eq!(
        fingerprint(
            &perturbed_without(ModelKind::Full, &LATER_GROUPS[3..]),
            4,
            2000
        ),
        (15264595719493613190, 706045)
    );
}
