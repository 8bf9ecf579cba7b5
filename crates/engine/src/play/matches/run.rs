//! A planned match: its openings and options, an optional SPRT that may end it early (after
//! each pair or between batches of openings), its events, and the report it ends with.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::play::play_match;
use super::result::{MatchGame, MatchResult};
use crate::play::elo::{pentanomial, EloEstimate, Sprt, SprtVerdict};
use crate::play::openings::Opening;
use crate::play::options::PlayOptions;
use crate::play::player::Player;

/// When a match with an SPRT may end early.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SprtStop {
    /// Play every opening; the SPRT's verdict is only reported.
    #[default]
    Never,
    /// Judge after each completed pair, as they finish (`tune match --sprt-stop`): prompt, but
    /// which pairs are under way when the SPRT decides depends on timing, so the number of
    /// pairs counted can vary from run to run.
    AfterEachPair,
    /// Play the openings in batches of this many, judging between batches: the pairs counted
    /// depend only on the openings and the players, never on timing or the thread count
    /// (what a reproducible gate needs).
    AfterEachBatch(usize),
}

/// Everything that defines a match apart from its players.
#[derive(Clone, Debug)]
pub struct MatchPlan {
    /// The openings; each is played twice, colours swapped.
    pub openings: Vec<Opening>,
    /// Move limits or time control, table size, adjudication; their `stop` or `abandon`
    /// flag (e.g. Ctrl-C's) ends the match at once (see [`run_match`]).
    pub options: PlayOptions,
    /// A sequential test to report (and to stop on, with [`MatchPlan::sprt_stop`]).
    pub sprt: Option<Sprt>,
    /// When the SPRT may end the match.
    pub sprt_stop: SprtStop,
}

/// What a running match tells its caller (from worker threads).
#[derive(Clone, Copy, Debug)]
pub enum MatchEvent<'a> {
    /// A game finished.
    Game(&'a MatchGame),
    /// The SPRT decided after this many pairs; the pairs under way are being finished.
    SprtDecided {
        /// Pairs counted when it decided.
        pairs: u64,
    },
}

/// The SPRT's state at the end of a match.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtOutcome {
    /// The test.
    pub sprt: Sprt,
    /// Its log-likelihood ratio on the pentanomial estimate (0 with no pairs or no variance).
    pub llr: f64,
    /// Its verdict.
    pub verdict: SprtVerdict,
}

/// A finished (or stopped) match: the games and tally, the Elo estimates and the SPRT.
#[derive(Clone, Debug)]
pub struct MatchReport {
    /// The games and their tally from A's point of view.
    pub result: MatchResult,
    /// Openings planned (the match may have stopped before playing them all).
    pub openings: usize,
    /// Elo of A over B, pentanomial (per-pair) variance.
    pub pentanomial: Option<EloEstimate>,
    /// Elo of A over B, trinomial (per-game) variance.
    pub trinomial: Option<EloEstimate>,
    /// The SPRT, if the plan had one.
    pub sprt: Option<SprtOutcome>,
    /// Whether the options' `stop` or `abandon` flag ended the match before the plan (or the
    /// SPRT) did.
    pub interrupted: bool,
    /// Nodes per move, if the limits were a node count.
    pub nodes: Option<u64>,
    /// Wall time.
    pub elapsed: Duration,
}

impl MatchReport {
    /// This match and `more`, played after it between the same players, as one match: the
    /// openings of `more` numbered after this one's, the games, tally and Elo estimates of
    /// both together, `more`'s SPRT (a test judged on `more` alone; none in the matches this
    /// joins), interrupted if either was, the wall times added.
    ///
    /// ```
    /// use engine::play::matches::{MatchGame, MatchReport, MatchResult};
    /// # use engine::play::game::{GameRecord, Termination};
    /// # use engine::play::openings::Opening;
    /// # use shakmaty::{Chess, Color, KnownOutcome};
    /// # let game = |opening: usize, a_white: bool, a_wins: bool| MatchGame {
    /// #     opening,
    /// #     a_white,
    /// #     record: GameRecord {
    /// #         opening: Opening::from_position(Chess::default()),
    /// #         moves: Vec::new(),
    /// #         outcome: KnownOutcome::Decisive {
    /// #             winner: if a_wins == a_white { Color::White } else { Color::Black },
    /// #         },
    /// #         termination: Termination::WinAdjudication,
    /// #     },
    /// # };
    /// let report = |games: Vec<MatchGame>| {
    ///     let result = MatchResult::from_games(games);
    ///     MatchReport {
    ///         openings: result.games.len() / 2,
    ///         pentanomial: result.elo_pentanomial(),
    ///         trinomial: result.elo_trinomial(),
    ///         sprt: None,
    ///         interrupted: false,
    ///         nodes: Some(1000),
    ///         elapsed: std::time::Duration::ZERO,
    ///         result,
    ///     }
    /// };
    /// // A wins both games of its first opening, then splits one pair and loses one.
    /// let first = report(vec![game(0, true, true), game(0, false, true)]);
    /// let more = report(vec![
    ///     game(0, true, true), game(0, false, false),
    ///     game(1, true, false), game(1, false, false),
    /// ]);
    /// let both = first.followed_by(more);
    /// assert_eq!(both.openings, 3);
    /// assert_eq!(both.result.pairs, [1, 0, 1, 0, 1]);
    /// assert_eq!(both.result.games[4].opening, 2);
    /// assert_eq!(both.pentanomial, both.result.elo_pentanomial());
    /// ```
    pub fn followed_by(self, more: MatchReport) -> MatchReport {
        let offset = self.openings;
        let mut games = self.result.games;
        games.extend(more.result.games.into_iter().map(|mut g| {
            g.opening += offset;
            g
        }));
        let result = MatchResult::from_games(games);
        MatchReport {
            openings: self.openings + more.openings,
            pentanomial: result.elo_pentanomial(),
            trinomial: result.elo_trinomial(),
            sprt: more.sprt,
            interrupted: self.interrupted || more.interrupted,
            nodes: self.nodes.or(more.nodes),
            elapsed: self.elapsed + more.elapsed,
            result,
        }
    }
}

/// The running tally of whole pairs for a streaming SPRT: A's score in each half-played
/// opening, and the pairs by A's points.
#[derive(Default)]
struct PairTally(Mutex<(HashMap<usize, f64>, [u64; 5])>);

impl PairTally {
    /// Counts game `g`; when it completes a pair after which `sprt` decides, sets `halt` and
    /// tells `on_event` (once: the first decision to set `halt`).
    fn add(
        &self,
        g: &MatchGame,
        sprt: Sprt,
        halt: &AtomicBool,
        on_event: &(dyn Fn(MatchEvent<'_>) + Sync),
    ) {
        let Ok(mut tally) = self.0.lock() else { return };
        let (half, pairs) = &mut *tally;
        let Some(first) = half.remove(&g.opening) else {
            half.insert(g.opening, g.a_score());
            return;
        };
        let points = ((first + g.a_score()) * 2.0).round() as usize;
        pairs[points.min(4)] += 1;
        if let Some(e) = pentanomial(pairs) {
            if sprt.verdict(sprt.llr(&e)) != SprtVerdict::Continue
                && !halt.swap(true, AtomicOrdering::Relaxed)
            {
                on_event(MatchEvent::SprtDecided {
                    pairs: pairs.iter().sum(),
                });
            }
        }
    }
}

/// Play a match as `plan` says, `a` against `b`, on rayon's pool. `on_event` hears of every
/// game and of an SPRT decision; setting the plan's `abandon` flag (e.g. from Ctrl-C,
/// [`PlayOptions::interrupt`]) ends the match at once: the pairs under way are abandoned, the
/// report holds the pairs finished and says it was interrupted (its `stop` flag alone lets
/// the pairs under way finish).
///
/// ```
/// use engine::play::elo::{Sprt, SprtVerdict};
/// use engine::play::matches::{run_match, MatchPlan, SprtStop};
/// use engine::play::openings::RandomOpenings;
/// use engine::play::options::PlayOptions;
/// use engine::MaterialEvaluator;
/// let plan = MatchPlan {
///     openings: RandomOpenings::default().openings(2, &MaterialEvaluator),
///     options: PlayOptions::default().nodes(300),
///     sprt: Some(Sprt { elo0: 0.0, elo1: 10.0, alpha: 0.05, beta: 0.05 }),
///     sprt_stop: SprtStop::AfterEachBatch(1),
/// };
/// let r = run_match(&MaterialEvaluator, &MaterialEvaluator, &plan, &|_| {});
/// // A player against itself at fixed nodes: every pair scores 1, no variance, no verdict.
/// assert_eq!(r.result.pairs, [0, 0, 2, 0, 0]);
/// assert_eq!(r.sprt.unwrap().verdict, SprtVerdict::Continue);
/// assert!(!r.interrupted);
/// ```
pub fn run_match<A: Player + ?Sized, B: Player + ?Sized>(
    a: &A,
    b: &B,
    plan: &MatchPlan,
    on_event: &(dyn Fn(MatchEvent<'_>) + Sync),
) -> MatchReport {
    run_match_with(
        &|openings, options, on_game| play_match(a, b, openings, options, on_game),
        plan,
        on_event,
    )
}

/// How [`run_match_with`] has a batch of openings played: each opening twice (the first
/// player White, then Black), as [`play_match`] does, honouring the options' `stop` and
/// `abandon` flags, telling `on_game` of every game; the result holds whole pairs only, in
/// opening order, numbered from 0 within the batch.
pub type PlayBatch<'a> =
    dyn Fn(&[Opening], &PlayOptions, &(dyn Fn(&MatchGame) + Sync)) -> MatchResult + Sync + 'a;

/// [`run_match`] with the games played by `play` instead of by two players: the batches, the
/// SPRT, the events and the report are the same code. A match whose games come from elsewhere
/// (a simulated pair of players of known strengths, in the gate's tests) goes through it.
pub fn run_match_with(
    play: &PlayBatch<'_>,
    plan: &MatchPlan,
    on_event: &(dyn Fn(MatchEvent<'_>) + Sync),
) -> MatchReport {
    let start = Instant::now();
    let sprt = plan.sprt;
    let batch = match (sprt, plan.sprt_stop) {
        (Some(_), SprtStop::AfterEachBatch(n)) => n.max(1),
        _ => plan.openings.len().max(1),
    };
    let streaming = sprt.filter(|_| plan.sprt_stop == SprtStop::AfterEachPair);
    // Set by the caller's flags or by a streaming SPRT decision; ends the current batch.
    let halt = Arc::new(AtomicBool::new(plan.options.stopped()));
    let options = plan.options.clone().stop(halt.clone());
    let tally = PairTally::default();
    let mut games = Vec::with_capacity(plan.openings.len() * 2);
    let mut decided = false;
    for (k, chunk) in plan.openings.chunks(batch).enumerate() {
        let offset = k * batch;
        if halt.load(AtomicOrdering::Relaxed) || plan.options.stopped() {
            break;
        }
        let on_game = |g: &MatchGame| {
            let g = MatchGame {
                opening: g.opening + offset,
                ..g.clone()
            };
            on_event(MatchEvent::Game(&g));
            if plan.options.stopped() {
                halt.store(true, AtomicOrdering::Relaxed);
            }
            if let Some(sprt) = streaming {
                tally.add(&g, sprt, &halt, on_event);
            }
        };
        let r = play(chunk, &options, &on_game);
        games.extend(r.games.into_iter().map(|mut g| {
            g.opening += offset;
            g
        }));
        if let (Some(sprt), SprtStop::AfterEachBatch(_)) = (sprt, plan.sprt_stop) {
            let so_far = MatchResult::from_games(games.clone());
            if let Some(e) = so_far.elo_pentanomial() {
                if sprt.verdict(sprt.llr(&e)) != SprtVerdict::Continue {
                    decided = true;
                    on_event(MatchEvent::SprtDecided {
                        pairs: so_far.pairs.iter().sum(),
                    });
                    break;
                }
            }
        }
    }
    let result = MatchResult::from_games(games);
    let pentanomial = result.elo_pentanomial();
    let trinomial = result.elo_trinomial();
    let sprt = sprt.map(|sprt| {
        let llr = pentanomial.or(trinomial).map_or(0.0, |e| sprt.llr(&e));
        let verdict = sprt.verdict(llr);
        decided |= verdict != SprtVerdict::Continue;
        SprtOutcome { sprt, llr, verdict }
    });
    let played_all = result.games.len() == plan.openings.len() * 2;
    MatchReport {
        openings: plan.openings.len(),
        pentanomial,
        trinomial,
        sprt,
        interrupted: !played_all && !decided && plan.options.stopped(),
        nodes: plan.options.node_count(),
        elapsed: start.elapsed(),
        result,
    }
}
