//! The Elo ladder: each generation's kept weights against generation 0 (and the reference),
//! as `ladder.json`, `ladder.md` and `ladder.svg`.

use std::fmt::Write as _;
use std::path::Path;

use engine::matches::MatchRecord;
use plotters::prelude::*;
use serde::{Deserialize, Serialize};

use crate::gate::{Keep, Reason};
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

/// A plotted point: generation, Elo, lower and upper ends of its interval.
type Point = (f64, f64, f64, f64);

/// The ladder's series: each its label and points; a match without an Elo is left out, a
/// missing match is a point at 0.
fn series(rungs: &[Rung], reference: Option<&str>) -> Vec<(String, Vec<Point>)> {
    let mut series: Vec<(String, Vec<Point>)> = Vec::new();
    let point = |x: u32, m: Option<&MatchRecord>| -> Option<Point> {
        let Some(m) = m else {
            return Some((f64::from(x), 0.0, 0.0, 0.0));
        };
        let elo = m.elo?;
        let (lo, hi) = m.interval.unwrap_or((None, None));
        Some((f64::from(x), elo, lo.unwrap_or(elo), hi.unwrap_or(elo)))
    };
    series.push((
        "vs gen 0".to_string(),
        rungs
            .iter()
            .filter_map(|r| point(r.generation, r.vs_start.as_ref()))
            .collect(),
    ));
    if let Some(name) = reference {
        series.push((
            format!("vs {name}"),
            rungs
                .iter()
                .filter_map(|r| {
                    r.vs_reference
                        .as_ref()
                        .and_then(|m| point(r.generation, Some(m)))
                })
                .collect(),
        ));
    }
    series
}

/// The ladder as an SVG plot: Elo against generation 0 (and the reference) by generation,
/// with the 95% intervals as bars. Infinite ends are left out.
pub fn svg(rungs: &[Rung], reference: Option<&str>) -> Result<String, BootstrapError> {
    let series = series(rungs, reference);
    let all = series.iter().flat_map(|s| s.1.iter());
    let (mut y0, mut y1) = (0.0f64, 0.0f64);
    for &(_, e, lo, hi) in all {
        y0 = y0.min(e).min(lo);
        y1 = y1.max(e).max(hi);
    }
    let pad = ((y1 - y0) * 0.08).max(10.0);
    let (y0, y1) = (y0 - pad, y1 + pad);
    let x1 = rungs.last().map_or(1, |r| r.generation.max(1));
    let mut out = String::new();
    {
        let err = |e: &dyn std::fmt::Display| BootstrapError::Plot(e.to_string());
        let root = SVGBackend::with_string(&mut out, (800, 500)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption("Bootstrap ladder", ("sans-serif", 22))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(60)
            .build_cartesian_2d(-0.3f64..f64::from(x1) + 0.3, y0..y1)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc("generation")
            .y_desc("Elo (95% interval)")
            .x_labels(x1 as usize + 1)
            .x_label_formatter(&|v| format!("{v:.0}"))
            .draw()
            .map_err(|e| err(&e))?;
        let colours = [RGBColor(31, 119, 180), RGBColor(214, 39, 40)];
        for (k, (name, points)) in series.iter().enumerate() {
            let colour = colours[k % colours.len()];
            // Offset the second series a little so the bars do not overlap.
            let dx = k as f64 * 0.08;
            chart
                .draw_series(LineSeries::new(
                    points.iter().map(|p| (p.0 + dx, p.1)),
                    colour.stroke_width(2),
                ))
                .map_err(|e| err(&e))?
                .label(name.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour));
            chart
                .draw_series(
                    points
                        .iter()
                        .map(|p| PathElement::new(vec![(p.0 + dx, p.2), (p.0 + dx, p.3)], colour)),
                )
                .map_err(|e| err(&e))?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    Ok(out)
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
