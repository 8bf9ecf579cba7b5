//! SVG line plots of loss curves (plotters).

use std::path::Path;

use plotters::prelude::*;

use crate::TexelError;

/// One curve: a label and its `(x, y)` points.
pub type Series = (String, Vec<(f64, f64)>);

const COLOURS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// Writes an SVG plot of `series` (x on a logarithmic axis) to `path`, as an SVG string.
///
/// ```
/// let s = vec![("a".to_string(), vec![(1.0, 0.3), (10.0, 0.2), (100.0, 0.1)])];
/// let svg = texel::plot::line_plot_svg("loss", "passes", "validation loss", &s).unwrap();
/// assert!(svg.starts_with("<svg"));
/// ```
pub fn line_plot_svg(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
) -> Result<String, TexelError> {
    let pts = series
        .iter()
        .flat_map(|s| s.1.iter())
        .filter(|p| p.0 > 0.0 && p.1.is_finite());
    let (mut x0, mut x1, mut y0, mut y1) = (
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    );
    for &(x, y) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if !x0.is_finite() || !y0.is_finite() {
        return Err(TexelError::Plot("nothing to plot".to_string()));
    }
    if x1 <= x0 {
        x1 = x0 * 10.0;
    }
    let pad = ((y1 - y0) * 0.05).max(1e-6);
    let (y0, y1) = (y0 - pad, y1 + pad);
    render((900, 560), |root| {
        let mut chart = builder(root, title, 70)
            .build_cartesian_2d((x0..x1).log_scale(), y0..y1)
            .map_err(|e| plot_err(&e))?;
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_desc(y_label)
            .y_label_formatter(&|v| format!("{v:.4}"))
            .draw()
            .map_err(|e| plot_err(&e))?;
        for (k, (name, points)) in series.iter().enumerate() {
            let colour = COLOURS[k % COLOURS.len()];
            let pts: Vec<(f64, f64)> = points
                .iter()
                .copied()
                .filter(|p| p.0 > 0.0 && p.1.is_finite())
                .collect();
            chart
                .draw_series(LineSeries::new(pts, colour.stroke_width(2)))
                .map_err(|e| plot_err(&e))?
                .label(name.clone())
                .legend(move |(x, y)| legend_line(x, y, colour, 2));
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight)
    })
}

type Root<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

fn plot_err(e: &dyn std::fmt::Display) -> TexelError {
    TexelError::Plot(e.to_string())
}

/// A white SVG of `size` with what `draw` draws on it, as a string.
fn render(
    size: (u32, u32),
    draw: impl FnOnce(&Root) -> Result<(), TexelError>,
) -> Result<String, TexelError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| plot_err(&e))?;
        draw(&root)?;
        root.present().map_err(|e| plot_err(&e))?;
    }
    Ok(svg)
}

/// The project's chart: title, margins, axis areas (`y_area` wide for the y labels).
fn builder<'a, 'b>(
    root: &'a Root<'b>,
    title: &str,
    y_area: u32,
) -> ChartBuilder<'a, 'b, SVGBackend<'b>> {
    let mut b = ChartBuilder::on(root);
    b.caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(y_area);
    b
}

/// A legend's sample line.
fn legend_line(x: i32, y: i32, colour: RGBColor, width: u32) -> PathElement<(i32, i32)> {
    PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(width))
}

/// Draws the series' legend at `at`.
fn legend<'a, 'b, X, Y>(
    chart: &mut ChartContext<'a, SVGBackend<'b>, Cartesian2d<X, Y>>,
    at: SeriesLabelPosition,
) -> Result<(), TexelError>
where
    'b: 'a,
    X: Ranged,
    Y: Ranged,
{
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(at)
        .draw()
        .map_err(|e| plot_err(&e))
}

/// [`line_plot_svg`] written to `path` (atomically).
pub fn line_plot(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
) -> Result<(), TexelError> {
    let svg = line_plot_svg(title, x_label, y_label, series)?;
    crate::output::write(path, &svg)
}

/// An SVG calibration plot: one point per bin at (mean predicted, mean observed result), its
/// area growing with the bin's positions (the third value), joined in order, over the
/// diagonal a calibrated evaluation would follow. Both axes run from 0 to 1.
///
/// ```
/// let svg = texel::plot::calibration_plot_svg("calibration", &[(0.2, 0.25, 10), (0.7, 0.6, 30)]).unwrap();
/// assert!(svg.starts_with("<svg"));
/// ```
pub fn calibration_plot_svg(
    title: &str,
    points: &[(f64, f64, usize)],
) -> Result<String, TexelError> {
    let pts: Vec<(f64, f64, usize)> = points
        .iter()
        .copied()
        .filter(|p| p.0.is_finite() && p.1.is_finite())
        .collect();
    if pts.is_empty() {
        return Err(TexelError::Plot("nothing to plot".to_string()));
    }
    let most = pts.iter().map(|p| p.2).max().unwrap_or(1).max(1) as f64;
    render((700, 640), |root| {
        let mut chart = builder(root, title, 60)
            .build_cartesian_2d(0.0..1.0, 0.0..1.0)
            .map_err(|e| plot_err(&e))?;
        chart
            .configure_mesh()
            .x_desc("predicted result sigma(q)")
            .y_desc("observed result")
            .draw()
            .map_err(|e| plot_err(&e))?;
        let (grey, blue) = (COLOURS[7], COLOURS[0]);
        chart
            .draw_series(LineSeries::new(
                vec![(0.0, 0.0), (1.0, 1.0)],
                grey.stroke_width(1),
            ))
            .map_err(|e| plot_err(&e))?
            .label("calibrated")
            .legend(move |(x, y)| legend_line(x, y, grey, 1));
        chart
            .draw_series(LineSeries::new(
                pts.iter().map(|p| (p.0, p.1)),
                blue.stroke_width(2),
            ))
            .map_err(|e| plot_err(&e))?
            .label("evaluation bins")
            .legend(move |(x, y)| legend_line(x, y, blue, 2));
        chart
            .draw_series(pts.iter().map(|p| {
                let r = 2.0 + 8.0 * (p.2 as f64 / most).sqrt();
                Circle::new((p.0, p.1), r as i32, blue.filled())
            }))
            .map_err(|e| plot_err(&e))?;
        legend(&mut chart, SeriesLabelPosition::UpperLeft)
    })
}

/// Writes `svg` to `path` (atomically).
pub fn write_svg(path: &Path, svg: &str) -> Result<(), TexelError> {
    crate::output::write(path, svg)
}

/// An SVG of estimates with their 95% intervals (`estimate ± 1.96 SE`), one a row top to
/// bottom: `(label, estimate, SE)`; a vertical line marks 0.
///
/// ```
/// let rows = vec![("a".to_string(), 3.0, 1.0), ("b".to_string(), -0.5, 0.7)];
/// let svg = texel::plot::interval_plot_svg("gains", "gain", &rows).unwrap();
/// assert!(svg.starts_with("<svg"));
/// ```
pub fn interval_plot_svg(
    title: &str,
    x_label: &str,
    rows: &[(String, f64, f64)],
) -> Result<String, TexelError> {
    let rows: Vec<&(String, f64, f64)> = rows
        .iter()
        .filter(|r| r.1.is_finite() && r.2.is_finite())
        .collect();
    if rows.is_empty() {
        return Err(TexelError::Plot("nothing to plot".to_string()));
    }
    let lo = rows.iter().map(|r| r.1 - 1.96 * r.2).fold(0.0, f64::min);
    let hi = rows.iter().map(|r| r.1 + 1.96 * r.2).fold(0.0, f64::max);
    let pad = ((hi - lo) * 0.05).max(1e-9);
    let n = rows.len();
    let height = (120 + 28 * n as u32).min(4000);
    render((900, height), |root| {
        let mut chart = builder(root, title, 240)
            .build_cartesian_2d(lo - pad..hi + pad, -0.5..n as f64 - 0.5)
            .map_err(|e| plot_err(&e))?;
        let label = |y: &f64| {
            let k = (n as f64 - 1.0 - y.round()).max(0.0) as usize;
            if (y - y.round()).abs() < 1e-6 && k < n {
                rows[k].0.clone()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_labels(n.max(2) * 2 - 1)
            .y_label_formatter(&label)
            .draw()
            .map_err(|e| plot_err(&e))?;
        let (grey, blue) = (COLOURS[7], COLOURS[0]);
        let top = n as f64 - 0.5;
        chart
            .draw_series(LineSeries::new(
                vec![(0.0, -0.5), (0.0, top)],
                grey.stroke_width(1),
            ))
            .map_err(|e| plot_err(&e))?;
        for (k, r) in rows.iter().enumerate() {
            let y = (n - 1 - k) as f64;
            let (a, b) = (r.1 - 1.96 * r.2, r.1 + 1.96 * r.2);
            chart
                .draw_series(LineSeries::new(vec![(a, y), (b, y)], blue.stroke_width(2)))
                .map_err(|e| plot_err(&e))?;
            chart
                .draw_series(std::iter::once(Circle::new((r.1, y), 4, blue.filled())))
                .map_err(|e| plot_err(&e))?;
        }
        Ok(())
    })
}
