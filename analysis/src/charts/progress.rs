//! A tuning run's cumulative Elo over its iterations, with the promoted candidates marked.

use std::path::Path;

use plotters::prelude::*;

use super::axis;
use super::canvas::{Canvas, Drawn, GREY, TAB_BLUE, TAB_GREEN, caption_font, draw_count_mesh, legend, no_data, render};
use crate::Result;

/// One tuning iteration for [`elo_progress`]: the cumulative Elo against the starting point, its
/// 95% interval, and whether this iteration's candidate was promoted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProgressPoint {
    pub iteration: usize,
    pub elo: f64,
    pub lower: f64,
    pub upper: f64,
    pub promoted: bool,
}

/// Writes a PNG of the cumulative Elo against the iteration: a blue line through the estimates,
/// vertical whiskers for the 95% intervals, promoted iterations as larger green triangles, a
/// zero line and a legend.
///
/// Points are sorted by iteration. A point whose Elo is not finite is skipped; a bound that is not
/// finite loses its whisker. Without any finite Elo (or without points) the chart shows the
/// title and "no data".
pub fn elo_progress(path: &Path, title: &str, points: &[ProgressPoint]) -> Result<()> {
    render(path, |canvas| {
        if points.iter().any(|p| p.elo.is_finite()) { draw(canvas, title, points) } else { no_data(canvas, title) }
    })
}

fn draw(canvas: &Canvas<'_>, title: &str, points: &[ProgressPoint]) -> Drawn {
    let mut points: Vec<ProgressPoint> = points.iter().copied().filter(|p| p.elo.is_finite()).collect();
    points.sort_by_key(|p| p.iteration);
    let x_range = axis::counts(points.iter().map(|p| p.iteration as f64), None);
    let (x_start, x_end) = (x_range.start, x_range.end);
    let y_range = axis::padded(points.iter().flat_map(|p| [p.elo, p.lower, p.upper]).chain([0.0]));
    let mut chart = ChartBuilder::on(canvas)
        .caption(title, caption_font())
        .margin(16)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d(x_range, y_range)?;
    draw_count_mesh(&mut chart, "iteration", "Elo against the start")?;
    chart.draw_series(LineSeries::new([(x_start, 0.0), (x_end, 0.0)], GREY.stroke_width(1)))?;

    // Whisker caps a third of the spacing between iterations wide, at most 12 pixels.
    let plot_width = chart.plotting_area().get_pixel_range().0.len() as f64;
    let cap_half_width = (plot_width / points.len() as f64 / 6.0).clamp(1.0, 6.0) as i32;
    let whisker = TAB_BLUE.mix(0.6).stroke_width(1);
    for p in &points {
        let x = p.iteration as f64;
        for bound in [p.lower, p.upper].into_iter().filter(|bound| bound.is_finite()) {
            let (cap_x, cap_y) = chart.backend_coord(&(x, bound));
            chart.draw_series([PathElement::new([(x, p.elo), (x, bound)], whisker)])?;
            canvas
                .draw(&PathElement::new([(cap_x - cap_half_width, cap_y), (cap_x + cap_half_width, cap_y)], whisker))?;
        }
    }

    chart
        .draw_series(
            LineSeries::new(points.iter().map(|p| (p.iteration as f64, p.elo)), TAB_BLUE.stroke_width(2)).point_size(3),
        )?
        .label("cumulative Elo (95% interval)")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], TAB_BLUE.stroke_width(2)));
    chart
        .draw_series(
            points
                .iter()
                .filter(|p| p.promoted)
                .map(|p| TriangleMarker::new((p.iteration as f64, p.elo), 8, TAB_GREEN.filled())),
        )?
        .label("promoted")
        .legend(|(x, y)| TriangleMarker::new((x + 10, y), 7, TAB_GREEN.filled()));
    legend(&mut chart, SeriesLabelPosition::UpperLeft)
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{assert_chart_png, assert_missing_directory_is_reported};
    use super::*;

    fn point(iteration: usize, elo: f64, half_width: f64, promoted: bool) -> ProgressPoint {
        ProgressPoint { iteration, elo, lower: elo - half_width, upper: elo + half_width, promoted }
    }

    #[test]
    fn draws_progress_with_promotions() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("progress.png");
        let points: Vec<_> = (0..15)
            .map(|i| point(i, 4.0 * i as f64 - 6.0 + (i as f64).sin() * 5.0, 8.0 + i as f64, i % 4 == 3))
            .collect();
        elo_progress(&path, "SPSA tuning progress", &points).expect("chart written");
        assert_chart_png(&path);
    }

    #[test]
    fn a_single_iteration_draws() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("single.png");
        elo_progress(&path, "First", &[point(1, 0.0, 0.0, true)]).expect("chart written");
        assert_chart_png(&path);
    }

    #[test]
    fn non_finite_values_are_skipped_not_fatal() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("nan.png");
        let points = [
            point(0, 0.0, 10.0, false),
            ProgressPoint { iteration: 1, elo: f64::NAN, lower: 0.0, upper: 1.0, promoted: true },
            ProgressPoint { iteration: 2, elo: 30.0, lower: 12.0, upper: f64::INFINITY, promoted: true },
            point(3, 25.0, 9.0, false),
        ];
        elo_progress(&path, "Gaps", &points).expect("chart written");
        assert_chart_png(&path);
    }

    #[test]
    fn empty_input_writes_a_no_data_chart() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("empty.png");
        elo_progress(&path, "Nothing tuned", &[]).expect("chart written");
        assert_chart_png(&path);
    }

    #[test]
    fn missing_directory_is_an_error_naming_the_path() {
        assert_missing_directory_is_reported(|path| elo_progress(path, "x", &[point(0, 0.0, 1.0, false)]));
    }
}
