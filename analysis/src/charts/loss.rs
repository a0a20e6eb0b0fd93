//! The tuner's training and validation loss per epoch.

use std::path::Path;

use plotters::prelude::*;

use super::axis;
use super::canvas::{Canvas, Drawn, TAB_BLUE, TAB_ORANGE, caption_font, draw_count_mesh, legend, no_data, render};
use crate::Result;

/// One epoch's mean squared errors for [`loss_curve`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LossPoint {
    pub epoch: usize,
    pub train: f64,
    pub validation: f64,
}

/// Writes a PNG of the training (blue) and validation (orange) MSE against the epoch, each a
/// line with a dot per epoch, and a legend. The loss axis spans the data, not zero, so that
/// late improvements stay visible.
///
/// Points are sorted by epoch. A loss that is not finite is skipped in its own line only.
/// Without any finite loss (or without points) the chart shows the title and "no data".
pub fn loss_curve(path: &Path, title: &str, points: &[LossPoint]) -> Result<()> {
    render(path, |canvas| {
        if points.iter().any(|p| p.train.is_finite() || p.validation.is_finite()) {
            draw(canvas, title, points)
        } else {
            no_data(canvas, title)
        }
    })
}

fn draw(canvas: &Canvas<'_>, title: &str, points: &[LossPoint]) -> Drawn {
    let mut points = points.to_vec();
    points.sort_by_key(|p| p.epoch);
    let line = |loss: fn(&LossPoint) -> f64| -> Vec<(f64, f64)> {
        points.iter().map(|p| (p.epoch as f64, loss(p))).filter(|(_, loss)| loss.is_finite()).collect()
    };
    let train = line(|p| p.train);
    let validation = line(|p| p.validation);
    let drawn = || train.iter().chain(&validation);

    let x_range = axis::counts(drawn().map(|&(epoch, _)| epoch), None);
    let y_range = axis::padded(drawn().map(|&(_, loss)| loss));
    let mut chart = ChartBuilder::on(canvas)
        .caption(title, caption_font())
        .margin(16)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d(x_range, y_range)?;
    draw_count_mesh(&mut chart, "epoch", "mean squared error")?;

    for (name, color, values) in [("train", TAB_BLUE, &train), ("validation", TAB_ORANGE, &validation)] {
        chart
            .draw_series(LineSeries::new(values.iter().copied(), color.stroke_width(2)).point_size(3))?
            .label(name)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2)));
    }
    legend(&mut chart, SeriesLabelPosition::UpperRight)
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{assert_chart_png, assert_missing_directory_is_reported};
    use super::*;

    fn point(epoch: usize, train: f64, validation: f64) -> LossPoint {
        LossPoint { epoch, train, validation }
    }

    #[test]
    fn draws_both_curves() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("loss.png");
        let points: Vec<_> = (0..40)
            .map(|e| {
                let decay = (-(e as f64) / 8.0).exp();
                point(e, 0.0712 + 0.01 * decay, 0.0725 + 0.0095 * decay)
            })
            .collect();
        loss_curve(&path, "Texel tuning loss", &points).expect("chart written");
        assert_chart_png(&path);
    }

    #[test]
    fn a_single_epoch_with_equal_losses_draws() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("single.png");
        loss_curve(&path, "One epoch", &[point(0, 0.07, 0.07)]).expect("chart written");
        assert_chart_png(&path);
    }

    #[test]
    fn non_finite_losses_are_skipped_not_fatal() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("nan.png");
        let points = [point(2, 0.08, f64::NAN), point(0, f64::INFINITY, 0.09), point(1, 0.075, 0.08)];
        loss_curve(&path, "Gaps", &points).expect("chart written");
        assert_chart_png(&path);
    }

    #[test]
    fn empty_input_writes_a_no_data_chart() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("empty.png");
        loss_curve(&path, "Not started", &[]).expect("chart written");
        assert_chart_png(&path);
        loss_curve(&path, "All NaN", &[point(0, f64::NAN, f64::NAN)]).expect("chart written");
        assert_chart_png(&path);
    }

    #[test]
    fn missing_directory_is_an_error_naming_the_path() {
        assert_missing_directory_is_reported(|path| loss_curve(path, "x", &[point(0, 0.1, 0.1)]));
    }
}
