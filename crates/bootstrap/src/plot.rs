//! An Elo ladder as an SVG plot (plotters): Elo by generation, a line per series, each point's
//! 95% interval as a vertical bar. `tune bootstrap`'s ladder ([`crate::ladder::svg`]) and
//! `tune loop`'s ([`crate::external::ladder_svg`]) draw through it.

use plotters::prelude::*;

use crate::BootstrapError;

/// One point of a series: a generation, its Elo and the ends of its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloPoint {
    /// The generation (the x axis).
    pub x: f64,
    /// The Elo estimate.
    pub elo: f64,
    /// The interval's lower end (the estimate itself where the end is infinite).
    pub lower: f64,
    /// The interval's upper end (the estimate itself where the end is infinite).
    pub upper: f64,
}

/// One line of the plot: its label in the legend and its points, by generation.
#[derive(Clone, Debug, PartialEq)]
pub struct EloSeries {
    /// The legend's label.
    pub label: String,
    /// The points.
    pub points: Vec<EloPoint>,
}

/// The colours of the series, in turn.
const COLOURS: [RGBColor; 3] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
];

/// The plot as SVG text: `title` above, generations 0 to `last` along x, the series' Elo
/// (0 always in range) with their intervals. Series after the first are drawn a little to
/// the right so that their bars do not overlap.
///
/// ```
/// use bootstrap::plot::{elo_svg, EloPoint, EloSeries};
/// let points = vec![
///     EloPoint { x: 0.0, elo: 0.0, lower: 0.0, upper: 0.0 },
///     EloPoint { x: 1.0, elo: 12.0, lower: -3.0, upper: 27.0 },
/// ];
/// let svg = elo_svg("Ladder", &[EloSeries { label: "vs gen 0".into(), points }], 1).unwrap();
/// assert!(svg.starts_with("<svg") && svg.contains("vs gen 0"));
/// ```
pub fn elo_svg(title: &str, series: &[EloSeries], last: u32) -> Result<String, BootstrapError> {
    let (mut y0, mut y1) = (0.0f64, 0.0f64);
    for p in series.iter().flat_map(|s| s.points.iter()) {
        y0 = y0.min(p.elo).min(p.lower);
        y1 = y1.max(p.elo).max(p.upper);
    }
    let pad = ((y1 - y0) * 0.08).max(10.0);
    let (y0, y1) = (y0 - pad, y1 + pad);
    let x1 = last.max(1);
    let err = |e: &dyn std::fmt::Display| BootstrapError::Plot(e.to_string());
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (800, 500)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 22))
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
        for (k, s) in series.iter().enumerate() {
            let colour = COLOURS[k % COLOURS.len()];
            let dx = k as f64 * 0.08;
            chart
                .draw_series(LineSeries::new(
                    s.points.iter().map(|p| (p.x + dx, p.elo)),
                    colour.stroke_width(2),
                ))
                .map_err(|e| err(&e))?
                .label(s.label.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour));
            chart
                .draw_series(s.points.iter().map(|p| {
                    PathElement::new(vec![(p.x + dx, p.lower), (p.x + dx, p.upper)], colour)
                }))
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
