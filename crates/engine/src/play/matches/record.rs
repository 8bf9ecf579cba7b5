//! A match report written out: the record for JSON files (no games, no timings) and the text
//! `tune match` prints.

use serde::{Deserialize, Serialize};

use super::run::MatchReport;
use crate::play::elo::{EloEstimate, SprtVerdict};

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
    /// Games lost (or drawn) on time by A, then by the opponent (absent when none).
    #[serde(default, skip_serializing_if = "no_time_losses")]
    pub time_losses: [u64; 2],
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

fn no_time_losses(t: &[u64; 2]) -> bool {
    *t == [0, 0]
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
            time_losses: r.time_losses,
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
        if r.time_losses != [0, 0] {
            s += &format!(
                "losses on time: {name_a} {}, {name_b} {} (in the tally above)\n",
                r.time_losses[0], r.time_losses[1]
            );
        }
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
/// let e = engine::play::elo::pentanomial(&[0, 10, 30, 30, 30]).unwrap();
/// assert!(engine::play::matches::format_elo(&e).starts_with("+147.2 ["));
/// ```
pub fn format_elo(e: &EloEstimate) -> String {
    format!(
        "{:+.1} [{:+.1}, {:+.1}]",
        e.elo + 0.0,
        e.lower + 0.0,
        e.upper + 0.0
    )
}
