//! The loop's keep rules on a stub engine whose strength per weight set is known.
//!
//! Every generation's candidate is the current weights moved by a known Elo (drawn by the
//! run's seed from [`DELTAS`]); each game of a match is won, drawn or lost with the
//! probabilities of the two weight sets' true Elo difference ([`DRAWS`] of the games drawn
//! at equal strength). The matches go through the loop's own code: `run_match_with` (the
//! batches, the SPRT between them, the report), `gate::decide`, `gate::below_start` and
//! `gate::answer`, at `tune loop`'s defaults (SPRT [0, 10] with alpha = beta = 0.05 judged
//! every 20 openings up to 1,000; 200 openings against the start, 600 more when those leave
//! the generation undecided, `gate::undecided_against_start`, joined by
//! `MatchReport::followed_by`).
//!
//! Over 1,000 seeded runs of five generations: the loop's answer is never weaker than its
//! start, and no gate keeps a candidate weaker than the weights it replaces by the SPRT's
//! width (10 Elo) or more. The loop as it was (an undecided gate keeping a candidate that is
//! ahead, at most 200 openings, no match against the start) does both, in the same runs: the
//! harness sees a regression when there is one. The second part of the match against the
//! start moves the answer above the start in more runs than 200 openings alone.

use std::sync::atomic::{AtomicU32, Ordering};

use bootstrap::derive_seed;
use bootstrap::external::LoopSettings;
use bootstrap::gate::{answer, below_start, decide, undecided_against_start, Keep, Undecided};
use engine::play::elo::{expected_score, Sprt};
use engine::play::game::{GameRecord, Termination};
use engine::play::matches::{
    run_match_with, MatchGame, MatchPlan, MatchRecord, MatchResult, PlayBatch, SprtStop,
};
use engine::play::openings::Opening;
use engine::play::options::PlayOptions;
use shakmaty::{Chess, Color, KnownOutcome};

/// The share of drawn games between equal weight sets.
const DRAWS: f64 = 0.4;
/// How far a candidate is from the current weights, in true Elo (one drawn per generation).
const DELTAS: [f64; 9] = [-30.0, -20.0, -10.0, -5.0, 0.0, 5.0, 10.0, 20.0, 30.0];
/// `tune loop`'s gate.
const SPRT: Sprt = Sprt {
    elo0: 0.0,
    elo1: 10.0,
    alpha: 0.05,
    beta: 0.05,
};
const RUNS: u64 = 1_000;
const GENERATIONS: u32 = 5;

/// A uniform number in [0, 1) from a seed and an index.
fn uniform(seed: u64, k: u32, salt: u64) -> f64 {
    (derive_seed(seed, k, salt) >> 11) as f64 / (1u64 << 53) as f64
}

/// The stub: the first player's weights are `a` Elo strong, the second's `b`; the games of a
/// match are drawn in order from `seed`.
struct Stub {
    a: f64,
    b: f64,
    seed: u64,
    games: AtomicU32,
}

impl Stub {
    fn new(a: f64, b: f64, seed: u64) -> Stub {
        Stub {
            a,
            b,
            seed,
            games: AtomicU32::new(0),
        }
    }

    /// One game from `opening`, the first player White if `a_white`.
    fn game(&self, opening: &Opening, index: usize, a_white: bool) -> MatchGame {
        let p = expected_score(self.a - self.b);
        let u = uniform(self.seed, self.games.fetch_add(1, Ordering::Relaxed), 0);
        let a_won = if u < p - DRAWS / 2.0 {
            Some(true)
        } else if u < p + DRAWS / 2.0 {
            None
        } else {
            Some(false)
        };
        let (outcome, termination) = match a_won {
            None => (KnownOutcome::Draw, Termination::DrawAdjudication),
            Some(a) => {
                let winner = if a == a_white {
                    Color::White
                } else {
                    Color::Black
                };
                (
                    KnownOutcome::Decisive { winner },
                    Termination::WinAdjudication,
                )
            }
        };
        MatchGame {
            opening: index,
            a_white,
            record: GameRecord {
                opening: opening.clone(),
                moves: Vec::new(),
                outcome,
                termination,
            },
        }
    }

    /// A batch of openings, each with both colours, in order.
    fn batch(&self, openings: &[Opening]) -> MatchResult {
        let games = openings
            .iter()
            .enumerate()
            .flat_map(|(i, o)| [self.game(o, i, true), self.game(o, i, false)])
            .collect();
        MatchResult::from_games(games)
    }

    /// The match of `plan`, through the loop's match code.
    fn play(&self, plan: &MatchPlan) -> engine::play::matches::MatchReport {
        let play: &PlayBatch<'_> = &|openings, _, _| self.batch(openings);
        run_match_with(play, plan, &|_| {})
    }
}

/// A match of `openings` openings, judged by `sprt` every 20 openings if there is one.
fn plan(openings: usize, sprt: Option<Sprt>) -> MatchPlan {
    MatchPlan {
        openings: vec![Opening::from_position(Chess::default()); openings],
        options: PlayOptions::default(),
        sprt,
        sprt_stop: match sprt {
            Some(_) => SprtStop::AfterEachBatch(20),
            None => SprtStop::Never,
        },
    }
}

/// How a loop keeps weights.
#[derive(Clone, Copy)]
struct Policy {
    undecided: Undecided,
    /// Measure every kept generation against the start, go back below it, answer by it.
    vs_start: bool,
    /// Openings of the second part of that match, played when the first leaves it undecided.
    vs_start_more: usize,
    /// The gate's openings, at most.
    gate_openings: usize,
}

/// What one run kept.
struct Run {
    /// The true Elo of the loop's answer over its start.
    answer: f64,
    /// The true Elo by which each kept candidate was weaker than the weights it replaced.
    weaker_kept: Vec<f64>,
}

/// A loop of [`GENERATIONS`] generations on the stub, from seed `seed`.
fn simulate(seed: u64, policy: Policy) -> Run {
    let mut strength = vec![0.0];
    let mut current = 0usize;
    let mut measured: Vec<(u32, MatchRecord)> = Vec::new();
    let mut weaker_kept = Vec::new();
    for g in 1..=GENERATIONS {
        let delta = DELTAS[(derive_seed(seed, g, 1) % DELTAS.len() as u64) as usize];
        strength.push(strength[current] + delta);
        let cand = strength[g as usize];
        let gate = Stub::new(cand, strength[current], derive_seed(seed, g, 2));
        let report = gate.play(&plan(policy.gate_openings, Some(SPRT)));
        if decide(&SPRT, policy.undecided, &report.result.pairs).0 == Keep::Old {
            continue;
        }
        if delta < 0.0 {
            weaker_kept.push(delta);
        }
        current = g as usize;
        if policy.vs_start {
            let stub = Stub::new(cand, 0.0, derive_seed(seed, g, 3));
            let mut vs = stub.play(&plan(200, None));
            if policy.vs_start_more > 0 && undecided_against_start(vs.pentanomial.as_ref()) {
                vs = vs.followed_by(stub.play(&plan(policy.vs_start_more, None)));
            }
            measured.push((g, vs.record("gen 0")));
            if below_start(vs.pentanomial.as_ref()) {
                current = answer(measured.iter().map(|(g, m)| (*g, m))) as usize;
            }
        }
    }
    let kept = match policy.vs_start {
        true => answer(measured.iter().map(|(g, m)| (*g, m))) as usize,
        false => current,
    };
    Run {
        answer: strength[kept],
        weaker_kept,
    }
}

#[test]
fn the_stub_plays_its_known_strengths() {
    // 2,000 openings at +30 true Elo: the estimate's interval holds it, and the draws are
    // about DRAWS of the games.
    let r = Stub::new(30.0, 0.0, 7).play(&plan(2_000, None));
    let e = r.pentanomial.unwrap();
    assert!(e.lower < 30.0 && 30.0 < e.upper, "{e:?}");
    let draws = r.result.draws as f64 / r.result.games.len() as f64;
    assert!((draws - DRAWS).abs() < 0.03, "{draws}");
}

#[test]
fn a_loop_never_answers_below_its_start_nor_keeps_a_clear_regression() {
    let defaults = LoopSettings::new("stub", "m.json");
    let now = Policy {
        undecided: defaults.undecided,
        vs_start: true,
        vs_start_more: defaults.vs_start_more,
        gate_openings: defaults.gate_openings,
    };
    assert_eq!(now.undecided, Undecided::Reject, "tune loop's default");
    assert_eq!(defaults.vs_start_openings, 200);
    assert_eq!(defaults.vs_start_more, 600);
    let one_part = Policy {
        vs_start_more: 0,
        ..now
    };
    let before = Policy {
        undecided: Undecided::Ahead,
        vs_start: false,
        vs_start_more: 0,
        gate_openings: 200,
    };
    let (mut below, mut below_before, mut clear, mut clear_before) = (0, 0, 0, 0);
    let (mut slight, mut improved, mut improved_one_part, mut below_one_part) = (0, 0, 0, 0);
    for seed in 0..RUNS {
        let run = simulate(seed, now);
        below += usize::from(run.answer < 0.0);
        improved += usize::from(run.answer > 0.0);
        let short = simulate(seed, one_part);
        below_one_part += usize::from(short.answer < 0.0);
        improved_one_part += usize::from(short.answer > 0.0);
        clear += run.weaker_kept.iter().filter(|&&d| d <= -10.0).count();
        slight += run.weaker_kept.iter().filter(|&&d| d > -10.0).count();
        let old = simulate(seed, before);
        below_before += usize::from(old.answer < 0.0);
        clear_before += old.weaker_kept.iter().filter(|&&d| d <= -10.0).count();
    }
    eprintln!(
        "{RUNS} runs: answer below the start {below} (before: {below_before}; without the \
         second part: {below_one_part}), above it {improved} (without the second part: \
         {improved_one_part}); candidates kept 10 Elo or more weaker {clear} (before: \
         {clear_before}), 5 weaker {slight}"
    );
    assert_eq!(below, 0, "the answer is never weaker than the start");
    assert_eq!(clear, 0, "no gate keeps a candidate 10 Elo weaker or worse");
    assert!(
        below_before > 0 && clear_before > 0,
        "the harness sees regressions"
    );
    assert!(
        improved > RUNS as usize / 3,
        "the loop still moves: {improved}"
    );
    assert!(
        improved > improved_one_part,
        "the second part moves the answer more often: {improved} against {improved_one_part}"
    );
}
