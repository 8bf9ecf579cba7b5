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
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 560)).into_drawing_area();
        let err = |e: &dyn std::fmt::Display| TexelError::Plot(e.to_string());
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 22))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(70)
            .build_cartesian_2d((x0..x1).log_scale(), y0..y1)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_desc(y_label)
            .y_label_formatter(&|v| format!("{v:.4}"))
            .draw()
            .map_err(|e| err(&e))?;
        for (k, (name, points)) in series.iter().enumerate() {
            let colour = COLOURS[k % COLOURS.len()];
            let pts: Vec<(f64, f64)> = points
                .iter()
                .copied()
                .filter(|p| p.0 > 0.0 && p.1.is_finite())
                .collect();
            chart
                .draw_series(LineSeries::new(pts, colour.stroke_width(2)))
                .map_err(|e| err(&e))?
                .label(name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    Ok(svg)
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
