//! Matches between two players (evaluations searched by gradtune, or external UCI engines:
//! [`crate::player`]): paired games (each opening with both colours), in parallel, scored
//! from the first player's point of view.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use shakmaty::{Color, Position};

use crate::elo::{pentanomial, trinomial, EloEstimate, Sprt, SprtVerdict};
use crate::game::{play_game_from, Adjudication, GameRecord};
use crate::limits::SearchLimits;
use crate::openings::Opening;
use crate::player::Player;

/// Options of a match.
#[derive(Clone, Debug)]
pub struct MatchOptions {
    /// Limits of every move (nodes or movetime).
    pub limits: SearchLimits,
    /// Transposition table per player and game, MiB.
    pub hash_mb: usize,
    /// Adjudication rules.
    pub adjudication: Adjudication,
}

impl Default for MatchOptions {
    fn default() -> Self {
        Self {
            limits: SearchLimits::nodes(5_000),
            hash_mb: 4,
            adjudication: Adjudication::default(),
        }
    }
}

/// One game of a match.
#[derive(Clone, Debug)]
pub struct MatchGame {
    /// Index of the opening (games `2i` and `2i + 1` share opening `i`).
    pub opening: usize,
    /// Whether the first player (A) had White.
    pub a_white: bool,
    /// The game.
    pub record: GameRecord,
}

impl MatchGame {
    /// A's score: 1, 0.5 or 0.
    pub fn a_score(&self) -> f64 {
        let white = self.record.white_score();
        if self.a_white {
            white
        } else {
            1.0 - white
        }
    }
}

/// The games of a match and their tally from A's point of view.
///
/// ```
/// use engine::matches::{play_match, MatchOptions};
/// use engine::openings::Opening;
/// use engine::{MaterialEvaluator, SearchLimits};
/// use shakmaty::Chess;
///
/// let openings = [Opening::from_position(Chess::default())];
/// let opts = MatchOptions { limits: SearchLimits::nodes(200), ..MatchOptions::default() };
/// let r = play_match(&MaterialEvaluator, &MaterialEvaluator, &openings, &opts, &|_| {});
/// // One opening, both colours: one pair; a player against itself at fixed nodes scores 1.
/// assert_eq!(r.games.len(), 2);
/// assert_eq!(r.pairs, [0, 0, 1, 0, 0]);
/// assert_eq!(r.wins, r.losses);
/// ```
#[derive(Clone, Debug, Default)]
pub struct MatchResult {
    /// The games, in order: opening 0 with A White, opening 0 with A Black, opening 1, ...
    pub games: Vec<MatchGame>,
    /// A's wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// A's losses.
    pub losses: u64,
    /// Pairs by A's points in the pair: 0, ½, 1, 1½, 2.
    pub pairs: [u64; 5],
}

impl MatchResult {
    /// Tally a list of games (pairs are consecutive games with the same opening).
    pub fn from_games(games: Vec<MatchGame>) -> Self {
        let mut r = MatchResult::default();
        for g in &games {
            match g.a_score() {
                s if s > 0.75 => r.wins += 1,
                s if s < 0.25 => r.losses += 1,
                _ => r.draws += 1,
            }
        }
        for pair in games.chunks(2) {
            if let [a, b] = pair {
                if a.opening == b.opening {
                    let points = ((a.a_score() + b.a_score()) * 2.0).round() as usize;
                    r.pairs[points.min(4)] += 1;
                }
            }
        }
        r.games = games;
        r
    }

    /// Elo of A over B with the trinomial (per-game) variance.
    pub fn elo_trinomial(&self) -> Option<EloEstimate> {
        trinomial(self.wins, self.draws, self.losses)
    }

    /// Elo of A over B with the pentanomial (per-pair) variance: the one to quote for paired
    /// openings.
    pub fn elo_pentanomial(&self) -> Option<EloEstimate> {
        pentanomial(&self.pairs)
    }
}

/// Play one game: `a` against `b` from `opening`, A with White if `a_white`. Players are
/// evaluations searched by gradtune (a fresh table per game) or external engines
/// ([`Player`]).
pub fn play_pair_game<A: Player + ?Sized, B: Player + ?Sized>(
    a: &A,
    b: &B,
    opening: &Opening,
    a_white: bool,
    options: &MatchOptions,
) -> GameRecord {
    let mut sa = a.mover(&opening.root, options);
    let mut sb = b.mover(&opening.root, options);
    play_game_from(opening, &options.adjudication, |pos, history, line| {
        let a_to_move = (pos.turn() == Color::White) == a_white;
        if a_to_move {
            sa.choose(pos, history, line)
        } else {
            sb.choose(pos, history, line)
        }
    })
}

/// Play every opening twice (A White, then A Black) on rayon's pool.
///
/// ```
/// use engine::matches::{play_match, MatchOptions};
/// use engine::openings::RandomOpenings;
/// use engine::{MaterialEvaluator, SearchLimits};
/// let openings: Vec<_> = (0..2).map(|i| RandomOpenings::default().opening(i, &MaterialEvaluator)).collect();
/// let opts = MatchOptions { limits: SearchLimits::nodes(300), ..MatchOptions::default() };
/// let r = play_match(&MaterialEvaluator, &MaterialEvaluator, &openings, &opts, &|_| {});
/// assert_eq!(r.wins + r.draws + r.losses, 4);
/// assert_eq!(r.pairs.iter().sum::<u64>(), 2);
/// ```
pub fn play_match<A: Player + ?Sized, B: Player + ?Sized>(
    a: &A,
    b: &B,
    openings: &[Opening],
    options: &MatchOptions,
    on_game: &(dyn Fn(&MatchGame) + Sync),
) -> MatchResult {
    play_match_until(a, b, openings, options, on_game, &AtomicBool::new(false))
}

/// [`play_match`], stopping early once `stop` is set (e.g. by an SPRT that has decided, from
/// `on_game`): openings not yet started are skipped, and the pairs in progress are played to
/// the end, so the result holds whole pairs only, in opening order.
///
/// ```
/// use std::sync::atomic::{AtomicBool, Ordering};
/// use engine::matches::{play_match_until, MatchOptions};
/// use engine::openings::RandomOpenings;
/// use engine::{MaterialEvaluator, SearchLimits};
/// let openings: Vec<_> = (0..20).map(|i| RandomOpenings::default().opening(i, &MaterialEvaluator)).collect();
/// let opts = MatchOptions { limits: SearchLimits::nodes(300), ..MatchOptions::default() };
/// let stop = AtomicBool::new(false);
/// let on_game = |_: &_| stop.store(true, Ordering::Relaxed);
/// let r = play_match_until(&MaterialEvaluator, &MaterialEvaluator, &openings, &opts, &on_game, &stop);
/// assert!(r.games.len() < 40 && r.games.len() % 2 == 0);
/// ```
pub fn play_match_until<A: Player + ?Sized, B: Player + ?Sized>(
    a: &A,
    b: &B,
    openings: &[Opening],
    options: &MatchOptions,
    on_game: &(dyn Fn(&MatchGame) + Sync),
    stop: &AtomicBool,
) -> MatchResult {
    // One task per opening plays both colours, so a stop never leaves half a pair.
    let pairs: Vec<Option<[MatchGame; 2]>> = openings
        .par_iter()
        .enumerate()
        .map(|(opening, position)| {
            if stop.load(AtomicOrdering::Relaxed) {
                return None;
            }
            let game = |a_white| {
                let record = play_pair_game(a, b, position, a_white, options);
                let game = MatchGame {
                    opening,
                    a_white,
                    record,
                };
                on_game(&game);
                game
            };
            Some([game(true), game(false)])
        })
        .collect();
    MatchResult::from_games(pairs.into_iter().flatten().flatten().collect())
}

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
    /// Search limits, table size, adjudication.
    pub options: MatchOptions,
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
    /// Whether `stop` ended the match before the plan (or the SPRT) did.
    pub interrupted: bool,
    /// Nodes per move, if the limits were a node count.
    pub nodes: Option<u64>,
    /// Wall time.
    pub elapsed: Duration,
}

/// Play a match as `plan` says, `a` against `b`, on rayon's pool. `on_event` hears of every
/// game and of an SPRT decision; setting `stop` (e.g. from Ctrl-C) ends the match after the
/// pairs under way, and the report says it was interrupted.
///
/// ```
/// use std::sync::atomic::AtomicBool;
/// use engine::elo::{Sprt, SprtVerdict};
/// use engine::matches::{run_match, MatchOptions, MatchPlan, SprtStop};
/// use engine::openings::RandomOpenings;
/// use engine::{MaterialEvaluator, SearchLimits};
/// let plan = MatchPlan {
///     openings: RandomOpenings::default().openings(2, &MaterialEvaluator),
///     options: MatchOptions { limits: SearchLimits::nodes(300), ..MatchOptions::default() },
///     sprt: Some(Sprt { elo0: 0.0, elo1: 10.0, alpha: 0.05, beta: 0.05 }),
///     sprt_stop: SprtStop::AfterEachBatch(1),
/// };
/// let r = run_match(&MaterialEvaluator, &MaterialEvaluator, &plan, &|_| {}, &AtomicBool::new(false));
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
    stop: &AtomicBool,
) -> MatchReport {
    let start = Instant::now();
    let sprt = plan.sprt;
    let batch = match (sprt, plan.sprt_stop) {
        (Some(_), SprtStop::AfterEachBatch(n)) => n.max(1),
        _ => plan.openings.len().max(1),
    };
    let streaming = sprt.filter(|_| plan.sprt_stop == SprtStop::AfterEachPair);
    // Set by the caller's `stop` or by a streaming SPRT decision; ends the current batch.
    let halt = AtomicBool::new(stop.load(AtomicOrdering::Relaxed));
    // The running tally of whole pairs for a streaming SPRT: A's score in each half-played
    // opening, and the pairs by A's points.
    let tally: Mutex<(HashMap<usize, f64>, [u64; 5])> = Mutex::new((HashMap::new(), [0; 5]));
    let mut games = Vec::with_capacity(plan.openings.len() * 2);
    let mut decided = false;
    for (k, chunk) in plan.openings.chunks(batch).enumerate() {
        let offset = k * batch;
        if halt.load(AtomicOrdering::Relaxed) || stop.load(AtomicOrdering::Relaxed) {
            break;
        }
        let on_game = |g: &MatchGame| {
            let g = MatchGame {
                opening: g.opening + offset,
                ..g.clone()
            };
            on_event(MatchEvent::Game(&g));
            if stop.load(AtomicOrdering::Relaxed) {
                halt.store(true, AtomicOrdering::Relaxed);
            }
            let Some(sprt) = streaming else { return };
            let Ok(mut tally) = tally.lock() else { return };
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
        };
        let r = play_match_until(a, b, chunk, &plan.options, &on_game, &halt);
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
        interrupted: !played_all && !decided && stop.load(AtomicOrdering::Relaxed),
        nodes: plan.options.limits.nodes,
        elapsed: start.elapsed(),
        result,
    }
}

/// An Elo figure for files: `None` stands for an infinite value (a match won or lost in every
/// game), which JSON cannot hold.
fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x + 0.0)
}

/// A match's result as written to JSON files (`summary.json`'s `verify`, a bootstrap's
/// ladder): no games, no timings, so the same match always gives the same record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchRecord {
    /// Who the first player (A) played.
    pub opponent: String,
    /// Openings planned; each is played twice, colours swapped.
    pub openings: usize,
    /// Games played.
    pub games: u64,
    /// Nodes per move (`None` for time-limited moves).
    pub nodes: Option<u64>,
    /// A's wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// A's losses.
    pub losses: u64,
    /// Pairs by A's points: 0, ½, 1, 1½, 2.
    pub pairs: [u64; 5],
    /// A's mean score per game.
    pub score: Option<f64>,
    /// Elo of A over the opponent (`None` if no game, or infinite).
    pub elo: Option<f64>,
    /// The 95% interval, pentanomial variance (ends `None` when infinite).
    pub interval: Option<(Option<f64>, Option<f64>)>,
    /// The SPRT, if one ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtRecord>,
}

/// An SPRT as written to JSON files.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtRecord {
    /// Elo under H0.
    pub elo0: f64,
    /// Elo under H1.
    pub elo1: f64,
    /// False-positive rate.
    pub alpha: f64,
    /// False-negative rate.
    pub beta: f64,
    /// The log-likelihood ratio.
    pub llr: f64,
    /// `H1`, `H0` or `inconclusive`.
    pub verdict: String,
}

/// How an SPRT verdict is written: `H1`, `H0` or `inconclusive`.
pub fn verdict_name(v: SprtVerdict) -> &'static str {
    match v {
        SprtVerdict::AcceptH1 => "H1",
        SprtVerdict::AcceptH0 => "H0",
        SprtVerdict::Continue => "inconclusive",
    }
}

impl MatchReport {
    /// The record of this match against `opponent`.
    pub fn record(&self, opponent: &str) -> MatchRecord {
        let r = &self.result;
        let e = self.pentanomial;
        MatchRecord {
            opponent: opponent.to_string(),
            openings: self.openings,
            games: r.wins + r.draws + r.losses,
            nodes: self.nodes,
            wins: r.wins,
            draws: r.draws,
            losses: r.losses,
            pairs: r.pairs,
            score: e.or(self.trinomial).map(|e| e.score),
            elo: e.and_then(|e| finite(e.elo)),
            interval: e.map(|e| (finite(e.lower), finite(e.upper))),
            sprt: self.sprt.map(|s| SprtRecord {
                elo0: s.sprt.elo0,
                elo1: s.sprt.elo1,
                alpha: s.sprt.alpha,
                beta: s.sprt.beta,
                llr: s.llr,
                verdict: verdict_name(s.verdict).to_string(),
            }),
        }
    }

    /// The report as printed by `tune match`: players, W/D/L, pairs, both Elo intervals and
    /// the SPRT, one line each.
    pub fn to_text(&self, name_a: &str, name_b: &str) -> String {
        let r = &self.result;
        let games = r.wins + r.draws + r.losses;
        let mut s = format!(
            "{name_a} vs {name_b}: {games} games ({} of {} openings x 2 colours) in {:.1} s\n",
            r.games.len() / 2,
            self.openings,
            self.elapsed.as_secs_f64()
        );
        s += &format!(
            "W/D/L (A's view): {} / {} / {}   score {:.1}%\n",
            r.wins,
            r.draws,
            r.losses,
            100.0 * (r.wins as f64 + 0.5 * r.draws as f64) / games.max(1) as f64
        );
        s += &format!(
            "pairs by A's points 0/0.5/1/1.5/2: {}\n",
            r.pairs
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(" / ")
        );
        if let Some(e) = self.pentanomial {
            s += &format!("Elo (pentanomial, 95%): {}\n", format_elo(&e));
            if e.variance == 0.0 {
                s += "  (every pair scored the same: zero variance, a degenerate interval)\n";
            }
        }
        if let Some(e) = self.trinomial {
            s += &format!("Elo (trinomial, 95%):   {}\n", format_elo(&e));
        }
        if let (Some(o), Some(_)) = (self.sprt, self.trinomial) {
            let (lo, hi) = o.sprt.bounds();
            let verdict = match o.verdict {
                SprtVerdict::AcceptH1 => "H1 accepted",
                SprtVerdict::AcceptH0 => "H0 accepted",
                SprtVerdict::Continue => "inconclusive (keep playing)",
            };
            s += &format!(
                "SPRT elo0={} elo1={} alpha={} beta={}: LLR {:.3} in [{lo:.3}, {hi:.3}]: {verdict}\n",
                o.sprt.elo0, o.sprt.elo1, o.sprt.alpha, o.sprt.beta, o.llr
            );
        }
        if self.interrupted {
            s += "(interrupted: the pairs above are those finished)\n";
        }
        s
    }
}

/// `+12.3 [-4.5, +29.0]`: an estimate and its 95% interval.
///
/// ```
/// let e = engine::elo::pentanomial(&[0, 10, 30, 30, 30]).unwrap();
/// assert!(engine::matches::format_elo(&e).starts_with("+147.2 ["));
/// ```
pub fn format_elo(e: &EloEstimate) -> String {
    format!(
        "{:+.1} [{:+.1}, {:+.1}]",
        e.elo + 0.0,
        e.lower + 0.0,
        e.upper + 0.0
    )
}
