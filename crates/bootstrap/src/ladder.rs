//! The Elo ladder: each generation's kept weights against generation 0 (and the reference),
//! as `ladder.json`, `ladder.md` and `ladder.svg`.

use std::fmt::Write as _;
use std::path::Path;

use engine::play::matches::MatchRecord;
use serde::{Deserialize, Serialize};

use crate::gate::{Keep, Reason};
use crate::plot::{elo_svg, EloPoint, EloSeries};
use crate::state::{write_atomic, write_json, Generation};
use crate::BootstrapError;

/// One rung: a generation's kept weights and how they play.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rung {
    /// The generation.
    pub generation: u32,
    /// The generation whose tuned weights it keeps (0: the start weights).
    pub best: u32,
    /// The gate's decision (none for generation 0).
    pub keep: Option<Keep>,
    /// Why (none for generation 0).
    pub reason: Option<Reason>,
    /// The gate match, candidate against the previous best.
    pub gate: Option<MatchRecord>,
    /// The kept weights against generation 0 (`None`: they are generation 0's, Elo 0).
    pub vs_start: Option<MatchRecord>,
    /// The kept weights against the reference.
    pub vs_reference: Option<MatchRecord>,
}

/// The rungs of the finished generations.
pub fn rungs(generations: &[Generation]) -> Vec<Rung> {
    generations
        .iter()
        .map(|g| Rung {
            generation: g.generation,
            best: g.best,
            keep: g.gate.as_ref().map(|x| x.keep),
            reason: g.gate.as_ref().map(|x| x.reason),
            gate: g.gate.as_ref().map(|x| x.result.clone()),
            vs_start: g.vs_start.clone(),
            vs_reference: g.vs_reference.clone(),
        })
        .collect()
}

fn signed(x: Option<f64>) -> String {
    x.map_or_else(|| "inf".to_string(), |v| format!("{:+.1}", v + 0.0))
}

/// `+12.3 [-4.5, +29.0] (16 games)`, or `-` for no match.
fn cell(m: Option<&MatchRecord>) -> String {
    match m {
        None => "-".to_string(),
        Some(m) if m.games == 0 => "no games".to_string(),
        Some(m) => {
            // Infinite figures are written `None`; the score tells which infinity: only a
            // score of 1 gives +inf below, only a score of 0 gives -inf above.
            let score = m.score.unwrap_or(0.5);
            let or_inf = |x: Option<f64>, plus: bool| {
                x.map_or_else(
                    || if plus { "+inf" } else { "-inf" }.to_string(),
                    |v| signed(Some(v)),
                )
            };
            let (lo, hi) = m.interval.unwrap_or((None, None));
            format!(
                "{} [{}, {}] ({} games)",
                or_inf(m.elo, score > 0.5),
                or_inf(lo, score >= 1.0),
                or_inf(hi, score > 0.0),
                m.games
            )
        }
    }
}

/// The ladder as a markdown table.
pub fn markdown(rungs: &[Rung], reference: Option<&str>) -> String {
    let mut s = String::from(
        "# Bootstrap ladder\n\nElo of each generation's kept weights (95% interval, \
         pentanomial), paired openings, fixed nodes per move.\n\n",
    );
    let with_ref = reference.is_some();
    s += "| gen | kept | gate: candidate vs previous best | decision | vs gen 0 |";
    if let Some(r) = reference {
        let _ = write!(s, " vs {r} |");
    }
    s += "\n|---|---|---|---|---|";
    if with_ref {
        s += "---|";
    }
    s += "\n";
    for r in rungs {
        let kept = if r.best == 0 {
            "gen 0 (start)".to_string()
        } else {
            format!("gen {} (tuned)", r.best)
        };
        let decision = match (r.keep, r.reason) {
            (Some(Keep::New), Some(why)) => format!("new ({})", why.describe()),
            (Some(Keep::Old), Some(why)) => format!("old ({})", why.describe()),
            _ => "-".to_string(),
        };
        let vs_start = match &r.vs_start {
            None => "0 (itself)".to_string(),
            Some(m) => cell(Some(m)),
        };
        let _ = write!(
            s,
            "| {} | {kept} | {} | {decision} | {vs_start} |",
            r.generation,
            cell(r.gate.as_ref())
        );
        if with_ref {
            let _ = write!(s, " {} |", cell(r.vs_reference.as_ref()));
        }
        s += "\n";
    }
    s
}

/// The ladder as an SVG plot ([`elo_svg`]): Elo against generation 0 (and the reference) by
/// generation, with the 95% intervals as bars. Infinite ends are left out.
pub fn svg(rungs: &[Rung], reference: Option<&str>) -> Result<String, BootstrapError> {
    let point = |x: u32, m: Option<&MatchRecord>| -> Option<EloPoint> {
        let x = f64::from(x);
        let Some(m) = m else {
            return Some(EloPoint {
                x,
                elo: 0.0,
                lower: 0.0,
                upper: 0.0,
            });
        };
        let elo = m.elo?;
        let (lo, hi) = m.interval.unwrap_or((None, None));
        Some(EloPoint {
            x,
            elo,
            lower: lo.unwrap_or(elo),
            upper: hi.unwrap_or(elo),
        })
    };
    let mut series = vec![EloSeries {
        label: "vs gen 0".to_string(),
        points: rungs
            .iter()
            .filter_map(|r| point(r.generation, r.vs_start.as_ref()))
            .collect(),
    }];
    if let Some(name) = reference {
        series.push(EloSeries {
            label: format!("vs {name}"),
            points: rungs
                .iter()
                .filter_map(|r| {
                    r.vs_reference
                        .as_ref()
                        .and_then(|m| point(r.generation, Some(m)))
                })
                .collect(),
        });
    }
    let last = rungs.last().map_or(1, |r| r.generation.max(1));
    elo_svg("Bootstrap ladder", &series, last)
}

/// Writes `ladder.json`, `ladder.md` and `ladder.svg` into `dir` (each atomically).
pub fn write(
    dir: &Path,
    generations: &[Generation],
    reference: Option<&str>,
) -> Result<(), BootstrapError> {
    let rungs = rungs(generations);
    write_json(&dir.join("ladder.json"), &rungs)?;
    write_atomic(&dir.join("ladder.md"), &markdown(&rungs, reference))?;
    write_atomic(&dir.join("ladder.svg"), &svg(&rungs, reference)?)
}
