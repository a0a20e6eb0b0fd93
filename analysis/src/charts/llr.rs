//! The SPRT's log-likelihood ratio as games come in, against its two stopping bounds.

use std::path::Path;

use plotters::prelude::*;

use super::axis;
use super::canvas::{
    Canvas, Drawn, GREY, TAB_GREEN, TAB_RED, caption_font, draw_count_mesh, legend, no_data, render, series_color,
};
use crate::Result;

/// One SPRT's trajectory for [`llr_curve`]: (games played, LLR) points and its bounds (the test
/// accepts H0 at `lower` and H1 at `upper`).
#[derive(Clone, Debug, PartialEq)]
pub struct LlrSeries {
    pub label: String,
    pub points: Vec<(u64, f64)>,
    pub lower: f64,
    pub upper: f64,
}

/// Writes a PNG of LLR against games, one coloured line per series, the games axis starting at
/// zero. The bounds are dashed horizontal lines: when every series has the same bounds, one
/// green (upper, H1) and one red (lower, H0) pair with its values in the legend; otherwise each
/// series' bounds in its own colour.
///
/// Points are drawn in the order given. A point whose LLR is not finite is skipped, as is a bound
/// that is not finite. Without any finite point (or without series) the chart shows the title
/// and "no data".
pub fn llr_curve(path: &Path, title: &str, series: &[LlrSeries]) -> Result<()> {
    render(path, |canvas| {
        if series.iter().any(|s| s.points.iter().any(|(_, llr)| llr.is_finite())) {
            draw(canvas, title, series)
        } else {
            no_data(canvas, title)
        }
    })
}

fn draw(canvas: &Canvas<'_>, title: &str, series: &[LlrSeries]) -> Drawn {
    let finite_points = |s: &LlrSeries| -> Vec<(f64, f64)> {
        s.points.iter().filter(|(_, llr)| llr.is_finite()).map(|&(games, llr)| (games as f64, llr)).collect()
    };
    let x_range = axis::counts(series.iter().flat_map(finite_points).map(|(games, _)| games), Some(0.0));
    let y_values =
        series.iter().flat_map(|s| finite_points(s).into_iter().map(|(_, llr)| llr).chain([s.lower, s.upper]));
    let y_range = axis::padded(y_values.chain([0.0]));
    let (x_start, x_end) = (x_range.start, x_range.end);
    let mut chart = ChartBuilder::on(canvas)
        .caption(title, caption_font())
        .margin(16)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d(x_range, y_range)?;
    draw_count_mesh(&mut chart, "games", "log-likelihood ratio")?;

    let dashed = |value: f64, color: RGBColor| {
        DashedLineSeries::new([(x_start, value), (x_end, value)], 10, 6, color.stroke_width(2))
    };
    let shared_bounds = series
        .windows(2)
        .all(|pair| pair[0].lower.total_cmp(&pair[1].lower).is_eq() && pair[0].upper.total_cmp(&pair[1].upper).is_eq());
    if shared_bounds && let Some(first) = series.first() {
        if first.upper.is_finite() {
            chart
                .draw_series(dashed(first.upper, TAB_GREEN))?
                .label(format!("accept H1 at {:+.2}", first.upper))
                .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], TAB_GREEN.stroke_width(2)));
        }
        if first.lower.is_finite() {
            chart
                .draw_series(dashed(first.lower, TAB_RED))?
                .label(format!("accept H0 at {:+.2}", first.lower))
                .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], TAB_RED.stroke_width(2)));
        }
    }
    chart.draw_series(LineSeries::new([(x_start, 0.0), (x_end, 0.0)], GREY.stroke_width(1)))?;

    for (index, s) in series.iter().enumerate() {
        let color = series_color(index);
        if !shared_bounds {
            for bound in [s.lower, s.upper].into_iter().filter(|bound| bound.is_finite()) {
                chart.draw_series(dashed(bound, color))?;
            }
        }
        let points = finite_points(s);
        // A lone point makes no line: mark it so it is still seen.
        if let [point] = points.as_slice() {
            chart.draw_series([Circle::new(*point, 4, color.filled())])?;
        }
        chart
            .draw_series(LineSeries::new(points, color.stroke_width(2)))?
            .label(s.label.as_str())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2)));
    }
    legend(&mut chart, SeriesLabelPosition::UpperLeft)
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{assert_chart_png, assert_missing_directory_is_reported};
    use super::*;

    fn series(label: &str, points: Vec<(u64, f64)>, lower: f64, upper: f64) -> LlrSeries {
        LlrSeries { label: label.to_string(), points, lower, upper }
    }

    fn rising(games: u64, slope: f64) -> Vec<(u64, f64)> {
        (0..=games).step_by(250).map(|g| (g, slope * g as f64 + (g as f64 / 300.0).sin() * 0.3)).collect()
    }

    #[test]
    fn draws_curves_with_shared_bounds() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("llr.png");
        let all = [
            series("null move pruning", rising(12_000, 0.00025), -2.94, 2.94),
            series("late move reductions", rising(8_000, -0.0003), -2.94, 2.94),
        ];
        llr_curve(&path, "SPRT [0, 5]", &all).expect("chart written");
        assert_chart_png(&path);
    }

    #[test]
    fn draws_curves_with_their_own_bounds() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("own.png");
        let all = [series("a", rising(4_000, 0.0005), -2.94, 2.94), series("b", rising(4_000, 0.0002), -2.25, 2.89)];
        llr_curve(&path, "Two tests", &all).expect("chart written");
        assert_chart_png(&path);
    }

    #[test]
    fn a_single_point_at_zero_games_draws() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("single.png");
        llr_curve(&path, "Just started", &[series("new", vec![(0, 0.0)], -2.94, 2.94)]).expect("chart written");
        assert_chart_png(&path);
    }

    #[test]
    fn non_finite_values_are_skipped_not_fatal() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("nan.png");
        let points = vec![(0, 0.0), (100, f64::NAN), (200, 0.4), (300, f64::INFINITY), (400, 0.9)];
        llr_curve(&path, "Gaps", &[series("gappy", points, f64::NEG_INFINITY, f64::NAN)]).expect("chart written");
        assert_chart_png(&path);
    }

    #[test]
    fn empty_input_writes_a_no_data_chart() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("empty.png");
        llr_curve(&path, "No series", &[]).expect("chart written");
        assert_chart_png(&path);
        llr_curve(&path, "No points", &[series("a", vec![], -2.94, 2.94)]).expect("chart written");
        assert_chart_png(&path);
    }

    #[test]
    fn missing_directory_is_an_error_naming_the_path() {
        assert_missing_directory_is_reported(|path| {
            llr_curve(path, "x", &[series("a", vec![(0, 0.0), (10, 0.1)], -1.0, 1.0)])
        });
    }
}
